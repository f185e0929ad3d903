// A process's memory as Linux's /proc tells it: a "Name:  N kB" line of one of
// its files, in bytes; 0 once the process (or the line) is gone, since a
// sampler races the processes it samples.
import { readFileSync } from 'node:fs';

function kilobyteLine(pid: number, file: string, name: string): number {
  try {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/${file}`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Resident set size (status, VmRSS). */
export const rssBytes = (pid: number): number => kilobyteLine(pid, 'status', 'VmRSS');

/** Proportional set size: shared pages split between their users (smaps_rollup, Pss). */
export const pssBytes = (pid: number): number => kilobyteLine(pid, 'smaps_rollup', 'Pss');
