// Progress while a run goes: a cli-progress bar per case on a terminal, one
// line per step otherwise (CI logs).
import cliProgress from 'cli-progress';
import type { CaseProgress } from './capacityCaseRunner.js';
import type { CapacityCase } from './scenarios.js';
import { rampTargets } from './capacityRamp.js';

export function progressFor(testCase: CapacityCase, enabled: boolean): { progress: CaseProgress; done: () => void } {
  const total = rampTargets(testCase.ramp.step, testCase.ramp.max).length;
  if (!enabled) return { progress: {}, done: () => undefined };
  if (!process.stderr.isTTY) {
    return {
      progress: {
        onStep: (step) => process.stderr.write(`[${testCase.id}] ${step.connections} connections: p99 ${step.latency.p99Ms} ms, mean ${step.latency.meanMs} ms, relay ${step.relayCpuCores} cores${step.generatorSaturated ? ' (generator-saturated)' : ''}\n`),
      },
      done: () => undefined,
    };
  }
  const bar = new cliProgress.SingleBar({
    format: '{id} [{bar}] {value}/{total} steps | {phase}',
    stream: process.stderr,
    hideCursor: true,
  }, cliProgress.Presets.shades_classic);
  bar.start(total, 0, { id: testCase.id.padEnd(22), phase: 'starting' });
  return {
    progress: {
      onPhase: (phase) => bar.update({ phase }),
      onStep: (step, index) => bar.update(index + 1, { phase: `${step.connections}: p99 ${step.latency.p99Ms} ms` }),
    },
    done: () => bar.stop(),
  };
}
