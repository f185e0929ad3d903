// @lanterna/fuzzer: test-only. A small coverage-guided fuzzer for the pure
// parsers; each package declares its targets and corpus folders and runs
// them with runCampaignCli (benchmark) or runShortFuzz (suite).
export { ByteMutator, concat } from './byteMutator.js';
export { CAMPAIGN_USAGE, reportTable, runCampaignCli } from './campaignCli.js';
export { runCampaign, type CampaignCrash, type CampaignOptions, type CampaignReport } from './campaignRunner.js';
export { contentName, corpusSize, readCorpus, saveEntry, type CorpusEntry } from './corpusStore.js';
export { CoverageFeedback, type Novelty } from './coverageFeedback.js';
export { COVERAGE_GLOBAL, instrumentModule, type InstrumentedModule } from './coverageInstrumenter.js';
export { runFuzzLoop, type Crash, type Finding, type FuzzLoopOptions, type LoopStats } from './fuzzLoop.js';
export { dictionaryBytes, invariant, textFuzzTarget, type CampaignTargetSpec, type FuzzTarget, type TextFuzzTargetSpec } from './fuzzTarget.js';
export { SeededRandom } from './seededRandom.js';
export { assertShortFuzz, describeCrashes, runShortFuzz, type ShortRunResult } from './shortRun.js';
