// Every relaying session's figures reach the broker once a second, spread
// over the second in slices rather than all in one tick (one burst a second
// on the relay's core was as long as the p99 of a ten-messages-a-second
// load). Read through the admin API, as an admin's live view reads them;
// runs against both relay engines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestGateway, startFaultyPeer, connectControl, openSecuredData } from '@lanterna/testkit';

const SESSIONS = 12;
const token = (i: number): string => `display-token-${String(i).padStart(4, '0')}-abcdefgh`;

void test('each session is sampled once a second, the sessions spread over the second', { timeout: 60_000 }, async (t) => {
  const echo = await startFaultyPeer('echo');
  t.after(() => echo.close());
  const gateway = await startTestGateway({
    displays: Array.from({ length: SESSIONS }, (_, i) => ({ id: `room${i}`, token: token(i) })),
    certificates: { mode: 'first-use' },
  });
  t.after(() => gateway.close());
  const admin = (path: string, init: { method?: string; body?: string } = {}): Promise<Response> => fetch(`${gateway.httpUrl}${path}`, {
    ...init, headers: { authorization: `Bearer ${gateway.adminToken}` },
  });

  for (let i = 0; i < SESSIONS; i++) {
    const control = await connectControl(gateway.url, `room${i}`, token(i));
    t.after(() => control.close());
    const projected = await admin('/v1/admin/sessions', { method: 'POST', body: JSON.stringify({ displayId: `room${i}`, target: { host: '127.0.0.1', port: echo.port } }) });
    assert.equal(projected.status, 202);
    const project = await control.next('project');
    const data = await openSecuredData(gateway.url, project);
    t.after(() => data.socket.close());
    await data.queue.nextBinary(); // the Connection Confirm
  }

  type Session = { sessionId: string; state: string; stats?: { sampledAt: number } };
  const seen = new Map<string, Set<number>>();
  let latest: number[] = [];
  const started = Date.now();
  // 2.6 s of polls at 5 a second (inside the admin API's rate limit)
  while (Date.now() - started < 2600) {
    const { sessions } = (await (await admin('/v1/admin/sessions')).json()) as { sessions: Session[] };
    const active = sessions.filter((session) => session.state === 'active');
    assert.equal(active.length, SESSIONS);
    latest = active.map((session) => session.stats?.sampledAt ?? 0);
    for (const session of active) {
      const times = seen.get(session.sessionId) ?? new Set<number>();
      if (session.stats && session.stats.sampledAt >= started) times.add(session.stats.sampledAt);
      seen.set(session.sessionId, times);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  for (const [sessionId, times] of seen) assert.ok(times.size >= 2, `${sessionId} sampled ${times.size} times in 2.6 s`);
  const spread = Math.max(...latest) - Math.min(...latest);
  const distinct = new Set(latest.map((at) => Math.round(at / 20))).size;
  assert.ok(distinct >= 4 && spread >= 300, `the latest samples of ${SESSIONS} sessions fall at ${distinct} moments over ${spread} ms, not spread over the second`);
});
