import type { FuzzTarget } from '../fuzzTarget.js';
import { nestedBranches } from './nestedBranches.js';

export const fuzzTarget: FuzzTarget = {
  name: 'nested-branches',
  checks: 'test target: a planted bug behind nested branches with one outcome',
  maxInputBytes: 64,
  corpusExtension: '.bin',
  execute: nestedBranches,
};
