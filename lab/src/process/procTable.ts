import { readFileSync } from 'node:fs';
// /proc is read as the kiosk's supervisor reads it (one reader of its format)
import { liveFamilyIn, readProcEntry, readProcTable, type ProcEntry } from '@lanterna/kiosk/processTable';

/** Whether a process is running (a zombie counts as gone: it can no longer do anything). */
export function isAlive(pid: number): boolean {
  const entry = readProcEntry(pid);
  return entry !== undefined && entry.state !== 'Z';
}

/**
 * Live processes that belong to `root`: its process group, and every
 * descendant by parent links (which catches children that called setsid).
 */
export function liveFamily(root: number, table: readonly ProcEntry[] = readProcTable()): number[] {
  return liveFamilyIn(table, root);
}

/** Live processes whose environment holds `NAME=value` exactly. */
export function pidsWithEnv(name: string, value: string): number[] {
  const needle = `${name}=${value}`;
  const found: number[] = [];
  for (const entry of readProcTable()) {
    if (entry.state === 'Z') continue;
    try {
      const env = readFileSync(`/proc/${entry.pid}/environ`, 'utf8').split('\0');
      if (env.includes(needle)) found.push(entry.pid);
    } catch { /* ended, or not ours to read */ }
  }
  return found;
}

/** Live processes running with real uid `uid`. */
export function pidsOfUser(uid: number): number[] {
  const found: number[] = [];
  for (const entry of readProcTable()) {
    if (entry.state === 'Z') continue;
    try {
      const status = readFileSync(`/proc/${entry.pid}/status`, 'utf8');
      const realUid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
      if (realUid !== undefined && Number(realUid) === uid) found.push(entry.pid);
    } catch { /* ended while we looked */ }
  }
  return found;
}
