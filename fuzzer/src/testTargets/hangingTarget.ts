import type { FuzzTarget } from '../fuzzTarget.js';

/** Test target: loops forever on inputs that start with "HANG". */
export const fuzzTarget: FuzzTarget = {
  name: 'hanging',
  checks: 'test target: an input that never returns',
  maxInputBytes: 64,
  corpusExtension: '.bin',
  execute(input) {
    if (new TextDecoder().decode(input.subarray(0, 4)) === 'HANG') for (;;);
    return input.length > 2 ? 'long' : 'short';
  },
};
