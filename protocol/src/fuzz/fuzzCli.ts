// `npm run fuzz:campaign -w protocol -- --executions 10000000`: the protocol
// package's fuzz campaign, one target after another (options: --help).
import { runCampaignCli } from '@lanterna/fuzzer';
import { CRASH_DIR, PROTOCOL_FUZZ_TARGETS } from './fuzzTargets.js';

process.exitCode = await runCampaignCli(PROTOCOL_FUZZ_TARGETS, process.argv.slice(2), CRASH_DIR);
