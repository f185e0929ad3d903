// `npm run fuzz:campaign -w gateway -- --executions 10000000`: the gateway's
// fuzz campaign (its XML readers), one target after another (options: --help).
import { runCampaignCli } from '@lanterna/fuzzer';
import { CRASH_DIR, GATEWAY_FUZZ_TARGETS } from './fuzzTargets.js';

process.exitCode = await runCampaignCli(GATEWAY_FUZZ_TARGETS, process.argv.slice(2), CRASH_DIR);
