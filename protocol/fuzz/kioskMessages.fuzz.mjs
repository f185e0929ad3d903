// Jazzer.js entry for the kiosk message readers; see pduFramer.fuzz.mjs.
import { fuzzTarget } from '../dist/fuzz/kioskMessagesFuzzTarget.js';

export function fuzz(data) {
  fuzzTarget.execute(data);
}
