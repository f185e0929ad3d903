// `npm -w protocol run fuzz -- [seconds per target] [seed]`: a longer fuzz
// run than the test suite's, printing runs per target and the seed to replay.
import { FUZZ_TARGETS, FuzzFailure, runCampaign } from './fuzzCampaign.js';

const seconds = Number(process.argv[2] ?? 60);
const seed = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
if (!Number.isFinite(seconds) || seconds <= 0) {
  console.error(`seconds must be a positive number, got ${process.argv[2] ?? ''}`);
  process.exit(2);
}
for (const target of FUZZ_TARGETS) {
  try {
    const result = runCampaign(target, seconds * 1000, seed);
    console.log(JSON.stringify(result));
  } catch (error) {
    if (!(error instanceof FuzzFailure)) throw error;
    console.error(error.message);
    process.exitCode = 1;
  }
}
