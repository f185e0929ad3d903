// CPU and memory of a process and all its descendants, from /proc: the
// gateway's cluster workers and websockify's per-connection children count
// toward the relay. cutime/cstime keep the CPU of children that already exited.
import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100;

export interface ProcessTreeSample {
  atMs: number;
  cpuSeconds: number;
  /** Proportional set size summed over the tree (shared pages split fairly). */
  memoryBytes: number;
  processes: number;
}

interface StatFields { ppid: number; cpuTicks: number }

function readStat(pid: number): StatFields | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // fields after the command name, which may itself contain spaces and ')'
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const field = (n: number): number => Number(fields[n - 3] ?? 0);
    return { ppid: field(4), cpuTicks: field(14) + field(15) + field(16) + field(17) };
  } catch {
    return undefined;
  }
}

function readPssBytes(pid: number): number {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export function descendantsOf(rootPids: readonly number[]): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (!stat) continue;
    const list = children.get(stat.ppid) ?? [];
    list.push(Number(name));
    children.set(stat.ppid, list);
  }
  const all: number[] = [];
  const queue = [...rootPids];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    all.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return all;
}

export function sampleProcessTree(rootPids: readonly number[], withMemory = true): ProcessTreeSample {
  let ticks = 0;
  let memoryBytes = 0;
  let processes = 0;
  for (const pid of descendantsOf(rootPids)) {
    const stat = readStat(pid);
    if (!stat) continue;
    processes += 1;
    ticks += stat.cpuTicks;
    if (withMemory) memoryBytes += readPssBytes(pid);
  }
  return { atMs: performance.now(), cpuSeconds: ticks / CLOCK_TICKS_PER_SECOND, memoryBytes, processes };
}

/** Average cores used between two samples (1.0 = one core busy). */
export function coresBetween(before: ProcessTreeSample, after: ProcessTreeSample): number {
  const wallSeconds = (after.atMs - before.atMs) / 1000;
  return wallSeconds > 0 ? Math.max(0, after.cpuSeconds - before.cpuSeconds) / wallSeconds : 0;
}
