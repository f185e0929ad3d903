import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { displayPageUrl, KioskConfigError, loadKioskConfig } from './kioskConfig.js';

const TOKEN = 'display-token-0123456789';
const required = { gateway: 'https://gateway.example:8443', displayId: 'room-1', displayToken: TOKEN };

function file(content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'lanterna-kiosk-config-')), 'kiosk.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof KioskConfigError, String(error));
    return error.problems;
  }
  assert.fail('expected a configuration error');
}

test('defaults: X display :0, Debian\'s Chromium, WebGL auto, a window manager when none runs, a 10 s heartbeat timeout', () => {
  const config = loadKioskConfig({ env: {}, flags: required });
  assert.equal(config.xDisplay, ':0');
  assert.equal(config.chromium, '/usr/bin/chromium');
  assert.equal(config.webgl, 'auto');
  assert.equal(config.windowManager, true);
  assert.equal(config.watchdog.heartbeatTimeoutMs, 10_000);
  assert.equal(config.watchdog.reloadsBeforeRelaunch, 3);
});

test('file, then environment, then flags; DISPLAY counts when nothing else names the X display', () => {
  const path = file({ ...required, xDisplay: ':3', webgl: 'gpu', watchdog: { heartbeatTimeoutMs: 8000 } });
  const fromFile = loadKioskConfig({ file: path, env: { DISPLAY: ':9' } });
  assert.equal(fromFile.xDisplay, ':3');
  assert.equal(fromFile.webgl, 'gpu');
  assert.equal(fromFile.watchdog.heartbeatTimeoutMs, 8000);
  assert.equal(loadKioskConfig({ env: { DISPLAY: ':9' }, flags: required }).xDisplay, ':9');
  const fromEnv = loadKioskConfig({ file: path, env: { LANTERNA_KIOSK_X_DISPLAY: ':4', LANTERNA_KIOSK_WEBGL: 'swiftshader', LANTERNA_KIOSK_WINDOW_MANAGER: 'false' } });
  assert.equal(fromEnv.xDisplay, ':4');
  assert.equal(fromEnv.webgl, 'swiftshader');
  assert.equal(fromEnv.windowManager, false);
  const fromFlags = loadKioskConfig({ file: path, env: { LANTERNA_KIOSK_X_DISPLAY: ':4' }, flags: { display: ':5', windowManager: false } });
  assert.equal(fromFlags.xDisplay, ':5');
  assert.equal(fromFlags.windowManager, false);
  // commander gives windowManager: true when --no-window-manager is absent: that must not override the file or env
  assert.equal(loadKioskConfig({ env: { ...envOf(required), LANTERNA_KIOSK_WINDOW_MANAGER: '0' }, flags: { windowManager: true } }).windowManager, false);
  // LANTERNA_KIOSK_CONFIG names the file when no --config is given
  assert.equal(loadKioskConfig({ env: { LANTERNA_KIOSK_CONFIG: path } }).xDisplay, ':3');
});

function envOf(values: typeof required): NodeJS.ProcessEnv {
  return { LANTERNA_KIOSK_GATEWAY: values.gateway, LANTERNA_KIOSK_DISPLAY_ID: values.displayId, LANTERNA_KIOSK_DISPLAY_TOKEN: values.displayToken };
}

test('tokens and display ids of digits stay strings when they come from the environment', () => {
  const config = loadKioskConfig({ env: { LANTERNA_KIOSK_GATEWAY: 'http://127.0.0.1:8080', LANTERNA_KIOSK_DISPLAY_ID: '42', LANTERNA_KIOSK_DISPLAY_TOKEN: '12345678901234567890' } });
  assert.equal(config.displayId, '42');
  assert.equal(config.displayToken, '12345678901234567890');
});

test('every bad value is reported with where it came from, and the token is never echoed', () => {
  const badToken = 'short-secret';
  const problems = problemsOf(() => loadKioskConfig({
    file: file({ xDisplay: 'zero', watchdog: { heartbeatTimeoutMs: 10, relaunchInitialMs: 5000, relaunchMaxMs: 1000 }, chromiumFlags: ['no-dashes'] }),
    env: { LANTERNA_KIOSK_DISPLAY_TOKEN: badToken, LANTERNA_KIOSK_WEBGL: 'vulkan' },
    flags: { gateway: 'ftp://gateway', displayId: 'bad id!' },
  }));
  const text = problems.join('\n');
  assert.match(text, /^gateway: gateway must be an http:\/\/ or https:\/\/ URL \(from --gateway\)$/m);
  assert.match(text, /^displayId: display id: 1-64 of .* \(from --display-id\)$/m);
  assert.match(text, /^displayToken: display token must be at least 16 characters \(from LANTERNA_KIOSK_DISPLAY_TOKEN\)$/m);
  assert.match(text, /^xDisplay: X display like ":0" or ":0\.0" \(from .*kiosk\.json\)$/m);
  assert.match(text, /^webgl: .*\(from LANTERNA_KIOSK_WEBGL\)$/m);
  assert.match(text, /^watchdog\.heartbeatTimeoutMs: .*3000/m);
  assert.match(text, /^chromiumFlags\.0: chromium flag like --name/m);
  assert.ok(!text.includes(badToken), 'the token is not echoed');
});

test('missing required values say how to give them', () => {
  const problems = problemsOf(() => loadKioskConfig({ env: {} }));
  assert.deepEqual(problems.map((p) => p.split(':')[0]).sort(), ['displayId', 'displayToken', 'gateway']);
  assert.match(problems.join('\n'), /displayToken: missing \(give LANTERNA_KIOSK_DISPLAY_TOKEN/);
});

test('a file that is not a JSON object is one clear problem', () => {
  assert.match(problemsOf(() => loadKioskConfig({ file: file('[1, 2]'), env: {} }))[0] ?? '', /kiosk\.json: top level must be an object/);
  assert.match(problemsOf(() => loadKioskConfig({ file: file('{ nope'), env: {} }))[0] ?? '', /kiosk\.json: .*JSON/);
  assert.match(problemsOf(() => loadKioskConfig({ file: '/nonexistent/kiosk.json', env: {} }))[0] ?? '', /ENOENT/);
});

test('the display page URL keeps a path prefix, drops query and fragment, and escapes the id', () => {
  assert.equal(displayPageUrl({ gateway: 'https://gw.example:8443', displayId: 'room-1' }).href, 'https://gw.example:8443/display/room-1');
  assert.equal(displayPageUrl({ gateway: 'https://gw.example/lanterna?x=1#y', displayId: 'a.b_c' }).href, 'https://gw.example/lanterna/display/a.b_c');
});
