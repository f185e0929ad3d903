// Chromium is many processes (zygotes, renderers, GPU, utilities). When the
// browser is relaunched, every one of them must go, including those a
// crashed or killed browser left behind: its process group and every
// descendant by parent links (a child that called setsid leaves the group).
import { readdirSync, readFileSync } from 'node:fs';

interface ProcRow {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly zombie: boolean;
}

function readRow(pid: number): ProcRow | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name may hold spaces and parentheses: fields start after the last ')'
    const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state === undefined || ppid === undefined || pgid === undefined) return undefined;
    return { pid, ppid: Number(ppid), pgid: Number(pgid), zombie: state === 'Z' };
  } catch {
    return undefined; // ended while we looked
  }
}

function procTable(): ProcRow[] {
  const rows: ProcRow[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const row = readRow(Number(name));
    if (row !== undefined) rows.push(row);
  }
  return rows;
}

/** Live processes of `root`'s family: its process group and all descendants. */
export function liveFamily(root: number, known: ReadonlySet<number> = new Set()): number[] {
  const table = procTable();
  const family = new Set<number>([root, ...known]);
  for (const row of table) if (row.pgid === root) family.add(row.pid);
  let grew = true;
  while (grew) {
    grew = false;
    for (const row of table) {
      if (!family.has(row.pid) && family.has(row.ppid)) {
        family.add(row.pid);
        grew = true;
      }
    }
  }
  return table.filter((row) => !row.zombie && family.has(row.pid)).map((row) => row.pid);
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
