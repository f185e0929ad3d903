// CPU and memory of a process and all its descendants, from /proc: the
// gateway's cluster workers and websockify's per-connection children count
// toward the relay. cutime/cstime keep the CPU of children that already exited.
//
// A process's own CPU comes from its threads' schedstat (nanoseconds), not
// from utime/stime: those are whole clock ticks per process, and a hundred
// websockify children each under a tick in a 2 s window added up to zero.
import { readdirSync, readFileSync } from 'node:fs';
import { pssBytes } from './procMemory.js';

const CLOCK_TICKS_PER_SECOND = 100;
const NS_PER_TICK = 1e9 / CLOCK_TICKS_PER_SECOND;

export interface ProcessTreeSample {
  atMs: number;
  /** The tree's CPU so far; compare two samples with cpuSecondsBetween. */
  cpuSeconds: number;
  usageByPid: ReadonlyMap<number, ProcessCpu>;
  /** Proportional set size summed over the tree (shared pages split fairly). */
  memoryBytes: number;
  processes: number;
}

interface ProcessCpu { ownNs: number; reapedChildrenNs: number }

interface StatFields { state: string; ppid: number; ownTicks: number; reapedChildrenTicks: number }

function readStat(pid: number): StatFields | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // fields after the command name, which may itself contain spaces and ')'
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const field = (n: number): number => Number(fields[n - 3] ?? 0);
    return { state: fields[0] ?? '', ppid: field(4), ownTicks: field(14) + field(15), reapedChildrenTicks: field(16) + field(17) };
  } catch {
    return undefined;
  }
}

/** Run time of the process's live threads in ns, or undefined where schedstat is not offered. */
function readThreadsNs(pid: number): number | undefined {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    }
    return Number.isFinite(ns) ? ns : undefined;
  } catch {
    return undefined;
  }
}

/** The live direct children of pid (a killed child not yet reaped, a zombie, is not counted). */
export function childrenOf(pid: number): number[] {
  return descendantsOf([pid]).filter((candidate) => {
    const stat = readStat(candidate);
    return stat?.ppid === pid && stat.state !== 'Z';
  });
}

/** pid's direct children as "pid state", for a message that must say what was there. */
export function describeChildren(pid: number): string {
  return descendantsOf([pid]).flatMap((candidate) => {
    const stat = readStat(candidate);
    return stat?.ppid === pid ? [`${candidate} ${stat.state}`] : [];
  }).join(', ') || 'none';
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
  let totalNs = 0;
  let memoryBytes = 0;
  const usageByPid = new Map<number, ProcessCpu>();
  for (const pid of descendantsOf(rootPids)) {
    const stat = readStat(pid);
    if (!stat) continue;
    // one source per process: mixing them would move a sample by up to a tick
    const ownNs = readThreadsNs(pid) ?? stat.ownTicks * NS_PER_TICK;
    const usage = { ownNs, reapedChildrenNs: stat.reapedChildrenTicks * NS_PER_TICK };
    usageByPid.set(pid, usage);
    totalNs += usage.ownNs + usage.reapedChildrenNs;
    if (withMemory) memoryBytes += pssBytes(pid);
  }
  return { atMs: performance.now(), cpuSeconds: totalNs / 1e9, usageByPid, memoryBytes, processes: usageByPid.size };
}

/**
 * CPU seconds the tree used between two samples, process by process: a
 * process that exits inside the window takes its time with it (until its
 * parent reaps it), so a difference of the totals could come out below zero.
 */
export function cpuSecondsBetween(before: ProcessTreeSample, after: ProcessTreeSample): number {
  let ns = 0;
  for (const [pid, usage] of after.usageByPid) {
    const earlier = before.usageByPid.get(pid);
    ns += Math.max(0, usage.ownNs - (earlier?.ownNs ?? 0)) + Math.max(0, usage.reapedChildrenNs - (earlier?.reapedChildrenNs ?? 0));
  }
  return ns / 1e9;
}

/** Average cores used between two samples (1.0 = one core busy). */
export function coresBetween(before: ProcessTreeSample, after: ProcessTreeSample): number {
  const wallSeconds = (after.atMs - before.atMs) / 1000;
  return wallSeconds > 0 ? cpuSecondsBetween(before, after) / wallSeconds : 0;
}
