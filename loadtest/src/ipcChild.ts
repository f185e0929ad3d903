// A child process the coordinator talks to with messages: started as a
// ManagedProcess (pinned, niced, in its own group), its messages queued so
// the coordinator can wait for the next one of a type with a deadline. A Node
// child uses Node's IPC channel; a native one (the Go generator) reads one
// JSON message per line on stdin and answers likewise on stdout.
import { ManagedProcess } from './managedProcess.js';

/** A native child that speaks JSON lines on stdin/stdout. */
export interface JsonLinesCommand { command: string; args: string[]; batchScheduling?: boolean }

export class IpcChild<Incoming extends { type: string }, Outgoing> {
  private readonly inbox: Incoming[] = [];
  private waiter: (() => void) | undefined;
  readonly process: ManagedProcess;
  private readonly write: (message: Outgoing) => void;

  /** `main`: a Node script (Node IPC), or a native command (JSON lines). */
  constructor(name: string, main: string | JsonLinesCommand, cpus: string | undefined, niceness?: string) {
    const receive = (message: Incoming): void => {
      this.inbox.push(message);
      this.waiter?.();
    };
    if (typeof main === 'string') {
      this.process = new ManagedProcess(name, { command: process.execPath, args: [main], cpus, niceness, ipc: true });
      this.process.child.on('message', receive);
      this.write = (message) => { this.process.child.send(message as object); };
    } else {
      this.process = new ManagedProcess(name, {
        command: main.command, args: main.args, cpus, niceness, stdinPipe: true, batchScheduling: main.batchScheduling === true,
        onStdoutLine: (line) => {
          if (line.trim() === '') return;
          try {
            receive(JSON.parse(line) as Incoming);
          } catch {
            process.stderr.write(`[${name}] unreadable line: ${line.slice(0, 200)}\n`);
          }
        },
      });
      const stdin = this.process.child.stdin;
      if (!stdin) throw new Error(`${name} has no stdin pipe`);
      // the child may be gone before we notice: its exit is reported by next()
      stdin.on('error', () => { /* EPIPE after the child exited */ });
      this.write = (message) => { stdin.write(`${JSON.stringify(message)}\n`); };
    }
    this.process.child.on('exit', () => this.waiter?.());
  }

  post(message: Outgoing): void { this.write(message); }

  async next<T extends Incoming['type']>(type: T, timeoutMs: number): Promise<Extract<Incoming, { type: T }>> {
    return this.nextOf([type], timeoutMs);
  }

  /** The next message of any of `types`, in arrival order. */
  async nextOf<T extends Incoming['type']>(types: readonly T[], timeoutMs: number): Promise<Extract<Incoming, { type: T }>> {
    const deadline = Date.now() + timeoutMs;
    const type = types.join(' or ');
    for (;;) {
      const index = this.inbox.findIndex((message) => (types as readonly string[]).includes(message.type));
      if (index >= 0) return this.inbox.splice(index, 1)[0] as Extract<Incoming, { type: T }>;
      if (!this.process.isAlive()) throw new Error(`${this.process.name} exited while waiting for ${type}\n${this.process.recentOutput()}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${this.process.name} sent no ${type} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => { clearTimeout(timer); resolve(); };
      });
      this.waiter = undefined;
    }
  }
}

/**
 * A pool of children is started when each has said `ready` (within 15 s):
 * when one is late or dies first, the whole pool is stopped and the error
 * goes on.
 */
export async function poolWhenReady<Pool extends { stop(): Promise<void> }>(
  pool: Pool,
  children: readonly { next(type: 'ready', timeoutMs: number): Promise<unknown> }[],
): Promise<Pool> {
  try {
    await Promise.all(children.map((child) => child.next('ready', 15_000)));
  } catch (error) {
    await pool.stop();
    throw error;
  }
  return pool;
}
