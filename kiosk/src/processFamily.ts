// Chromium is many processes (zygotes, renderers, GPU, utilities). When the
// browser is relaunched, every one of them must go, including those a
// crashed or killed browser left behind: its process group and every
// descendant by parent links (a child that called setsid leaves the group).
import { readFileSync } from 'node:fs';
import { liveFamilyIn, readProcTable } from './processTable.js';

/** Live processes of `root`'s family: its process group and all descendants. */
export function liveFamily(root: number, known: ReadonlySet<number> = new Set()): number[] {
  return liveFamilyIn(readProcTable(), root, known);
}

/** Descendants of `root` whose command line contains `needle` (e.g. Chromium's "--type=renderer"). */
export function familyMembersWith(root: number, needle: string): number[] {
  return liveFamily(root).filter((pid) => {
    try {
      // Chromium rewrites its children's command lines into one space-separated string
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(needle);
    } catch {
      return false;
    }
  });
}

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch { /* already gone */ }
}

/** SIGKILL to the group and every descendant, until none is alive or the deadline passes; returns those still alive. */
export async function killFamily(root: number, deadlineMs = 5000): Promise<number[]> {
  const seen = new Set(liveFamily(root));
  const end = Date.now() + deadlineMs;
  for (;;) {
    const alive = liveFamily(root, seen);
    for (const pid of alive) seen.add(pid);
    if (alive.length === 0) return [];
    signalQuietly(-root, 'SIGKILL');
    for (const pid of alive) signalQuietly(pid, 'SIGKILL');
    if (Date.now() > end) return alive;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
