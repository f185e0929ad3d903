// The relay's own figures of a session, as the admin's live view reads them
// (GET /v1/admin/sessions), against what the display's data socket received,
// through the relay engine under test (the suite runs this file against
// both): each engine counts its messages, PDUs and bytes and rates them once
// a second in its own way (the Node relay's meter, the data plane's samples
// over RPC). A real gateway, a streaming TLS server, the display's data
// socket spoken by hand. While the server streams at a steady pace the
// messages and bytes per second lie near the display's own; once it stops,
// the totals are the display's exactly. This is the engine's part of
// e2e/kiosk/adminPage, which runs once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RawData } from 'ws';
import { openSecuredData, startFaultyPeer, startProjectingGateway, waitFor, STREAM_END, STREAM_PDU_BYTES, STREAM_REQUEST } from '@lanterna/testkit';

/** Each request asks for two PDUs; ten a second: about 20 PDUs and 330 kB a second, well within any engine on a loaded machine. */
const BURST_BYTES = 2 * STREAM_PDU_BYTES;
const REQUEST_EVERY_MS = 100;
/** Samples of the steady stream compared; the stream runs until then, at most STREAM_MS. */
const SAMPLES = 3;
const STREAM_MS = 20_000;
/** Samples taken this long into the stream rate seconds of it only (a session's first sample has no rate). */
const STEADY_AFTER_MS = 2500;
/** The admin API's rate limit (20 a second) holds for tests too. */
const ADMIN_POLL_MS = 250;

interface Stats { bytesToDisplay: number; bytesToServer: number; pdusToDisplay: number; messagesToDisplay: number; messagesPerSecond: number; bytesPerSecond: number; sampledAt: number }

function streamRequest(bytes: number): Buffer {
  const pdu = Buffer.from([0x03, 0x00, 0x00, 0x0c, 0x02, 0xf0, 0x80, STREAM_REQUEST, 0, 0, 0, 0]);
  pdu.writeUInt32BE(bytes, 8);
  return pdu;
}

/** The TPKTs in one message from the relay (it carries whole PDUs only). */
function pdusIn(message: Buffer): { count: number; ends: number } {
  let count = 0;
  let ends = 0;
  for (let at = 0; at < message.length;) {
    assert.equal(message[at], 0x03, `a TPKT at ${String(at)} of a ${String(message.length)}-byte message`);
    const length = message.readUInt16BE(at + 2);
    if (message[at + 7] === STREAM_END) ends += 1;
    count += 1;
    at += length;
  }
  return { count, ends };
}

test('the admin\'s figures of a session are the relay\'s: per second near what the display received, and in all exactly that', { timeout: 60_000 }, async (t) => {
  const peer = await startFaultyPeer('stream');
  t.after(() => peer.close());
  const projecting = await startProjectingGateway({ displayId: 'room', config: { certificates: { mode: 'insecure' } } });
  t.after(() => projecting.close());
  const { gateway } = projecting;
  const admin = (path: string): Promise<Response> => fetch(`${gateway.httpUrl}${path}`, { headers: { authorization: `Bearer ${gateway.adminToken}` } });
  const { sessionId, message: project } = await projecting.project({ host: '127.0.0.1', port: peer.port });
  const data = await openSecuredData(gateway.url, project);
  t.after(() => data.socket.close());
  await data.queue.nextBinary(); // the Connection Confirm

  // What the display received from here on: each message's arrival, size and PDUs.
  const received: { at: number; bytes: number; pdus: number }[] = [];
  let ends = 0;
  data.socket.on('message', (raw: RawData, isBinary: boolean) => {
    if (!isBinary) return;
    const message = raw as Buffer;
    const counted = pdusIn(message);
    ends += counted.ends;
    received.push({ at: Date.now(), bytes: message.length, pdus: counted.count });
  });
  const stats = async (): Promise<Stats> => {
    const { sessions } = await (await admin('/v1/admin/sessions')).json() as { sessions: { sessionId: string; stats?: Stats }[] };
    const session = sessions.find((entry) => entry.sessionId === sessionId);
    assert.ok(session?.stats, `the session has figures: ${JSON.stringify(session)}`);
    return session.stats;
  };

  let requests = 0;
  let sentBytes = 0;
  const streaming = setInterval(() => {
    const request = streamRequest(BURST_BYTES);
    data.socket.send(request);
    requests += 1;
    sentBytes += request.length;
  }, REQUEST_EVERY_MS);
  t.after(() => clearInterval(streaming));

  // Per second: the gateway's figure of its last sampled second against the display's receipts around it
  // (each count over its own second, buffers between them: the admin page test's margins).
  const started = Date.now();
  const compared = new Set<number>();
  await new Promise((resolve) => setTimeout(resolve, STEADY_AFTER_MS + 500));
  while (compared.size < SAMPLES && Date.now() - started < STREAM_MS) {
    const now = await stats();
    if (now.sampledAt < started + STEADY_AFTER_MS || compared.has(now.sampledAt)) {
      await new Promise((resolve) => setTimeout(resolve, ADMIN_POLL_MS));
      continue;
    }
    const windows = [0, 250, 500, 750, 1000, 1250, 1500].map((back) => {
      const end = now.sampledAt - back;
      const inWindow = received.filter((entry) => entry.at > end - 1000 && entry.at <= end);
      return { messages: inWindow.length, bytes: inWindow.reduce((sum, entry) => sum + entry.bytes, 0) };
    });
    // a second in which this process (the server and the display both) stalled is no steady stream: the next sample is
    if (windows.every((w) => w.messages < 3)) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      continue;
    }
    const within = (value: number, seen: number[], slack: number): boolean => value >= Math.min(...seen) * 0.4 - slack && value <= Math.max(...seen) * 2.5 + slack;
    const said = `${String(now.sampledAt - started)} ms into the stream: ${JSON.stringify(now)}`;
    assert.ok(within(now.messagesPerSecond, windows.map((w) => w.messages), 2), `messages/s ${String(now.messagesPerSecond)} (the gateway's) against the display's ${windows.map((w) => w.messages).join(', ')} (${said})`);
    assert.ok(within(now.bytesPerSecond, windows.map((w) => w.bytes), 20_000), `bytes/s ${String(now.bytesPerSecond)} (the gateway's) against the display's ${windows.map((w) => w.bytes).join(', ')} (${said})`);
    assert.ok(now.messagesPerSecond > 0 && now.bytesPerSecond > 0, `a steady stream is never rated idle (${said})`);
    compared.add(now.sampledAt);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  assert.equal(compared.size, SAMPLES, `samples of the steady stream compared in ${String(STREAM_MS)} ms`);
  clearInterval(streaming);

  // In all: once every burst has arrived and a sample has been taken since, the totals are exactly the display's.
  await waitFor('every burst at the display', () => ends === requests, 20_000, 50);
  const lastAt = Date.now();
  let last: Stats | undefined;
  await waitFor('a sample after the last message', async () => {
    last = await stats();
    return last.sampledAt > lastAt + 100;
  }, 10_000, ADMIN_POLL_MS);
  assert.ok(last);
  assert.deepEqual(
    { bytesToDisplay: last.bytesToDisplay, pdusToDisplay: last.pdusToDisplay, messagesToDisplay: last.messagesToDisplay, bytesToServer: last.bytesToServer },
    {
      bytesToDisplay: received.reduce((sum, entry) => sum + entry.bytes, 0), pdusToDisplay: received.reduce((sum, entry) => sum + entry.pdus, 0),
      messagesToDisplay: received.length, bytesToServer: sentBytes,
    },
    `the relay's totals are what the display received and sent (${String(requests)} bursts of ${String(BURST_BYTES)} bytes)`,
  );
});
