// Machine-wide use of each CPU between two samples of /proc/stat: tells "the
// relay ran out of CPU" from "its core was taken by something else". `nice`
// is time of niced processes (other workers' builds run at nice 10 here),
// `softirq` the kernel's packet processing, which no process is charged for,
// `steal` time the hypervisor gave to other guests.
import { readFileSync } from 'node:fs';

interface CpuCounters { busy: number; total: number; nice: number; softirq: number; steal: number }
export type CpuTimes = CpuCounters[];
export interface CpuUse { busy: number; nice: number; softirq: number; steal: number }

export function sampleCpuTimes(): CpuTimes {
  const times: CpuTimes = [];
  for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
    const match = /^cpu(\d+) (.*)$/.exec(line);
    if (!match) continue;
    // user nice system idle iowait irq softirq steal
    const fields = (match[2] ?? '').trim().split(/\s+/).map(Number);
    const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    times[Number(match[1])] = { busy: total - idle, total, nice: fields[1] ?? 0, softirq: fields[6] ?? 0, steal: fields[7] ?? 0 };
  }
  return times;
}

export function useBetween(before: CpuTimes, after: CpuTimes): CpuUse[] {
  const share = (value: number, total: number): number => (total > 0 ? Math.round((value / total) * 1000) / 1000 : 0);
  return after.map((end, cpu) => {
    const start = before[cpu] ?? { busy: 0, total: 0, nice: 0, softirq: 0, steal: 0 };
    const total = end.total - start.total;
    return { busy: share(end.busy - start.busy, total), nice: share(end.nice - start.nice, total), softirq: share(end.softirq - start.softirq, total), steal: share(end.steal - start.steal, total) };
  });
}
