// WS-Discovery responder figures for the README: Probe→ProbeMatch latency
// (a unicast Probe, answered at once; and a multicast Probe, answered after
// WS-Discovery's random delay of up to APP_MAX_DELAY = 500 ms) and the
// datagram rate one core sustains (the responder pinned to CPU 0, this
// generator to CPU 1, a window of Probes in flight over loopback, every one a
// new MessageID, each answered with a ProbeMatches per display).
//   node gateway/bench/dist/wsdBench.js [--seconds 5] [--displays 1] [--pings 500]
import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DISCOVERY_URN, DISPLAY_TYPE, readWsdMessage, utf8Bytes, WSD_IPV4_GROUP, writeWsdMessage } from '@lanterna/protocol/wsd';

const argument = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
};
const SECONDS = argument('seconds', 5);
const DISPLAYS = argument('displays', 1);
const PINGS = argument('pings', 500);
const WINDOW = argument('window', 256);
const main = fileURLToPath(new URL('./wsdResponderMain.js', import.meta.url));
const pin = availableParallelism() > 1;

async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  const { port } = socket.address();
  socket.close();
  return port;
}

async function startResponder(port: number, appMaxDelayMs: number): Promise<ChildProcess> {
  const args = [process.execPath, main, String(port), String(DISPLAYS), String(appMaxDelayMs)];
  const child = spawn(pin ? 'taskset' : args[0] ?? 'node', pin ? ['-c', '0', ...args] : args.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`responder exited ${String(code)}`)));
    createInterface({ input: child.stdout }).on('line', (line) => { if (line === 'ready') resolve(); });
  });
  return child;
}

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 10 ms
}

function probe(messageId: string): Uint8Array {
  return utf8Bytes(writeWsdMessage({ kind: 'probe', header: { messageId, to: DISCOVERY_URN }, probe: { types: [DISPLAY_TYPE], scopes: [] } }));
}

async function openClient(): Promise<Socket> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  socket.setMulticastInterface('127.0.0.1');
  socket.setRecvBufferSize(4 * 1024 * 1024);
  return socket;
}

/** Sequential Probes: the time from sending one to its first ProbeMatches, in ms. */
async function latencies(port: number, address: string, count: number): Promise<number[]> {
  const socket = await openClient();
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const id = `urn:uuid:${randomUUID()}`;
    const started = performance.now();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => { socket.off('message', onMessage); resolve(); }, 2000);
      function onMessage(bytes: Buffer): void {
        const read = readWsdMessage(bytes);
        if (read.ok && read.message.header.relatesTo === id) {
          times.push(performance.now() - started);
          clearTimeout(timer);
          socket.off('message', onMessage);
          resolve();
        }
      }
      socket.on('message', onMessage);
      socket.send(probe(id), port, address);
    });
  }
  socket.close();
  return times;
}

/** A window of Probes in flight for `seconds`: answered Probes per second and the responder's CPU per Probe. */
async function rate(port: number, pid: number, seconds: number): Promise<{ perSecond: number; cpuMicros: number; cpuShare: number; lost: number }> {
  const socket = await openClient();
  const pending = new Map<string, number>();
  let answered = 0;
  let lost = 0;
  let running = true;
  const send = (): void => {
    const id = `urn:uuid:${randomUUID()}`;
    pending.set(id, performance.now());
    socket.send(probe(id), port, '127.0.0.1');
  };
  socket.on('message', (bytes: Buffer) => {
    // The generator must cost less than the responder: the RelatesTo is cut out, not parsed (the latency runs parse).
    const text = bytes.toString('latin1');
    const start = text.indexOf('<wsa:RelatesTo>');
    const id = start < 0 ? undefined : text.slice(start + 15, text.indexOf('<', start + 15));
    if (!id || !pending.delete(id)) return; // a repeated copy
    answered += 1;
    if (running) send();
  });
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const [id, at] of pending) {
      if (now - at > 300) { pending.delete(id); lost += 1; if (running) send(); }
    }
  }, 100);
  const cpuBefore = cpuSeconds(pid);
  const started = performance.now();
  for (let i = 0; i < WINDOW; i++) send();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  running = false;
  const elapsed = (performance.now() - started) / 1000;
  const cpu = cpuSeconds(pid) - cpuBefore;
  clearInterval(sweep);
  socket.close();
  return { perSecond: answered / elapsed, cpuMicros: (cpu / Math.max(answered, 1)) * 1e6, cpuShare: cpu / elapsed, lost };
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

if (pin) spawn('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
const port = await freeUdpPort();
const immediate = await startResponder(port, 0);
const unicast = await latencies(port, '127.0.0.1', PINGS);
const throughput = await rate(port, immediate.pid ?? 0, SECONDS);
immediate.kill('SIGTERM');
const port2 = await freeUdpPort();
const delayed = await startResponder(port2, 500);
const multicast = await latencies(port2, WSD_IPV4_GROUP, Math.min(PINGS, 100));
delayed.kill('SIGTERM');

const row = (name: string, values: number[]): string => `| ${name} | ${values.length} | ${percentile(values, 50).toFixed(2)} | ${percentile(values, 99).toFixed(2)} | ${(values.reduce((a, b) => a + b, 0) / values.length).toFixed(2)} |`;
console.log(`\nWS-Discovery responder, ${DISPLAYS} display(s) online, responder ${pin ? 'pinned to CPU 0' : 'unpinned (1 core)'}\n`);
console.log('| Probe → first ProbeMatches | probes | p50 ms | p99 ms | mean ms |\n|---|---|---|---|---|');
console.log(row('unicast Probe (answered at once)', unicast));
console.log(row('multicast Probe (random delay ≤ 500 ms, APP_MAX_DELAY)', multicast));
console.log(`\n| sustained rate (window ${WINDOW}, ${SECONDS} s) | Probes answered/s | responder CPU µs per Probe | responder CPU share | one core's worth at that cost | lost |\n|---|---|---|---|---|---|`);
console.log(`| ${DISPLAYS} ProbeMatches per Probe, 2 copies each (SOAP-over-UDP) | ${Math.round(throughput.perSecond)} | ${throughput.cpuMicros.toFixed(1)} | ${(throughput.cpuShare * 100).toFixed(0)} % | ${Math.round(1e6 / throughput.cpuMicros)}/s | ${throughput.lost} |`);
