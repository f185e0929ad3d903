#!/usr/bin/env node
// Flood benchmark (issue 31): the two floods that need no token, at full
// size, against the gateway as deployed (its CLI, default settings, the
// native data plane, TLS) on loopback, with a real display trying to get in
// every second; then the processes' memory under floods that go on for
// minutes. Prints figures; asserts nothing.
//
//   pending    512 data sockets (the default limits.maxPendingSockets) from
//              two addresses, upgraded, then flooding TLS KeyUpdates and
//              never reading (the hostile TLS peer, -upgrade)
//   keyupdate  2,000 connections from eighty addresses (25 each), a request
//              whose headers never end, flooding KeyUpdates, never reading
//   rss        the data plane's and Node's RSS every few seconds under a
//              continuous KeyUpdate flood (both floods above, each
//              connection made again once cut, and RDP servers that flood
//              KeyUpdates and never read), then under a continuous ping
//              flood (relaying displays, and unauthenticated data and
//              control sockets, that ping and never read)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, readdirSync, existsSync, rmSync } from 'node:fs';
import { loadavg, tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Socket } from 'node:net';
import { request as httpsRequest } from 'node:https';
import { Command } from 'commander';
import { WebSocket } from 'ws';
import { allocateFreePort } from '@lanterna/lab';
import { buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';
import { connectControl, openData, startFaultyPeer, type FaultyPeer } from '@lanterna/testkit';

const TOKEN = 'flood-bench-display-token-0123456789';
/** The gateway's defaults this benchmark measures against (gateway/src/config/configSchema.ts). */
const DEFAULTS = { tlsHandshakeMs: 10_000, maxPendingSockets: 512, perSourcePendingSockets: 64, perAddressConnections: 256, helloMs: 5000, httpHeadersMs: 10_000, writeMs: 10_000, maxBacklogBytes: 4 * 1024 * 1024 };

const options = new Command()
  .option('--phases <list>', 'comma-separated: pending, keyupdate, rss', 'pending,keyupdate,rss')
  .option('--workers <n>', 'gateway workers (the default, 0, is one per core)', '1')
  .option('--pending <n>', 'stalled pending data sockets', '512')
  .option('--pending-addresses <n>', 'addresses they come from', '2')
  .option('--keyupdate <n>', 'KeyUpdate-stalled connections', '2000')
  .option('--keyupdate-addresses <n>', 'addresses they come from', '80')
  .option('--rate <n>', 'hostile connections started per second in each flood (0: all at once)', '0')
  .option('--hold-s <n>', 'how long a stalled hostile connection waits to be cut before it counts as held', '30')
  .option('--rss-seconds <n>', 'each RSS window (KeyUpdate flood, then ping flood)', '300')
  .option('--sample-s <n>', 'RSS sampling interval', '5')
  .option('--rss-windows <list>', 'comma-separated: keyupdate, ping', 'keyupdate,ping')
  .option('--rss-keyupdate <n>', 'KeyUpdate-stalled requests in the continuous flood (from --keyupdate-addresses, 25 each by default)', '500')
  .option('--servers <n>', 'displays projected (again and again) to RDP servers that flood KeyUpdates and never read', '4')
  .option('--pingers <n>', 'relaying displays that ping and never read', '8')
  .option('--stranger-pingers <n>', 'unauthenticated sockets that ping and never read (half data, half control)', '32')
  .option('--each', 'print every hostile connection\'s line, not only the figures')
  .parse()
  .opts<{ phases: string; workers: string; pending: string; pendingAddresses: string; keyupdate: string; keyupdateAddresses: string; holdS: string; rate: string; rssSeconds: string; sampleS: string; rssWindows: string; rssKeyupdate: string; servers: string; pingers: string; strangerPingers: string; each?: boolean }>();

const PEER = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'dataplane', 'bin', 'hostile-tls-peer');
const started = performance.now();
const clock = (): string => `${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s`;
const load = (): string => loadavg().map((value) => value.toFixed(2)).join(' ');
const children: ChildProcess[] = [];
process.once('exit', () => { for (const child of children) child.kill('SIGKILL'); });
const sleep = (ms: number): Promise<void> => new Promise((resolve) => { setTimeout(resolve, ms); });
const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const range = <T>(count: number, from: (i: number) => T): T[] => Array.from({ length: count }, (_, i) => from(i));

// ---- the gateway --------------------------------------------------------

interface Gateway { child: ChildProcess; base: string; port: number; ca: string; dir: string; events: Map<string, number> }

async function startGateway(displays: Record<string, unknown>[]): Promise<Gateway> {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-flood-'));
  const port = await allocateFreePort();
  // Defaults but for what the bench needs: loopback, TLS (as deployed), its
  // displays, targets on the test peers' ports (the default allows 3389 only).
  const config = {
    listen: { host: '127.0.0.1', port, tls: true }, workers: Number(options.workers), stateDir: join(dir, 'state'),
    displays, policy: { allowPorts: ['1024-65535'] },
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  console.log(`gateway config (everything else default): ${JSON.stringify({ ...config, displays: `${displays.length} displays` })}`);
  const cli = fileURLToPath(import.meta.resolve('@lanterna/gateway/cli'));
  const child = spawn(process.execPath, [cli, '--config', join(dir, 'config.json')], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const events = new Map<string, number>();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString()).slice(-4000); });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`gateway did not start: ${stderr}`)); }, 30_000);
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.includes('"listening"')) { clearTimeout(timer); resolve(); }
      // what the gateway logged, by kind, for the phases' tallies
      let entry: Record<string, unknown> = {};
      try { entry = JSON.parse(line) as Record<string, unknown>; } catch { /* not JSON */ }
      const code = typeof entry.code === 'string' ? ` ${entry.code}` : (typeof entry.err === 'object' && entry.err !== null && typeof (entry.err as { code?: unknown }).code === 'string' ? ` ${(entry.err as { code: string }).code}` : '');
      const kind = typeof entry.event === 'string' ? entry.event : typeof entry.msg === 'string' ? entry.msg.slice(0, 60) : 'other';
      events.set(`${kind}${code}`, (events.get(`${kind}${code}`) ?? 0) + 1);
    });
  });
  const ca = readFileSync(join(dir, 'state', 'gateway-cert.pem'), 'utf8');
  return { child, base: `wss://127.0.0.1:${port}`, port, ca, dir, events };
}

/** GET from the gateway's admin API (or /metrics) with its admin token: the body, or why not. */
function adminGet(gateway: Gateway, path: string): Promise<string> {
  const token = readFileSync(join(gateway.dir, 'state', 'admin-token'), 'utf8').trim();
  return new Promise((resolve) => {
    const request = httpsRequest({ host: '127.0.0.1', port: gateway.port, path, ca: gateway.ca, headers: { authorization: `Bearer ${token}` }, timeout: 15_000 }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => { body += chunk; }).on('end', () => resolve(`${response.statusCode ?? 0} ${body}`));
    });
    request.on('timeout', () => { request.destroy(new Error('no answer within 15 s')); });
    request.on('error', (error) => resolve(`(${error.message})`));
    request.end();
  });
}

/** What the gateway says of a display that did not get in: its entry, its sessions, Node's event loop. */
async function diagnose(gateway: Gateway, displayId: string): Promise<string> {
  const [displays, sessions, metrics] = await Promise.all([adminGet(gateway, '/v1/admin/displays'), adminGet(gateway, '/v1/admin/sessions'), adminGet(gateway, '/metrics')]);
  const display = /\{[^{}]*"id":"probe"[^{}]*\}/.exec(displays)?.[0] ?? displays.slice(0, 300);
  const mine = sessions.split('},{').filter((entry) => entry.includes(`"displayId":"${displayId}"`)).map((entry) => entry.slice(0, 400));
  const lag = metrics.split('\n').filter((line) => /^nodejs_eventloop_lag_(p99_)?seconds |^lanterna_sessions_active /.test(line)).join(', ');
  return `display: ${display}\n  its sessions: ${mine.join(' | ') || 'none'}\n  ${lag}`;
}

/** The gateway's processes: the CLI's primary, its Node workers, their data planes. */
function processTree(root: number): { pid: number; name: string }[] {
  const parents = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      names.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
      parents.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]));
    } catch { /* gone */ }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i += 1) for (const [pid, parent] of parents) if (parent === tree[i]) tree.push(pid);
  return tree.map((pid, i) => ({ pid, name: i === 0 ? 'node primary' : names.get(pid)?.startsWith('lanterna-datap') ? 'data plane' : names.get(pid) === 'node' ? 'node worker' : names.get(pid) ?? '?' }));
}

/** CPU seconds a process has used (user + system), from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** Who used the CPU from now until the returned function is called. */
function cpuMeter(processes: { name: string; pid: number }[]): () => string {
  const t0 = performance.now();
  const before = processes.map((p) => cpuSeconds(p.pid));
  return () => {
    const seconds = (performance.now() - t0) / 1000;
    return `CPU over ${seconds.toFixed(0)} s: ${processes.map((p, i) => `${p.name} ${(cpuSeconds(p.pid) - (before[i] ?? 0)).toFixed(1)} s (${((cpuSeconds(p.pid) - (before[i] ?? 0)) / seconds).toFixed(2)} cores)`).join(', ')}`;
  };
}

function rssKiB(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

/** Connections the gateway holds from hostile addresses (its side, by TCP state), from /proc/net/tcp. */
function gatewaySideConnections(port: number, hostile: (address: string) => boolean): Map<string, number> {
  const STATES: Record<string, string> = { '01': 'established', '06': 'time-wait', '08': 'close-wait', '04': 'fin-wait1', '05': 'fin-wait2', '09': 'last-ack', '0B': 'closing' };
  const counts = new Map<string, number>();
  const portHex = port.toString(16).toUpperCase().padStart(4, '0');
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 4 || !fields[1]?.endsWith(`:${portHex}`) || fields[3] === '0A') continue;
    const remote = fields[2]?.split(':')[0] ?? '';
    const address = (remote.match(/../g) ?? []).reverse().map((hex) => parseInt(hex, 16)).join('.');
    if (!hostile(address)) continue;
    // inode 0: the gateway closed the socket and the kernel finishes it alone
    const state = `${STATES[fields[3] ?? ''] ?? fields[3] ?? '?'}${fields[9] === '0' ? ' (closed)' : ''}`;
    counts.set(state, (counts.get(state) ?? 0) + 1);
  }
  return counts;
}

/**
 * Each hostile connection as the gateway holds it, from /proc/net/tcp every
 * 100 ms: from the first sight of its socket's inode (accepted: a file
 * descriptor of the data plane's) until that inode is gone (the gateway
 * closed it; the kernel may still finish the connection alone). The inode
 * names one socket, whatever ports are used again. Before the accept a
 * connection has no inode: its wait in the accept queue is timed by its
 * address and port. The peer's own times are later than these when its
 * CPU is short: it notices a cut only at its next write.
 */
class GatewaySideTracker {
  private readonly held = new Map<string, { acceptedMs: number; closedMs?: number }>();
  private readonly queuedSince = new Map<string, number>();
  private readonly queueWaits: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly portHex: string;

  constructor(port: number, private readonly hostile: (address: string) => boolean) {
    this.portHex = port.toString(16).toUpperCase().padStart(4, '0');
  }

  start(): void {
    this.timer = setInterval(() => { this.poll(); }, 100);
  }

  stop(): void {
    clearInterval(this.timer);
    this.poll();
  }

  private poll(): void {
    const now = performance.now();
    const inodes = new Set<string>();
    const queued = new Set<string>();
    for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || !fields[1]?.endsWith(`:${this.portHex}`) || fields[3] === '0A') continue;
      const remote = fields[2] ?? '';
      const address = ((remote.split(':')[0] ?? '').match(/../g) ?? []).reverse().map((hex) => parseInt(hex, 16)).join('.');
      if (!this.hostile(address)) continue;
      const inode = fields[9] ?? '0';
      if (inode !== '0') {
        inodes.add(inode);
        if (!this.held.has(inode)) this.held.set(inode, { acceptedMs: now });
        const since = this.queuedSince.get(remote);
        if (since !== undefined) { this.queueWaits.push(now - since); this.queuedSince.delete(remote); }
      } else if (fields[3] === '01') {
        // established, not yet accepted
        queued.add(remote);
        if (!this.queuedSince.has(remote)) this.queuedSince.set(remote, now);
      }
    }
    for (const [inode, entry] of this.held) if (entry.closedMs === undefined && !inodes.has(inode)) entry.closedMs = now;
    // left the queue without an accept (the client gave up, the kernel dropped it)
    for (const remote of this.queuedSince.keys()) if (!queued.has(remote)) this.queuedSince.delete(remote);
  }

  summary(deadlineMs: number): string {
    const all = [...this.held.values()];
    const held = all.map((e) => (e.closedMs ?? performance.now()) - e.acceptedMs).sort((a, b) => a - b);
    const open = all.filter((e) => e.closedMs === undefined).length;
    const queued = [...this.queueWaits].sort((a, b) => a - b);
    const buckets = [1000, 2000, 5000, 10_000, 15_000, 20_000, 30_000, Infinity];
    const histogram = buckets.map((upTo, i) => `${i === 0 ? '<' : `${(buckets[i - 1] ?? 0) / 1000}–`}${upTo === Infinity ? '' : `${upTo / 1000}`}${upTo === Infinity ? ' s and more' : ' s'}: ${held.filter((ms) => ms < upTo && ms >= (buckets[i - 1] ?? 0)).length}`).join(', ');
    return `the gateway's side (/proc/net/tcp every 100 ms): ${held.length} hostile connections accepted; each held (accepted → its socket closed), ms: p50 ${percentile(held, 50).toFixed(0)}, p95 ${percentile(held, 95).toFixed(0)}, max ${(held.at(-1) ?? NaN).toFixed(0)}; longer than ${deadlineMs} ms: ${held.filter((ms) => ms > deadlineMs).length}; still open: ${open}\n  held: ${histogram}\n  waited in the accept queue (${queued.length} seen there), ms: p50 ${percentile(queued, 50).toFixed(0)}, p95 ${percentile(queued, 95).toFixed(0)}, max ${(queued.at(-1) ?? NaN).toFixed(0)}`;
  }
}

// ---- the hostile TLS peer -----------------------------------------------

interface Connection { local: string; atMs: number; lifeMs: number; handshakeMs: number; upgraded: boolean; stalled: boolean; cut: boolean; cutMs: number; error: string }
interface PeerRun { pid: number; connections: Connection[]; done: Promise<Record<string, unknown>>; stop(): void }

function hostilePeer(args: string[], onLine?: (event: Record<string, unknown>) => void): PeerRun {
  if (!existsSync(PEER)) throw new Error(`the hostile TLS peer is not built (${PEER}): run bash gateway/dataplane/build.sh`);
  const child = spawn(PEER, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const connections: Connection[] = [];
  const done = new Promise<Record<string, unknown>>((resolve) => {
    let last: Record<string, unknown> = { event: 'exited' };
    createInterface({ input: child.stdout }).on('line', (line) => {
      const event = JSON.parse(line) as Record<string, unknown>;
      if (event.event === 'connection') connections.push(event as unknown as Connection);
      if (event.event === 'done') last = event;
      onLine?.(event);
    }).on('close', () => resolve(last));
  });
  return { pid: child.pid ?? 0, connections, done, stop: () => { child.kill('SIGTERM'); } };
}

/** How long the gateway held a connection once it had it: from the end of the TLS handshake to the cut. */
const heldMs = (c: Connection): number => c.lifeMs - c.handshakeMs;

function summarise(label: string, connections: Connection[], deadlines: { readMs: number; writeMs: number; holdMs: number }): void {
  const stalled = connections.filter((c) => c.stalled);
  const cutAfterStall = stalled.filter((c) => c.cut).map((c) => c.cutMs).sort((a, b) => a - b);
  const held = stalled.filter((c) => !c.cut);
  const bound = deadlines.readMs + deadlines.writeMs;
  const late = connections.filter((c) => c.cut && heldMs(c) > bound);
  const failed = connections.filter((c) => !c.stalled && !c.cut && c.error !== '');
  const ranOut = connections.filter((c) => !c.stalled && !c.cut && c.error === '');
  const errors = new Map<string, number>();
  for (const c of failed) {
    const error = c.error.replace(/127\.0\.\d+\.\d+:\d+/g, 'ADDR');
    errors.set(error, (errors.get(error) ?? 0) + 1);
  }
  const handshakes = connections.filter((c) => c.error === '' || c.upgraded).map((c) => c.handshakeMs).sort((a, b) => a - b);
  console.log(`\n${label}: ${connections.length} hostile connections; connect + TLS handshake, ms: p50 ${percentile(handshakes, 50)}, p95 ${percentile(handshakes, 95)}, max ${handshakes.at(-1) ?? NaN}`);
  console.log('| outcome | connections | held by the gateway (handshake done → cut), ms: p50 / p95 / max |');
  console.log('|---|---|---|');
  const row = (name: string, group: Connection[]): void => {
    const sorted = group.map(heldMs).sort((a, b) => a - b);
    console.log(`| ${name} | ${group.length} | ${group.length ? `${percentile(sorted, 50)} / ${percentile(sorted, 95)} / ${sorted.at(-1)}` : '–'} |`);
  };
  row('cut while it was still sending (evicted, or at a read deadline before it stalled)', connections.filter((c) => c.cut && !c.stalled));
  row('stalled (the gateway stopped reading), then cut', stalled.filter((c) => c.cut));
  row(`stalled and still held after ${deadlines.holdMs / 1000} s`, held);
  row('flooded to the end (20 s) and was neither stalled nor cut', ranOut);
  row('never got to flood (refused, or failed at connect, handshake or upgrade)', failed);
  if (cutAfterStall.length) console.log(`stall → cut, ms: p50 ${percentile(cutAfterStall, 50)}, p95 ${percentile(cutAfterStall, 95)}, max ${cutAfterStall.at(-1)} (timeouts.writeMs ${deadlines.writeMs}); later than writeMs: ${cutAfterStall.filter((ms) => ms > deadlines.writeMs).length}`);
  console.log(`held longer than the read deadline + writeMs (${bound} ms): ${late.length}; stalled and never cut: ${held.length}`);
  for (const [error, count] of errors) console.log(`  refused/failed ×${count}: ${error}`);
  const byAddress = new Map<string, Connection[]>();
  for (const c of connections) byAddress.set(c.local, [...(byAddress.get(c.local) ?? []), c]);
  if (byAddress.size <= 4) {
    for (const [address, group] of byAddress) {
      const sorted = group.map(heldMs).sort((a, b) => a - b);
      console.log(`  from ${address}: ${group.length}, held p50 ${percentile(sorted, 50)} / max ${sorted.at(-1)} ms, stalled ${group.filter((c) => c.stalled).length}, cut ${group.filter((c) => c.cut).length}`);
    }
  } else {
    const maxima = [...byAddress.values()].map((group) => Math.max(...group.map(heldMs))).sort((a, b) => a - b);
    console.log(`  ${byAddress.size} addresses; each address's longest hold, ms: min ${maxima[0]}, median ${percentile(maxima, 50)}, max ${maxima.at(-1)}`);
  }
  if (options.each) {
    for (const c of connections) console.log(`  ${c.local} at ${c.atMs} ms: handshake ${c.handshakeMs} ms, then held ${heldMs(c)} ms, upgraded ${c.upgraded}, stalled ${c.stalled}, cut ${c.cut} (${c.cutMs} ms${c.stalled ? ' after the stall' : ' into the flood'})${c.error ? `, ${c.error}` : ''}`);
  }
}

// ---- displays --------------------------------------------------------------

interface Probe { at: number; phase: string; ok: boolean; ms: number; controlMs: number; error: string }

/** A real display, every second: control socket and hello, its session's data socket, the Connection Request, secured and the Confirm. */
class DisplayProbe {
  readonly results: Probe[] = [];
  phase = 'idle';
  quiet = false;
  private readonly diagnosed = new Set<string>();
  private running = true;
  private loop: Promise<void> | undefined;

  constructor(private readonly gateway: Gateway, private readonly displayId: string) {}

  start(): void {
    this.loop = (async () => {
      while (this.running) {
        const at = performance.now();
        const result = await this.once();
        this.results.push(result);
        if (!result.ok && result.error.startsWith('at project') && !this.diagnosed.has(result.phase)) {
          this.diagnosed.add(result.phase);
          console.log(`${clock()} display got no project (${result.phase}); the gateway says:\n  ${await diagnose(this.gateway, this.displayId)}`);
        }
        if (!this.quiet) console.log(`${clock()} display ${result.ok ? `in after ${result.ms.toFixed(0)} ms (control + hello ${result.controlMs.toFixed(0)})` : `NOT in: ${result.error} (${result.ms.toFixed(0)} ms)`}`);
        await sleep(Math.max(0, 1000 - (performance.now() - at)));
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async once(): Promise<Probe> {
    const at = performance.now();
    const phase = this.phase;
    let controlMs = NaN;
    let step = '';
    // What the attempt opened. An attempt given up at the deadline goes on
    // in the background (a socket still in the gateway's accept queue opens
    // later): whatever it opens then is closed at once, or its session
    // would relay on and keep the display booked (no projection for its
    // next control socket while that session lives).
    const opened: { sockets: WebSocket[]; gaveUp: boolean } = { sockets: [], gaveUp: false };
    const hold = (socket: WebSocket): void => {
      opened.sockets.push(socket);
      if (opened.gaveUp) socket.terminate();
    };
    const attempt = (async () => {
      step = 'control socket and hello';
      const control = await connectControl(this.gateway.base, this.displayId, TOKEN, this.gateway.ca);
      hold(control.socket);
      controlMs = performance.now() - at;
      step = 'project';
      const project = await control.next('project', 14_000);
      step = 'data socket';
      const data = await openData(this.gateway.base, String(project.sessionId), String(project.sessionToken), this.gateway.ca);
      hold(data.socket);
      if (opened.gaveUp) return;
      data.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
      step = 'secured';
      await data.queue.nextText('secured', 14_000);
      step = 'the Confirm';
      await data.queue.nextBinary(14_000);
    })();
    const deadline = new Promise<never>((_, reject) => { setTimeout(() => reject(new Error('no way in within 15 s')), 15_000).unref(); });
    try {
      await Promise.race([deadline, attempt]);
      return { at, phase, ok: true, ms: performance.now() - at, controlMs, error: '' };
    } catch (error) {
      return { at, phase, ok: false, ms: performance.now() - at, controlMs, error: `at ${step}: ${error instanceof Error ? error.message : String(error)}` };
    } finally {
      opened.gaveUp = true;
      // the data socket first (opened last): its session ends, and the display's next control socket is projected at once
      for (const socket of [...opened.sockets].reverse()) socket.terminate();
      attempt.catch(() => undefined);
    }
  }
}

/** Counts from several maps, added up, as text. */
function tally(maps: Map<string, number>[]): string {
  const sum = new Map<string, number>();
  for (const map of maps) for (const [key, n] of map) sum.set(key, (sum.get(key) ?? 0) + n);
  return [...sum].map(([key, n]) => `${key} ×${n}`).join('; ') || 'none';
}

function summariseProbes(phase: string, probes: Probe[]): void {
  const mine = probes.filter((probe) => probe.phase === phase);
  const times = mine.filter((probe) => probe.ok).map((probe) => probe.ms).sort((a, b) => a - b);
  console.log(`display during ${phase}: ${times.length} of ${mine.length} attempts got in; time in, ms: p50 ${percentile(times, 50).toFixed(0)}, p95 ${percentile(times, 95).toFixed(0)}, max ${(times.at(-1) ?? NaN).toFixed(0)}`);
  for (const probe of mine.filter((p) => !p.ok)) console.log(`  not in at ${((probe.at - started) / 1000).toFixed(1)} s: ${probe.error}`);
}

/** A display projected again and again to a given target, reading everything: ends of its sessions by error code. */
class ProjectedDisplay {
  readonly ends = new Map<string, number>();
  private running = true;
  private loop: Promise<void> | undefined;

  constructor(private readonly gateway: Gateway, private readonly displayId: string, private readonly pinger: boolean) {}

  start(): void {
    this.loop = (async () => {
      while (this.running) {
        const end = await this.session().catch((error: unknown) => `failed: ${error instanceof Error ? error.message.slice(0, 60) : String(error)}`);
        this.ends.set(end, (this.ends.get(end) ?? 0) + 1);
        await sleep(100);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async session(): Promise<string> {
    const control = await connectControl(this.gateway.base, this.displayId, TOKEN, this.gateway.ca);
    let data: WebSocket | undefined;
    try {
      const project = await control.next('project', 15_000);
      const { socket, queue } = await openData(this.gateway.base, String(project.sessionId), String(project.sessionToken), this.gateway.ca);
      data = socket;
      socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
      await queue.nextText('secured', 15_000);
      if (this.pinger) return await pingUntilClosed(socket, () => queue.closed(600_000).then(endOf));
      // read all the server sends until the session ends
      return endOf(await queue.closed(600_000));
    } finally {
      // a session given up ends with its socket, so that the display's next control socket is projected
      data?.terminate();
      control.socket.terminate();
    }
  }
}

/** How a session ended: the error's code the gateway gave, or the close code. */
function endOf(closed: { code: number; error?: Record<string, unknown> | undefined }): string {
  return typeof closed.error?.code === 'string' ? closed.error.code : `close ${closed.code}`;
}

/** Stops reading (the receive window closes) and pings, never more than 1 MiB waiting on this side, until the socket closes. */
async function pingUntilClosed(socket: WebSocket, closed: () => Promise<string>): Promise<string> {
  (socket as unknown as { _socket: Socket })._socket.pause();
  const ping = Buffer.alloc(125, 0x70);
  const state = { open: true };
  const end = closed().finally(() => { state.open = false; });
  while (state.open && socket.readyState === WebSocket.OPEN) {
    try {
      for (let i = 0; i < 256 && socket.bufferedAmount < 1024 * 1024; i += 1) socket.ping(ping);
    } catch {
      break; // closing
    }
    await sleep(20);
  }
  (socket as unknown as { _socket: Socket })._socket.resume();
  socket.terminate();
  return end;
}

/** Unauthenticated sockets (a data socket before `open`, a control socket before `hello`) that ping and never read, made again as they close. */
function strangerPingers(gateway: Gateway, count: number, addresses: string[]): { ends: Map<string, number>; stop(): Promise<void> } {
  const ends = new Map<string, number>();
  let running = true;
  const loops = range(count, (i) => String(i)).map(async (_, i) => {
    const path = i % 2 === 0 ? '/v1/sessions/stranger/data' : '/v1/displays/probe/control';
    while (running) {
      const end = await new Promise<string>((resolve) => {
        const socket = new WebSocket(`${gateway.base}${path}`, 'lanterna.v1', { ca: gateway.ca, localAddress: addresses[i % addresses.length], perMessageDeflate: false });
        const closed = new Promise<string>((done) => socket.once('close', (code) => done(String(code))));
        socket.once('open', () => { void pingUntilClosed(socket, () => closed).then(resolve); });
        socket.once('unexpected-response', (_request, response) => { resolve(`http ${response.statusCode ?? 0}`); socket.terminate(); });
        socket.once('error', (error) => resolve(`error ${error.message.slice(0, 40)}`));
      });
      const key = `${i % 2 === 0 ? 'data' : 'control'} ${end}`;
      ends.set(key, (ends.get(key) ?? 0) + 1);
      await sleep(100);
    }
  });
  return { ends, stop: async () => { running = false; await Promise.all(loops); } };
}

// ---- memory ----------------------------------------------------------------

interface Series { name: string; pid: number; kib: number[]; seconds: number[] }

/** Least-squares slope, per second. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i += 1) { sxy += ((xs[i] ?? 0) - mx) * ((ys[i] ?? 0) - my); sxx += ((xs[i] ?? 0) - mx) ** 2; }
  return sxx === 0 ? 0 : sxy / sxx;
}

async function sampleRss(gateway: Gateway, label: string, seconds: number, every: number, probe: DisplayProbe, others: { name: string; pid: number }[]): Promise<void> {
  const tree = processTree(gateway.child.pid ?? 0).filter((p) => p.name !== '?');
  const cpu = cpuMeter([...tree, ...others, { name: 'this bench (displays, pingers)', pid: process.pid }]);
  const series: Series[] = tree.map((p) => ({ name: p.name, pid: p.pid, kib: [], seconds: [] }));
  const t0 = performance.now();
  const loads: string[] = [];
  console.log(`\n${label}: RSS every ${every} s for ${seconds} s (${series.map((s) => `${s.name} ${s.pid}`).join(', ')})`);
  for (let tick = 0; (performance.now() - t0) / 1000 <= seconds; tick += 1) {
    const t = (performance.now() - t0) / 1000;
    for (const s of series) { s.kib.push(rssKiB(s.pid)); s.seconds.push(t); }
    const held = gatewaySideConnections(gateway.port, (address) => address !== '127.0.0.1');
    const recent = probe.results.filter((p) => p.at >= performance.now() - every * 1000);
    if (tick % Math.max(1, Math.round(30 / every)) === 0) {
      loads.push(load());
      console.log(`${clock()} ${series.map((s) => `${s.name} ${(s.kib.at(-1) ?? NaN) / 1024 | 0} MiB`).join(', ')}; hostile connections held ${[...held].map(([state, n]) => `${state} ${n}`).join(' ') || '0'}; display ${recent.filter((p) => p.ok).length}/${recent.length} in; load ${load()}`);
    }
    await sleep(Math.max(0, (tick + 1) * every * 1000 - (performance.now() - t0)));
  }
  // "Flat": no growth beyond the noise. After the first minute (the
  // flood's ramp), the least-squares trend over the rest grows by less than
  // the tolerance over the window, and the last minute's mean is less than
  // the tolerance above the second minute's (a fall is flat too); the
  // tolerance is max(8 MiB, 5 % of the mean RSS, twice the samples' spread
  // about the fitted line).
  console.log(`| process | start MiB | max MiB | end MiB | slope after the first minute, MiB/min | fitted growth over the window, MiB | last minute − second minute (means), MiB | peaks: second minute, last minute, MiB | spread about the fit (SD), MiB | flat |`);
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const s of series) {
    const mib = s.kib.map((k) => k / 1024);
    const after = s.seconds.map((t, i) => ({ t, y: mib[i] ?? NaN })).filter((p) => p.t >= 60 && Number.isFinite(p.y));
    const perSecond = slope(after.map((p) => p.t), after.map((p) => p.y));
    const window = (after.at(-1)?.t ?? 0) - (after[0]?.t ?? 0);
    const mean = after.reduce((a, p) => a + p.y, 0) / Math.max(1, after.length);
    // the noise: the samples' spread about the fitted line (a Go heap's sawtooth, mostly)
    const t0fit = after.reduce((a, p) => a + p.t, 0) / Math.max(1, after.length);
    const residualSd = Math.sqrt(after.reduce((a, p) => a + (p.y - (mean + perSecond * (p.t - t0fit))) ** 2, 0) / Math.max(1, after.length - 2));
    const tolerance = Math.max(8, 0.05 * mean, 2 * residualSd);
    const peak = (from: number, to: number): number => Math.max(...after.filter((p) => p.t >= from && p.t < to).map((p) => p.y));
    const minuteMean = (from: number, to: number): number => { const ys = after.filter((p) => p.t >= from && p.t < to).map((p) => p.y); return ys.reduce((a, b) => a + b, 0) / Math.max(1, ys.length); };
    const end = s.seconds.at(-1) ?? 0;
    const drift = minuteMean(end - 60, end + 1) - minuteMean(60, 120);
    const flat = perSecond * window < tolerance && drift < tolerance;
    console.log(`| ${s.name} | ${(mib[0] ?? NaN).toFixed(1)} | ${Math.max(...mib.filter(Number.isFinite)).toFixed(1)} | ${(mib.at(-1) ?? NaN).toFixed(1)} | ${(perSecond * 60).toFixed(2)} | ${(perSecond * window).toFixed(1)} | ${drift.toFixed(1)} | ${peak(60, 120).toFixed(1)}, ${peak(end - 60, end + 1).toFixed(1)} | ${residualSd.toFixed(1)} | ${flat ? 'yes' : 'NO'} (tolerance ${tolerance.toFixed(1)}) |`);
  }
  console.log(`load averages seen (1/5/15 min, every 30 s): ${loads.join(' | ')}`);
  console.log(cpu());
}

// ---- phases ----------------------------------------------------------------

async function floodPhase(gateway: Gateway, probe: DisplayProbe, label: string, args: string[], deadlines: { readMs: number; writeMs: number }, hostile: (address: string) => boolean): Promise<void> {
  console.log(`\n== ${label} (load ${load()}) ==`);
  probe.phase = label;
  const holdMs = Number(options.holdS) * 1000;
  const run = hostilePeer(['client', '-address', `127.0.0.1:${gateway.port}`, '-stall', '1s', '-flood', '20s', '-hold', `${options.holdS}s`, '-each', ...args], (event) => {
    if (event.event === 'flooded') console.log(`${clock()} peer: every connection flooded or stalled (${String(event.stalled)} stalled by then)`);
  });
  const eventsBefore = new Map(gateway.events);
  const tracker = new GatewaySideTracker(gateway.port, hostile);
  tracker.start();
  const cpu = cpuMeter(processTree(gateway.child.pid ?? 0).filter((p) => p.name !== '?'));
  // the peer's CPU, read while it runs (its /proc entry goes with it)
  let peerCpu = 0;
  const peer = { finished: false };
  void run.done.then(() => { peer.finished = true; });
  // the gateway's side, every second, while the peer runs
  const watch = (async () => {
    while (!peer.finished) {
      const held = gatewaySideConnections(gateway.port, hostile);
      peerCpu = Math.max(peerCpu, cpuSeconds(run.pid) || 0);
      console.log(`${clock()} gateway holds from the hostile addresses: ${[...held].map(([state, n]) => `${state} ${n}`).join(', ') || 'none'}; peer lines ${run.connections.length}; load ${load()}`);
      await sleep(1000);
    }
  })();
  const done = await run.done;
  await watch;
  await sleep(3000); // a few more display attempts after the flood
  tracker.stop();
  console.log(`${cpu()}, the hostile peer ≥ ${peerCpu.toFixed(1)} s`);
  console.log(`peer done: ${JSON.stringify(done)}`);
  summarise(label, run.connections, { ...deadlines, holdMs });
  console.log(tracker.summary(DEFAULTS.tlsHandshakeMs + deadlines.readMs + deadlines.writeMs));
  summariseProbes(label, probe.results);
  const logged = [...gateway.events].map(([kind, n]) => [kind, n - (eventsBefore.get(kind) ?? 0)] as const).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]).slice(0, 8);
  console.log(`the gateway logged: ${logged.map(([kind, n]) => `${kind} ×${n}`).join('; ')}`);
}

async function main(): Promise<void> {
  const phases = new Set(options.phases.split(','));
  const openFiles = /Max open files\s+(\d+)/.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? '?';
  console.log(`flood benchmark (issue 31) — ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load ${load()}, open files ${openFiles} (the gateway inherits it; the data plane and the peer, Go, raise theirs to the hard limit)`);
  const echo: FaultyPeer = await startFaultyPeer('echo');
  const servers = Number(options.servers);
  const pingers = Number(options.pingers);
  // RDP servers that flood KeyUpdates and never read (one process: it serves every connection)
  let serverPort = 0;
  const serverEnds = new Map<string, number>();
  const hostileServer = phases.has('rss') && servers > 0 ? hostilePeer(['server', '-stall', '1s', '-flood', '20s', '-hold', '15s'], (event) => {
    if (event.event === 'listening') serverPort = Number(event.port);
    if (event.event === 'done') {
      const key = event.cut === true ? 'cut by the gateway' : event.stalled === true ? 'stalled, not cut within 15 s' : 'flood ran out';
      serverEnds.set(key, (serverEnds.get(key) ?? 0) + 1);
    }
  }) : undefined;
  if (hostileServer) { for (let i = 0; i < 100 && serverPort === 0; i += 1) await sleep(50); }
  const echoTarget = { host: '127.0.0.1', port: echo.port };
  const gateway = await startGateway([
    { id: 'probe', token: TOKEN, autoProject: echoTarget },
    ...range(pingers, (i) => `pinger-${i}`).map((id) => ({ id, token: TOKEN, autoProject: echoTarget })),
    ...(serverPort ? range(servers, (i) => `server-${i}`).map((id) => ({ id, token: TOKEN, autoProject: { host: '127.0.0.1', port: serverPort } })) : []),
  ]);
  const tree = processTree(gateway.child.pid ?? 0);
  console.log(`gateway processes: ${tree.filter((p) => p.name !== '?').map((p) => `${p.name} ${p.pid}`).join(', ')}; relay engine ${tree.some((p) => p.name === 'data plane') ? 'native (the data plane runs)' : 'node (no data plane process!)'}`);
  const probe = new DisplayProbe(gateway, 'probe');
  probe.start();
  await sleep(3000);
  summariseProbes('idle', probe.results);

  const pendingAddresses = range(Number(options.pendingAddresses), (i) => `127.0.0.${i + 2}`);
  const keyupdateAddresses = range(Number(options.keyupdateAddresses), (i) => `127.0.1.${i + 1}`);
  const pendingArgs = ['-local', pendingAddresses.join(','), '-count', options.pending, '-rate', options.rate, '-upgrade', '/v1/sessions/flood/data'];
  const keyupdateArgs = ['-local', keyupdateAddresses.join(','), '-count', options.keyupdate, '-rate', options.rate];
  if (phases.has('pending')) {
    await floodPhase(gateway, probe, `pending-place flood: ${options.pending} data sockets from ${pendingAddresses.length} addresses, upgraded, KeyUpdates, never read`,
      pendingArgs, { readMs: DEFAULTS.helloMs, writeMs: DEFAULTS.writeMs }, (address) => pendingAddresses.includes(address));
  }
  if (phases.has('keyupdate')) {
    await floodPhase(gateway, probe, `KeyUpdate flood: ${options.keyupdate} connections from ${keyupdateAddresses.length} addresses, a request's headers never ending, KeyUpdates, never read`,
      keyupdateArgs, { readMs: DEFAULTS.httpHeadersMs, writeMs: DEFAULTS.writeMs }, (address) => keyupdateAddresses.includes(address));
  }
  if (phases.has('rss')) {
    const seconds = Number(options.rssSeconds);
    const every = Number(options.sampleS);
    probe.quiet = true;
    const windows = new Set(options.rssWindows.split(','));
    // 1. KeyUpdates: both floods above, each connection made again once cut, and the servers
    if (windows.has('keyupdate')) {
      probe.phase = 'continuous KeyUpdate flood';
      const until = ['-until', `${seconds + 5}s`];
      const common = ['client', '-address', `127.0.0.1:${gateway.port}`, '-stall', '1s', '-flood', '20s', '-hold', `${options.holdS}s`, '-each'];
      const rssAddresses = keyupdateAddresses.slice(0, Math.ceil(Number(options.rssKeyupdate) / 25));
      const floods = [hostilePeer([...common, ...pendingArgs, ...until]), hostilePeer([...common, '-local', rssAddresses.join(','), '-count', options.rssKeyupdate, '-rate', options.rate, ...until])];
      const tracker = new GatewaySideTracker(gateway.port, (address) => pendingAddresses.includes(address) || rssAddresses.includes(address));
      tracker.start();
      const serverDisplays = serverPort ? range(servers, (i) => new ProjectedDisplay(gateway, `server-${i}`, false)) : [];
      for (const display of serverDisplays) display.start();
      await sampleRss(gateway, `continuous KeyUpdate flood: ${options.pending} pending data sockets (${pendingAddresses.length} addresses) + ${options.rssKeyupdate} requests (${rssAddresses.length} addresses), each made again once cut, + ${serverDisplays.length} displays projected to servers that flood KeyUpdates`, seconds, every, probe,
        [{ name: 'hostile peer (pending)', pid: floods[0]?.pid ?? 0 }, { name: 'hostile peer (requests)', pid: floods[1]?.pid ?? 0 }, ...(hostileServer ? [{ name: 'hostile servers', pid: hostileServer.pid }] : [])]);
      for (const flood of floods) flood.stop();
      tracker.stop();
      console.log(tracker.summary(DEFAULTS.tlsHandshakeMs + DEFAULTS.httpHeadersMs + DEFAULTS.writeMs));
      await Promise.all(serverDisplays.map((display) => display.stop()));
      const made = floods.map((flood) => flood.connections);
      console.log(`hostile connections made (the peer's view): ${made.map((list) => list.length).join(' + ')}, of which flooded: ${made.flat().filter((c) => c.error === '').length}; still held after the hold: ${made.flat().filter((c) => c.stalled && !c.cut).length}; longest hold ${Math.max(0, ...made.flat().map(heldMs))} ms after the handshake; held longer than the read deadline + writeMs: ${made.flat().filter((c) => c.cut && heldMs(c) > DEFAULTS.httpHeadersMs + DEFAULTS.writeMs).length}; stall → cut over writeMs: ${made.flat().filter((c) => c.stalled && c.cut && c.cutMs > DEFAULTS.writeMs).length}`);
      console.log(`servers' sessions ended: ${tally(serverDisplays.map((d) => d.ends))}; the servers saw: ${tally([serverEnds])}`);
      summariseProbes('continuous KeyUpdate flood', probe.results);
      await sleep(10_000); // the last cut connections end
    }
    // 2. pings
    if (windows.has('ping')) {
      probe.phase = 'continuous ping flood';
      const pingDisplays = range(pingers, (i) => new ProjectedDisplay(gateway, `pinger-${i}`, true));
      for (const display of pingDisplays) display.start();
      const strangers = strangerPingers(gateway, Number(options.strangerPingers), ['127.0.2.1', '127.0.2.2']);
      await sampleRss(gateway, `continuous ping flood: ${pingers} relaying displays + ${options.strangerPingers} unauthenticated sockets (data and control, 2 addresses) that ping and never read`, seconds, every, probe, []);
      await Promise.all([...pingDisplays.map((display) => display.stop()), strangers.stop()]);
      console.log(`relaying pingers' sessions ended: ${tally(pingDisplays.map((d) => d.ends))}`);
      console.log(`unauthenticated pingers closed: ${tally([strangers.ends])}`);
      summariseProbes('continuous ping flood', probe.results);
    }
  }
  await probe.stop();
  hostileServer?.stop();
  gateway.child.kill('SIGTERM');
  await new Promise((resolve) => gateway.child.once('exit', resolve));
  rmSync(gateway.dir, { recursive: true, force: true });
  await echo.close();
  console.log(`\ndone in ${clock()}, load ${load()}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
