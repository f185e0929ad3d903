// A Node child process the coordinator talks to over IPC: started as a
// ManagedProcess (pinned, niced, in its own group), its messages queued so
// the coordinator can wait for the next one of a type with a deadline.
import { ManagedProcess } from './managedProcess.js';

export class IpcChild<Incoming extends { type: string }, Outgoing> {
  private readonly inbox: Incoming[] = [];
  private waiter: (() => void) | undefined;
  readonly process: ManagedProcess;

  constructor(name: string, main: string, cpus: string | undefined) {
    this.process = new ManagedProcess(name, { command: process.execPath, args: [main], cpus, ipc: true });
    this.process.child.on('message', (message: Incoming) => {
      this.inbox.push(message);
      this.waiter?.();
    });
    this.process.child.on('exit', () => this.waiter?.());
  }

  post(message: Outgoing): void { this.process.child.send(message as object); }

  async next<T extends Incoming['type']>(type: T, timeoutMs: number): Promise<Extract<Incoming, { type: T }>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.inbox.findIndex((message) => message.type === type);
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
