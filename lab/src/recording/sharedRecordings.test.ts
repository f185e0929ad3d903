import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listRecordings, recordingPath, recordingsDir, RecordingsMissingError, RECORDINGS_VARIABLE } from './sharedRecordings.js';

/** Runs body with LANTERNA_RECORDINGS set to value (or unset), then restores it. */
function withVariable(value: string | undefined, body: () => void): void {
  assert.equal(RECORDINGS_VARIABLE, 'LANTERNA_RECORDINGS');
  const saved = process.env.LANTERNA_RECORDINGS;
  if (value === undefined) delete process.env.LANTERNA_RECORDINGS;
  else process.env.LANTERNA_RECORDINGS = value;
  try {
    body();
  } finally {
    if (saved === undefined) delete process.env.LANTERNA_RECORDINGS;
    else process.env.LANTERNA_RECORDINGS = saved;
  }
}

test('by default the recordings are ../shared/recordings beside the repository, found from the code, not from the working directory', () => {
  const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
  withVariable(undefined, () => {
    assert.equal(recordingsDir(), resolve(repositoryRoot, '..', 'shared', 'recordings'));
  });
});

test('LANTERNA_RECORDINGS names another folder; recordings are listed by name and found by name', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-recordings-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'b.dump'), '');
  writeFileSync(join(dir, 'a.dump'), '');
  writeFileSync(join(dir, 'notes.txt'), '');
  withVariable(dir, () => {
    assert.equal(recordingsDir(), dir);
    assert.deepEqual(listRecordings(), [join(dir, 'a.dump'), join(dir, 'b.dump')]);
    assert.equal(recordingPath('a'), join(dir, 'a.dump'));
    assert.equal(recordingPath('b.dump'), join(dir, 'b.dump'));
  });
});

test('absent recordings fail with a message that says where they were looked for and how to point elsewhere', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-recordings-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const missing = join(dir, 'nowhere');
  withVariable(missing, () => {
    for (const attempt of [() => listRecordings(), () => recordingPath('cold-xrdp')]) {
      assert.throws(attempt, (error: unknown) => {
        assert.ok(error instanceof RecordingsMissingError);
        assert.equal(error.dir, missing);
        assert.match(error.message, /^recordings not found: .*nowhere does not exist/);
        assert.match(error.message, /LANTERNA_RECORDINGS/);
        assert.match(error.message, /\.\.\/shared\/recordings/);
        return true;
      });
    }
  });
  withVariable(dir, () => {
    assert.throws(() => listRecordings(), /holds no \*\.dump file/);
    assert.throws(() => recordingPath('cold-xrdp'), /cold-xrdp\.dump does not exist/);
  });
});
