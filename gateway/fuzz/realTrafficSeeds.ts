// Writes the protocol package's fuzz seeds from real traffic (run by hand,
// the output is kept in the repository): PDUs from the shared recordings for
// the framer, and from the lab's real servers, through a capturing proxy in
// front of them, the native client's X.224 Connection Requests, the servers'
// Confirms and the CredSSP exchange (DER TSRequests, HYBRID_EX's Early User
// Authorization Result) that the recordings do not hold. It lives here, not in
// protocol/, because reading recordings and starting servers needs the lab,
// which imports the protocol package.
//
//   npx tsc -b gateway/fuzz && node gateway/fuzz/dist/realTrafficSeeds.js
import { readFileSync } from 'node:fs';
import { connect as connectTcp, createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { connect as connectTls, TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { saveEntry } from '@lanterna/fuzzer';
import { Lab, probeNative, readRecording, recordingPath, type RdpEndpoint, type RecordedPdu } from '@lanterna/lab';
import { buildConnectionConfirm, buildConnectionRequest, framingModeFor, parseConnectionConfirm, PROTOCOL, relayedProtocolName, splitWholePdus, type FramingMode } from '@lanterna/protocol';
import { findServerKeyFiles, readOneTpkt } from '@lanterna/testkit';

const corpusRoot = fileURLToPath(new URL('../../../protocol/fuzz/corpus/', import.meta.url));
const FRAMER_CORPUS = join(corpusRoot, 'pdu-framer');
const X224_CORPUS = join(corpusRoot, 'x224');
/** A seed stream is at most this long: the framer's work per input grows with it, its coverage does not. */
const STREAM_BYTES = 4096;

/**
 * The framer target's input: a control byte (mode in bits 0-1, chunking class
 * in bits 2-4, plain arrays in bit 5, wide frames in bit 6), four bytes
 * seeding the chunk boundaries, then the stream (see decodeFramerInput in
 * protocol/src/fuzz/framerFuzzTarget.ts).
 */
function framerInput(mode: FramingMode, variant: number, stream: Uint8Array): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt8(['rdp', 'nla', 'nla-ex'].indexOf(mode) | ((variant % 8) << 2) | (variant % 2 === 0 ? 0 : 0x20) | (variant % 3 === 0 ? 0x40 : 0), 0);
  header.writeUInt32LE((0x9e3779b9 * (variant + 1)) >>> 0, 1);
  return Buffer.concat([header, stream]);
}

/** Consecutive PDUs of one direction from `from`, back to back, up to STREAM_BYTES (skipping larger ones). */
function streamOf(records: readonly RecordedPdu[], direction: RecordedPdu['direction'], from: number, limit = STREAM_BYTES): Buffer {
  const pdus: Buffer[] = [];
  let bytes = 0;
  for (const record of records.slice(from)) {
    if (record.direction !== direction || record.data.length > limit) continue;
    if (bytes + record.data.length > limit) break;
    pdus.push(record.data);
    bytes += record.data.length;
  }
  return Buffer.concat(pdus);
}

async function recordingSeeds(): Promise<Map<string, RecordedPdu[]>> {
  const kept = new Map<string, RecordedPdu[]>();
  let variant = 0;
  for (const name of ['cold-xrdp', 'cold-shadow', 'xrdp-tls-default', 'static-nogfx-rfx', 'static-gfxprogressive', 'static-gfx']) {
    const { records } = await readRecording(recordingPath(name));
    kept.set(name, records.slice(0, 400));
    for (const direction of ['client-to-server', 'server-to-client'] as const) {
      const short = direction === 'client-to-server' ? 'c2s' : 's2c';
      // The connection sequence, and a stretch of the steady stream further on.
      const starts = name.startsWith('static') ? [Math.floor(records.length / 2)] : [0, Math.min(records.length - 1, 150)];
      for (const [i, start] of starts.entries()) {
        const stream = streamOf(records, direction, start);
        if (stream.length > 0) saveNamed(FRAMER_CORPUS, `seed-${name}-${short}-${i}`, framerInput('rdp', variant++, stream));
      }
    }
    // One large PDU (bitmap, surface bits or a GFX batch) in one piece.
    const large = records.find((record) => record.data.length > 8192 && record.data.length <= 16_000);
    if (large) saveNamed(FRAMER_CORPUS, `seed-${name}-large`, framerInput('rdp', 7, large.data));
  }
  return kept;
}

const saved = new Set<string>();

/** Saves `bytes` under `prefix` unless this run already saved the same bytes. */
function saveNamed(dir: string, prefix: string, bytes: Uint8Array): void {
  const hex = Buffer.from(bytes).toString('hex');
  if (saved.has(hex)) return;
  saved.add(hex);
  console.log(`${saveEntry(dir, prefix, bytes, '.bin')} (${bytes.length} bytes)`);
}

interface Capture {
  request?: Buffer;
  confirm?: Buffer;
  /** TLS plaintext per direction, from the first byte after the handshake. */
  toServer: Buffer[];
  toClient: Buffer[];
}

/**
 * A proxy that records what passes: the client's Connection Request, the
 * server's Confirm, then both TLS legs' plaintext (it ends the client's TLS
 * with the server's own key, so CredSSP's key binding still holds).
 */
async function capturingProxy(server: RdpEndpoint, cert: string, key: string): Promise<{ port: number; capture: Capture; close: () => void }> {
  const capture: Capture = { toServer: [], toClient: [] };
  const sockets = new Set<Socket>();
  const proxy = createServer((client) => {
    sockets.add(client);
    void (async () => {
      const request = await readOneTpkt(client, { timeoutMs: 10_000, maxBytes: 1024 });
      capture.request = request;
      const upstream = connectTcp(server.port, server.host);
      sockets.add(upstream);
      await new Promise<void>((resolve, reject) => upstream.once('connect', resolve).once('error', reject));
      upstream.write(request);
      const confirm = await readOneTpkt(upstream, { timeoutMs: 10_000, maxBytes: 1024 });
      capture.confirm = confirm;
      client.write(confirm);
      const parsed = parseConnectionConfirm(confirm);
      if (parsed.kind !== 'response' || parsed.selectedProtocol === PROTOCOL.RDP) return;
      const serverLeg = connectTls({ socket: upstream, rejectUnauthorized: false });
      const clientLeg = new TLSSocket(client, { isServer: true, cert, key });
      clientLeg.on('data', (chunk: Buffer) => { capture.toServer.push(chunk); serverLeg.write(chunk); });
      serverLeg.on('data', (chunk: Buffer) => { capture.toClient.push(chunk); clientLeg.write(chunk); });
      for (const leg of [clientLeg, serverLeg]) leg.on('error', () => { client.destroy(); upstream.destroy(); });
      clientLeg.on('close', () => upstream.destroy());
      serverLeg.on('close', () => client.destroy());
    })().catch(() => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    port: (proxy.address() as AddressInfo).port,
    capture,
    close: () => {
      proxy.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** Runs xfreerdp3 /auth-only through the proxy; its verdict does not matter, only what passed. */
async function captureSession(server: RdpEndpoint, certFile: string, keyFile: string, extraArgs: readonly string[]): Promise<Capture> {
  const proxy = await capturingProxy(server, readFileSync(certFile, 'utf8'), readFileSync(keyFile, 'utf8'));
  try {
    await probeNative({ host: '127.0.0.1', port: proxy.port, username: server.username, password: server.password, timeoutMs: 15_000, extraArgs }).catch((error: unknown) => {
      console.log(`  (the client reported: ${String(error).split('\n')[0] ?? ''})`);
    });
    return proxy.capture;
  } finally {
    proxy.close();
  }
}

/**
 * A HYBRID_EX server sends its Early User Authorization Result between
 * CredSSP and the MCS Connect Response (MS-RDPBCGR 5.4.2.1); the lab's
 * servers choose HYBRID, so the result is put into their stream where it goes.
 */
function withEarlyUserAuthorization(stream: Buffer): Buffer | undefined {
  const pdus = splitWholePdus(stream, 'nla');
  const firstTpkt = pdus.findIndex((pdu) => pdu[0] === 0x03);
  if (firstTpkt <= 0) return undefined;
  return Buffer.concat([...pdus.slice(0, firstTpkt), Buffer.alloc(4), ...pdus.slice(firstTpkt)]);
}

function saveCapture(name: string, capture: Capture, recorded: readonly RecordedPdu[], streams = true): void {
  if (capture.request) saveNamed(X224_CORPUS, `seed-request-${name}`, capture.request);
  if (capture.confirm) saveNamed(X224_CORPUS, `seed-confirm-${name}`, capture.confirm);
  if (!streams) return;
  const parsed = capture.confirm ? parseConnectionConfirm(capture.confirm) : undefined;
  const protocol = parsed?.kind === 'response' ? relayedProtocolName(parsed.selectedProtocol) : undefined;
  if (protocol === undefined || protocol === 'ssl') return;
  // What follows NLA on the wire is where the recordings begin: MCS Connect-Initial and its answer.
  for (const [direction, chunks, short] of [['client-to-server', capture.toServer, 'c2s'], ['server-to-client', capture.toClient, 's2c']] as const) {
    const nla = Buffer.concat(chunks);
    if (nla.length === 0) continue;
    const mode = framingModeFor(protocol, direction);
    const stream = Buffer.concat([nla, streamOf(recorded, direction, 0, 1024)]);
    // In 64-byte chunks (plain arrays), and a byte at a time.
    saveNamed(FRAMER_CORPUS, `seed-${name}-${short}`, framerInput(mode, 5, stream));
    saveNamed(FRAMER_CORPUS, `seed-${name}-${short}-bytewise`, framerInput(mode, 8, stream));
    const hybridEx = direction === 'server-to-client' && mode === 'nla' ? withEarlyUserAuthorization(stream) : undefined;
    if (hybridEx) saveNamed(FRAMER_CORPUS, `seed-${name}-${short}-hybrid-ex`, framerInput('nla-ex', 3, hybridEx));
  }
}

async function main(): Promise<void> {
  const recorded = await recordingSeeds();
  const shadowRecording = recorded.get('cold-shadow') ?? [];
  const xrdpRecording = recorded.get('cold-xrdp') ?? [];

  // The spec's examples (MS-RDPBCGR 4.1.1, 4.1.2) and requests the builders make as mstsc does.
  saveNamed(X224_CORPUS, 'seed-request-spec', Buffer.from('0300002c27e00000000000436f6f6b69653a206d737473686173683d656c746f6e730d0a0100080000000000', 'hex'));
  saveNamed(X224_CORPUS, 'seed-confirm-spec', Buffer.from('030000130ed000001234000200080000000000', 'hex'));
  saveNamed(X224_CORPUS, 'seed-request-correlation', buildConnectionRequest({ requestedProtocols: PROTOCOL.HYBRID_EX | PROTOCOL.HYBRID | PROTOCOL.SSL, cookie: 'user', correlationId: Buffer.alloc(16, 0x5a) }));
  saveNamed(X224_CORPUS, 'seed-request-legacy', buildConnectionRequest({ cookie: 'legacy' }));
  saveNamed(X224_CORPUS, 'seed-confirm-failure', buildConnectionConfirm({ kind: 'failure', failureCode: 5 }));
  saveNamed(X224_CORPUS, 'seed-confirm-legacy', buildConnectionConfirm({ kind: 'none' }));

  const lab = await Lab.create({ name: 'fuzz-seeds' });
  try {
    const display = await lab.display({ width: 1024, height: 768 });
    for (const auth of ['nla', 'tls'] as const) {
      const server = await lab.shadowServer({ display, auth });
      const keys = findServerKeyFiles(lab.dir, 'freerdp-shadow');
      if (!keys) throw new Error('the shadow server wrote no certificate and key');
      const { cert, key } = keys;
      saveCapture(`shadow-${auth}`, await captureSession(server, cert, key, []), shadowRecording);
      if (auth === 'nla') {
        // Other requests; the server answers them as the first (HYBRID), so their streams add nothing.
        saveCapture('shadow-nla-hybrid-ex', await captureSession(server, cert, key, ['/sec:ext:on']), shadowRecording, false);
        saveCapture('shadow-nla-routing', await captureSession(server, cert, key, ['/load-balance-info:tsv://MS Terminal Services Plugin.1.Sessions']), shadowRecording, false);
      }
      await server.stop();
    }
    const xrdp = await lab.xrdp({ scene: 'reference', width: 1024, height: 768 });
    const keys = findServerKeyFiles(lab.dir, 'xrdp');
    if (!keys) throw new Error('xrdp wrote no certificate and key');
    const { cert, key } = keys;
    saveCapture('xrdp-tls', await captureSession(xrdp, cert, key, ['/sec:tls']), xrdpRecording);
    saveCapture('xrdp-default', await captureSession(xrdp, cert, key, []), xrdpRecording);
    saveCapture('xrdp-legacy', await captureSession(xrdp, cert, key, ['/sec:rdp']), xrdpRecording);
  } finally {
    await lab.close();
  }
}

await main();
