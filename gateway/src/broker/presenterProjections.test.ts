// Presenter projections through the broker, without sockets: the order of
// the checks (display, online, busy, PIN, policy), that only an accepted
// projection uses the PIN up, admins without a PIN, the listing, and
// stopping with the stop token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { composeBroker } from './brokerParts.js';
import { DisplayDirectory } from './displayDirectory.js';
import { MemoryBrokerStore } from './memoryBrokerStore.js';
import type { BrokerEvent } from './brokerEvents.js';
import { RoomPins } from './roomPins.js';
import { StopTokens } from './stopTokens.js';
import { RoomRequests } from './roomRequests.js';
import { SealedBox } from '../session/sealedBox.js';
import { PresenterProjections, type PresenterOutcome } from './presenterProjections.js';
import { SessionTokenSigner } from '../session/sessionToken.js';
import { TargetPolicy } from '../policy/targetPolicy.js';

const TOKEN = 'display-token-0123456789';
const SECRET = Buffer.from('s'.repeat(32));
const target = { host: '10.0.0.7', port: 3389 };

async function setup() {
  const clock = { now: 5_000_000 };
  const events: BrokerEvent[] = [];
  const store = new MemoryBrokerStore(() => clock.now);
  const publish = (event: BrokerEvent): void => { events.push(event); };
  const broker = composeBroker({
    directory: new DisplayDirectory([
      { id: 'room', token: TOKEN, name: 'Room 1', location: 'Floor 2' },
      { id: 'dark', token: TOKEN, name: 'Dark room' },
    ]),
    store,
    signer: new SessionTokenSigner(SECRET),
    policy: new TargetPolicy({ allowNetworks: ['10.0.0.0/8'], allowPorts: ['3389'], ownPorts: [8443] }),
    resolveTarget: (host) => Promise.resolve([host]),
    publish,
    timeouts: { sessionTokenMs: 60_000, reprojectMs: 1000, reprojectMaxMs: 8000 },
    clock: () => clock.now,
  });
  let random = 200_000;
  const pins = new RoomPins({
    store, publish, clock: () => clock.now, random: () => random++,
    settings: { digits: 6, rotateMs: 600_000, graceMs: 0 },
    limits: { perDisplay: { max: 10, windowMs: 600_000 }, perSource: { max: 5, windowMs: 300_000 } },
  });
  const stopTokens = new StopTokens(SECRET);
  const rooms = new RoomRequests({ ...broker, store, sealer: new SealedBox(SECRET, 'room request'), publish, clock: () => clock.now });
  const presenters = new PresenterProjections({ ...broker, store, pins, stopTokens, rooms, clock: () => clock.now });
  await broker.presence.displayOnline('room');
  events.length = 0;
  return { broker, store, pins, presenters, events, clock, stopTokens };
}

function refused(outcome: PresenterOutcome): string {
  return outcome.ok ? 'accepted' : outcome.code;
}

test('refusals come in order: unknown display, offline, wrong PIN; nothing is minted for any of them', async () => {
  const { presenters, pins, events } = await setup();
  assert.equal(refused(await presenters.request({ displayId: 'nowhere', target, pin: '000000', source: 'a' })), 'unknown-display');
  assert.equal(refused(await presenters.request({ displayId: 'dark', target, pin: '000000', source: 'a' })), 'display-offline');
  assert.equal(refused(await presenters.request({ displayId: 'room', target, source: 'a' })), 'pin-required');
  const wrong = await presenters.request({ displayId: 'room', target, pin: '999999', source: 'a' });
  assert.deepEqual(wrong, { ok: false, code: 'pin-wrong', reason: 'the room pin is wrong', attemptsLeft: 4 });
  assert.equal(events.filter((event) => event.kind === 'project').length, 0);
  assert.ok((await pins.current('room')).pin !== '999999');
});

test('a forbidden target is refused after the PIN check and leaves the PIN on the screen', async () => {
  const { presenters, pins } = await setup();
  const { pin } = await pins.current('room');
  const outcome = await presenters.request({ displayId: 'room', target: { host: '8.8.8.8', port: 3389 }, pin, source: 'a' });
  assert.equal(refused(outcome), 'target-forbidden');
  assert.equal((await pins.current('room')).pin, pin, 'the PIN was not used up');
  const invitation = await presenters.request({ displayId: 'room', assistance: { invitation: '<not xml', password: 'x' }, pin, source: 'a' });
  assert.equal(refused(invitation), 'invitation-malformed');
});

test('the right PIN projects, rotates the PIN, and makes the display busy until the projection is stopped', async () => {
  const { presenters, pins, events, stopTokens, broker, store } = await setup();
  const { pin } = await pins.current('room');
  const started = await presenters.request({ displayId: 'room', target, credentials: { username: 'u', password: 'p' }, pin, source: 'a' });
  assert.ok(started.ok, refused(started));
  assert.equal(stopTokens.read('room', started.stopToken), started.sessionId);
  const project = events.find((event) => event.kind === 'project');
  assert.ok(project?.kind === 'project');
  assert.equal(project.message.sessionId, started.sessionId);
  assert.deepEqual(project.message.credentials, { username: 'u', password: 'p' });
  assert.ok(events.some((event) => event.kind === 'room-changed'), 'the display hears of the new PIN');
  const next = await pins.current('room');
  assert.notEqual(next.pin, pin);
  // The broker's listing (the store's displays) is sorted by id.
  assert.deepEqual(await presenters.listDisplays(), [
    { id: 'dark', name: 'Dark room', state: 'offline' },
    { id: 'room', name: 'Room 1', location: 'Floor 2', state: 'presenting' },
  ]);
  assert.equal(refused(await presenters.request({ displayId: 'room', target, pin: next.pin, source: 'b' })), 'display-busy');
  assert.equal((await pins.current('room')).pin, next.pin, 'a refused busy request uses nothing');

  assert.deepEqual(await presenters.stop('room', 'someone-else.token'), { ok: false, code: 'stop-token-wrong', reason: 'the stop token does not belong to a projection on this display' });
  assert.equal((await presenters.stop('dark', started.stopToken)).ok, false, 'a stop token is bound to its display');
  const stopped = await presenters.stop('room', started.stopToken);
  assert.ok(stopped.ok);
  assert.equal(stopped.session?.state, 'ended', 'a session the display never opened ends here');
  assert.deepEqual(events.findLast((event) => event.kind === 'stop-session'), { kind: 'stop-session', displayId: 'room', sessionId: started.sessionId, reason: 'stopped by the presenter' });
  assert.deepEqual(events.at(-1), { kind: 'slots-changed', displayId: 'room' }, 'the page hears its slot is free');
  assert.equal((await presenters.listDisplays()).find((display) => display.id === 'room')?.state, 'idle');
  assert.equal(await broker.presence.displayState('room'), 'idle');
  assert.equal(await store.getBooking('room'), undefined, 'the booking is released with the session');
  const again = await presenters.stop('room', started.stopToken);
  assert.equal(again.ok ? 'stopped' : again.code, 'no-projection');
});

test('an administrator projects without a PIN (and leaves it alone), but not onto a busy display', async () => {
  const { presenters, pins, broker, events } = await setup();
  const { pin } = await pins.current('room');
  const started = await presenters.request({ displayId: 'room', target, source: 'a', admin: true });
  assert.ok(started.ok);
  assert.equal((await pins.current('room')).pin, pin);
  const project = events.find((event) => event.kind === 'project');
  assert.ok(project?.kind === 'project');
  await broker.sessions.openSession(started.sessionId, project.message.sessionToken);
  assert.equal(refused(await presenters.request({ displayId: 'room', target, source: 'a', admin: true })), 'display-busy');
  const lookup = await presenters.lookup('room', started.stopToken);
  assert.ok(lookup.ok);
  assert.equal(lookup.session?.state, 'claimed');
});

test('a signage display showing its own target is idle to presenters and gives way to one with the PIN; each request is audited with who asked and through what', async () => {
  const clock = { now: 5_000_000 };
  const store = new MemoryBrokerStore(() => clock.now);
  const publish = (): void => { /* no workers to tell */ };
  const broker = composeBroker({
    directory: new DisplayDirectory([{ id: 'sign', token: TOKEN, name: 'Lobby', autoProject: { host: '10.0.0.9', port: 3389 } }]),
    store, signer: new SessionTokenSigner(SECRET), publish,
    policy: new TargetPolicy({ allowNetworks: ['10.0.0.0/8'], allowPorts: ['3389'], ownPorts: [8443] }),
    resolveTarget: (host) => Promise.resolve([host]),
    timeouts: { sessionTokenMs: 60_000, reprojectMs: 1000, reprojectMaxMs: 8000 },
    clock: () => clock.now,
  });
  const pins = new RoomPins({
    store, publish, clock: () => clock.now, random: (() => { let next = 300_000; return () => next++; })(),
    settings: { digits: 6, rotateMs: 600_000, graceMs: 0 },
    limits: { perDisplay: { max: 10, windowMs: 600_000 }, perSource: { max: 5, windowMs: 300_000 } },
  });
  const rooms = new RoomRequests({ ...broker, store, sealer: new SealedBox(SECRET, 'room request'), publish, clock: () => clock.now });
  const presenters = new PresenterProjections({ ...broker, store, pins, stopTokens: new StopTokens(SECRET), rooms, clock: () => clock.now });
  await broker.presence.displayOnline('sign');
  assert.ok(await broker.projections.projectSignage('sign'), 'the signage is projected');
  assert.equal((await presenters.listDisplays())[0]?.state, 'idle');
  const { pin } = await pins.current('sign');
  const refusedWrong = await presenters.request({ displayId: 'sign', target, pin: pin === '000000' ? '000001' : '000000', source: '10.1.1.1', requestedBy: { kind: 'wsd', address: '10.1.1.1', name: 'alice' } });
  assert.equal(refused(refusedWrong), 'pin-wrong');
  const started = await presenters.request({ displayId: 'sign', target, pin, source: '10.1.1.1', requestedBy: { kind: 'wsd', address: '10.1.1.1', name: 'alice' } });
  assert.ok(started.ok, refused(started));
  assert.equal(await broker.presence.displayState('sign'), 'presenting');
  assert.deepEqual((await store.getSession(started.sessionId))?.requestedBy, { kind: 'wsd', address: '10.1.1.1', name: 'alice' });
  const page = await presenters.request({ displayId: 'sign', target, pin, source: '10.2.2.2' });
  assert.equal(refused(page), 'display-busy');
  const entries = (await broker.auditLog.list({ limit: 10 })).entries.map(({ actor, action, detail }) => ({ actor, action, code: detail?.code, via: detail?.via }));
  assert.deepEqual(entries.filter((entry) => entry.action.startsWith('projection-re')).reverse(), [
    { actor: 'wsd@10.1.1.1', action: 'projection-refused', code: 'pin-wrong', via: 'wsd' },
    { actor: 'wsd@10.1.1.1', action: 'projection-requested', code: undefined, via: 'wsd' },
    { actor: 'presenter', action: 'projection-refused', code: 'display-busy', via: 'presenter' },
  ]);
});
