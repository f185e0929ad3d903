import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumFlags, resolveWebgl } from './chromiumFlags.js';

const base = { appUrl: 'data:text/html,wait', spkiPins: [], extra: [] };

test('kiosk app window without bubbles; the sandbox is only dropped for root', () => {
  const asUser = chromiumFlags({ ...base, webgl: 'gpu', runningAsRoot: false });
  for (const flag of ['--kiosk', '--app=data:text/html,wait', '--noerrdialogs', '--disable-infobars', '--disable-session-crashed-bubble', '--no-first-run', '--autoplay-policy=no-user-gesture-required']) {
    assert.ok(asUser.includes(flag), flag);
  }
  assert.ok(!asUser.includes('--no-sandbox'));
  assert.ok(chromiumFlags({ ...base, webgl: 'gpu', runningAsRoot: true }).includes('--no-sandbox'));
});

test('SwiftShader needs both ANGLE flags and never --use-gl; pins and extra flags go through', () => {
  const flags = chromiumFlags({ ...base, webgl: 'swiftshader', runningAsRoot: true, spkiPins: ['a=', 'b='], extra: ['--lang=de'] });
  assert.ok(flags.includes('--use-angle=swiftshader'));
  assert.ok(flags.includes('--enable-unsafe-swiftshader'));
  assert.ok(!flags.some((flag) => flag.startsWith('--use-gl')));
  assert.ok(flags.includes('--ignore-certificate-errors-spki-list=a=,b='));
  assert.equal(flags.at(-1), '--lang=de');
  // only the pinned keys: never the blanket switch that accepts any certificate
  assert.ok(!flags.includes('--ignore-certificate-errors'));
});

test('auto WebGL picks the GPU only when a DRM render node exists', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-dri-'));
  assert.equal(resolveWebgl('auto', join(dir, 'missing')), 'swiftshader');
  mkdirSync(join(dir, 'dri'));
  writeFileSync(join(dir, 'dri', 'card0'), '');
  assert.equal(resolveWebgl('auto', join(dir, 'dri')), 'swiftshader');
  writeFileSync(join(dir, 'dri', 'renderD128'), '');
  assert.equal(resolveWebgl('auto', join(dir, 'dri')), 'gpu');
  assert.equal(resolveWebgl('swiftshader', join(dir, 'dri')), 'swiftshader');
});
