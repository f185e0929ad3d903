// Runs throughputClientMain as a child (optionally inside a namespace) and
// reads its JSON result, with a deadline.
import { fileURLToPath } from 'node:url';
import { ManagedProcess } from './managedProcess.js';

const CLIENT_MAIN = fileURLToPath(new URL('./throughputClientMain.js', import.meta.url));

export interface ThroughputMeasurement { bytes: number; seconds: number; megabytesPerSecond: number }

export async function measureThroughput(args: string[], options: { prefix?: string[]; cpus?: string | undefined; timeoutMs: number }): Promise<ThroughputMeasurement> {
  const prefix = options.prefix ?? [];
  let result: ThroughputMeasurement | undefined;
  const child = new ManagedProcess('throughput-client', {
    command: prefix[0] ?? process.execPath,
    args: [...prefix.slice(1), ...(prefix.length > 0 ? [process.execPath] : []), CLIENT_MAIN, ...args],
    cpus: options.cpus,
    onLine: (line) => { if (line.startsWith('{')) result = JSON.parse(line) as ThroughputMeasurement; },
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`throughput client gave no result within ${options.timeoutMs} ms`)), options.timeoutMs);
      child.child.once('exit', () => { clearTimeout(timer); resolve(); });
    });
  } finally {
    await child.stop(2000);
  }
  if (!result) throw new Error(`throughput client failed: ${child.recentOutput().slice(-500)}`);
  return result;
}
