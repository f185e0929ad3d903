// The embedded store survives a restart: displays, intents, the audit log and
// changed pins come back from the state file; sessions and claims do not (a
// token minted before the restart opens nothing). The file is replaced whole
// and a broken one stops the start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedBrokerStore, BrokerStateError, brokerStateFile } from './embeddedBrokerStore.js';
import type { DisplayRecord } from './brokerStore.js';

const display: DisplayRecord = { id: 'made', name: 'Made by API', location: 'Hall', tokenDigest: 'a'.repeat(64), managedBy: 'api', createdAt: 1, updatedAt: 1 };

test('what the API made survives a restart; sessions and their claims do not', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-state-'));
  const file = brokerStateFile(dir);
  const first = await EmbeddedBrokerStore.open(file);
  assert.equal(await first.putDisplay(display, 'create'), true);
  await first.appendAudit({ at: 5, actor: 'admin@10.0.0.1', action: 'display-created', displayId: 'made' });
  await first.setIntent({ displayId: 'made', sessionId: 's_1', target: { host: '10.0.0.2', port: 3389 }, sealed: 'x', since: 5 });
  await first.recordPinConflicts([{ key: 'rdp:3389', pinned: 'sha256:A', seen: 'sha256:B', at: 6 }]);
  await first.putSession({ sessionId: 's_1', displayId: 'made', target: { host: '10.0.0.2', port: 3389 }, state: 'minted', mintedAt: 5, expiresAt: Date.now() + 60_000 });
  await first.flush();
  assert.deepEqual(readdirSync(dir), ['broker-state.json'], 'no temp file left beside it');

  const second = await EmbeddedBrokerStore.open(file);
  assert.deepEqual(await second.getDisplay('made'), display);
  assert.equal((await second.listAudit({ limit: 10 })).entries[0]?.action, 'display-created');
  assert.equal((await second.getIntent('made'))?.sessionId, 's_1');
  assert.equal((await second.listPinConflicts()).length, 1);
  assert.equal(await second.claimSession('s_1', Date.now() + 60_000), false, 'a token minted before the restart opens nothing');
  assert.equal(await second.appendAudit({ at: 7, actor: 'gateway', action: 'pin-cleared' }), 2, 'the audit sequence goes on');
  const loud = { ...display, sound: { volume: 30, muted: true } };
  assert.equal(await second.putDisplay(loud, 'replace'), true);
  await second.flush();
  assert.deepEqual(await (await EmbeddedBrokerStore.open(file)).getDisplay('made'), loud, 'an admin\'s volume and mute survive a restart');
  assert.equal(await second.deleteDisplay('made'), true);
  const third = await EmbeddedBrokerStore.open(file);
  assert.equal(await third.getDisplay('made'), undefined);
});

test('a broken state file stops the start, naming the file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-state-'));
  const file = brokerStateFile(dir);
  writeFileSync(file, '{"version":1,"displays":[{"id":1}]');
  await assert.rejects(EmbeddedBrokerStore.open(file), (error: unknown) => error instanceof BrokerStateError && error.message.includes(file) && /not valid JSON/.test(error.message));
  writeFileSync(file, JSON.stringify({ version: 1, displays: [{ id: 'x' }], intents: [], audit: [], pinConflicts: [] }));
  await assert.rejects(EmbeddedBrokerStore.open(file), /malformed/);
});

test('a burst of written-behind changes is one write of the whole state, not one per change', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-state-'));
  const file = brokerStateFile(dir);
  const store = await EmbeddedBrokerStore.open(file, Date.now, undefined, 100);
  for (let i = 0; i < 300; i++) {
    await store.appendAudit({ at: i, actor: 'gateway', action: 'projection-started', sessionId: `s_${i}` });
    await store.setIntent({ displayId: `d_${i}`, sessionId: `s_${i}`, target: { host: '10.0.0.2', port: 3389 }, sealed: 'x', since: i });
  }
  assert.equal(store.stateWrites, 0, 'nothing written during the burst');
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.equal(store.stateWrites, 1, 'one write after the delay');
  const reopened = await EmbeddedBrokerStore.open(file);
  assert.equal((await reopened.listAudit({ limit: 1000 })).entries.length, 300);
  assert.equal((await reopened.getIntent('d_299'))?.sessionId, 's_299');

  // a display change waits for the disk and takes what was waiting with it
  await store.appendAudit({ at: 301, actor: 'gateway', action: 'pin-cleared' });
  assert.equal(await store.putDisplay(display, 'create'), true);
  assert.equal(store.stateWrites, 2);
  assert.equal((await (await EmbeddedBrokerStore.open(file)).listAudit({ limit: 1000 })).entries.length, 301);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(store.stateWrites, 2, 'no second write for what already went out');

  // flush writes what waits at once
  await store.appendAudit({ at: 302, actor: 'gateway', action: 'pin-cleared' });
  await store.flush();
  assert.equal(store.stateWrites, 3);
  assert.equal((await (await EmbeddedBrokerStore.open(file)).listAudit({ limit: 1000 })).entries.length, 302);
});

test("a room's settings and each slot's intent survive a restart (issue 29); a file from before rooms opens as it did", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-state-'));
  const file = brokerStateFile(dir);
  const first = await EmbeddedBrokerStore.open(file);
  await first.putRoomSettings('made', { mode: 'moderated', layout: 'one-large', large: 2, hostRequestId: 'r_1', updatedAt: 9 });
  await first.setIntent({ displayId: 'made', sessionId: 's_0', target: { host: '10.0.0.2', port: 3389 }, sealed: 'x', since: 5 });
  await first.setIntent({ displayId: 'made', sessionId: 's_3', slot: 3, requestId: 'r_3', target: { host: '10.0.0.3', port: 3389 }, sealed: 'y', since: 6 });
  await first.flush();
  const second = await EmbeddedBrokerStore.open(file);
  assert.deepEqual(await second.getRoomSettings('made'), { mode: 'moderated', layout: 'one-large', large: 2, hostRequestId: 'r_1', updatedAt: 9 });
  assert.equal((await second.getIntent('made'))?.sessionId, 's_0');
  assert.deepEqual([(await second.getIntent('made', 3))?.sessionId, (await second.getIntent('made', 3))?.requestId], ['s_3', 'r_3']);

  const old = join(dir, 'old.json');
  writeFileSync(old, JSON.stringify({ version: 1, displays: [display], intents: [], audit: [], pinConflicts: [] }));
  const before = await EmbeddedBrokerStore.open(old);
  assert.deepEqual(await before.getDisplay('made'), display);
  assert.equal(await before.getRoomSettings('made'), undefined, 'no settings: the room is open, as it always was');
});
