#!/usr/bin/env node
// A WS-Discovery peer for tests, run inside a test LAN's presenter namespace
// (`ip netns exec NS node testkit/dist/wsdPeerTool.js …`): it probes and
// times the answers, listens to the group, and sends hostile datagrams. It
// prints one JSON object per line; tests read them. Messages are read and
// written with the protocol package (never hand-made here), except the
// hostile ones, which are wrong on purpose.
import { createSocket, type Socket } from 'node:dgram';
import { randomUUID } from 'node:crypto';
import {
  DISPLAY_TYPE, DISCOVERY_URN, readWsdMessage, utf8Bytes, WSD_IPV4_GROUP, WSD_IPV6_GROUP, WSD_PORT, writeWsdMessage,
} from '@lanterna/protocol/wsd';

interface Options { command: string; family: 4 | 6; address: string; interfaceName: string; timeoutMs: number; target?: string | undefined; floodCount: number; probeFrom?: string | undefined }

function parseArgs(argv: readonly string[]): Options {
  const get = (name: string): string | undefined => { const at = argv.indexOf(`--${name}`); return at < 0 ? undefined : argv[at + 1]; };
  return {
    command: argv[0] ?? 'probe',
    family: get('family') === '6' ? 6 : 4,
    address: get('address') ?? '0.0.0.0',
    interfaceName: get('interface') ?? '',
    timeoutMs: Number(get('timeout-ms') ?? '3000'),
    target: get('target'),
    floodCount: Number(get('flood') ?? '2000'),
    probeFrom: get('probe-from'),
  };
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

function group(options: Options): string {
  return options.family === 6 ? `${WSD_IPV6_GROUP}%${options.interfaceName}` : WSD_IPV4_GROUP;
}

async function openSocket(options: Options, port: number): Promise<Socket> {
  const socket = createSocket({ type: options.family === 6 ? 'udp6' : 'udp4', reuseAddr: true });
  const bindAddress = options.family === 6 ? (port === 0 ? `${options.address}%${options.interfaceName}` : '::') : (port === 0 ? options.address : '0.0.0.0');
  await new Promise<void>((resolve, reject) => { socket.once('error', reject); socket.bind(port, bindAddress, () => resolve()); });
  socket.setMulticastInterface(options.family === 6 ? `::%${options.interfaceName}` : options.address);
  return socket;
}

function send(socket: Socket, bytes: Uint8Array | string, address: string, port = WSD_PORT): Promise<void> {
  return new Promise((resolve) => socket.send(bytes, port, address, () => resolve()));
}

function probeBytes(messageId: string): Uint8Array {
  return utf8Bytes(writeWsdMessage({ kind: 'probe', header: { messageId, to: DISCOVERY_URN }, probe: { types: [DISPLAY_TYPE], scopes: [] } }));
}

/** One Probe for Lanterna displays (with its SOAP-over-UDP copies); prints every ProbeMatch (time from the first copy) until the timeout. */
async function probe(options: Options, socket?: Socket): Promise<{ firstMatchMs: number | undefined; endpoints: string[] }> {
  const own = socket ?? await openSocket(options, 0);
  const messageId = `urn:uuid:${randomUUID()}`;
  const seen = new Set<string>();
  let firstMatchMs: number | undefined;
  const started = performance.now();
  own.on('message', (bytes) => {
    const read = readWsdMessage(bytes);
    if (!read.ok || read.message.kind !== 'probe-matches' || read.message.header.relatesTo !== messageId) return;
    const id = read.message.header.messageId ?? '';
    if (seen.has(id)) return; // a SOAP-over-UDP copy
    seen.add(id);
    const ms = performance.now() - started;
    firstMatchMs ??= ms;
    for (const match of read.message.matches) {
      print({ event: 'probe-match', ms: Math.round(ms * 100) / 100, endpoint: match.endpoint, xaddrs: match.xaddrs, scopes: match.scopes, messageId: id, appSequence: read.message.header.appSequence });
    }
  });
  // As SOAP-over-UDP has a client do: the Probe again after a random 50–250 ms, then doubling gaps (4 copies to a group).
  const bytes = probeBytes(messageId);
  const copies = options.target ? [0, 150] : [0, 150, 450, 950];
  const timers = copies.map((at) => setTimeout(() => { if (firstMatchMs === undefined) void send(own, bytes, options.target ?? group(options)); }, at));
  await new Promise((resolve) => setTimeout(resolve, options.timeoutMs));
  for (const timer of timers) clearTimeout(timer);
  if (!socket) own.close();
  return { firstMatchMs, endpoints: [...seen] };
}

/** Prints every WS-Discovery message heard on the group until the timeout. */
async function listen(options: Options): Promise<void> {
  const socket = await openSocket(options, WSD_PORT);
  socket.addMembership(options.family === 6 ? WSD_IPV6_GROUP : WSD_IPV4_GROUP, options.family === 6 ? `::%${options.interfaceName}` : options.address);
  socket.on('message', (bytes, from) => {
    const read = readWsdMessage(bytes);
    if (!read.ok) return;
    const { message } = read;
    const endpoint = message.kind === 'hello' ? message.target.endpoint : message.kind === 'bye' ? message.endpoint : undefined;
    print({ event: message.kind, from: from.address, endpoint, messageId: message.header.messageId, appSequence: message.header.appSequence, xaddrs: message.kind === 'hello' ? message.target.xaddrs : undefined });
  });
  print({ event: 'listening' });
  await new Promise((resolve) => setTimeout(resolve, options.timeoutMs));
  socket.close();
}

/**
 * Hostile datagrams to the group and to the responder's port, then a normal
 * Probe from `--probe-from` (another address: a presenter beside the attacker,
 * not the attacker, whose own datagrams the responder may rate-limit): prints
 * how long its answer took.
 */
async function hostile(options: Options): Promise<void> {
  const socket = await openSocket(options, 0);
  const direct = options.target;
  const valid = new TextDecoder().decode(probeBytes(`urn:uuid:${randomUUID()}`));
  // Billion laughs: ten levels of ten references each, declared in the internal subset.
  const entities = ['<!ENTITY l0 "lol">', ...Array.from({ length: 9 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`)].join('');
  const bomb = `<?xml version="1.0"?><!DOCTYPE soap:Envelope [${entities}]>${valid.replace(/^<\?xml[^>]*>/, '').replace('<wsd:Probe>', '<wsd:Probe>&l9;')}`;
  const cases: [string, Uint8Array | string][] = [
    ['malformed', '<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Header>'],
    ['not-utf8', new Uint8Array([0x3c, 0xff, 0xfe, 0x00, 0x3e])],
    ['oversized', valid.replace('<wsd:Probe>', `<wsd:Probe><x xmlns="urn:x">${'a'.repeat(60_000)}</x>`)],
    ['dtd', valid.replace(/^<\?xml[^>]*>/, '<?xml version="1.0"?><!DOCTYPE x SYSTEM "http://example.invalid/x.dtd">')],
    ['entity-bomb', bomb],
    ['deep', valid.replace('<wsd:Probe>', `<wsd:Probe>${'<a xmlns="urn:x">'.repeat(40)}${'</a>'.repeat(40)}`)],
  ];
  const started = performance.now();
  for (const [name, bytes] of cases) {
    for (const address of [group(options), ...(direct ? [direct] : [])]) await send(socket, bytes, address);
    print({ event: 'sent', case: name });
  }
  // A replay flood: one valid Probe's bytes again and again (the responder answers the first at most).
  const replay = probeBytes(`urn:uuid:${randomUUID()}`);
  for (let i = 0; i < options.floodCount; i++) await send(socket, replay, direct ?? group(options));
  print({ event: 'sent', case: 'duplicate-message-id-flood', count: options.floodCount, ms: Math.round(performance.now() - started) });
  socket.close();
  const answer = await probe({ ...options, address: options.probeFrom ?? options.address });
  print({ event: 'normal-probe', firstMatchMs: answer.firstMatchMs === undefined ? null : Math.round(answer.firstMatchMs * 100) / 100 });
}

const options = parseArgs(process.argv.slice(2));
const run = options.command === 'listen' ? listen(options) : options.command === 'hostile' ? hostile(options) : probe(options).then((result) => print({ event: 'probe-done', firstMatchMs: result.firstMatchMs ?? null }));
run.catch((error: unknown) => {
  print({ event: 'error', message: error instanceof Error ? error.message : String(error) });
  process.exitCode = 1;
});
