// Runs one target's campaign: the loop in a worker thread, a watchdog on the
// main thread that calls an input a hang when the worker's execution counter
// stops for longer than the per-input deadline (then ends the worker, keeps
// the input and starts a fresh worker where the old one stopped), findings
// saved to the corpus when asked, crashes written beside it for triage.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { WorkerInput, WorkerMessage } from './campaignWorker.js';
import { contentName, corpusSize, readCorpus, saveEntry } from './corpusStore.js';
import type { CampaignTargetSpec } from './fuzzTarget.js';
import type { LoopStats } from './fuzzLoop.js';

export interface CampaignOptions {
  readonly executions: number;
  readonly timeLimitMs?: number;
  readonly seed: number;
  /** Instrument the modules under test and steer by coverage. */
  readonly coverage: boolean;
  /** Save new inputs (new coverage or a new outcome), trimmed, to the corpus folder. */
  readonly saveCorpus: boolean;
  /** An input that runs longer than this is a hang. */
  readonly deadlineMs: number;
  /** Crashing inputs go to `<crashDir>/<target>/`. */
  readonly crashDir: string;
  /** Memory cap of the worker: an input that needs more is a crash. */
  readonly maxMemoryMb?: number;
  readonly log?: (line: string) => void;
}

export interface CampaignCrash {
  readonly kind: 'exception' | 'hang' | 'worker-died';
  readonly key: string;
  readonly file: string;
}

export interface CampaignReport {
  readonly target: string;
  readonly checks: string;
  readonly executions: number;
  readonly seconds: number;
  readonly executionsPerSecond: number;
  /** Inputs that crashed, hung or killed the worker (all of them, not only distinct ones). */
  readonly crashes: number;
  readonly distinctCrashes: readonly CampaignCrash[];
  readonly corpusFiles: number;
  readonly corpusBytes: number;
  readonly saved: number;
  readonly probes: number;
  readonly probesHit: number;
  readonly outcomes: number;
  readonly slowestMs: number;
  readonly seed: number;
  /** `file.js:line` of the blocks no input reached (with coverage on). */
  readonly uncovered: readonly string[];
}

const MAX_RESTARTS = 5;
const SLOT_BYTES = 1 << 20;

export async function runCampaign(spec: CampaignTargetSpec, options: CampaignOptions): Promise<CampaignReport> {
  const log = options.log ?? (() => undefined);
  let corpus = readCorpus(spec.corpusDir).map((entry) => entry.bytes);
  const control = new Int32Array(new SharedArrayBuffer(12));
  const slot = new Uint8Array(new SharedArrayBuffer(SLOT_BYTES));
  const found: Uint8Array[] = [];
  const distinctCrashes: CampaignCrash[] = [];
  const started = performance.now();
  let checks = '';
  let extension = '.bin';
  let executions = 0;
  let crashes = 0;
  let saved = 0;
  let last: LoopStats | undefined;
  let slowestMs = 0;
  let uncovered: readonly string[] = [];

  const keepCrash = (kind: CampaignCrash['kind'], key: string, input: Uint8Array, error: string): void => {
    const dir = join(options.crashDir, spec.name);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, contentName(`crash-${kind}`, input, extension));
    writeFileSync(file, input);
    writeFileSync(`${file}.txt`, `${key}\n\n${error}\n`);
    if (!distinctCrashes.some((crash) => crash.key === key)) distinctCrashes.push({ kind, key, file });
    log(`${spec.name}: ${kind} ${key} (input kept in ${file})`);
  };

  for (let restart = 0; executions < options.executions && restart <= MAX_RESTARTS; restart++) {
    Atomics.store(control, 0, executions);
    Atomics.store(control, 2, 0);
    const input: WorkerInput = {
      spec,
      seed: (options.seed + restart) | 0,
      executions: options.executions,
      timeLimitMs: options.timeLimitMs === undefined ? undefined : Math.max(1, options.timeLimitMs - (performance.now() - started)),
      startAt: executions,
      coverage: options.coverage,
      trim: options.saveCorpus,
      corpus,
      found,
      control,
      input: slot,
    };
    const worker = new Worker(new URL('./campaignWorker.js', import.meta.url), {
      workerData: input,
      resourceLimits: { maxOldGenerationSizeMb: options.maxMemoryMb ?? 1024 },
    });
    let ready = false;
    let setupFailure: Error | undefined;
    const ended = await new Promise<'done' | 'hang' | 'died'>((resolve) => {
      let seen = executions;
      let changedAt = performance.now();
      let settled = false;
      const settle = (how: 'done' | 'hang' | 'died'): void => {
        if (settled) return;
        settled = true;
        clearInterval(watchdog);
        resolve(how);
      };
      const watchdog = setInterval(() => {
        const now = performance.now();
        const current = Atomics.load(control, 0);
        if (current !== seen || Atomics.load(control, 2) === 0) {
          seen = current;
          changedAt = now;
        } else if (now - changedAt > options.deadlineMs) {
          settle('hang');
        }
      }, Math.max(10, Math.min(100, options.deadlineMs / 4)));
      worker.on('message', (message: WorkerMessage) => {
        switch (message.kind) {
          case 'ready':
            ready = true;
            checks = message.checks;
            extension = message.extension;
            break;
          case 'progress':
            last = message.stats;
            log(`${spec.name}: ${message.stats.executions} executions, ${message.stats.poolSize} inputs, ${message.stats.probesHit}/${message.stats.probes} probes, ${message.stats.outcomes} outcomes`);
            break;
          case 'finding':
            found.push(message.finding.input);
            if (options.saveCorpus) {
              saveEntry(spec.corpusDir, 'found', message.finding.input, extension);
              saved++;
            }
            break;
          case 'crash':
            keepCrash('exception', message.crash.key, message.crash.input, message.crash.error);
            break;
          case 'done':
            last = message.stats;
            uncovered = message.uncovered;
            settle('done');
            break;
        }
      });
      worker.on('error', (error) => {
        if (!ready) {
          setupFailure = error;
          settle('died');
          return;
        }
        const current = slot.slice(0, Atomics.load(control, 1));
        keepCrash('worker-died', `${error.name}: ${error.message}`, current, error.stack ?? error.message);
        settle('died');
      });
      worker.on('exit', () => settle('died'));
    });
    if (setupFailure) throw new Error(`the ${spec.name} campaign could not start: ${setupFailure.message}`, { cause: setupFailure });
    if (last) slowestMs = Math.max(slowestMs, last.slowestMs);
    if (ended === 'done' && last) {
      crashes += last.crashes;
      executions = last.executions;
      await worker.terminate();
      break;
    }
    const stoppedAt = Atomics.load(control, 0);
    const current = slot.slice(0, Atomics.load(control, 1));
    // A corpus entry that hangs or kills the worker would do it again on the next worker's replay.
    corpus = corpus.filter((entry) => !Buffer.from(entry).equals(current));
    if (ended === 'hang') {
      keepCrash('hang', `no answer within ${options.deadlineMs} ms`, current, `execution ${stoppedAt + 1} ran past the deadline`);
      slowestMs = Math.max(slowestMs, options.deadlineMs);
    }
    crashes += (last?.crashes ?? 0) + 1;
    // The hanging or fatal input counts as executed; the next worker starts after it.
    executions = stoppedAt + 1;
    last = undefined;
    await worker.terminate();
  }

  const seconds = (performance.now() - started) / 1000;
  const size = corpusSize(spec.corpusDir);
  return {
    target: spec.name,
    checks,
    executions,
    seconds: Math.round(seconds * 10) / 10,
    executionsPerSecond: Math.round(executions / seconds),
    crashes,
    distinctCrashes,
    corpusFiles: size.files,
    corpusBytes: size.bytes,
    saved,
    probes: last?.probes ?? 0,
    probesHit: last?.probesHit ?? 0,
    outcomes: last?.outcomes ?? 0,
    slowestMs,
    seed: options.seed,
    uncovered,
  };
}
