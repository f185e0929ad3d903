// fast-check generators for the fuzz targets: mostly streams of well-formed
// PDUs with a few bytes broken, so the search spends its time near the
// boundaries of the format instead of on bytes rejected at offset 0.
import fc from 'fast-check';
import { FRAMING_MODES } from '../framingMode.js';
import { buildConnectionConfirm, buildConnectionRequest, PROTOCOL } from '../x224.js';
import type { FramerFuzzCase } from './framerFuzzTarget.js';

const byteBody = (length: number): fc.Arbitrary<Uint8Array> => fc.uint8Array({ minLength: length, maxLength: length });

const tpkt = fc.integer({ min: 7, max: 600 }).chain((length) =>
  byteBody(length - 4).map((body) => Buffer.concat([Buffer.from([0x03, 0x00, length >> 8, length & 0xff]), body])),
);
const fastPathShort = fc.tuple(fc.integer({ min: 0, max: 63 }), fc.integer({ min: 2, max: 127 })).chain(([action, length]) =>
  byteBody(length - 2).map((body) => Buffer.concat([Buffer.from([action << 2, length]), body])),
);
const fastPathLong = fc.tuple(fc.integer({ min: 0, max: 63 }), fc.integer({ min: 3, max: 3000 })).chain(([action, length]) =>
  byteBody(length - 3).map((body) => Buffer.concat([Buffer.from([action << 2, 0x80 | (length >> 8), length & 0xff]), body])),
);
const tsRequest = fc.integer({ min: 1, max: 1200 }).chain((content) => {
  const header =
    content < 0x80 ? [0x30, content] : content < 0x100 ? [0x30, 0x81, content] : [0x30, 0x82, content >> 8, content & 0xff];
  return byteBody(content).map((body) => Buffer.concat([Buffer.from(header), body]));
});
const earlyUserAuth = fc.constantFrom(Buffer.from([0, 0, 0, 0]), Buffer.from([5, 0, 0, 0]));
const noise = fc.uint8Array({ minLength: 1, maxLength: 12 }).map((bytes) => Buffer.from(bytes));

const pduSequence = fc.array(
  fc.oneof(
    { arbitrary: tpkt, weight: 4 },
    { arbitrary: fastPathShort, weight: 2 },
    { arbitrary: fastPathLong, weight: 2 },
    { arbitrary: tsRequest, weight: 2 },
    { arbitrary: earlyUserAuth, weight: 1 },
    { arbitrary: noise, weight: 1 },
  ),
  { maxLength: 24 },
);

/** Flips, overwrites and truncations applied at positions taken modulo the length. */
const mutations = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ kind: fc.constant('truncate' as const), at: fc.nat(), value: fc.constant(0) }),
  ),
  { maxLength: 3 },
);

function mutate(stream: Uint8Array, changes: readonly { kind: 'set' | 'truncate'; at: number; value: number }[]): Buffer {
  let out = Buffer.from(stream);
  for (const change of changes) {
    if (out.length === 0) break;
    const at = change.at % out.length;
    if (change.kind === 'set') out.writeUInt8(change.value, at);
    else out = out.subarray(0, at);
  }
  return out;
}

const stream = fc.oneof(
  { arbitrary: fc.tuple(pduSequence, mutations).map(([pdus, changes]) => mutate(Buffer.concat(pdus), changes)), weight: 5 },
  { arbitrary: fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes)), weight: 1 },
);

export const framerFuzzCase: fc.Arbitrary<FramerFuzzCase> = fc
  .record({
    stream,
    cutSeeds: fc.array(fc.nat(), { maxLength: 40 }),
    mode: fc.constantFrom(...FRAMING_MODES),
    maxPduBytes: fc.oneof(fc.constant(65536), fc.integer({ min: 7, max: 4000 })),
    frameFactor: fc.integer({ min: 1, max: 4 }),
  })
  .map(({ stream: bytes, cutSeeds, mode, maxPduBytes, frameFactor }) => ({
    stream: bytes,
    cuts: [...new Set(cutSeeds.map((seed) => (bytes.length > 1 ? 1 + (seed % (bytes.length - 1)) : 0)))]
      .filter((cut) => cut > 0)
      .sort((a, b) => a - b),
    mode,
    maxPduBytes,
    maxFrameBytes: maxPduBytes * frameFactor,
  }));

const protocols = fc.integer({ min: 0, max: 0x1f });
// Cookies travel as latin1: keep to characters that survive that encoding.
const cookie = fc.string({ maxLength: 40 }).filter((s) => !s.includes('\r\n') && Buffer.from(s, 'latin1').toString('latin1') === s);

const x224Pdu = fc.oneof(
  fc
    .record({ requestedProtocols: fc.option(protocols, { nil: undefined }), cookie: fc.option(cookie, { nil: undefined }), flags: fc.integer({ min: 0, max: 7 }) })
    .map((fields) => buildConnectionRequest(fields)),
  fc
    .record({ correlationId: fc.uint8Array({ minLength: 16, maxLength: 16 }) })
    .map(({ correlationId }) => buildConnectionRequest({ requestedProtocols: PROTOCOL.HYBRID_EX, correlationId: Buffer.from(correlationId) })),
  fc
    .oneof(
      fc.record({ kind: fc.constant('response' as const), selectedProtocol: protocols, flags: fc.integer({ min: 0, max: 0x1f }) }),
      fc.record({ kind: fc.constant('failure' as const), failureCode: fc.integer({ min: 0, max: 7 }) }),
      fc.constant({ kind: 'none' as const }),
    )
    .map((confirm) => buildConnectionConfirm(confirm)),
);

export const x224FuzzInput: fc.Arbitrary<Buffer> = fc.oneof(
  { arbitrary: fc.tuple(x224Pdu, mutations).map(([pdu, changes]) => mutate(pdu, changes)), weight: 5 },
  { arbitrary: fc.uint8Array({ maxLength: 80 }).map((bytes) => Buffer.from(bytes)), weight: 1 },
);
