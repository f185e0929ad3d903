// A gateway that shuts down must end every session, also one whose handshake
// was still under way when the drain began and is secured only afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, startFaultyPeer, SLOW_CONFIRM_MS, connectControl, openData } from '@lanterna/testkit';
import { buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';

const TOKEN = 'display-token-0123456789';

test('a session secured after the drain began is ended too, and the shutdown completes', { timeout: 30_000 }, async (t) => {
  const peer = await startFaultyPeer('slow-confirm');
  t.after(() => peer.close());
  const gateway = await startTestGateway({
    displays: [{ id: 'room', token: TOKEN }],
    certificates: { mode: 'insecure' },
  });
  const control = await connectControl(gateway.url, 'room', TOKEN);
  t.after(() => control.close());
  const response = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, {
    method: 'POST', headers: { authorization: `Bearer ${gateway.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ displayId: 'room', target: { host: '127.0.0.1', port: peer.port } }),
  });
  assert.equal(response.status, 202);
  const project = await control.next('project');
  const data = await openData(gateway.url, String(project.sessionId), String(project.sessionToken));
  data.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL, cookie: 'drain' }));
  // The server is reached; its Confirm comes SLOW_CONFIRM_MS later, after the drain's stop of running sessions.
  await new Promise((resolve) => setTimeout(resolve, SLOW_CONFIRM_MS / 4));
  const started = Date.now();
  const closing = gateway.close();
  const outcome = await Promise.race([
    closing.then(() => 'closed'),
    new Promise((resolve) => setTimeout(() => resolve('still draining'), 10_000).unref()),
  ]);
  assert.equal(outcome, 'closed', 'the drain waited for a session nobody stopped');
  const end = await data.queue.closed();
  assert.ok(end.code === 1001 || end.code === 1000, `the late session ends as the gateway goes away (close ${end.code})`);
  assert.ok(Date.now() - started < 10_000);
});
