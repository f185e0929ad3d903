// Which process holds each TCP connection, read from /proc: the chaos run
// learns, independently of the gateway, which displays' sockets live in the
// worker it is about to kill (a socket's peer endpoint is the display's
// local address and port). Linux only, same network namespace.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface TcpEndpoint { address: string; port: number }

export interface TcpSocketEntry { local: TcpEndpoint; remote: TcpEndpoint; inode: number }

export const endpointKey = (endpoint: TcpEndpoint): string => `${endpoint.address}:${endpoint.port}`;

/** The inodes of a process's sockets (its fd links `socket:[N]`); empty for a process that is gone. */
export function socketInodes(pid: number): Set<number> {
  const inodes = new Set<number>();
  let fds: string[];
  try { fds = readdirSync(`/proc/${pid}/fd`); } catch { return inodes; }
  for (const fd of fds) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match?.[1]) inodes.add(Number(match[1]));
    } catch { /* closed meanwhile */ }
  }
  return inodes;
}

/** A /proc/net/tcp{,6} address: hex words in host (little-endian) order, then the port in hex. */
export function parseProcEndpoint(text: string): TcpEndpoint {
  const [hex = '', portHex = '0'] = text.split(':');
  const bytes: number[] = [];
  for (let word = 0; word < hex.length; word += 8) {
    const value = Number.parseInt(hex.slice(word, word + 8), 16);
    bytes.push(value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff, value >>> 24);
  }
  const port = Number.parseInt(portHex, 16);
  if (bytes.length === 4) return { address: bytes.join('.'), port };
  const mappedV4 = bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mappedV4) return { address: bytes.slice(12).join('.'), port };
  const groups = Array.from({ length: 8 }, (_unused, index) => (((bytes[index * 2] ?? 0) << 8) | (bytes[index * 2 + 1] ?? 0)).toString(16));
  return { address: groups.join(':'), port };
}

export function parseProcNetTcp(text: string): TcpSocketEntry[] {
  const entries: TcpSocketEntry[] = [];
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10 || fields[1] === undefined || fields[2] === undefined) continue;
    entries.push({ local: parseProcEndpoint(fields[1]), remote: parseProcEndpoint(fields[2]), inode: Number(fields[9]) });
  }
  return entries;
}

function readTable(file: string): TcpSocketEntry[] {
  try { return parseProcNetTcp(readFileSync(file, 'utf8')); } catch { return []; }
}

/** Peer endpoint ("address:port") → the pid, of `pids`, that holds the connection. */
export function ownersByPeer(pids: readonly number[]): Map<string, number> {
  const byInode = new Map<number, number>();
  for (const pid of pids) for (const inode of socketInodes(pid)) byInode.set(inode, pid);
  const owners = new Map<string, number>();
  for (const entry of [...readTable('/proc/net/tcp'), ...readTable('/proc/net/tcp6')]) {
    const pid = entry.inode === 0 ? undefined : byInode.get(entry.inode);
    if (pid !== undefined) owners.set(endpointKey(entry.remote), pid);
  }
  return owners;
}
