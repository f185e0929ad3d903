// What the report says about the machine a run measured.
import os from 'node:os';
import { execFileSync } from 'node:child_process';

export function describeMachine(): { cpus: number; cpuModel: string; kernel: string; node: string; memoryGiB: number; fdLimit: string } {
  let fdLimit = 'unknown';
  try { fdLimit = execFileSync('sh', ['-c', 'echo "$(ulimit -Sn)/$(ulimit -Hn)"'], { encoding: 'utf8' }).trim(); } catch { /* keep unknown */ }
  return {
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    kernel: os.release(),
    node: process.version,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    fdLimit,
  };
}

export function oneMinuteLoad(): number { return Math.round((os.loadavg()[0] ?? 0) * 100) / 100; }
