// Starts the pipe baseline relay (pipeRelayMain.ts) as its own pinned process
// and waits for its "listening" line.
import { fileURLToPath } from 'node:url';
import { ManagedProcess } from './managedProcess.js';

const PIPE_MAIN = fileURLToPath(new URL('./pipeRelayMain.js', import.meta.url));

export interface PipeRelayInstance { url: string; process: ManagedProcess; stop(): Promise<void> }

export async function startPipeRelayProcess(options: { targetPort: number; cpus?: string | undefined; nodeOptions?: string[] | undefined }): Promise<PipeRelayInstance> {
  let announce: (port: number) => void = () => undefined;
  const announced = new Promise<number>((resolve) => { announce = resolve; });
  const child = new ManagedProcess('pipe-relay', {
    command: process.execPath,
    args: [...(options.nodeOptions ?? []), PIPE_MAIN, '--target-port', String(options.targetPort)],
    cpus: options.cpus,
    onLine: (line) => {
      if (!line.startsWith('{')) return;
      const parsed = JSON.parse(line) as { msg?: string; port?: number };
      if (parsed.msg === 'listening' && parsed.port !== undefined) announce(parsed.port);
    },
  });
  let timer: NodeJS.Timeout | undefined;
  const failed = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`pipe relay did not listen within 20 s\n${child.recentOutput()}`)), 20_000);
    child.child.once('exit', () => reject(new Error(`pipe relay exited\n${child.recentOutput()}`)));
  });
  failed.catch(() => { /* observed through the race; later exits are expected */ });
  try {
    const port = await Promise.race([announced, failed]);
    return { url: `ws://127.0.0.1:${port}/`, process: child, stop: () => child.stop() };
  } catch (error) {
    await child.stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
