// The presenter page's RDP server (FreeRDP's peer in wasm, js/lanternaPresenter.js)
// against the display's real wasm client (js/lanternaRdp.js), both in this
// process, joined by presenterPipe.mjs the way the gateway will join them:
// the connection sequence runs to an active GFX session, and the pictures the
// presenter sends arrive in the client's decoded surface exactly, pixel for pixel.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { buildConnectionRequest, NEG_FAILURE, parseConnectionConfirm } from '@lanterna/protocol';

import { countDifferences, startJoined, testPicture, withBothModules } from './presenterPipe.mjs';

let rdp;
let presenters;
withBothModules((loaded) => { ({ rdp, presenters } = loaded); });

/** Resolves with the first frame for which check(frame) is true, or rejects at the deadline with what was last seen. */
function frameWatcher(client) {
  const waiters = [];
  let last = null;
  client.onframe = (frame) => {
    for (const waiter of [...waiters]) {
      const verdict = waiter.check(frame);
      last = verdict;
      if (verdict === true) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(frame);
      }
    }
  };
  return (check, what, deadlineMs = 20000) => new Promise((resolve, reject) => {
    const waiter = { check, resolve: (frame) => { clearTimeout(timer); resolve(frame); } };
    const timer = setTimeout(() => {
      waiters.splice(waiters.indexOf(waiter), 1);
      reject(new Error(`no frame showed ${what} within ${deadlineMs} ms (last check: ${JSON.stringify(last)})`));
    }, deadlineMs);
    waiters.push(waiter);
  });
}

/** A client and a presenter joined and started; resolves when the presenter's graphics channel is up. */
async function joined(t, { clientSize, presenterSize, clientOptions = {} }) {
  const client = rdp.createSession({ ...clientSize, connectTimeoutMs: 15000, username: 'display', password: 'unused', ...clientOptions });
  const presenter = presenters.createSession(presenterSize);
  const seen = { connected: null, active: null, keyframeRequests: 0, acked: [], dropped: [], clientEnd: null, presenterEnd: null };
  client.onconnected = (desktop) => { seen.connected = desktop; };
  client.ondisconnected = (end) => { seen.clientEnd = end; };
  const active = new Promise((resolve) => { presenter.onactive = (info) => { seen.active = info; resolve(info); }; });
  // events come one per message from the peer thread: the request may follow onactive a little later
  seen.keyframeRequested = new Promise((resolve) => {
    presenter.onkeyframerequest = () => { seen.keyframeRequests += 1; resolve(true); };
  });
  presenter.onframeacked = (ack) => { seen.acked.push(ack.frameId); };
  presenter.onframedropped = (drop) => { seen.dropped.push(drop); };
  presenter.onended = (end) => { seen.presenterEnd = end; };
  const nextFrame = frameWatcher(client);
  const pipe = startJoined(t, client, presenter);
  const outcome = await Promise.race([
    active,
    client.closed.then((end) => { throw new Error(`the client ended before GFX was up: ${JSON.stringify(end)}; pipe ${JSON.stringify(pipe.stats)}; presenter ${JSON.stringify(seen.presenterEnd)}`); }),
    presenter.ended.then((end) => { throw new Error(`the presenter ended before GFX was up: ${JSON.stringify(end)}; pipe ${JSON.stringify(pipe.stats)}`); }),
  ]);
  return { client, presenter, seen, pipe, nextFrame, active: outcome };
}

test('a picture the presenter sends arrives in the display client\'s surface pixel for pixel', async (t) => {
  const width = 320;
  const height = 240;
  const { client, presenter, seen, pipe, nextFrame, active } = await joined(t, {
    clientSize: { width: 640, height: 480 }, // the presenter's size wins: the display shows what is shared
    presenterSize: { width, height },
  });
  assert.equal(pipe.stats.failure, null);
  assert.equal(pipe.stats.confirm.kind, 'response');
  assert.deepEqual(active, { width, height, avc420: false }); // Node's client offers no AVC (no WebCodecs)
  let timer;
  const asked = await Promise.race([seen.keyframeRequested, new Promise((resolve) => { timer = setTimeout(resolve, 5000, false); })]);
  clearTimeout(timer);
  assert.ok(asked, 'a joining client asks for a whole picture');
  assert.deepEqual(seen.connected, { width, height });

  // the whole desktop, uncompressed
  const first = testPicture(width, height, 1);
  const whole = { x: 0, y: 0, width, height };
  const firstShown = nextFrame((frame) => (frame.width !== width || frame.height !== height
    ? `size ${frame.width}x${frame.height}` : (countDifferences(frame, first, whole).differ === 0 || countDifferences(frame, first, whole))),
  'the first picture');
  presenter.sendFrame({ width, height, pixels: first });
  await firstShown;

  // a part of it, planar (lossless): that part changes, the rest stays
  const part = { x: 37, y: 51, width: 100, height: 60 };
  const second = testPicture(part.width, part.height, 2);
  const secondShown = nextFrame((frame) => {
    const inside = countDifferences(frame, second, part);
    return inside.differ === 0 || inside;
  }, 'the second picture');
  presenter.sendFrame({ ...part, pixels: second, codec: 'planar' });
  const frame = await secondShown;
  // outside the part, the first picture is untouched
  const above = { x: 0, y: 0, width, height: part.y };
  assert.equal(countDifferences(frame, first.subarray(0, width * part.y * 4), above).differ, 0);
  const below = { x: 0, y: part.y + part.height, width, height: height - part.y - part.height };
  assert.equal(countDifferences(frame, first.subarray(width * below.y * 4), below).differ, 0);

  // the client acknowledges what it drew; nothing was dropped
  await new Promise((resolve) => { setTimeout(resolve, 200); });
  assert.ok(seen.acked.length >= 1, `frame acknowledgements: ${JSON.stringify(seen.acked)}`);
  assert.deepEqual(seen.dropped, []);
  // every presenter message was one whole PDU under the gateway's cap (300 KB of pictures in ≤ 16 KB pieces)
  assert.equal(pipe.stats.failure, null);
  assert.ok(pipe.stats.pdusToClient > 20, `${pipe.stats.pdusToClient} PDUs`);
  assert.ok(pipe.stats.largestPdu <= 16 * 1024, `largest PDU ${pipe.stats.largestPdu} B`);

  // the display leaves: the presenter's session ends as closed
  client.stop();
  assert.equal((await client.closed).reason, 'stopped');
  assert.equal((await presenter.ended).reason, 'closed');
});

test('a picture that differs from what was sent is seen as different (the comparison can fail)', async (t) => {
  const width = 64;
  const height = 48;
  // FreeRDP's client takes no desktop under 200×200; the presenter's size wins anyway
  const { presenter, nextFrame } = await joined(t, { clientSize: { width: 200, height: 200 }, presenterSize: { width, height } });
  const sent = testPicture(width, height, 5);
  const other = testPicture(width, height, 6);
  let verdictOnOther = null;
  const shown = nextFrame((frame) => {
    const same = countDifferences(frame, sent, { x: 0, y: 0, width, height });
    if (same.differ !== 0) return same;
    verdictOnOther = countDifferences(frame, other, { x: 0, y: 0, width, height });
    return true;
  }, 'the sent picture');
  presenter.sendFrame({ width, height, pixels: sent, codec: 'planar' });
  await shown;
  assert.equal(verdictOnOther.differ, width * height, 'every pixel of another picture differs');
});

test('the presenter stopping ends the display\'s session, typed', async (t) => {
  const { client, presenter } = await joined(t, { clientSize: { width: 200, height: 200 }, presenterSize: { width: 200, height: 100 } });
  presenter.stop();
  assert.equal((await presenter.ended).reason, 'stopped');
  const end = await client.closed;
  assert.ok(['server-ended', 'closed'].includes(end.reason), `client ended ${JSON.stringify(end)}`);
});

test('pictures that do not fit the desktop are refused before they reach wasm', async (t) => {
  const { presenter } = await joined(t, { clientSize: { width: 200, height: 200 }, presenterSize: { width: 100, height: 100 } });
  assert.throws(() => presenter.sendFrame({ x: 50, y: 0, width: 60, height: 10, pixels: new Uint8Array(60 * 10 * 4) }), { code: 'bad-frame' });
  assert.throws(() => presenter.sendFrame({ width: 10, height: 10, pixels: new Uint8Array(10) }), { code: 'bad-frame' });
  assert.throws(() => presenters.createSession({ width: 0, height: 10 }), { code: 'bad-size' });
  // Node's client offers no AVC: an H.264 picture is refused, not sent
  assert.equal(presenter.active.avc420, false);
  assert.throws(() => presenter.sendAvc420({ width: 100, height: 100, accessUnit: Uint8Array.of(0, 0, 0, 1, 0x65, 0x88) }), { code: 'avc-not-allowed' });
});

test('an H.264 access unit reaches the display client\'s H.264 decoder byte for byte (GFX AVC420)', async (t) => {
  // The client is told its host can decode AVC420 (a browser's VideoDecoder would say so);
  // Node has none, so the decoder answers "unsupported" and the session ends: what counts
  // here is that the presenter's access unit arrives where the browser's decoder would get it.
  const width = 320;
  const height = 240;
  const units = [];
  const productDecode = rdp.h264.decode.bind(rdp.h264);
  rdp.h264.decode = (record) => {
    const words = rdp.module.HEAP32;
    const data = words[(record >> 2) + 2] >>> 0; // LT_H264_DATA, LT_H264_SIZE (src/h264_webcodecs.h)
    const size = words[(record >> 2) + 3] >>> 0;
    units.push(rdp.module.HEAPU8.slice(data, data + size));
    productDecode(record);
  };
  t.after(() => { rdp.h264.decode = productDecode; });
  const { client, presenter, active } = await joined(t, {
    clientSize: { width, height }, presenterSize: { width, height },
    clientOptions: { codecs: ['avc420'], videoDecoder: { avc420: true, avc444: false } },
  });
  assert.equal(active.avc420, true);
  // an access unit as VideoEncoder writes it in Annex-B: AUD, SPS, PPS, IDR slice (content is not decoded here)
  const accessUnit = Uint8Array.of(
    0, 0, 0, 1, 0x09, 0x10,
    0, 0, 0, 1, 0x67, 0x42, 0xc0, 0x1f, 0xda, 0x01, 0x40, 0x16, 0xe8,
    0, 0, 0, 1, 0x68, 0xce, 0x3c, 0x80,
    0, 0, 0, 1, 0x65, 0x88, 0x84, 0x00, 0x33, 0xff, 0xfe, 0xf6, 0xf0, 0xfe, 0x05, 0x36, 0x56, 0x04, 0x50, 0x96, 0x7b, 0x3f, 0x53, 0xe1,
  );
  presenter.sendAvc420({ width, height, accessUnit });
  const end = await client.closed;
  assert.equal(end.reason, 'video-unsupported');
  assert.equal(units.length, 1, `access units at the decoder: ${units.length}`);
  assert.deepEqual([...units[0]], [...accessUnit]);
  assert.equal((await presenter.ended).reason, 'closed');
});

/** A presenter fed bytes straight (no client): its outputs and how it ended. */
async function feedAlone(bytes, { connectTimeoutMs = 20000 } = {}) {
  const presenter = presenters.createSession({ width: 320, height: 240, connectTimeoutMs });
  const outputs = [];
  presenter.onoutput = (pdu) => outputs.push(pdu);
  presenter.start();
  presenter.feed(bytes);
  const started = Date.now();
  const end = await Promise.race([presenter.ended, new Promise((resolve) => { setTimeout(resolve, 10000, { reason: 'no end within 10 s' }).unref(); })]);
  if (presenter.state !== 'ended') presenter.stop();
  return { outputs, end, ms: Date.now() - started };
}

test('a Connection Request that is not one ends the presenter\'s session as protocol-error', async () => {
  // a TPKT whose X.224 header claims more than the packet holds
  const { outputs, end } = await feedAlone(Uint8Array.of(3, 0, 0, 8, 0xff, 0xff, 0xff, 0xff));
  assert.equal(end.reason, 'protocol-error');
  assert.deepEqual(outputs, []);
});

test('a client that asks only for RDP security gets a negotiation failure; one that never completes a PDU ends at the deadline', async () => {
  const legacy = await feedAlone(buildConnectionRequest({ cookie: 'legacy' }), { connectTimeoutMs: 1000 });
  assert.equal(legacy.outputs.length, 1);
  assert.deepEqual(parseConnectionConfirm(legacy.outputs[0]), { kind: 'failure', failureCode: NEG_FAILURE.SSL_REQUIRED_BY_SERVER });
  assert.equal(legacy.end.reason, 'timeout');

  // not RDP at all: its first bytes read as the start of a long fast-path PDU that never comes
  const http = await feedAlone(new TextEncoder().encode('GET / HTTP/1.1\r\nHost: x\r\n\r\n'), { connectTimeoutMs: 1000 });
  assert.equal(http.end.reason, 'timeout');
  assert.ok(http.ms < 5000, `took ${http.ms} ms`);
});
