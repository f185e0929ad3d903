// Jazzer.js entry for the PDU framer (`npx jazzer gateway/fuzz/pduFramer.fuzz.mjs`
// after `npx tsc -b gateway`). The invariant lives in src/rdp/fuzz/framerFuzzTarget.ts,
// where the test suite also runs it under fast-check.
export { fuzzPduFramer as fuzz } from '../dist/rdp/fuzz/framerFuzzTarget.js';
