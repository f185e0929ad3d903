// The X side against a real, bare Xvfb (no window manager, screen saver on).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { pino } from 'pino';
import { customProbe, Lab } from '@lanterna/lab';
import { ensureWindowManager, keepScreenAwake, windowManagerRuns, xDisplayAnswers } from './xSession.js';

describe('x session on a bare Xvfb', { timeout: 60_000 }, () => {
  let lab: Lab;
  let display: string;
  const logger = pino({ level: 'silent' });
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, DISPLAY: display });

  before(async () => {
    lab = await Lab.create({ name: 'kiosk-x-session' });
    const xvfb = await lab.start({
      component: 'Xvfb',
      command: 'Xvfb',
      args: ['-displayfd', '3', '-screen', '0', '640x480x24', '-nolisten', 'tcp', '-noreset'],
      extraPipe: true,
      ready: customProbe('display number written to -displayfd', (subject) => Promise.resolve(/^\d+\n/.test(subject.extraPipeText()))),
    });
    display = `:${xvfb.extraPipeText().trim()}`;
  });

  after(() => lab.close());

  test('a display that answers and one that does not', async () => {
    assert.equal(await xDisplayAnswers({ display, env: env() }), true);
    assert.equal(await xDisplayAnswers({ display: ':4093', env: env() }), false);
  });

  test('openbox is started when no window manager runs, not when one does, and stop() ends it', async () => {
    assert.equal(await windowManagerRuns({ display, env: env() }), false);
    const started = await ensureWindowManager({ display, env: { ...env(), ...lab.env }, logger });
    assert.ok(started !== undefined);
    assert.equal(await windowManagerRuns({ display, env: env() }), true);
    assert.equal(await ensureWindowManager({ display, env: env(), logger }), undefined, 'a second one is not started');
    await started.stop();
    assert.equal(started.hasExited(), true);
    assert.equal(await windowManagerRuns({ display, env: env() }), false);
  });

  test('screen saver and blanking go off; what the server cannot do (DPMS on Xvfb) is reported, not fatal', async () => {
    const query = (): string => execFileSync('xset', ['-display', display, 'q'], { encoding: 'utf8', env: env() });
    assert.match(query(), /timeout:\s+600\s/, 'Xvfb starts with a 600 s screen saver');
    const notApplied = await keepScreenAwake({ display, env: env(), logger });
    assert.match(query(), /timeout:\s+0\s/);
    assert.match(query(), /prefer blanking:\s+no/);
    assert.deepEqual(notApplied.map((line) => line.split(':')[0]), ['xset -dpms']);
  });
});
