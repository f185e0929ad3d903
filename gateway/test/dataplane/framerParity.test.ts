// The Go data plane's PDU rules against the protocol package's, input for
// input: the same streams, cut at the same points, through the TypeScript
// PduFramer (as the relay drives it: takeWhole, else pushBatches) and the Go
// Framer (gateway/dataplane/cmd/pdu-check); the same kiosk frames through
// countWholePdus and CountWhole; the same X.224 PDUs through both parsers.
// Both must make the same batches, counts, modes and errors, word for word.
// Inputs: every shared recording, generated NLA and RDP streams in all three
// modes, the fuzz corpora, and byte mutations of all of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  countWholePdus, FramingError, FRAMING_MODES, PduFramer, parseConnectionConfirm, parseConnectionRequest,
  buildConnectionConfirm, buildConnectionRequest, PROTOCOL, type FramingMode,
} from '@lanterna/protocol';
import { listRecordings, readRecording } from '@lanterna/lab';
import { ByteMutator, SeededRandom } from '@lanterna/fuzzer';
import { generateTestCertificate } from '@lanterna/testkit';

/** The repository's root, seen from gateway/test/dist/dataplane/. */
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const PDU_CHECK = process.env['LANTERNA_PDU_CHECK_BIN'] ?? join(root, 'gateway', 'dataplane', 'bin', 'pdu-check');

type Case =
  | { op: 'frame'; mode: FramingMode; maxPduBytes: number; maxFrameBytes: number; cuts: number[]; setModes: [number, FramingMode][]; payload: Uint8Array; label: string }
  | { op: 'count'; mode: FramingMode; maxPduBytes: number; payload: Uint8Array; label: string }
  | { op: 'x224-request' | 'x224-confirm' | 'certificate'; payload: Uint8Array; label: string };

interface ErrorVerdict { code: string; message: string; offset: number }

function requirePduCheck(): string {
  assert.ok(existsSync(PDU_CHECK), `the Go framing check is not built (${PDU_CHECK}): run bash gateway/dataplane/build.sh`);
  return PDU_CHECK;
}

/** Runs every case through pdu-check in one process; one verdict per case, in order. */
function goVerdicts(cases: readonly Case[]): unknown[] {
  const blocks: Buffer[] = [];
  const block = (bytes: Uint8Array): void => {
    const length = Buffer.alloc(4);
    length.writeUInt32LE(bytes.length);
    blocks.push(length, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
  };
  for (const { payload, label: _label, ...header } of cases) {
    block(Buffer.from(JSON.stringify(header)));
    block(payload);
  }
  const run = spawnSync(requirePduCheck(), { input: Buffer.concat(blocks), maxBuffer: 1 << 30 });
  assert.equal(run.status, 0, `pdu-check failed: ${run.error?.message ?? run.stderr.toString()}`);
  const lines = run.stdout.toString().split('\n').filter((line) => line.length > 0);
  assert.equal(lines.length, cases.length, 'one verdict per case');
  return lines.map((line) => JSON.parse(line) as unknown);
}

function framingVerdict(error: unknown): ErrorVerdict {
  if (!(error instanceof FramingError)) throw error;
  return { code: error.code, message: error.message, offset: error.offset };
}

/** What the TypeScript side makes of a case, in pdu-check's shape. */
function tsVerdict(c: Case): unknown {
  switch (c.op) {
    case 'frame': {
      const framer = new PduFramer<Buffer>({ mode: c.mode, maxPduBytes: c.maxPduBytes, maxFrameBytes: c.maxFrameBytes, allocate: (n) => Buffer.allocUnsafe(n) });
      const stream = Buffer.from(c.payload.buffer, c.payload.byteOffset, c.payload.length);
      const setModes = new Map(c.setModes);
      const batches: [number, number, number][] = [];
      let error: ErrorVerdict | null = null;
      let failedAt = -1;
      let start = 0;
      for (const [index, end] of [...c.cuts, stream.length].entries()) {
        const mode = setModes.get(index);
        if (mode !== undefined) framer.setMode(mode);
        const chunk = stream.subarray(start, end);
        try {
          const whole = framer.takeWhole(chunk);
          if (whole > 0) batches.push([index, chunk.length, whole]);
          else for (const batch of framer.pushBatches(chunk)) batches.push([index, batch.data.length, batch.pduCount]);
        } catch (thrown) {
          error = framingVerdict(thrown);
          failedAt = index;
          break;
        }
        start = end;
      }
      // After an error the counters depend on which of takeWhole and push met it; only the error is the contract then.
      if (error) return { batches, error, failedAt };
      return { batches, error, failedAt, stats: { ...framer.stats }, buffered: framer.bufferedBytes, offset: framer.offset, mode: framer.mode, contentOk: true };
    }
    case 'count':
      try {
        const counted = countWholePdus(c.payload, c.mode, { maxPduBytes: c.maxPduBytes });
        return { count: counted.count, mode: counted.mode, error: null };
      } catch (error) {
        return { count: 0, mode: c.mode, error: framingVerdict(error) };
      }
    case 'x224-request':
      try {
        return { requestedProtocols: parseConnectionRequest(c.payload).requestedProtocols, error: null };
      } catch (error) {
        return { requestedProtocols: 0, error: (error as Error).message };
      }
    case 'x224-confirm':
      try {
        const confirm = parseConnectionConfirm(c.payload);
        switch (confirm.kind) {
          case 'response': return { kind: 'success', selectedProtocol: confirm.selectedProtocol, flags: confirm.flags, failureCode: 0, error: null };
          case 'failure': return { kind: 'failure', selectedProtocol: 0, flags: 0, failureCode: confirm.failureCode, error: null };
          case 'none': return { kind: 'none', selectedProtocol: 0, flags: 0, failureCode: 0, error: null };
        }
      } catch (error) {
        return { kind: '', selectedProtocol: 0, flags: 0, failureCode: 0, error: (error as Error).message };
      }
      break;
    case 'certificate': {
      const certificate = new X509Certificate(Buffer.from(c.payload));
      return { fingerprint: `sha256:${certificate.fingerprint256}`, spki: certificate.publicKey.export({ type: 'spki', format: 'der' }) };
    }
  }
  throw new Error('unreachable');
}

/** The Go verdict with what the TypeScript one leaves out after an error left out too. */
function comparable(c: Case, go: unknown): unknown {
  if (c.op !== 'frame') return go;
  const verdict = go as { error: unknown; batches: unknown; failedAt: number; contentOk: boolean };
  assert.ok(verdict.contentOk, `${c.label}: the Go batches do not concatenate to the stream`);
  return verdict.error ? { batches: verdict.batches, error: verdict.error, failedAt: verdict.failedAt } : go;
}

function assertSameVerdicts(cases: readonly Case[]): { errors: number } {
  const verdicts = goVerdicts(cases);
  let errors = 0;
  cases.forEach((c, i) => {
    const ts = tsVerdict(c);
    if ((ts as { error?: unknown }).error) errors++;
    assert.deepEqual(comparable(c, verdicts[i]), ts, `${c.label}: the Go and TypeScript verdicts differ`);
  });
  return { errors };
}

/** Ascending cut points: chunks of 0..largest bytes (0 too: a socket may hand over an empty read). */
function cutsFor(random: SeededRandom, length: number, largest: number): number[] {
  const cuts: number[] = [];
  for (let at = random.between(0, largest); at < length; at += random.skewed(largest)) cuts.push(at);
  return cuts;
}

// Streams as sessions send them (the fuzz target's generator, here for the Go side too).
function tsRequest(random: SeededRandom): Uint8Array {
  const content = random.chance(0.9) ? random.between(1, 600) : random.between(1, 70000);
  const lengthBytes = content < 0x80 && random.chance(0.7) ? 0 : content < 0x100 ? 1 : content < 0x10000 ? 2 : 3;
  const header = lengthBytes === 0 ? [0x30, content] : [0x30, 0x80 | lengthBytes, ...Array.from({ length: lengthBytes }, (_, i) => (content >> (8 * (lengthBytes - 1 - i))) & 0xff)];
  return Buffer.concat([Uint8Array.from(header), random.bytes(content)]);
}

function tpkt(random: SeededRandom): Uint8Array {
  const length = random.chance(0.9) ? random.between(7, 300) : random.between(7, 0xffff);
  return Buffer.concat([Uint8Array.of(0x03, 0x00, length >> 8, length & 0xff), random.bytes(length - 4)]);
}

function fastPath(random: SeededRandom): Uint8Array {
  const action = random.below(64) << 2;
  if (random.chance(0.5)) {
    const length = random.between(2, 127);
    return Buffer.concat([Uint8Array.of(action, length), random.bytes(length - 2)]);
  }
  const length = random.chance(0.9) ? random.between(3, 1000) : random.between(3, 0x7fff);
  return Buffer.concat([Uint8Array.of(action, 0x80 | (length >> 8), length & 0xff), random.bytes(length - 3)]);
}

function generatedStream(random: SeededRandom, mode: FramingMode): Uint8Array {
  const pdus: Uint8Array[] = [];
  if (mode !== 'rdp') {
    for (let i = random.below(4); i > 0; i--) pdus.push(tsRequest(random));
    if (mode === 'nla-ex' && random.chance(0.8)) pdus.push(Uint8Array.of(random.chance(0.8) ? 0 : 5, 0, 0, 0));
  }
  for (let i = random.below(12); i > 0; i--) pdus.push(random.chance(0.3) || pdus.length === 0 ? tpkt(random) : fastPath(random));
  if (random.chance(0.1)) pdus.push(random.bytes(1 + random.below(8)));
  return Buffer.concat(pdus);
}

/** A frame case with random limits, cuts and, now and then, the kiosk's TPKT ending NLA between two chunks. */
function frameCase(random: SeededRandom, stream: Uint8Array, mode: FramingMode, label: string): Case {
  const small = random.chance(0.2);
  const maxPduBytes = small ? 7 + (random.below(256) << 4) : 65536;
  const maxFrameBytes = random.chance(0.5) ? maxPduBytes : Math.min(maxPduBytes * 3, 262144);
  const cuts = cutsFor(random, stream.length, random.pick([1, 2, 3, 7, 16, 64, 1024, 20000]));
  const setModes: [number, FramingMode][] = mode !== 'rdp' && random.chance(0.3) ? [[random.below(cuts.length + 1), 'rdp']] : [];
  return { op: 'frame', mode, maxPduBytes, maxFrameBytes, cuts, setModes, payload: stream, label };
}

function corpus(target: string): Uint8Array[] {
  const dir = join(root, 'protocol', 'fuzz', 'corpus', target);
  const entries = readdirSync(dir).filter((name) => name.endsWith('.bin')).sort();
  assert.ok(entries.length > 0, `no corpus in ${dir}`);
  return entries.map((name) => readFileSync(join(dir, name)));
}

void test('the Go framer cuts every shared recording into the same batches as the TypeScript one, in any chunks', async () => {
  requirePduCheck();
  const random = new SeededRandom(0x5eed);
  const cases: Case[] = [];
  for (const file of listRecordings()) {
    const { records } = await readRecording(file);
    for (const direction of ['server-to-client', 'client-to-server'] as const) {
      const pdus = records.filter((record) => record.direction === direction).map((record) => record.data);
      const stream = Buffer.concat(pdus);
      const name = `${basename(file)} ${direction}`;
      cases.push({ op: 'frame', mode: 'rdp', maxPduBytes: 65536, maxFrameBytes: 262144, cuts: cutsFor(random, stream.length, 32768), setModes: [], payload: stream, label: `${name}, reads up to 32 KiB` });
      if (stream.length < 1_000_000) {
        cases.push({ op: 'frame', mode: 'rdp', maxPduBytes: 65536, maxFrameBytes: 65536, cuts: cutsFor(random, stream.length, 300), setModes: [], payload: stream, label: `${name}, small reads, 64 KiB frames` });
      }
      if (direction === 'client-to-server') {
        // The kiosk's frames: one to four recorded PDUs each.
        for (let i = 0; i < pdus.length; ) {
          const take = 1 + random.below(4);
          cases.push({ op: 'count', mode: 'rdp', maxPduBytes: 65536, payload: Buffer.concat(pdus.slice(i, i + take)), label: `${name} frame at pdu ${i}` });
          i += take;
        }
      }
    }
  }
  assert.ok(cases.length > 12);
  const { errors } = assertSameVerdicts(cases);
  assert.equal(errors, 0, 'real sessions frame without error');
});

void test('generated and mutated streams in all three modes: the same batches, modes, counters and errors', () => {
  const random = new SeededRandom(0x1a77e4);
  const mutator = new ByteMutator(random, [Uint8Array.of(0x03, 0x00), Uint8Array.of(0x30, 0x82), Uint8Array.of(0x30, 0x84), Uint8Array.of(5, 0, 0, 0)], 16 * 1024);
  const cases: Case[] = [];
  const seeds: { stream: Uint8Array; mode: FramingMode }[] = [];
  for (let i = 0; i < 600; i++) {
    const mode = random.pick(FRAMING_MODES);
    const stream = generatedStream(random, mode);
    seeds.push({ stream, mode });
    cases.push(frameCase(random, stream, mode, `generated ${i} (${mode})`));
  }
  // The fuzz corpus: byte 0's low bits pick the mode (as its decoder does); the stream starts at byte 5.
  for (const [i, entry] of corpus('pdu-framer').entries()) {
    const mode = FRAMING_MODES[(entry[0] ?? 0) & 3] ?? 'rdp';
    seeds.push({ stream: entry.subarray(5), mode });
    cases.push(frameCase(random, entry.subarray(5), mode, `corpus entry ${i} (${mode})`));
  }
  for (let i = 0; i < 2000; i++) {
    const seed = random.pick(seeds);
    const mutated = mutator.mutate(seed.stream, () => random.pick(seeds).stream);
    cases.push(frameCase(random, mutated, seed.mode, `mutation ${i} (${seed.mode})`));
    // The same bytes as one kiosk frame.
    cases.push({ op: 'count', mode: seed.mode, maxPduBytes: random.chance(0.2) ? 7 + (random.below(256) << 4) : 65536, payload: mutated, label: `mutated frame ${i} (${seed.mode})` });
  }
  const { errors } = assertSameVerdicts(cases);
  // Mutations must reach the error paths, or this compares only the easy half.
  assert.ok(errors > 500, `only ${errors} of ${cases.length} cases failed framing`);
});

void test('X.224 Connection Requests and Confirms: the same protocols, kinds and error messages', () => {
  const random = new SeededRandom(0x224);
  const mutator = new ByteMutator(random, [Uint8Array.of(0x0d, 0x0a), Uint8Array.of(0x01, 0x00, 0x08, 0x00), Uint8Array.of(0x06, 0x00, 0x24, 0x00)], 1024);
  const seeds: Uint8Array[] = [
    ...corpus('x224'),
    buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL | PROTOCOL.HYBRID, cookie: 'bob' }),
    buildConnectionRequest({ requestedProtocols: PROTOCOL.HYBRID_EX, correlationId: new Uint8Array(16).fill(7) }),
    buildConnectionRequest({ routingToken: Buffer.from('Cookie: msts=3640205228.15629.0000') }),
    buildConnectionConfirm({ kind: 'response', selectedProtocol: PROTOCOL.HYBRID, flags: 0x1f }),
    buildConnectionConfirm({ kind: 'failure', failureCode: 5 }),
    buildConnectionConfirm({ kind: 'none' }),
  ];
  const cases: Case[] = [];
  for (let i = 0; i < 3000; i++) {
    const payload = i < seeds.length ? (seeds[i] ?? new Uint8Array()) : mutator.mutate(random.pick(seeds), () => random.pick(seeds));
    cases.push({ op: 'x224-request', payload, label: `request ${i}` }, { op: 'x224-confirm', payload, label: `confirm ${i}` });
  }
  const { errors } = assertSameVerdicts(cases);
  // Each payload is read as both kinds, so half are refused anyway; mutations must still leave some accepted.
  assert.ok(errors > 1000 && errors < cases.length - 40, `${errors} of ${cases.length} refused: both outcomes must be covered`);
});

void test('certificate facts: the fingerprint Node prints and the SubjectPublicKey inside the SPKI Node exports', async () => {
  const certificates = await Promise.all(['presenter-a', 'presenter-b'].map((name) => generateTestCertificate(name)));
  const cases: Case[] = certificates.map(({ cert }, i) => ({ op: 'certificate', payload: new X509Certificate(cert).raw, label: `certificate ${i}` }));
  const verdicts = goVerdicts(cases) as { publicKey: string; fingerprint: string; error: string | null }[];
  cases.forEach((c, i) => {
    const go = verdicts[i];
    const ts = tsVerdict(c) as { fingerprint: string; spki: Buffer };
    assert.ok(go && go.error === null, `${c.label}: ${go?.error}`);
    assert.equal(go.fingerprint, ts.fingerprint);
    // The BIT STRING's contents end the SPKI, after its unused-bits octet (0).
    const key = Buffer.from(go.publicKey, 'base64');
    assert.ok(key.length >= 270 && ts.spki.subarray(ts.spki.length - key.length).equals(key) && ts.spki[ts.spki.length - key.length - 1] === 0, `${c.label}: not the SPKI's key`);
  });
});
