import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseRelayEngine } from './relayEngine.js';

void test('auto is the native data plane where its binary can be run, and Node with the reason where not; a named engine is taken as named', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-engine-'));
  try {
    const binary = join(dir, 'lanterna-dataplane');
    const missing = chooseRelayEngine('auto', binary);
    assert.equal(missing.engine, 'node');
    assert.match(missing.fallback ?? '', /lanterna-dataplane: ENOENT/);
    writeFileSync(binary, '#!/bin/sh\n');
    chmodSync(binary, 0o644);
    assert.match(chooseRelayEngine('auto', binary).fallback ?? '', /EACCES/, 'a binary that cannot be run is no binary');
    chmodSync(binary, 0o755);
    assert.deepEqual(chooseRelayEngine('auto', binary), { engine: 'native' });
    assert.deepEqual(chooseRelayEngine('node', binary), { engine: 'node' });
    rmSync(binary);
    assert.deepEqual(chooseRelayEngine('native', binary), { engine: 'native' }, 'a configured native engine without its binary is the start-up error\'s to report');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
