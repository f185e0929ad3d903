import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planScene } from './sceneCatalogue.js';
import { renderSessionScript, SCENE_NAMES, SESSION_DISPLAY, shellQuote } from './scenePlan.js';

test('shellQuote keeps words intact through /bin/sh, with the session display expanded', () => {
  const words = ['plain', "it's", 'a b', '--display=${DISPLAY}', 'x"$`\\y ${DISPLAY} z', ''];
  const script = `printf '%s\\n' ${words.map(shellQuote).join(' ')}`;
  const out = execFileSync('sh', ['-c', script], { env: { ...process.env, DISPLAY: ':42' }, encoding: 'utf8' });
  assert.deepEqual(out.split('\n').slice(0, -1), ['plain', "it's", 'a b', '--display=:42', 'x"$`\\y :42 z', '']);
});

test('every scene renders to a session script /bin/sh accepts, using the session display', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-scene-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const name of SCENE_NAMES) {
    const plan = planScene(name, { display: SESSION_DISPLAY, width: 320, height: 200, workDir: dir });
    const script = renderSessionScript(plan);
    execFileSync('sh', ['-n', '-c', script]);
    assert.match(script, /^#!\/bin\/sh\n/);
    assert.match(script, /exec sleep infinity\n$/);
    if (name !== 'reference') assert.match(script, /"[^"]*\$\{DISPLAY\}[^"]*"/, `${name} does not use the session display`);
    assert.equal(plan.needsWindowManager, script.includes('openbox --sm-disable &'));
  }
});
