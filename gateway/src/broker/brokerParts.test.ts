// The broker's decisions without sockets: a memory store, a fake clock, a
// fake resolver, and a list of the events it published.
import { test } from 'node:test';
import { isIP } from 'node:net';
import assert from 'node:assert/strict';
import { composeBroker } from './brokerParts.js';
import type { ProjectionOutcome } from './projectionDesk.js';
import { DisplayDirectory } from './displayDirectory.js';
import { MemoryBrokerStore } from './memoryBrokerStore.js';
import type { BrokerStore } from './brokerStore.js';
import type { BrokerEvent } from './brokerEvents.js';
import { SessionTokenSigner } from '../session/sessionToken.js';
import { SessionError } from '../session/sessionError.js';
import { TargetPolicy } from '../policy/targetPolicy.js';
import { SealedBox } from '../session/sealedBox.js';

const TOKEN = 'display-token-0123456789';
const SECRET = Buffer.from('s'.repeat(32));

/** IP literals are themselves; one name resolves; every other name does not. */
function fakeResolver(host: string): Promise<string[]> {
  if (isIP(host) !== 0) return Promise.resolve([host]);
  return host === 'rdp.corp' ? Promise.resolve(['10.1.2.3']) : Promise.reject(new Error(`the name "${host}" does not resolve`));
}

function setup(options: { store?: BrokerStore; resolve?: (host: string) => Promise<string[]>; clock?: { now: number } } = {}) {
  const clock = options.clock ?? { now: Date.now() };
  const events: BrokerEvent[] = [];
  const store = options.store ?? new MemoryBrokerStore(() => clock.now);
  const broker = composeBroker({
    directory: new DisplayDirectory([
      { id: 'room', token: TOKEN, name: 'Room 1' },
      { id: 'sign', token: TOKEN, autoProject: { host: '10.0.0.5', port: 3389, name: 'Lobby', credentials: { username: 'kiosk', password: 'p' } } },
    ]),
    store,
    signer: new SessionTokenSigner(SECRET),
    policy: new TargetPolicy({ allowNetworks: ['10.0.0.0/8'], allowPorts: ['3389'], ownPorts: [8443] }),
    resolveTarget: options.resolve ?? fakeResolver,
    publish: (event) => events.push(event),
    timeouts: { sessionTokenMs: 60_000, reprojectMs: 1000, reprojectMaxMs: 8000, resumeGraceMs: 30_000 },
    sealer: new SealedBox(SECRET),
    clock: () => clock.now,
  });
  return { broker, events, store, clock };
}

function projected(events: BrokerEvent[]): { sessionId: string; sessionToken: string } & Record<string, unknown> {
  const event = events.findLast((e) => e.kind === 'project');
  assert.ok(event?.kind === 'project', 'a project event was published');
  return event.message;
}

async function refusal(promise: Promise<unknown>): Promise<SessionError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  assert.ok(error instanceof SessionError, `expected a SessionError, got ${String(error)}`);
  return error;
}

test('a projection request is checked (display, policy on resolved addresses) before a session is minted', async () => {
  const { broker, events } = setup();
  const outcomes: ProjectionOutcome[] = [
    await broker.projections.requestProjection({ displayId: 'nowhere', target: { host: '10.1.1.1', port: 3389 } }),
    await broker.projections.requestProjection({ displayId: 'room', target: { host: '8.8.8.8', port: 3389 } }),
    await broker.projections.requestProjection({ displayId: 'room', target: { host: '10.1.1.1', port: 22 } }),
    await broker.projections.requestProjection({ displayId: 'room', target: { host: 'unknown.corp', port: 3389 } }),
  ];
  assert.deepEqual(outcomes.map((o) => (o.ok ? 'ok' : o.code)), ['unknown-display', 'target-forbidden', 'target-forbidden', 'target-forbidden']);
  assert.match(outcomes[1]?.ok === false ? outcomes[1].reason : '', /outside the allowed networks/);
  assert.match(outcomes[3]?.ok === false ? outcomes[3].reason : '', /does not resolve/);
  assert.equal(events.length, 0, 'nothing minted, nothing told');

  const ok = await broker.projections.requestProjection({ displayId: 'room', target: { host: 'rdp.corp', port: 3389, name: 'Desk' }, settings: { colorDepth: 16 } });
  assert.ok(ok.ok);
  assert.deepEqual(ok.target, { host: 'rdp.corp', port: 3389 });
  const message = projected(events);
  assert.equal(message.sessionId, ok.sessionId);
  assert.deepEqual(message.target, { name: 'Desk', host: 'rdp.corp', port: 3389 });
  assert.deepEqual(message.settings, { colorDepth: 16 });
  assert.deepEqual(events.map((e) => [e.kind, e.displayId]), [['project', 'room'], ['slots-changed', 'room']]);
});

test('a resolver that gives up (its deadline) refuses the request with its words', async () => {
  const { broker } = setup({ resolve: () => Promise.reject(new Error('the name "slow.corp" did not resolve within 300 ms')) });
  const outcome = await broker.projections.requestProjection({ displayId: 'room', target: { host: 'slow.corp', port: 3389 } });
  assert.deepEqual(outcome, { ok: false, code: 'target-forbidden', reason: 'the name "slow.corp" did not resolve within 300 ms' });
});

test('an invitation that is not one is refused with its own code', async () => {
  const { broker } = setup();
  const outcome = await broker.projections.requestProjection({ displayId: 'room', assistance: { invitation: '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><UPLOADINFO/>', password: 'x' } });
  assert.equal(outcome.ok ? 'ok' : outcome.code, 'invitation-markup');
});

test('a session token opens its session once; the record moves minted → claimed → active → ended with timings', async () => {
  const clock = { now: 1_000_000 };
  const { broker, events, store } = setup({ clock });
  const { sessionId } = await broker.projections.project({ displayId: 'room', target: { host: '10.1.1.1', port: 3389 } }).then((id) => ({ sessionId: id }));
  const { sessionToken } = projected(events);
  assert.equal((await store.getSession(sessionId))?.state, 'minted');

  clock.now += 100;
  const grant = await broker.sessions.openSession(sessionId, sessionToken);
  assert.deepEqual(grant.target, { host: '10.1.1.1', port: 3389 });
  assert.equal((await store.getSession(sessionId))?.claimedAt, 1_000_100);
  const replay = await refusal(broker.sessions.openSession(sessionId, sessionToken));
  assert.equal(replay.code, 'unauthorized');
  assert.equal(replay.message, 'the session token was already used');

  clock.now += 100;
  await broker.sessions.sessionSecured(sessionId);
  clock.now += 5000;
  await broker.sessions.sessionEnded(grant, 'server-closed');
  await broker.sessions.sessionSecured(sessionId); // late news does not bring it back
  const record = await store.getSession(sessionId);
  assert.deepEqual(record, {
    sessionId, displayId: 'room', target: { host: '10.1.1.1', port: 3389, name: undefined }, state: 'ended',
    mintedAt: 1_000_000, expiresAt: 1_060_000, claimedAt: 1_000_100, securedAt: 1_000_200, endedAt: 1_005_200, endReason: 'server-closed',
  });
  assert.deepEqual(events.findLast((e) => e.kind === 'session-ended'), { kind: 'session-ended', displayId: 'room', sessionId });
  assert.deepEqual((await broker.sessions.listSessions()).map((s) => s.sessionId), [sessionId]);
});

test('tokens for another session, forged, or expired open nothing', async () => {
  const clock = { now: 5_000_000 };
  const { broker, events } = setup({ clock });
  const first = await broker.projections.project({ displayId: 'room', target: { host: '10.1.1.1', port: 3389 } });
  const { sessionToken } = projected(events);
  const second = await broker.projections.project({ displayId: 'room', target: { host: '10.1.1.1', port: 3389 } });
  assert.equal((await refusal(broker.sessions.openSession(second, sessionToken))).code, 'unauthorized');
  assert.equal((await refusal(broker.sessions.openSession(first, `${sessionToken}x`))).code, 'unauthorized');
  assert.equal((await refusal(broker.sessions.openSession(first, 42))).code, 'unauthorized');
  clock.now += 60_001;
  assert.equal((await refusal(broker.sessions.openSession(first, sessionToken))).code, 'unknown-session');
});

test('two brokers on one store (two workers): a token opens its session on one of them only', async () => {
  const clock = { now: Date.now() };
  const shared = new MemoryBrokerStore(() => clock.now);
  const a = setup({ store: shared, clock });
  const b = setup({ store: shared, clock });
  const sessionId = await a.broker.projections.project({ displayId: 'room', target: { host: '10.1.1.1', port: 3389 } });
  const { sessionToken } = projected(a.events);
  const outcomes = await Promise.allSettled([b.broker.sessions.openSession(sessionId, sessionToken), a.broker.sessions.openSession(sessionId, sessionToken), b.broker.sessions.openSession(sessionId, sessionToken)]);
  assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'rejected']);
});

test('a store that fails the claim fails closed', async () => {
  const clock = { now: Date.now() };
  const store = new MemoryBrokerStore(() => clock.now);
  store.claimSession = () => Promise.reject(new Error('the cluster primary did not answer claimSession within 5000 ms'));
  const { broker, events } = setup({ store, clock });
  const sessionId = await broker.projections.project({ displayId: 'room', target: { host: '10.1.1.1', port: 3389 } });
  const error = await refusal(broker.sessions.openSession(sessionId, projected(events).sessionToken));
  assert.equal(error.code, 'internal');
  assert.equal(error.phase, 'open');
});

test('display presence: a new socket takes over, a stale owner cannot mark it offline', async () => {
  const { broker, events } = setup();
  const first = await broker.presence.displayOnline('room');
  const second = await broker.presence.displayOnline('room');
  assert.notEqual(first, second);
  assert.deepEqual(events, [{ kind: 'display-claimed', displayId: 'room', owner: first }, { kind: 'display-claimed', displayId: 'room', owner: second }]);
  await broker.presence.displayOffline('room', first);
  assert.deepEqual((await broker.displays.listDisplays()).map(({ id, name, online, managedBy }) => ({ id, name, online, managedBy })), [
    { id: 'room', name: 'Room 1', online: true, managedBy: 'config' }, { id: 'sign', name: 'sign', online: false, managedBy: 'config' },
  ]);
  await broker.presence.displayOffline('room', second);
  assert.equal((await broker.displays.listDisplays())[0]?.online, false);
});

test('signage: projected when it comes online, again after each session with a growing pause, from the base after a reconnect', async () => {
  const clock = { now: 10_000_000 };
  const { broker, events } = setup({ clock });
  assert.equal(await broker.projections.projectSignage('room'), undefined, 'not a signage display');
  assert.equal(await broker.projections.reprojectionDelay('room'), undefined);

  await broker.presence.displayOnline('sign');
  const sessionId = await broker.projections.projectSignage('sign');
  const message = projected(events);
  assert.equal(message.sessionId, sessionId);
  assert.deepEqual(message.target, { name: 'Lobby', host: '10.0.0.5', port: 3389 });
  assert.deepEqual(message.credentials, { username: 'kiosk', password: 'p' });
  assert.equal(message.signage, true, 'the display is told it shows its own signage (it keeps the PIN in view)');

  const delays: number[] = [];
  for (let i = 0; i < 5; i++) {
    clock.now += 500; // each session fails at once
    const delay = await broker.projections.reprojectionDelay('sign');
    assert.ok(delay !== undefined);
    delays.push(delay);
    clock.now += delay;
    await broker.projections.projectSignage('sign');
  }
  assert.deepEqual(delays, [1000, 2000, 4000, 8000, 8000]);

  await broker.presence.displayOnline('sign'); // the kiosk reconnected
  await broker.projections.projectSignage('sign');
  clock.now += 500;
  assert.equal(await broker.projections.reprojectionDelay('sign'), 1000);
});

test('stopping a session is told to every worker', () => {
  const { broker, events } = setup();
  broker.sessions.stopSession('room', 's_1', 'stopped by an administrator');
  assert.deepEqual(events, [{ kind: 'stop-session', displayId: 'room', sessionId: 's_1', reason: 'stopped by an administrator' }]);
});

test('a display shows one session: a second request is refused as busy until the first ends', async () => {
  const clock = { now: 20_000_000 };
  const { broker, events } = setup({ clock });
  const first = await broker.projections.requestProjection({ displayId: 'room', target: { host: '10.1.1.1', port: 3389 } }, { kind: 'admin', address: '10.9.9.9' });
  assert.ok(first.ok);
  const second = await broker.projections.requestProjection({ displayId: 'room', target: { host: '10.1.1.2', port: 3389 } });
  assert.deepEqual(second.ok ? 'ok' : second.code, 'display-busy');
  assert.deepEqual((await broker.displays.listDisplays()).find((d) => d.id === 'room')?.sessionId, first.sessionId);

  const grant = await broker.sessions.openSession(first.sessionId, projected(events).sessionToken);
  await broker.sessions.sessionSecured(first.sessionId);
  await broker.sessions.sessionEnded(grant, 'server-closed');
  const third = await broker.projections.requestProjection({ displayId: 'room', target: { host: '10.1.1.2', port: 3389 } });
  assert.ok(third.ok, 'free again once the session ended');

  const { entries } = await broker.auditLog.list({ limit: 10 });
  assert.deepEqual(entries.map((e) => e.action).reverse(), ['projection-requested', 'projection-refused', 'projection-started', 'projection-ended', 'projection-requested']);
  assert.equal(entries.at(-1)?.actor, 'admin@10.9.9.9');
});

test('a booking lapses when its session stops being sampled (its gateway died), and is kept while sampled', async () => {
  const clock = { now: 30_000_000 };
  const { broker, events } = setup({ clock });
  const first = await broker.projections.requestProjection({ displayId: 'room', target: { host: '10.1.1.1', port: 3389 } });
  assert.ok(first.ok);
  await broker.sessions.openSession(first.sessionId, projected(events).sessionToken);
  await broker.sessions.sessionSecured(first.sessionId);
  const sample = { sessionId: first.sessionId, displayId: 'room', bytesToDisplay: 10, bytesToServer: 5, pdusToDisplay: 1, framesToDisplay: 1, bytesPerSecond: 15, framesPerSecond: 1, sampledAt: clock.now };
  await broker.sessions.sampleSessions([sample]);
  clock.now += 2000;
  assert.equal((await broker.projections.requestProjection({ displayId: 'room', target: { host: '10.1.1.1', port: 3389 } })).ok, false, 'still sampled: busy');
  clock.now += 1500;
  assert.equal((await broker.projections.requestProjection({ displayId: 'room', target: { host: '10.1.1.1', port: 3389 } })).ok, true, 'not sampled for longer than the lease: free');
});

test('resume: a display back online whose session was lost gets the same projection again, credentials included', async () => {
  const clock = { now: 40_000_000 };
  const { broker, events, store } = setup({ clock });
  const first = await broker.projections.requestProjection({ displayId: 'room', target: { host: '10.1.1.1', port: 3389, name: 'Desk' }, credentials: { username: 'u', password: 'secret' } });
  assert.ok(first.ok);
  await broker.sessions.openSession(first.sessionId, projected(events).sessionToken);
  await broker.sessions.sessionSecured(first.sessionId);
  await broker.sessions.sampleSessions([{ sessionId: first.sessionId, displayId: 'room', bytesToDisplay: 0, bytesToServer: 0, pdusToDisplay: 0, framesToDisplay: 0, bytesPerSecond: 0, framesPerSecond: 0, sampledAt: clock.now }]);
  const intent = await store.getIntent('room');
  assert.ok(intent && !intent.sealed.includes('secret'), 'the stored intent holds the password sealed');

  // The kiosk reconnects at once: its old session's lease still runs, so the broker asks to look again later.
  clock.now += 500;
  await broker.presence.displayOnline('room');
  const early = await broker.resume.displayReady('room');
  assert.equal(early.action, 'wait');
  assert.ok(early.retryInMs !== undefined && early.retryInMs > 2000 && early.retryInMs <= 2600, `retry when the lease lapses (${String(early.retryInMs)})`);

  clock.now += 3000;
  const later = await broker.resume.displayReady('room', true);
  assert.equal(later.action, 'resumed');
  const again = projected(events);
  assert.notEqual(again.sessionId, first.sessionId);
  assert.deepEqual(again.target, { name: 'Desk', host: '10.1.1.1', port: 3389 });
  assert.deepEqual(again.credentials, { username: 'u', password: 'secret' });
  assert.equal((await store.getSession(first.sessionId))?.endReason, 'gateway-lost');
  assert.ok(events.some((e) => e.kind === 'stop-session' && e.sessionId === first.sessionId), 'the old session is told to stop wherever it still runs');
  assert.equal((await store.getBooking('room'))?.sessionId, again.sessionId);
});

test('no resume after a normal end or after the grace period', async () => {
  const clock = { now: 50_000_000 };
  const { broker, events, store } = setup({ clock });
  const ended = await broker.projections.requestProjection({ displayId: 'room', target: { host: '10.1.1.1', port: 3389 } });
  assert.ok(ended.ok);
  const grant = await broker.sessions.openSession(ended.sessionId, projected(events).sessionToken);
  await broker.sessions.sessionEnded(grant, 'client-closed');
  assert.equal(await store.getIntent('room'), undefined, 'a normal end forgets the intent');
  assert.equal((await broker.resume.displayReady('room')).action, 'none');

  const lost = await broker.projections.requestProjection({ displayId: 'room', target: { host: '10.1.1.1', port: 3389 } });
  assert.ok(lost.ok);
  await broker.sessions.openSession(lost.sessionId, projected(events).sessionToken);
  await broker.sessions.sessionSecured(lost.sessionId);
  clock.now += 61_000; // past the booking (token lifetime) and the 30 s grace
  assert.equal((await broker.resume.displayReady('room')).action, 'none');
  assert.equal(await store.getIntent('room'), undefined);
});

test('displays through the API: created with a token shown once, renamed, moved, rotated, deleted; config displays are refused', async () => {
  const { broker, events } = setup();
  const created = await broker.displays.createDisplay({ name: 'Board room', location: 'Floor 2' }, { kind: 'admin', address: '10.0.0.1' });
  assert.ok(created.ok);
  const { display, token } = created.value;
  assert.match(display.id, /^board-room-[0-9a-f]{6}$/);
  assert.ok(token.length >= 32 && !JSON.stringify(display).includes(token), 'only a digest of the token is kept');
  assert.equal((await broker.displays.authenticateDisplay(display.id, token))?.name, 'Board room');
  assert.equal(await broker.displays.authenticateDisplay(display.id, `${token}x`), undefined);

  const duplicate = await broker.displays.createDisplay({ id: display.id, name: 'Again' });
  assert.equal(duplicate.ok ? 'ok' : duplicate.code, 'display-exists');
  const moved = await broker.displays.updateDisplay(display.id, { name: 'Boardroom', location: 'Floor 3' });
  assert.ok(moved.ok && moved.value.name === 'Boardroom' && moved.value.location === 'Floor 3');
  const rotated = await broker.displays.rotateDisplayToken(display.id);
  assert.ok(rotated.ok);
  assert.equal(await broker.displays.authenticateDisplay(display.id, token), undefined, 'the old token stops working');
  assert.ok(await broker.displays.authenticateDisplay(display.id, rotated.value.token));
  assert.ok(events.some((e) => e.kind === 'display-revoked' && e.displayId === display.id), 'its socket is closed');

  for (const change of [broker.displays.updateDisplay('room', { name: 'x' }), broker.displays.deleteDisplay('room'), broker.displays.rotateDisplayToken('room')]) {
    const refused = await change;
    assert.equal(refused.ok ? 'ok' : refused.code, 'config-managed');
  }
  assert.ok((await broker.displays.deleteDisplay(display.id)).ok);
  assert.equal((await broker.displays.deleteDisplay(display.id)).ok, false);
  const actions = (await broker.auditLog.list({ limit: 50 })).entries.map((e) => e.action).reverse();
  assert.deepEqual(actions, ['display-created', 'display-renamed', 'display-moved', 'display-token-rotated', 'display-deleted']);
});

test('the audit log pages newest first', async () => {
  const { broker } = setup();
  for (let i = 0; i < 7; i += 1) await broker.auditLog.record({ kind: 'admin' }, 'pin-cleared', { detail: { key: `h${i}:3389` } });
  const first = await broker.auditLog.list({ limit: 3 });
  assert.deepEqual(first.entries.map((e) => e.detail?.key), ['h6:3389', 'h5:3389', 'h4:3389']);
  const second = await broker.auditLog.list({ before: first.next, limit: 3 });
  assert.deepEqual(second.entries.map((e) => e.detail?.key), ['h3:3389', 'h2:3389', 'h1:3389']);
  const last = await broker.auditLog.list({ before: second.next, limit: 3 });
  assert.deepEqual(last.entries.map((e) => e.detail?.key), ['h0:3389']);
  assert.equal(last.next, undefined);
});

test('an exclusive request (WS-Discovery Connect) is refused for an offline or presenting display; a signage display gives way and waits', async () => {
  const { broker, events, clock } = setup();
  const offline = await broker.projections.requestProjection({ displayId: 'room', target: { host: '10.1.1.1', port: 3389 }, exclusive: true });
  assert.deepEqual(offline.ok ? 'ok' : offline.code, 'display-offline');
  await broker.presence.displayOnline('room');
  assert.equal(await broker.presence.displayState('room'), 'idle');
  const first = await broker.projections.requestProjection({ displayId: 'room', target: { host: '10.1.1.1', port: 3389 }, exclusive: true });
  assert.ok(first.ok);
  assert.equal(await broker.presence.displayState('room'), 'presenting');
  const second = await broker.projections.requestProjection({ displayId: 'room', target: { host: '10.1.1.2', port: 3389 }, exclusive: true });
  assert.deepEqual(second.ok ? 'ok' : [second.code, second.reason], ['display-busy', 'the display is showing another presentation; ask its presenter to stop first']);
  // the admin API (not exclusive) meets the same booking: one session per display
  const admin = await broker.projections.requestProjection({ displayId: 'room', target: { host: '10.1.1.2', port: 3389 } });
  assert.deepEqual(admin.ok ? 'ok' : admin.code, 'display-busy');
  // an unclaimed session stops counting once its token has expired
  clock.now += 61_000;
  assert.equal(await broker.presence.displayState('room'), 'idle');

  await broker.presence.displayOnline('sign');
  assert.ok(await broker.projections.projectSignage('sign'));
  assert.equal(await broker.presence.displayState('sign'), 'idle', 'showing its own signage is not presenting');
  const presenter = await broker.projections.requestProjection({ displayId: 'sign', target: { host: '10.1.1.3', port: 3389 }, exclusive: true });
  assert.ok(presenter.ok);
  assert.equal(projected(events).signage, undefined, 'a presenter\'s projection is not signage');
  const before = events.length;
  assert.equal(await broker.projections.projectSignage('sign'), undefined, 'signage waits while a presenter has the display');
  assert.equal(events.length, before);
});

test('touch (issue 30): off by default; a grant and a revoke are kept on the record, published at once, and audited; an ended session takes none', async () => {
  const { broker, events, store } = setup();
  const sessionId = await broker.projections.project({ displayId: 'room', target: { host: '10.1.1.1', port: 3389 } });
  const grant = await broker.sessions.openSession(sessionId, projected(events).sessionToken);
  assert.equal(await broker.sessions.touchAllowed(sessionId), false);
  assert.equal(await broker.sessions.setTouch('sign', sessionId, true), undefined, 'only on its own display');

  const presenter = { kind: 'presenter', address: '10.9.9.9' } as const;
  assert.equal((await broker.sessions.setTouch('room', sessionId, true, presenter))?.touch, true);
  assert.equal(await broker.sessions.touchAllowed(sessionId), true);
  assert.deepEqual(events.filter((e) => e.kind === 'touch-changed'), [{ kind: 'touch-changed', displayId: 'room', sessionId, allowed: true }]);
  assert.deepEqual(events.at(-1), { kind: 'slots-changed', displayId: 'room' }, 'the display hears it with the next layout');
  await broker.sessions.setTouch('room', sessionId, true, presenter); // no change: no second audit entry
  await broker.sessions.setTouch('room', sessionId, false, presenter);
  assert.equal(await broker.sessions.touchAllowed(sessionId), false);
  assert.deepEqual(events.flatMap((e) => (e.kind === 'touch-changed' ? [e.allowed] : [])), [true, true, false]);
  const audit = (await store.listAudit({ limit: 10 })).entries.filter((entry) => entry.action.startsWith('touch-'));
  assert.deepEqual(audit.map((entry) => [entry.action, entry.actor, entry.sessionId]), [['touch-revoked', 'presenter@10.9.9.9', sessionId], ['touch-allowed', 'presenter@10.9.9.9', sessionId]]);

  await broker.sessions.sessionEnded(grant, 'server-closed');
  assert.equal(await broker.sessions.setTouch('room', sessionId, true, presenter), undefined);
  assert.equal(await broker.sessions.touchAllowed(sessionId), false);
});
