// A server that resets the connection while the gateway is still judging its
// certificate (here: waiting for the pin store's lock) ends only that session.
// The TLS socket had no error listener in that window, and the uncaught
// ECONNRESET ended the worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { startTestGateway, startFaultyPeer, connectControl, openData, waitFor } from '@lanterna/testkit';
import { buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';

const TOKEN = 'display-token-0123456789';

test('a reset while the certificate is judged ends that session with a clear error, and the gateway goes on', { timeout: 30_000 }, async (t) => {
  const resetting = await startFaultyPeer('reset-after-tls');
  const echo = await startFaultyPeer('echo');
  t.after(async () => { await resetting.close(); await echo.close(); });
  const gateway = await startTestGateway({ displays: [{ id: 'room', token: TOKEN }], certificates: { mode: 'first-use' } });
  t.after(() => gateway.close());
  // Another writer holds the pins: first use waits for the lock while the server resets.
  const release = await lockfile.lock(join(gateway.stateDir, 'known-targets.json'), { realpath: false });
  let released = false;
  t.after(async () => { if (!released) await release(); });

  const control = await connectControl(gateway.url, 'room', TOKEN);
  t.after(() => control.close());
  const project = async (port: number): Promise<{ sessionId: string; token: string }> => {
    const response = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, {
      method: 'POST', headers: { authorization: `Bearer ${gateway.adminToken}` },
      body: JSON.stringify({ displayId: 'room', target: { host: '127.0.0.1', port } }),
    });
    assert.equal(response.status, 202);
    const message = await control.next('project');
    return { sessionId: String(message.sessionId), token: String(message.sessionToken) };
  };
  const doomed = await project(resetting.port);
  const data = await openData(gateway.url, doomed.sessionId, doomed.token);
  data.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
  await waitFor('the server reset the connection', () => resetting.resets === 1, 10_000);
  await release();
  released = true;
  const closed = await data.queue.closed(15_000);
  assert.deepEqual([closed.error?.phase, closed.error?.code], ['tls', 'server-error'], JSON.stringify(closed.error));

  // The gateway is still there and relays the next session.
  const next = await project(echo.port);
  const healthy = await openData(gateway.url, next.sessionId, next.token);
  healthy.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
  await healthy.queue.nextText('secured');
  await healthy.queue.nextBinary();
  healthy.socket.close();
});
