// Bench, not in the suite (issue 31, finding 3): strangers with no token try
// to hold every pending-WebSocket place of a gateway at its defaults
// (limits.maxPendingSockets 512 in each pool, the control sockets' in Node
// and the data sockets' in the data plane): two addresses on each pool, each
// with its whole perAddressConnections (256), re-opening each socket a
// little after the gateway closes it, while a display connects again and
// again and opens a session. Prints whether the displays got in and how
// long, and how long the strangers' places stayed held and how they ended.
//
//   npx tsc -b loadtest && node loadtest/dist/pendingFlood.js [--seconds 30] [--per-address 256] [--reopen-ms 250]
import { parseArgs } from 'node:util';
import { WebSocket } from 'ws';
import { buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';
import { connectControl, openData, startFaultyPeer, startGatewayProcess, withDeadline } from '@lanterna/testkit';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '30' }, 'per-address': { type: 'string', default: '256' }, 'reopen-ms': { type: 'string', default: '250' } } });
const SECONDS = Number(values.seconds);
/** Sockets each stranger keeps trying to hold (256: its whole perAddressConnections). */
const PER_ADDRESS = Number(values['per-address']);
const REOPEN_MS = Number(values['reopen-ms']);
/** Two strangers on each pool. */
const STRANGERS: [string, string][] = [
  ['127.0.0.2', '/v1/displays/room-0/control'], ['127.0.0.3', '/v1/displays/room-0/control'],
  ['127.0.0.4', '/v1/sessions/abc/data'], ['127.0.0.5', '/v1/sessions/abc/data'],
];
const ADMIN = 'admin-token-0123456789abcdef';
const TOKEN = 'display-token-0123456789';
const DISPLAYS = 4;

interface Tally { opened: number; refused: Map<number, number>; closes: Map<number, number>; heldMs: number[]; open: number; mostOpen: number }

function bump(map: Map<number, number>, key: number): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `n ${sorted.length}, p50 ${percentile(sorted, 50).toFixed(0)} ms, p99 ${percentile(sorted, 99).toFixed(0)} ms, max ${(sorted.at(-1) ?? NaN).toFixed(0)} ms`;
}

const echo = await startFaultyPeer('echo');
const gateway = await startGatewayProcess({
  adminToken: ADMIN,
  certificates: { mode: 'insecure' },
  displays: Array.from({ length: DISPLAYS }, (_, i) => ({ id: `room-${i}`, token: TOKEN })),
});
const url = gateway.httpUrl.replace(/^http/, 'ws');
const deadline = Date.now() + SECONDS * 1000;
const running = (): boolean => Date.now() < deadline;

const tallies = new Map<string, Tally>();
function strangerSocket(from: string, path: string): void {
  const key = `${from} ${path.includes('control') ? 'control' : 'data'}`;
  const tally: Tally = tallies.get(key) ?? { opened: 0, refused: new Map<number, number>(), closes: new Map<number, number>(), heldMs: [], open: 0, mostOpen: 0 };
  tallies.set(key, tally);
  const socket = new WebSocket(`${url}${path}`, 'lanterna.v1', { localAddress: from });
  let openedAt: number | undefined;
  const again = (): void => { if (running()) setTimeout(() => strangerSocket(from, path), REOPEN_MS); };
  socket.once('open', () => {
    openedAt = performance.now();
    tally.opened += 1;
    tally.open += 1;
    tally.mostOpen = Math.max(tally.mostOpen, tally.open);
  });
  socket.once('unexpected-response', (_request, response) => { bump(tally.refused, response.statusCode ?? 0); socket.terminate(); });
  socket.on('error', () => undefined);
  socket.once('close', (code) => {
    if (openedAt !== undefined) {
      tally.open -= 1;
      tally.heldMs.push(performance.now() - openedAt);
      bump(tally.closes, code);
    }
    again();
  });
}

for (const [from, path] of STRANGERS) for (let i = 0; i < PER_ADDRESS; i += 1) strangerSocket(from, path);
// Let the strangers fill the pools first.
await new Promise((resolve) => setTimeout(resolve, 2000));

const welcomeMs: number[] = [];
const securedMs: number[] = [];
const failures = new Map<string, number>();
let attempts = 0;
for (let round = 0; running(); round += 1) {
  attempts += 1;
  const displayId = `room-${round % DISPLAYS}`;
  const started = performance.now();
  try {
    const control = await withDeadline(connectControl(url, displayId, TOKEN), 'welcome', 5000);
    welcomeMs.push(performance.now() - started);
    const asked = performance.now();
    const response = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN}` }, body: JSON.stringify({ displayId, target: { host: '127.0.0.1', port: echo.port } }),
    });
    if (response.status !== 202) throw new Error(`projection refused ${response.status}`);
    const project = await withDeadline(control.next('project'), 'project', 5000);
    const data = await openData(url, String(project.sessionId), String(project.sessionToken));
    data.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
    await withDeadline(data.queue.nextText('secured'), 'secured', 5000);
    securedMs.push(performance.now() - asked);
    data.socket.close();
    control.close();
  } catch (error) {
    const reason = (error as Error).message.slice(0, 80);
    failures.set(reason, (failures.get(reason) ?? 0) + 1);
  }
  await new Promise((resolve) => setTimeout(resolve, 250));
}

const listening = gateway.logs.find((line) => line.msg === 'listening')?.relayEngine;
const engine = typeof listening === 'string' ? listening : '?';
console.log(`pending-socket flood: ${STRANGERS.length} addresses × ${PER_ADDRESS} sockets (two on control sockets, two on data sockets), re-opened ${REOPEN_MS} ms after each close, ${SECONDS} s, gateway defaults (${engine} engine)`);
console.log(`displays: ${attempts} tries, ${welcomeMs.length} welcomed (${summary(welcomeMs)}), ${securedMs.length} sessions secured (projection to secured: ${summary(securedMs)})`);
for (const [reason, count] of failures) console.log(`  failed ${count}×: ${reason}`);
for (const [key, tally] of tallies) {
  const closes = [...tally.closes].map(([code, count]) => `${code}×${count}`).join(' ');
  const refused = [...tally.refused].map(([status, count]) => `${status}×${count}`).join(' ') || 'none';
  console.log(`stranger ${key}: ${tally.opened} opened (at most ${tally.mostOpen} open at once as the client saw it), refused ${refused}, closed ${closes}; place held ${summary(tally.heldMs)}`);
}
await gateway.close();
await echo.close();
process.exit(0);
