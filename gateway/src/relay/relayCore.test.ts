// The pump's rules, without sockets: bytes and events in, a recording of what
// it asked the sockets to do out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RelayCore, type RelayEnd, type RelayMeter, type RelayOptions, type RelayOutput } from './relayCore.js';

type Call =
  | { to: 'client'; frame: Buffer }
  | { to: 'server'; frame: Buffer }
  | { do: 'pause-server' | 'resume-server' | 'pause-client' | 'resume-client' }
  | { end: RelayEnd };

class Recorder implements RelayOutput, RelayMeter {
  readonly calls: Call[] = [];
  readonly counted = { toKiosk: { bytes: 0, pdus: 0, frames: 0, copiedBytes: 0 }, toServer: { bytes: 0, pdus: 0 }, pauses: [] as string[] };
  /** What writeToServer answers: false is a full server write buffer. */
  serverAccepts = true;

  sendToClient(frame: Buffer): void { this.calls.push({ to: 'client', frame: Buffer.from(frame) }); }
  writeToServer(frame: Buffer): boolean { this.calls.push({ to: 'server', frame: Buffer.from(frame) }); return this.serverAccepts; }
  pauseServer(): void { this.calls.push({ do: 'pause-server' }); }
  resumeServer(): void { this.calls.push({ do: 'resume-server' }); }
  pauseClient(): void { this.calls.push({ do: 'pause-client' }); }
  resumeClient(): void { this.calls.push({ do: 'resume-client' }); }
  end(end: RelayEnd): void { this.calls.push({ end }); }
  toKiosk(bytes: number, pdus: number, frames: number, copiedBytes: number): void {
    const c = this.counted.toKiosk;
    c.bytes += bytes; c.pdus += pdus; c.frames += frames; c.copiedBytes += copiedBytes;
  }
  toServer(bytes: number, pdus: number): void { this.counted.toServer.bytes += bytes; this.counted.toServer.pdus += pdus; }
  paused(side: 'server' | 'client'): void { this.counted.pauses.push(side); }

  take(): Call[] { return this.calls.splice(0); }
  framesToClient(): Buffer[] { return this.take().flatMap((call) => ('to' in call && call.to === 'client' ? [call.frame] : [])); }
}

const OPTIONS: RelayOptions = { highWaterBytes: 1000, lowWaterBytes: 200, maxFrameBytes: 64 * 1024, idleTimeoutMs: 0, protocol: 'ssl' };

function relay(options: Partial<RelayOptions> = {}, clock?: () => number): { core: RelayCore; out: Recorder } {
  const out = new Recorder();
  return { core: new RelayCore({ ...OPTIONS, ...options }, out, out, clock), out };
}

function tpkt(payloadBytes: number, fill = 0xab): Buffer {
  const pdu = Buffer.alloc(7 + payloadBytes, fill);
  pdu.writeUInt32BE(0x03000000 | pdu.length, 0);
  pdu.set([0x02, 0xf0, 0x80], 4);
  return pdu;
}

function fastPath(payloadBytes: number): Buffer {
  const pdu = Buffer.alloc(2 + payloadBytes, 0x11);
  pdu[0] = 0x00;
  pdu[1] = pdu.length;
  return pdu;
}

function endOf(calls: Call[]): RelayEnd | undefined {
  const last = calls.at(-1);
  return last && 'end' in last ? last.end : undefined;
}

test('server to kiosk: only whole PDUs go out, a PDU split over reads waits for its end', () => {
  const { core, out } = relay();
  const first = tpkt(20);
  const second = fastPath(10);
  const stream = Buffer.concat([first, second]);
  core.serverData(stream.subarray(0, 5));
  assert.deepEqual(out.take(), [], 'half a header: nothing to send');
  core.serverData(stream.subarray(5, 30));
  assert.deepEqual(out.framesToClient(), [first], 'the first PDU once whole, not the start of the second');
  core.serverData(stream.subarray(30));
  assert.deepEqual(out.framesToClient(), [second]);
  assert.equal(out.counted.toKiosk.bytes, stream.length);
  assert.equal(out.counted.toKiosk.pdus, 2);
  assert.equal(out.counted.toKiosk.copiedBytes, first.length + second.length, 'PDUs that straddle reads are copied once each');
});

test('server to kiosk: PDUs that arrive together go out as one frame, never above maxFrameBytes, none split', () => {
  const { core, out } = relay({ maxFrameBytes: 64 * 1024 });
  const small = [tpkt(10, 1), fastPath(5), tpkt(30, 2)];
  core.serverData(Buffer.concat(small));
  assert.deepEqual(out.framesToClient(), [Buffer.concat(small)], 'one read of three PDUs: one message');
  assert.equal(out.counted.toKiosk.frames, 1);

  const big = Array.from({ length: 5 }, (_, i) => tpkt(30_000, i));
  core.serverData(Buffer.concat(big));
  const frames = out.framesToClient();
  assert.ok(frames.length >= 3, `five 30 KB PDUs need at least three 64 KiB frames (got ${frames.length})`);
  for (const frame of frames) assert.ok(frame.length <= 64 * 1024);
  assert.deepEqual(Buffer.concat(frames), Buffer.concat(big), 'every byte once, in order');
  let at = 0;
  for (const frame of frames) {
    for (let offset = 0; offset < frame.length; offset += frame.readUInt16BE(offset + 2)) at += 1;
  }
  assert.equal(at, 5, 'each frame holds whole PDUs only');
  assert.equal(out.counted.toKiosk.copiedBytes, 0, 'whole PDUs in one read are not copied');
});

test('backpressure toward the kiosk: pause the server above high water, resume at low water, once each', () => {
  const { core, out } = relay({ highWaterBytes: 1000, lowWaterBytes: 200 });
  core.clientBuffered(1000);
  assert.deepEqual(out.take(), [], 'at high water: still reading');
  core.clientBuffered(1001);
  core.clientBuffered(5000);
  assert.deepEqual(out.take(), [{ do: 'pause-server' }], 'paused once');
  assert.equal(core.isServerPaused, true);
  core.clientBuffered(201);
  assert.deepEqual(out.take(), [], 'between the marks: still paused');
  core.clientBuffered(200);
  core.clientBuffered(0);
  assert.deepEqual(out.take(), [{ do: 'resume-server' }], 'resumed once at low water');
  assert.deepEqual(out.counted.pauses, ['server']);
});

test('issue 31: past maxBacklogBytes a side that does not read ends the session with peer-not-reading, naming the side', () => {
  for (const side of ['client', 'server'] as const) {
    const { core, out } = relay({ highWaterBytes: 1000, lowWaterBytes: 200, maxBacklogBytes: 4000 });
    assert.equal(core.overCap(side, 4000), false, 'at the cap: kept');
    if (side === 'client') core.clientBuffered(4001);
    else core.overCap(side, 4001);
    const end = endOf(out.take());
    assert.ok(end?.reason === 'error', `ended with ${JSON.stringify(end)}`);
    assert.deepEqual([end.error.code, end.error.detail], ['peer-not-reading', { side }]);
    assert.equal(core.overCap(side, 1_000_000), true, 'ended once');
    assert.deepEqual(out.take(), []);
  }
  // no cap: nothing ends
  const { core, out } = relay({ maxBacklogBytes: 0 });
  assert.equal(core.overCap('client', 1e9), false);
  assert.deepEqual(out.take(), []);
});

test('issue 31: a server whose socket holds unwritten bytes for writeStallMs ends the session with peer-not-reading (the server leg\'s write deadline)', () => {
  let now = 0;
  const { core, out } = relay({ writeStallMs: 500 }, () => now);
  assert.equal(core.serverWriteQueued(0), false);
  assert.equal(core.serverWriteQueued(43_000), false, 'a write queued: the deadline starts');
  now = 400;
  assert.equal(core.serverWriteQueued(43_000), false, 'within the deadline');
  assert.equal(core.serverWriteQueued(0), false, 'taken: the deadline is off');
  now = 600;
  assert.equal(core.serverWriteQueued(100), false, 'queued again: a new deadline from here');
  now = 1099;
  assert.equal(core.serverWriteQueued(100), false);
  assert.deepEqual(out.take(), []);
  now = 1100;
  assert.equal(core.serverWriteQueued(100), true, 'past the deadline');
  const end = endOf(out.take());
  assert.ok(end?.reason === 'error', `ended with ${JSON.stringify(end)}`);
  assert.deepEqual([end.error.code, end.error.detail], ['peer-not-reading', { side: 'server' }]);
  // no deadline configured: nothing ends
  const never = relay({}, () => now);
  never.core.serverWriteQueued(1);
  now = 1e9;
  assert.equal(never.core.serverWriteQueued(1), false);
  assert.deepEqual(never.out.take(), []);
});

test('backpressure toward the server: a full write buffer pauses the kiosk until the server drains', () => {
  const { core, out } = relay();
  const pdu = tpkt(10);
  out.serverAccepts = false;
  core.clientFrame(pdu);
  core.clientFrame(pdu);
  assert.deepEqual(out.take(), [{ to: 'server', frame: pdu }, { do: 'pause-client' }, { to: 'server', frame: pdu }]);
  assert.equal(core.isClientPaused, true);
  out.serverAccepts = true;
  core.serverDrained();
  core.serverDrained();
  assert.deepEqual(out.take(), [{ do: 'resume-client' }]);
  assert.deepEqual(out.counted.pauses, ['client']);
  assert.deepEqual(out.counted.toServer, { bytes: 2 * pdu.length, pdus: 2 });
});

test('kiosk to server: a frame must hold whole PDUs; several in one frame are written as they came', () => {
  const { core, out } = relay();
  // a client's fast-path PDU is input: the presenter's permission lets it through (see the input gate's tests below)
  core.setInputAllowed(true);
  const frame = Buffer.concat([tpkt(3), fastPath(4)]);
  core.clientFrame(frame);
  assert.deepEqual(out.take(), [{ to: 'server', frame }]);
  assert.equal(out.counted.toServer.pdus, 2);

  core.clientFrame(tpkt(10).subarray(0, 12));
  const calls = out.take();
  assert.equal(calls.length, 1, 'nothing of a broken frame reaches the server');
  const end = endOf(calls);
  assert.ok(end?.reason === 'error');
  assert.equal(end.error.code, 'pdu-invalid');
  assert.equal(end.error.phase, 'relay');
});

test('malformed PDUs from the server end the session as the server\'s fault; oversized ones as too large', () => {
  const garbage = relay();
  garbage.core.serverData(tpkt(4));
  garbage.core.serverData(Buffer.from([0x03, 0x01, 0x00, 0x09, 1, 2, 3, 4, 5]));
  const calls = garbage.out.take();
  assert.deepEqual(calls.slice(0, 1), [{ to: 'client', frame: tpkt(4) }], 'what came before the bad PDU was relayed');
  const end = endOf(calls);
  assert.equal(end?.reason === 'error' && end.error.code, 'server-error');
  assert.equal(end?.reason === 'error' && end.error.detail.side, 'server');

  // During NLA a DER length can claim far more than a PDU may be.
  const huge = relay({ protocol: 'hybrid' });
  huge.core.serverData(Buffer.from([0x30, 0x84, 0x01, 0x00, 0x00, 0x00]));
  const hugeEnd = endOf(huge.out.take());
  assert.equal(hugeEnd?.reason === 'error' && hugeEnd.error.code, 'pdu-too-large');
});

test('close ordering: what arrived whole before the close goes out, then one end, then nothing', () => {
  const { core, out } = relay();
  const whole = tpkt(8);
  core.serverData(Buffer.concat([whole, tpkt(8).subarray(0, 4)]));
  core.serverClosed();
  core.clientClosed();
  core.stop('stopped');
  assert.deepEqual(out.take(), [{ to: 'client', frame: whole }, { end: { reason: 'server-closed' } }], 'the partial PDU is never sent; one end');
  core.serverData(tpkt(8));
  core.clientFrame(tpkt(8));
  core.clientBuffered(0);
  core.serverDrained();
  assert.equal(core.tick(), undefined);
  assert.deepEqual(out.take(), [], 'nothing after the end');
  assert.equal(core.isEnded, true);
});

test('close ordering: a paused kiosk socket is resumed before the end, so the close handshake can be read', () => {
  const { core, out } = relay();
  out.serverAccepts = false;
  core.clientFrame(tpkt(1));
  out.take();
  core.stop('gateway-shutdown');
  assert.deepEqual(out.take(), [{ do: 'resume-client' }, { end: { reason: 'gateway-shutdown' } }]);
});

test('ends from either side and from outside carry their reason', () => {
  for (const [act, expected] of [
    [(core: RelayCore) => core.clientClosed(), 'client-closed'],
    [(core: RelayCore) => core.stop('stopped'), 'stopped'],
    [(core: RelayCore) => core.serverFailed('read ECONNRESET'), 'error'],
  ] as const) {
    const { core, out } = relay();
    act(core);
    const end = endOf(out.take());
    assert.ok(end);
    assert.equal(end.reason, expected);
    if (end.reason === 'error') {
      assert.equal(end.error.code, 'server-error');
      assert.deepEqual(end.error.detail, {}, 'the socket error stays in the log');
      assert.deepEqual(end.error.internal, { error: 'read ECONNRESET' });
    }
  }
});

test('idle timeout: traffic either way keeps the session; silence for the whole timeout ends it', () => {
  let now = 1_000_000;
  const { core, out } = relay({ idleTimeoutMs: 10_000 }, () => now);
  assert.equal(core.tick(), 10_000, 'the first check is due a whole timeout after the start');
  now += 6000;
  core.serverData(tpkt(1));
  now += 6000;
  assert.equal(core.tick(), 4000, 'server traffic 6 s ago: due in 4 s');
  core.clientFrame(tpkt(1));
  now += 9999;
  assert.equal(core.tick(), 1);
  out.take();
  now += 1;
  assert.equal(core.tick(), undefined);
  const end = endOf(out.take());
  assert.equal(end?.reason === 'error' && end.error.code, 'timeout');
  assert.equal(end?.reason === 'error' && end.error.detail.phase, 'relay');

  const never = relay({ idleTimeoutMs: 0 }, () => now);
  assert.equal(never.core.tick(), undefined, 'no idle timeout: no check needed');
});

test('NLA: DER TSRequests pass both ways until the client\'s first TPKT switches both directions to TPKT and fast-path', () => {
  const { core, out } = relay({ protocol: 'hybrid' });
  const tsRequest = Buffer.from([0x30, 0x03, 0xa0, 0x01, 0x06]); // SEQUENCE of 3 content bytes: 5 bytes
  core.serverData(tsRequest);
  assert.deepEqual(out.framesToClient(), [tsRequest]);
  core.clientFrame(tsRequest);
  assert.deepEqual(out.take(), [{ to: 'server', frame: tsRequest }]);

  const connectInitial = tpkt(20);
  core.clientFrame(connectInitial);
  out.take();
  core.setInputAllowed(true); // the fast-path PDU below is input
  // The same first byte is now a fast-path header whose length byte counts the whole PDU.
  const fastPathPdu = Buffer.from([0x30, 0x05, 1, 2, 3]);
  core.serverData(Buffer.concat([fastPathPdu, fastPathPdu]));
  assert.deepEqual(out.framesToClient(), [Buffer.concat([fastPathPdu, fastPathPdu])]);
  core.clientFrame(fastPathPdu);
  assert.deepEqual(out.take(), [{ to: 'server', frame: fastPathPdu }], 'the client side switched too');
});

test('HYBRID_EX: the server\'s Early User Authorization Result is a PDU of its own', () => {
  const { core, out } = relay({ protocol: 'hybrid-ex' });
  const result = Buffer.from([0x00, 0x00, 0x00, 0x00]);
  const tsRequest = Buffer.from([0x30, 0x02, 0x05, 0x00]);
  core.serverData(Buffer.concat([tsRequest, result]));
  assert.deepEqual(out.framesToClient(), [Buffer.concat([tsRequest, result])]);
  assert.equal(out.counted.toKiosk.pdus, 2);
});

// The presenter's permission (issue 30): off by default, input PDUs from the display never reach the server.
const FAST_PATH_MOUSE = Buffer.from([0x04, 0x09, 0x20, 0x00, 0x08, 0x64, 0x00, 0x32, 0x00]);
/** A slow-path Input Event PDU (TPKT, X.224, MCS SDrq on 1003, Share Data of pduType2 0x1C, one mouse event). */
const SLOW_PATH_INPUT = Buffer.from('0300003002f08064000603eb702222001700ef03ea030100000114001c00000001000000000000000180009064003200', 'hex');

test('input gate: off by default, the display\'s input PDUs are dropped and the rest of a frame goes on', () => {
  const { core, out } = relay();
  assert.equal(core.isInputAllowed, false);
  core.clientFrame(FAST_PATH_MOUSE);
  core.clientFrame(SLOW_PATH_INPUT);
  assert.deepEqual(out.take(), [], 'no input reached the server');
  const other = tpkt(5);
  core.clientFrame(Buffer.concat([FAST_PATH_MOUSE, other, SLOW_PATH_INPUT]));
  assert.deepEqual(out.take(), [{ to: 'server', frame: other }]);
  assert.deepEqual(out.counted.toServer, { bytes: other.length, pdus: 1 });
});

test('input gate: allowed, input passes as it came; revoked, it is dropped again at once', () => {
  const { core, out } = relay();
  core.setInputAllowed(true);
  core.clientFrame(FAST_PATH_MOUSE);
  core.clientFrame(SLOW_PATH_INPUT);
  assert.deepEqual(out.take(), [{ to: 'server', frame: FAST_PATH_MOUSE }, { to: 'server', frame: SLOW_PATH_INPUT }]);
  core.setInputAllowed(false);
  core.clientFrame(FAST_PATH_MOUSE);
  assert.deepEqual(out.take(), []);
});
