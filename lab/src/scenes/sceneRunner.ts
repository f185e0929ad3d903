import { writeFileSync } from 'node:fs';
import { runOnce, startChild, type SupervisedChild } from '../process/childSupervisor.js';
import type { ScenePlan } from './scenePlan.js';

/** A scene on a display; stop() ends its programs (the picture it drew may stay). */
export interface RunningScene {
  readonly name: string;
  stop(): Promise<void>;
}

export interface SceneRunnerContext {
  env: Record<string, string>;
  logPathFor(component: string): string;
}

const STEP_TIMEOUT_MS = 20_000;

/** Writes the plan's files and runs its steps in order, each with its readiness check and deadline. */
export async function runScenePlan(plan: ScenePlan, context: SceneRunnerContext): Promise<RunningScene> {
  for (const file of plan.files) writeFileSync(file.path, file.content, { mode: 0o644 });
  const daemons: SupervisedChild[] = [];
  const stop = async (): Promise<void> => {
    for (const child of daemons.reverse()) await child.stop();
  };
  try {
    for (const step of plan.steps) {
      const spec = {
        component: step.component,
        command: step.command,
        args: step.args,
        env: context.env,
        logPath: context.logPathFor(step.component),
        readyTimeoutMs: STEP_TIMEOUT_MS,
      };
      if (step.lifetime === 'once') {
        await runOnce({ ...spec, timeoutMs: STEP_TIMEOUT_MS, okExitCodes: step.okExitCodes ?? [0] });
      } else {
        daemons.push(await startChild({ ...spec, ready: step.ready }));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { name: plan.name, stop };
}
