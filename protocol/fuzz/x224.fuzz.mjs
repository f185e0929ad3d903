// Jazzer.js entry for the X.224 Connection Request/Confirm parsers; see pduFramer.fuzz.mjs.
export { fuzzX224 as fuzz } from '../dist/fuzz/x224FuzzTarget.js';
