// The coordinator's side of the generator processes: starts them pinned to
// the load CPUs, spreads displays over them, and gathers each window's reports.
// Either generator (Node's generatorMain.ts or the Go one) takes the same
// messages and sends the same reports.
import { fileURLToPath } from 'node:url';
import { IpcChild, poolWhenReady } from './ipcChild.js';
import type { CoordinatorMessage, DisplayAssignment, GeneratorMessage, RelayTarget, WindowReport } from './generatorProtocol.js';
import type { TrafficPattern } from './trafficPattern.js';
import { GO_GENERATOR_BINARY, toGoMessage, type GeneratorKind } from './goGenerator.js';

const GENERATOR_MAIN = fileURLToPath(new URL('./generatorMain.js', import.meta.url));

type GeneratorHandle = IpcChild<GeneratorMessage, object>;

export interface OpenResult { opened: number; failed: number; firstError: string | undefined }

async function awaitOpened(generator: GeneratorHandle, stallTimeoutMs: number): Promise<Extract<GeneratorMessage, { type: 'opened' }>> {
  let tried = 0;
  let lastChange = Date.now();
  for (;;) {
    const left = lastChange + stallTimeoutMs - Date.now();
    if (left <= 0) throw new Error(`${generator.process.name} opened no connection for ${stallTimeoutMs} ms (${tried} tried)`);
    const message = await generator.nextOf(['opened', 'open-progress'], left);
    if (message.type === 'opened') return message;
    if (message.opened + message.failed !== tried) {
      tried = message.opened + message.failed;
      lastChange = Date.now();
    }
  }
}

export class GeneratorPool {
  private target: RelayTarget | undefined;

  private constructor(private readonly generators: GeneratorHandle[], readonly kind: GeneratorKind) {}

  static async start(count: number, cpus: string | undefined, kind: GeneratorKind = 'node'): Promise<GeneratorPool> {
    // the Go generator shares its CPU with the Go echo host: both under SCHED_BATCH (managedProcess.ts)
    const main = kind === 'go' ? { command: GO_GENERATOR_BINARY, args: [], batchScheduling: true } : GENERATOR_MAIN;
    const generators: GeneratorHandle[] = Array.from({ length: count }, (_unused, index) => new IpcChild(`generator-${index}`, main, cpus));
    return poolWhenReady(new GeneratorPool(generators, kind), generators);
  }

  pids(): number[] { return this.generators.map((generator) => generator.process.pid); }

  private post(generator: GeneratorHandle, message: CoordinatorMessage): void {
    generator.post(this.kind === 'go' ? toGoMessage(message, this.target) : message);
  }

  configure(target: RelayTarget, pattern: TrafficPattern, connectConcurrency: number, connectTimeoutMs: number): void {
    this.target = target;
    for (const generator of this.generators) this.post(generator, { type: 'configure', target, pattern, connectConcurrency, connectTimeoutMs });
  }

  /**
   * Opens the displays, round-robin over the generators; resolves when all
   * tried. Fails only when a generator's count of tried connections stands
   * still for `stallTimeoutMs`: on a starved machine a large step opens
   * slowly but steadily, and each connection has its own deadline anyway.
   */
  async open(displays: DisplayAssignment[], stallTimeoutMs: number): Promise<OpenResult> {
    const shares: DisplayAssignment[][] = this.generators.map(() => []);
    displays.forEach((display, index) => shares[index % shares.length]?.push(display));
    this.generators.forEach((generator, index) => this.post(generator, { type: 'open', displays: shares[index] ?? [] }));
    const replies = await Promise.all(this.generators.map((generator) => awaitOpened(generator, stallTimeoutMs)));
    return {
      opened: replies.reduce((sum, reply) => sum + reply.opened, 0),
      failed: replies.reduce((sum, reply) => sum + reply.failed, 0),
      firstError: replies.find((reply) => reply.firstError !== undefined)?.firstError,
    };
  }

  beginWindow(): void { for (const generator of this.generators) this.post(generator, { type: 'begin-window' }); }

  async endWindow(): Promise<WindowReport[]> {
    for (const generator of this.generators) this.post(generator, { type: 'end-window' });
    return Promise.all(this.generators.map((generator) => generator.next('window', 30_000)));
  }

  async closeAll(): Promise<void> {
    for (const generator of this.generators) this.post(generator, { type: 'close-all' });
    await Promise.all(this.generators.map((generator) => generator.next('closed', 30_000).catch(() => undefined)));
  }

  async stop(): Promise<void> {
    await Promise.all(this.generators.map((generator) => generator.process.stop(3000)));
  }
}
