// Jazzer.js entry for the PDU framer (`npx jazzer protocol/fuzz/pduFramer.fuzz.mjs`
// after `npx tsc -b`). The invariant lives in
// src/fuzz/framerFuzzTarget.ts, where the campaign and the test suite run it too.
export { fuzzPduFramer as fuzz } from '../dist/fuzz/framerFuzzTarget.js';
