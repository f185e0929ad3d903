// Runs a list of scenarios one after another and assembles the report.
import { capacityCases, findScenario, type ScenarioOverrides } from './scenarios.js';
import { runCapacityCase, type RunSettings } from './capacityCaseRunner.js';
import { progressFor } from './runProgress.js';
import { describeMachine, oneMinuteLoad } from './machineInfo.js';
import { runThroughput } from './throughputRun.js';
import { runLongFatNetwork } from './longFatNetwork.js';
import type { RunReport } from './runReport.js';
import { runChaos, type ChaosOptions } from './chaosRun.js';
import { runSoak, type SoakOptions } from './soakRun.js';

export interface RunPlan {
  scenarios: string[];
  overrides: ScenarioOverrides;
  settings: RunSettings;
  throughputSeconds: number;
  lfnBufferBytes: number[];
  lfnSeconds: number;
  showProgress: boolean;
  command: string;
  chaos?: ChaosOptions | undefined;
  soak?: SoakOptions | undefined;
}

export async function executePlan(plan: RunPlan): Promise<RunReport> {
  const report: RunReport = {
    startedAt: new Date().toISOString(),
    finishedAt: '',
    command: plan.command,
    machine: describeMachine(),
    budgetMs: plan.settings.budgetMs,
    loadAverage: { start: oneMinuteLoad(), end: 0 },
    capacity: [],
    throughput: [],
    longFatNetwork: [],
    chaos: [],
    soak: [],
  };
  for (const name of plan.scenarios) {
    const scenario = findScenario(name);
    if (scenario.kind === 'capacity') {
      for (const testCase of capacityCases(name, plan.overrides, plan.settings.cpus)) {
        const { progress, done } = progressFor(testCase, plan.showProgress);
        try {
          report.capacity.push(await runCapacityCase(testCase, plan.settings, progress));
        } finally {
          done();
        }
      }
    } else if (scenario.kind === 'chaos') {
      if (!plan.chaos) throw new Error('the chaos scenario needs its options');
      report.chaos.push(...await runChaos(plan.chaos));
    } else if (scenario.kind === 'soak') {
      if (!plan.soak) throw new Error('the soak scenario needs its options');
      report.soak.push(await runSoak(plan.soak));
    } else if (scenario.kind === 'throughput') {
      report.throughput.push(...await runThroughput({ seconds: plan.throughputSeconds, cpus: plan.settings.cpus }));
    } else {
      report.longFatNetwork.push(...await runLongFatNetwork({ bufferBytes: plan.lfnBufferBytes, seconds: plan.lfnSeconds, rttMs: 250 }));
    }
  }
  report.loadAverage.end = oneMinuteLoad();
  report.finishedAt = new Date().toISOString();
  return report;
}
