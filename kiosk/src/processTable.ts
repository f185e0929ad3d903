// A snapshot of /proc, the fields that tracking a process family needs, and
// a process family in it. The
// kiosk's supervisor (processFamily.ts: Chromium's processes) and the test
// lab (subpath export `@lanterna/kiosk/processTable`: the servers it starts)
// both read it here.
import { readdirSync, readFileSync } from 'node:fs';

/** One row of /proc. */
export interface ProcEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  /** One-letter state from /proc/PID/stat; 'Z' is a zombie (dead, not reaped). */
  readonly state: string;
}

/** The process's row; undefined once it has ended. */
export function readProcEntry(pid: number): ProcEntry | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // ended while we looked
  }
  // the command name (field 2) may hold spaces and parentheses: fields start after the last ')'
  const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (state === undefined || ppid === undefined || pgid === undefined) return undefined;
  return { pid, state, ppid: Number(ppid), pgid: Number(pgid) };
}

/** A snapshot of every process on the machine. */
export function readProcTable(): ProcEntry[] {
  const entries: ProcEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const entry = readProcEntry(Number(name));
    if (entry !== undefined) entries.push(entry);
  }
  return entries;
}

/**
 * The live processes of `root`'s family in `table`: `root`, those in `known`,
 * its process group, and every descendant of any of them by parent links (a
 * child that called setsid leaves the group, not its parent). Zombies are
 * left out: they can no longer do anything.
 */
export function liveFamilyIn(table: readonly ProcEntry[], root: number, known: Iterable<number> = []): number[] {
  const family = new Set<number>([root, ...known]);
  for (const entry of table) if (entry.pgid === root) family.add(entry.pid);
  let grew = true;
  while (grew) {
    grew = false;
    for (const entry of table) {
      if (!family.has(entry.pid) && family.has(entry.ppid)) {
        family.add(entry.pid);
        grew = true;
      }
    }
  }
  return table.filter((entry) => entry.state !== 'Z' && family.has(entry.pid)).map((entry) => entry.pid);
}
