#!/usr/bin/env node
// Relay benchmark: one session's throughput through the gateway versus raw TLS
// to the same server in the same run, and the latency the gateway adds per PDU
// at idle. Prints figures; asserts nothing (timing belongs in benchmarks).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tcpConnect } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { allocateFreePort } from '@lanterna/lab';
import { buildConnectionRequest, PduFramer, PROTOCOL } from '@lanterna/protocol';
import { connectControl, openData, readOneTpkt, startFaultyPeer, STREAM_REQUEST, STREAM_END, type FaultyPeer } from '@lanterna/testkit';

const TOKEN = 'bench-display-token-0123456789';
const options = new Command()
  .option('--megabytes <n>', 'bytes streamed per throughput run, in MiB', '256')
  .option('--runs <n>', 'throughput runs per path (the best and the median are printed)', '3')
  .option('--pings <n>', 'latency samples per path', '2000')
  .option('--interval-ms <n>', 'gap between latency samples', '5')
  .parse()
  .opts<{ megabytes: string; runs: string; pings: string; intervalMs: string }>();

/** A duplex of whole PDUs: send one, await the next that arrives. */
interface PduLink { send(pdu: Buffer): void; onPdu(handler: (pdu: Buffer) => void): void; close(): void }

function request(kind: number, value = 0): Buffer {
  const pdu = Buffer.alloc(12);
  pdu.writeUInt32BE(0x0300000c, 0);
  pdu.set([0x02, 0xf0, 0x80, kind], 4);
  pdu.writeUInt32BE(value, 8);
  return pdu;
}

async function rawLink(peer: FaultyPeer): Promise<PduLink> {
  const tcp = tcpConnect({ host: '127.0.0.1', port: peer.port, noDelay: true });
  await new Promise((resolve) => tcp.once('connect', resolve));
  tcp.write(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
  await readOneTpkt(tcp, { timeoutMs: 5000, maxBytes: 1024 });
  const tls: TLSSocket = tlsConnect({ socket: tcp, rejectUnauthorized: false });
  await new Promise((resolve) => tls.once('secureConnect', resolve));
  const framer = new PduFramer<Buffer>({ mode: 'rdp' });
  return {
    send: (pdu) => tls.write(pdu),
    onPdu: (handler) => tls.on('data', (chunk: Buffer) => { framer.push(chunk); for (const pdu of framer.lastPdus()) handler(pdu); }),
    close: () => tls.destroy(),
  };
}

async function gatewayLink(base: string, ca: string | undefined): Promise<PduLink> {
  const control = await connectControl(base, 'bench', TOKEN, ca);
  const project = await control.next('project');
  const { socket, queue } = await openData(base, String(project.sessionId), String(project.sessionToken), ca);
  socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
  await queue.nextText('secured');
  await queue.nextBinary();
  socket.removeAllListeners('message');
  return {
    send: (pdu) => socket.send(pdu),
    onPdu: (handler) => socket.on('message', (data: Buffer) => {
      // Frames hold whole PDUs back to back; walk their TPKT lengths.
      for (let at = 0; at < data.length; at += data.readUInt16BE(at + 2)) handler(data.subarray(at, at + data.readUInt16BE(at + 2)));
    }),
    close: () => { socket.close(); control.close(); },
  };
}

async function throughput(link: PduLink, bytes: number): Promise<number> {
  let received = 0;
  const started = performance.now();
  await new Promise<void>((resolve) => {
    link.onPdu((pdu) => { received += pdu.length; if (pdu[7] === STREAM_END) resolve(); });
    link.send(request(STREAM_REQUEST, bytes));
  });
  return received / ((performance.now() - started) / 1000) / (1024 * 1024);
}

async function latencies(link: PduLink, count: number, intervalMs: number): Promise<number[]> {
  const samples: number[] = [];
  let sentAt = 0;
  let wake: (() => void) | undefined;
  link.onPdu(() => { samples.push(performance.now() - sentAt); wake?.(); });
  for (let i = 0; i < count; i += 1) {
    const echoed = new Promise<void>((resolve) => { wake = resolve; });
    sentAt = performance.now();
    link.send(request(1, i));
    await echoed;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return samples.sort((a, b) => a - b);
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function startGateway(tls: boolean, peerPort: number): Promise<{ child: ChildProcess; base: string; ca?: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-bench-'));
  const port = await allocateFreePort();
  writeFileSync(join(dir, 'config.json'), JSON.stringify({
    listen: { host: '127.0.0.1', port, tls }, workers: 1, stateDir: join(dir, 'state'),
    displays: [{ id: 'bench', token: TOKEN, autoProject: { host: '127.0.0.1', port: peerPort } }],
    policy: { allowNetworks: ['127.0.0.0/8'], allowPorts: ['1024-65535'] }, certificates: { mode: 'insecure' },
  }));
  const cli = fileURLToPath(import.meta.resolve('@lanterna/gateway/cli'));
  const child = spawn(process.execPath, [cli, '--config', join(dir, 'config.json')], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error('gateway did not start')); }, 20_000);
    createInterface({ input: child.stdout }).on('line', (line) => { if (line.includes('"listening"')) { clearTimeout(timer); resolve(); } });
  });
  const ca = tls ? readFileSync(join(dir, 'state', 'gateway-cert.pem'), 'utf8') : undefined;
  return { child, base: `${tls ? 'wss' : 'ws'}://127.0.0.1:${port}`, ...(ca ? { ca } : {}) };
}

async function main(): Promise<void> {
  const bytes = Number(options.megabytes) * 1024 * 1024;
  const runs = Number(options.runs);
  const peer = await startFaultyPeer('stream');
  const started: ChildProcess[] = [];
  process.once('exit', () => { for (const child of started) child.kill('SIGKILL'); });
  const launch = async (tls: boolean): Promise<Awaited<ReturnType<typeof startGateway>>> => {
    const gateway = await startGateway(tls, peer.port);
    started.push(gateway.child);
    return gateway;
  };
  const gateways = { ws: await launch(false), wss: await launch(true) };
  const paths: [string, () => Promise<PduLink>][] = [
    ['raw TLS (no gateway)', () => rawLink(peer)],
    ['gateway, ws:// to kiosk', () => gatewayLink(gateways.ws.base, undefined)],
    ['gateway, wss:// to kiosk', () => gatewayLink(gateways.wss.base, gateways.wss.ca)],
  ];
  const results = paths.map(([path]) => ({ path, mibps: [] as number[], rtt: [] as number[] }));
  // Interleaved rounds, so that load from anything else on the machine hits every path alike.
  for (let i = 0; i < runs; i += 1) {
    for (const [index, [, open]] of paths.entries()) {
      const link = await open();
      results[index]?.mibps.push(await throughput(link, bytes));
      link.close();
    }
  }
  for (const [index, [, open]] of paths.entries()) {
    const link = await open();
    const result = results[index];
    if (result) result.rtt = await latencies(link, Number(options.pings), Number(options.intervalMs));
    link.close();
  }
  const raw = results[0];
  if (!raw) throw new Error('no raw result');
  console.log(`\nrelay benchmark: ${options.megabytes} MiB server→kiosk in 16 KiB PDUs, ${runs} runs; ${options.pings} echo round trips of 12-byte PDUs every ${options.intervalMs} ms`);
  console.log('| path | MiB/s median (best) | ratio to raw TLS | RTT p50 ms | RTT p99 ms | added p50 ms | added p99 ms |');
  console.log('|---|---|---|---|---|---|---|');
  for (const { path, mibps, rtt } of results) {
    const ratio = median(mibps) / median(raw.mibps);
    console.log(`| ${path} | ${median(mibps).toFixed(0)} (${Math.max(...mibps).toFixed(0)}) | ${ratio.toFixed(2)} | ${percentile(rtt, 50).toFixed(3)} | ${percentile(rtt, 99).toFixed(3)} | ${(percentile(rtt, 50) - percentile(raw.rtt, 50)).toFixed(3)} | ${(percentile(rtt, 99) - percentile(raw.rtt, 99)).toFixed(3)} |`);
  }
  for (const gateway of Object.values(gateways)) gateway.child.kill('SIGTERM');
  await peer.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
