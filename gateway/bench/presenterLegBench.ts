// A browser presenter's leg through each relay engine (issue 25), in one run:
// the in-process gateway with the Node engine, then with the native data
// plane, alternating rounds. The presenter page and the display are plain
// WebSockets in this process (no wasm: what is measured is the gateway's
// join and relay, not FreeRDP). Per engine:
//   - round trip: the display sends one 90-byte PDU (KW v1's size), the page
//     answers with one, the display reads it: p50/p95/p99 over --pings;
//   - throughput page → display: --megabytes of 1,623-byte PDUs (what the
//     wasm presenter's GFX chunks measure) in 64 KiB messages, the page's
//     upload cap raised out of the way (relay.presenterBytesPerSecond).
// With the Node engine the relay shares this process's event loop with the
// two sockets; the native engine relays in its own process. Prints figures,
// asserts nothing.
//   node gateway/bench/dist/presenterLegBench.js [--pings 2000] [--megabytes 64] [--rounds 2]
// --workers: instead, the gateway's CLI with two workers and the native
// engine, pairing pages and displays until --rounds pairings of each kind
// (same worker; the page handed to its display's worker) were measured.
import WebSocket from 'ws';
import { startTestGateway, startGatewayProcess, connectControl, openData } from '@lanterna/testkit';
import { buildConnectionConfirm, buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}
const pings = option('pings', 2000);
const megabytes = option('megabytes', 64);
const rounds = option('rounds', 2);
const DISPLAY = 'room';
const TOKEN = 'bench-display-token-0123456789';
const PDU_BYTES = 1623;

/** One X.224 Data TPDU of `size` bytes. */
function dataPdu(size: number, fill: number): Buffer {
  const pdu = Buffer.alloc(size, fill);
  pdu.set([3, 0, size >> 8, size & 0xff, 2, 0xf0, 0x80]);
  return pdu;
}

/** Resolves with each binary message in turn (a one-slot mailbox: the bench keeps one in flight). */
function binaryMailbox(socket: WebSocket): () => Promise<Buffer> {
  const queued: Buffer[] = [];
  let waiter: ((data: Buffer) => void) | undefined;
  socket.on('message', (data, isBinary) => {
    if (!isBinary) return;
    if (waiter) {
      const wake = waiter;
      waiter = undefined;
      wake(data as Buffer);
    } else queued.push(data as Buffer);
  });
  return () => {
    const next = queued.shift();
    if (next) return Promise.resolve(next);
    return new Promise((resolve) => { waiter = resolve; });
  };
}

/** What a pairing needs of its gateway: its addresses, the room's PIN now, and the display's next `project`. */
interface Room {
  httpUrl: string;
  url: string;
  pin(): Promise<string | undefined>;
  nextProject(): Promise<Record<string, unknown>>;
}

/** The display's control messages: `room` keeps the PIN, `project` is queued for the pairing. */
function roomOf(httpUrl: string, url: string, control: Awaited<ReturnType<typeof connectControl>>, storedPin?: () => Promise<string | undefined>): Room {
  let pin: string | undefined;
  return {
    httpUrl, url,
    pin: async () => {
      if (storedPin) return storedPin();
      // the first `room` comes after the welcome
      while (pin === undefined) {
        const message = await control.queue.nextText();
        if (message.type === 'room') pin = String(message.pin);
      }
      return pin;
    },
    nextProject: async () => {
      for (;;) {
        const message = await control.queue.nextText();
        if (message.type === 'room') pin = String(message.pin);
        if (message.type === 'project') return message;
      }
    },
  };
}

async function oneSession(gateway: Room): Promise<{ rttUs: number[]; mbPerSecond: number }> {
  const pin = await gateway.pin();
  const asked = await fetch(`${gateway.httpUrl}/v1/displays/${DISPLAY}/projection`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-lanterna-presenter': '1' },
    body: JSON.stringify({ pin, source: 'browser' }),
  });
  if (asked.status !== 202) throw new Error(`projection answered ${asked.status}: ${await asked.text()}`);
  const started = await asked.json() as { presenter: { token: string; socketUrl: string }; stopToken: string };
  const project = await gateway.nextProject();
  const page = new WebSocket(started.presenter.socketUrl, 'lanterna.v1');
  await new Promise((resolve, reject) => { page.once('open', resolve); page.once('error', reject); });
  page.send(JSON.stringify({ type: 'present', token: started.presenter.token, publicKey: 'AAAA' }));
  const pageNext = binaryMailbox(page);
  const display = await openData(gateway.url, String(project.sessionId), String(project.sessionToken));
  display.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL | PROTOCOL.HYBRID }));
  await pageNext();
  page.send(buildConnectionConfirm({ kind: 'response', selectedProtocol: PROTOCOL.SSL, flags: 0 }));
  await display.queue.nextText('secured');
  await display.queue.nextBinary();
  // From here the display's binary messages go to the mailbox only.
  display.socket.removeAllListeners('message');
  const displayNext = binaryMailbox(display.socket);

  const up = dataPdu(90, 1);
  const down = dataPdu(90, 2);
  page.on('message', (_data, isBinary) => { if (isBinary) page.send(down); });
  const rttUs: number[] = [];
  for (let i = 0; i < pings; i += 1) {
    const sentAt = process.hrtime.bigint();
    display.socket.send(up);
    await displayNext();
    rttUs.push(Number(process.hrtime.bigint() - sentAt) / 1000);
  }
  page.removeAllListeners('message');

  const perMessage = Math.floor((64 * 1024) / PDU_BYTES);
  const message = Buffer.concat(Array.from({ length: perMessage }, (_, i) => dataPdu(PDU_BYTES, i)));
  const total = megabytes * 1024 * 1024;
  const throughputAt = process.hrtime.bigint();
  let received = 0;
  const all = new Promise<void>((resolve) => {
    display.socket.on('message', (data, isBinary) => {
      if (!isBinary) return;
      received += (data as Buffer).length;
      if (received >= total) resolve();
    });
  });
  for (let sent = 0; sent < total; sent += message.length) {
    page.send(message);
    // the page's own backpressure: what ws has not handed to its socket yet
    while (page.bufferedAmount > 4 * 1024 * 1024) await new Promise((resolve) => { setImmediate(resolve); });
  }
  await all;
  const seconds = Number(process.hrtime.bigint() - throughputAt) / 1e9;
  await fetch(`${gateway.httpUrl}/v1/displays/${DISPLAY}/projection`, { method: 'DELETE', headers: { 'x-lanterna-presenter': '1', 'x-lanterna-stop-token': started.stopToken } });
  await display.queue.closed();
  page.close();
  return { rttUs, mbPerSecond: received / 1024 / 1024 / seconds };
}

function percentiles(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return `p50 ${at(0.5).toFixed(0)} µs, p95 ${at(0.95).toFixed(0)} µs, p99 ${at(0.99).toFixed(0)} µs (n=${values.length})`;
}

/** Two workers, the native engine: pairings until each kind has `rounds`. */
async function workers(): Promise<void> {
  const gateway = await startGatewayProcess({
    workers: 2, displays: [{ id: DISPLAY, token: TOKEN }],
    relay: { engine: 'native', presenterBytesPerSecond: 1024 * 1024 * 1024 },
  });
  const url = gateway.httpUrl.replace(/^http/, 'ws');
  const control = await connectControl(url, DISPLAY, TOKEN, undefined, { features: ['room'] });
  const room = roomOf(gateway.httpUrl, url, control);
  await new Promise((resolve) => { setTimeout(resolve, 500); });
  const results: Record<string, { rttUs: number[]; mbPerSecond: number[] }> = { 'same worker': { rttUs: [], mbPerSecond: [] }, 'handed over': { rttUs: [], mbPerSecond: [] } };
  const forwarded = (): number => gateway.logs.filter((entry) => entry.event === 'presenter-forwarded').length;
  try {
    for (let pairing = 0; pairing < 8 * rounds && Object.values(results).some((kind) => kind.mbPerSecond.length < rounds); pairing += 1) {
      const before = forwarded();
      const { rttUs, mbPerSecond } = await oneSession(room);
      // the data plane's log line reaches the gateway's log a moment later
      await new Promise((resolve) => { setTimeout(resolve, 200); });
      const kind = forwarded() > before ? 'handed over' : 'same worker';
      results[kind]?.rttUs.push(...rttUs);
      results[kind]?.mbPerSecond.push(mbPerSecond);
      process.stdout.write(`pairing ${pairing + 1} (${kind}): round trip ${percentiles(rttUs)}; ${mbPerSecond.toFixed(1)} MiB/s page → display\n`);
    }
  } finally {
    control.close();
    await gateway.close();
  }
  for (const [kind, { rttUs, mbPerSecond }] of Object.entries(results)) {
    process.stdout.write(`${kind}: round trip ${percentiles(rttUs)}; throughput ${mbPerSecond.map((value) => value.toFixed(1)).join(', ')} MiB/s\n`);
  }
}

async function main(): Promise<void> {
  if (process.argv.includes('--workers')) {
    await workers();
    return;
  }
  const results: Record<string, { rttUs: number[]; mbPerSecond: number[] }> = { node: { rttUs: [], mbPerSecond: [] }, native: { rttUs: [], mbPerSecond: [] } };
  for (let round = 0; round < rounds; round += 1) {
    for (const engine of ['node', 'native'] as const) {
      const gateway = await startTestGateway({
        displays: [{ id: DISPLAY, token: TOKEN }],
        relay: { engine, presenterBytesPerSecond: 1024 * 1024 * 1024 },
      });
      const control = await connectControl(gateway.url, DISPLAY, TOKEN, undefined, { features: ['room'] });
      try {
        const { rttUs, mbPerSecond } = await oneSession(roomOf(gateway.httpUrl, gateway.url, control, () => gateway.roomPin(DISPLAY)));
        results[engine]?.rttUs.push(...rttUs);
        results[engine]?.mbPerSecond.push(mbPerSecond);
        process.stdout.write(`round ${round + 1} ${engine}: round trip ${percentiles(rttUs)}; ${mbPerSecond.toFixed(1)} MiB/s page → display\n`);
      } finally {
        control.close();
        await gateway.close();
      }
    }
  }
  for (const [engine, { rttUs, mbPerSecond }] of Object.entries(results)) {
    process.stdout.write(`${engine}: round trip ${percentiles(rttUs)}; throughput ${mbPerSecond.map((value) => value.toFixed(1)).join(', ')} MiB/s\n`);
  }
}

await main();
