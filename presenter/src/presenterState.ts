// What the presenter CLI keeps between runs, in $XDG_STATE_HOME/lanterna-present
// (else ~/.local/state/lanterna-present): the gateways' certificates seen first
// (trust on first use, like ssh), the presentation running now (so `stop`
// finds it), and the shadow server's home (its certificate stays the same, so
// the gateway's own first-use pin of this computer keeps matching).
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface CurrentPresentation {
  readonly pid: number;
  readonly shadowPid?: number | undefined;
  readonly projector: string;
  /** The interface for an IPv6 link-local projector address. */
  readonly zone?: string | undefined;
  readonly sessionId: string;
  /** What ends the projection (the ConnectResponse's lp:StopToken); the file is 0600 in a 0700 directory. */
  readonly stopToken?: string | undefined;
  readonly display: string;
}

export function presenterStateDir(): string {
  const dir = process.env.LANTERNA_PRESENT_STATE ?? join(process.env.XDG_STATE_HOME ?? join(homedir(), '.local', 'state'), 'lanterna-present');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

function writeJson(path: string, value: unknown): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, path);
}

function readJson(path: string): unknown {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

export function readCurrent(dir: string): CurrentPresentation | undefined {
  return readJson(join(dir, 'current.json')) as CurrentPresentation | undefined;
}

export function writeCurrent(dir: string, current: CurrentPresentation): void {
  writeJson(join(dir, 'current.json'), current);
}

export function clearCurrent(dir: string, pid: number): void {
  if (readCurrent(dir)?.pid === pid) rmSync(join(dir, 'current.json'), { force: true });
}

/** The certificate fingerprint first seen for each gateway (host:port). */
export function knownGateways(dir: string): Record<string, string> {
  return (readJson(join(dir, 'known-gateways.json')) as Record<string, string> | undefined) ?? {};
}

export function rememberGateway(dir: string, key: string, fingerprint: string): void {
  writeJson(join(dir, 'known-gateways.json'), { ...knownGateways(dir), [key]: fingerprint });
}
