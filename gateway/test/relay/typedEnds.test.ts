// How a session ends when the presenter's computer ends it, through the relay
// engine under test (the suite runs this file against both): the display's
// page words its last line from these ends (e2e/kiosk/failurePaths, which
// runs once, shows the words; the gateway's restart is drain.test.ts's and
// cli.test.ts's). A real gateway, the display's data socket spoken by hand,
// and a scripted TLS server that ends the session its way:
// - a refused sign-in (NLA): the server's last TSRequest, its error code in
//   it, reaches the display whole before the session ends `server-closed`
//   (the display's client reads the wrong password from that TSRequest);
// - the server gone mid-session: its last PDU reaches the display, then
//   `ended` `server-closed` and close 1000;
// - the server's connection reset mid-session: the typed `server-error` of
//   the relay phase, close 4502.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { buildConnectionConfirm, buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';
import { generateTestCertificate, openData, readOneTpkt, startProjectingGateway, type MessageQueue } from '@lanterna/testkit';


/** How the scripted server ends the session once it has read the display's first message after TLS. */
type Ending = 'nla-refused' | 'gone' | 'reset';

/** A TSRequest (version 6) as the display's client sends first: the gateway frames NLA by its DER length. */
const CLIENT_TS_REQUEST = Buffer.from('3005a003020106', 'hex');
/** The server's answer to a wrong password: TSRequest version 6, errorCode STATUS_LOGON_FAILURE (0xC000006D). */
const REFUSED_TS_REQUEST = Buffer.from('300da003020106a4060204c000006d', 'hex');
/** The server's last PDU before it goes: a TPKT-framed X.224 data PDU. */
const LAST_PDU = Buffer.from([0x03, 0x00, 0x00, 0x0c, 0x02, 0xf0, 0x80, 0x1a, 0x57, 0x00, 0x00, 0x01]);
const PROBE = Buffer.from([0x03, 0x00, 0x00, 0x0b, 0x02, 0xf0, 0x80, 0x01, 0x02, 0x03, 0x04]);

/** A TLS RDP server that confirms the display's protocol (HYBRID for `nla-refused`, else TLS), then ends as `ending` says. */
async function startEndingServer(ending: Ending): Promise<{ port: number; close(): Promise<void> }> {
  const { cert, key } = await generateTestCertificate();
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    void (async () => {
      await readOneTpkt(socket, { timeoutMs: 10_000, maxBytes: 1024 });
      socket.write(buildConnectionConfirm({ kind: 'response', selectedProtocol: ending === 'nla-refused' ? PROTOCOL.HYBRID : PROTOCOL.SSL, flags: 0 }));
      const tls = new TLSSocket(socket, { isServer: true, cert, key });
      tls.on('error', () => socket.destroy());
      tls.once('data', () => {
        if (ending === 'nla-refused') tls.end(REFUSED_TS_REQUEST);
        else if (ending === 'gone') tls.end(LAST_PDU);
        else {
          tls.write(LAST_PDU);
          // the reset only once the PDU has left: what the display is owed came first
          setTimeout(() => socket.resetAndDestroy(), 300);
        }
      });
    })().catch(() => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

/** Everything the display's data socket got after the Connection Confirm, until it closed. */
async function rest(queue: MessageQueue): Promise<{ binary: Buffer; texts: Record<string, unknown>[]; code: number }> {
  const binary: Buffer[] = [];
  const texts: Record<string, unknown>[] = [];
  for (;;) {
    const item = await queue.next();
    if ('binary' in item) binary.push(item.binary);
    else if ('text' in item) texts.push(item.text);
    else return { binary: Buffer.concat(binary), texts, code: item.closed.code };
  }
}

type After = { after(fn: () => Promise<void> | void): void };

interface Ended { secured: Record<string, unknown>; binary: Buffer; texts: Record<string, unknown>[]; code: number }

/**
 * A gateway projecting onto display `room` a server that ends as `ending`
 * says; the display's data socket asks for `requested`, reads `secured` and
 * the Connection Confirm, sends `first`, and reads the rest until it closes.
 */
async function endedSession(t: After, ending: Ending, requested: number, first: Buffer): Promise<Ended> {
  const server = await startEndingServer(ending);
  t.after(() => server.close());
  const projecting = await startProjectingGateway({ displayId: 'room', config: { certificates: { mode: 'insecure' } } });
  t.after(() => projecting.close());
  const { message: project } = await projecting.project({ host: '127.0.0.1', port: server.port });
  const data = await openData(projecting.gateway.url, String(project.sessionId), String(project.sessionToken));
  t.after(() => data.socket.close());
  data.socket.send(buildConnectionRequest({ requestedProtocols: requested, cookie: 'test' }));
  const secured = await data.queue.nextText('secured');
  await data.queue.nextBinary(); // the Connection Confirm
  data.socket.send(first);
  return { secured, ...await rest(data.queue) };
}

test('a refused sign-in (NLA): the server\'s TSRequest with its error code reaches the display whole, then the session ends server-closed', { timeout: 30_000 }, async (t) => {
  const ended = await endedSession(t, 'nla-refused', PROTOCOL.SSL | PROTOCOL.HYBRID, CLIENT_TS_REQUEST);
  assert.equal(ended.secured.protocol, 'hybrid');
  assert.equal(ended.binary.toString('hex'), REFUSED_TS_REQUEST.toString('hex'), 'the refusal, whole, as the server sent it');
  assert.deepEqual([ended.texts, ended.code], [[{ type: 'ended', reason: 'server-closed' }], 1000]);
});

test('the server gone mid-session: its last PDU reaches the display, then the session ends server-closed with 1000', { timeout: 30_000 }, async (t) => {
  const ended = await endedSession(t, 'gone', PROTOCOL.SSL, PROBE);
  assert.equal(ended.secured.protocol, 'ssl');
  assert.equal(ended.binary.toString('hex'), LAST_PDU.toString('hex'), 'the server\'s last PDU before it went');
  assert.deepEqual([ended.texts, ended.code], [[{ type: 'ended', reason: 'server-closed' }], 1000]);
});

test('the server\'s connection reset mid-session: its last PDU, then the relay phase\'s server-error with 4502', { timeout: 30_000 }, async (t) => {
  const { binary, texts, code } = await endedSession(t, 'reset', PROTOCOL.SSL, PROBE);
  assert.equal(binary.toString('hex'), LAST_PDU.toString('hex'), 'the server\'s last PDU before the reset');
  assert.equal(texts.length, 1, JSON.stringify(texts));
  assert.deepEqual([texts[0]?.type, texts[0]?.phase, texts[0]?.code], ['error', 'relay', 'server-error'], JSON.stringify(texts));
  assert.equal(typeof texts[0]?.message, 'string');
  assert.equal(code, 4502);
});
