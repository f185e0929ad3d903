import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { fork } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CertificatePolicy } from './certificatePolicy.js';
import { FilePinStore, PinStoreError, type PinStore } from './pinStore.js';
import { pinKey, canonicalPinKey } from './pinKey.js';

const A = `sha256:${'AA:'.repeat(31)}AA`;
const B = `sha256:${'BB:'.repeat(31)}BB`;
const pinPath = (): string => join(mkdtempSync(join(tmpdir(), 'lanterna-pins-')), 'known.json');
const store = (path = pinPath()): PinStore => new FilePinStore(path);
const facts = (fingerprint: string, ...targets: string[]): { targets: string[]; fingerprint: string; caVerified: boolean } => ({ targets, fingerprint, caVerified: false });

test('first use records the fingerprint, then accepts it and refuses a change', async () => {
  const pins = store();
  const policy = new CertificatePolicy('first-use', {}, pins);
  assert.deepEqual(await policy.judge(facts(A, 'h:3389')), { trusted: true, trust: 'first-use' });
  assert.equal((await pins.get(['h:3389'])).get('h:3389'), A);
  assert.deepEqual(await policy.judge(facts(A, 'h:3389')), { trusted: true, trust: 'pinned' });
  const changed = await policy.judge(facts(B, 'h:3389'));
  assert.equal(!changed.trusted && changed.code, 'certificate-changed');
  // A new policy object over the same file (another worker) sees the record.
  assert.equal((await new CertificatePolicy('first-use', {}, pins).judge(facts(B, 'h:3389'))).trusted, false);
});

test('pin keys are canonical: case, trailing dots, brackets, IPv4-mapped IPv6 and hand-written keys meet', () => {
  assert.equal(pinKey('RDP1.Corp.', 3389), 'rdp1.corp:3389');
  assert.equal(pinKey('rdp1.corp', 3389), 'rdp1.corp:3389');
  assert.equal(pinKey('::ffff:7f00:1', 3389), '127.0.0.1:3389');
  assert.equal(pinKey('::FFFF:127.0.0.1', 3389), '127.0.0.1:3389');
  assert.equal(pinKey('0:0:0:0:0:0:0:1', 3389), '[::1]:3389');
  assert.equal(pinKey('[::1]', 3389), '[::1]:3389');
  assert.equal(canonicalPinKey('RDP1.corp.:3389'), 'rdp1.corp:3389');
  assert.equal(canonicalPinKey('[0::1]:3389'), '[::1]:3389');
  assert.equal(canonicalPinKey('no-port'), undefined);
  assert.equal(canonicalPinKey('h:70000'), undefined);
});

test('a server met by name and by address is one server: its address inherits the pin, a different certificate there is a change', async () => {
  const pins = store();
  const policy = new CertificatePolicy('first-use', {}, pins);
  assert.deepEqual(await policy.judge(facts(A, pinKey('RDP1.corp', 3389), pinKey('10.0.0.5', 3389))), { trusted: true, trust: 'first-use' });
  const byAddress = await policy.judge(facts(B, pinKey('::ffff:10.0.0.5', 3389)));
  assert.equal(!byAddress.trusted && byAddress.code, 'certificate-changed');
  const byOtherSpelling = await policy.judge(facts(B, pinKey('rdp1.corp.', 3389), pinKey('10.0.0.6', 3389)));
  assert.equal(!byOtherSpelling.trusted && byOtherSpelling.code, 'certificate-changed');
  assert.equal((await pins.get([pinKey('10.0.0.6', 3389)])).size, 0, 'a refused certificate is never recorded under a new key');
});

test('fails closed: an unreadable or malformed pin file refuses every first use and is never written over', async () => {
  for (const [content, why] of [['{ "h:3389": ', /not valid JSON/], ['["h:3389"]', /must be an object/], [`{"h:3389": "sha1:00"}`, /not a sha256/], [`{"nohost": "${A}"}`, /is not host:port/], [`{"H:3389": "${A}", "h.:3389": "${B}"}`, /two different pins for h:3389/]] as const) {
    const path = pinPath();
    writeFileSync(path, content);
    const errors: PinStoreError[] = [];
    const policy = new CertificatePolicy('first-use', {}, store(path), (error) => errors.push(error));
    const verdict = await policy.judge(facts(A, 'other:3389'));
    assert.equal(!verdict.trusted && verdict.code, 'certificate-untrusted', content);
    assert.match(errors[0]?.message ?? '', why);
    assert.equal(readFileSync(path, 'utf8'), content, 'the file is left as the admin wrote it');
  }
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-pins-'));
  mkdirSync(join(dir, 'known.json')); // EISDIR on read: not "nothing known"
  await assert.rejects(store(join(dir, 'known.json')).check(), PinStoreError);
});

test('concurrent first uses from several processes lose no record', { timeout: 60_000 }, async () => {
  const path = pinPath();
  const worker = fileURLToPath(new URL('./pinStoreWorker.test-helper.js', import.meta.url));
  const runs = Array.from({ length: 4 }, (_, i) => new Promise<number | null>((resolve) => {
    fork(worker, [path, String(i), A], { stdio: 'ignore' }).once('exit', resolve);
  }));
  assert.deepEqual(await Promise.all(runs), [0, 0, 0, 0]);
  const recorded = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
  assert.equal(Object.keys(recorded).length, 4 * 25, 'every process recorded 25 servers, none lost');
});

test('a hundred first uses of one server at once in one process all pass (none fails closed on the lock)', async () => {
  const policy = new CertificatePolicy('first-use', {}, store(), (error) => assert.fail(error.message));
  const verdicts = await Promise.all(Array.from({ length: 100 }, () => policy.judge(facts(A, 'busy.corp:3389', '10.9.9.9:3389'))));
  assert.ok(verdicts.every((verdict) => verdict.trusted), JSON.stringify(verdicts.find((verdict) => !verdict.trusted)));
});

test('explicit pins win over the mode, under any spelling of the key', async () => {
  const policy = new CertificatePolicy('insecure', { 'H:3389': [A] }, store());
  assert.deepEqual(await policy.judge(facts(A, 'h:3389')), { trusted: true, trust: 'pinned' });
  const wrong = await policy.judge(facts(B, 'h:3389', '10.0.0.1:3389'));
  assert.equal(!wrong.trusted && wrong.code, 'certificate-untrusted');
});

test('ca mode needs a verified chain; insecure takes anything', async () => {
  const ca = new CertificatePolicy('ca', {}, store());
  assert.deepEqual(await ca.judge({ targets: ['h:1'], fingerprint: A, caVerified: true }), { trusted: true, trust: 'ca' });
  assert.equal((await ca.judge({ targets: ['h:1'], fingerprint: A, caVerified: false, caError: 'SELF_SIGNED' })).trusted, false);
  assert.deepEqual(await new CertificatePolicy('insecure', {}, store()).judge(facts(A, 'h:1')), { trusted: true, trust: 'insecure' });
});

test('a pin notes when it last let a session through, beside the pin file, at most once a minute per process; forgotten with the pin', async () => {
  const path = pinPath();
  const pins = new FilePinStore(path);
  const policy = new CertificatePolicy('first-use', {}, pins);
  const before = Date.now();
  await policy.judge(facts(A, 'h:3389', '10.0.0.5:3389'));
  const waitForNote = async (): Promise<Map<string, number>> => {
    for (let i = 0; i < 100; i += 1) {
      const used = await pins.lastUsed();
      if (used.size > 0) return used;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return pins.lastUsed();
  };
  const used = await waitForNote();
  assert.ok((used.get('h:3389') ?? 0) >= before, 'the first use is noted');
  assert.equal(used.get('10.0.0.5:3389'), used.get('h:3389'));
  assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), { '10.0.0.5:3389': A, 'h:3389': A }, 'the pin file stays the map an admin edits');
  // Hand the file an old note: the next judgement within the minute writes nothing.
  writeFileSync(path.replace(/\.json$/, '.used.json'), JSON.stringify({ 'h:3389': 5, '10.0.0.5:3389': 5 }));
  await policy.judge(facts(A, 'h:3389'));
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal((await pins.lastUsed()).get('h:3389'), 5, 'a session start is not a disk write every time');
  // Another process (a new policy) notes it again; a changed certificate notes nothing.
  await new CertificatePolicy('first-use', {}, pins).judge(facts(B, 'h:3389'));
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal((await pins.lastUsed()).get('h:3389'), 5, 'a refused certificate is not a use');
  await new CertificatePolicy('first-use', {}, pins).judge(facts(A, 'h:3389'));
  for (let i = 0; i < 100 && (await pins.lastUsed()).get('h:3389') === 5; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(((await pins.lastUsed()).get('h:3389') ?? 0) >= before);
  assert.equal(await pins.clear(['h:3389']), 1);
  assert.equal((await pins.lastUsed()).has('h:3389'), false, 'a cleared pin has no "last used"');
  assert.equal((await pins.lastUsed()).get('10.0.0.5:3389'), 5);
  // Pinned again at once (an admin accepted a new certificate): noted at once, within the minute.
  await policy.judge(facts(B, 'h:3389'));
  for (let i = 0; i < 100 && !(await pins.lastUsed()).has('h:3389'); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(((await pins.lastUsed()).get('h:3389') ?? 0) >= before, 'a pin made again is noted at once');
  // A malformed note file is no notes, never an error: verdicts do not depend on it.
  writeFileSync(path.replace(/\.json$/, '.used.json'), '{not json');
  assert.deepEqual(await pins.lastUsed(), new Map());
  assert.deepEqual(await policy.judge(facts(A, '10.0.0.5:3389')), { trusted: true, trust: 'pinned' });
});
