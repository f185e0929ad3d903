// Starts the real components (Xvfb, openbox, ImageMagick, FreeRDP's shadow
// server, xrdp, chromium) and proves them with the native FreeRDP client.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { X509Certificate } from 'node:crypto';
import { Lab } from './lab.js';
import type { LabDisplay } from './display/xDisplay.js';
import { generateReferenceImage } from './image/referenceImage.js';
import { compareImages, describeDifference, type RgbImage } from './image/rgbImage.js';
import { allocateFreePort } from './process/freePort.js';
import { xDisplayAnswers } from './process/readiness.js';
import { assertOwnLabEndsAll, assertStartFails } from './labTestAsserts.js';
import { probeNative } from './client/probeNative.js';
import { NativeProbeError } from './client/nativeProbeError.js';

let lab: Lab;
let display: LabDisplay;

before(async () => ({ lab, display } = await Lab.withDisplay('lab-test', { width: 1920, height: 1080 })));
after(() => lab.close());

// Readiness times go into the test report as diagnostics (the figures the README quotes).
function timed<T>(t: TestContext, label: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  return work().finally(() => t.diagnostic(`${label}: ${Date.now() - started} ms`));
}

test('the reference scene on screen equals the generated reference exactly', async (t) => {
  await timed(t, 'reference scene shown', () => display.showScene('reference'));
  const screenshot = await display.screenshot();
  const difference = compareImages(generateReferenceImage(1920, 1080), screenshot);
  assert.equal(difference, undefined, describeDifference(difference));
});

test('xDisplayAnswers tells a live display from a missing one', async () => {
  const subject = { logPath: '/nonexistent', extraPipeText: () => '' };
  assert.equal(await xDisplayAnswers(display.name).check(subject), true);
  assert.equal(await xDisplayAnswers(':4999').check(subject), false);
});

test('the xwd decoder agrees with ImageMagick on a real screenshot', async () => {
  const ours = await display.screenshot();
  const imagemagick = await new Promise<Buffer>((resolve, reject) => {
    const child = execFile('sh', ['-c', `xwd -root -silent -display ${display.name} | convert xwd:- rgba:-`], { encoding: 'buffer', maxBuffer: 64 << 20, timeout: 20_000 }, (error, stdout) =>
      error === null ? resolve(stdout) : reject(new Error(`xwd | convert failed: ${error.message}`)));
    child.stdin?.on('error', () => undefined);
    child.stdin?.end();
  });
  assert.equal(imagemagick.length, ours.data.length);
  assert.ok(imagemagick.equals(ours.data), 'decoded pixels differ from ImageMagick');
});

test('shadow server with TLS: a native client gets through the connection sequence', async (t) => {
  const server = await timed(t, 'shadow tls ready', () => lab.shadowServer({ display, auth: 'tls' }));
  t.after(() => server.stop()); // it polls the screen continuously: free the CPU for later tests
  assert.equal(server.host, '127.0.0.1');
  assert.ok(server.certificateDer !== undefined);
  const certificate = new X509Certificate(server.certificateDer);
  assert.ok(certificate.publicKey.asymmetricKeyType !== undefined);
  await timed(t, 'probeNative shadow tls', () => probeNative(server));
});

test('shadow server with NLA: the right password passes, a wrong one is refused', async (t) => {
  const server = await timed(t, 'shadow nla ready', () => lab.shadowServer({ display, auth: 'nla', gfx: false }));
  t.after(() => server.stop());
  assert.match(server.child.commandLine, / -gfx( |$)/);
  await timed(t, 'probeNative shadow nla', () => probeNative(server));
  await assert.rejects(probeNative({ ...server, password: `${server.password}-wrong` }), (error: unknown) => {
    assert.ok(error instanceof NativeProbeError);
    assert.equal(error.phase, 'auth');
    assert.match(error.output, /AUTHENTICATION_FAILED|LOGON_FAILURE|SPNEGO failed/);
    return true;
  });
});

test('xrdp (xorgxrdp): a native client logs in and the session shows the reference scene exactly', async (t) => {
  const server = await timed(t, 'xrdp ready', () => lab.xrdp({ backend: 'xorgxrdp', scene: 'reference' }));
  assert.ok(server.certificateDer !== undefined);
  assert.equal(new X509Certificate(server.certificateDer).subject, 'CN=lanterna-lab-xrdp');
  await timed(t, 'probeNative xrdp (real session until its X server answers)', () =>
    probeNative({ ...server, authOnly: false, display: display.name, sessionUp: server.sessionUp, timeoutMs: 30_000, extraArgs: ['/size:1920x1080'] }));
  const sessionDisplay = server.sessionDisplay();
  assert.ok(sessionDisplay !== undefined);
  // the session's X server carries the lab's id (sesman's SessionVariables), so leak scans see it
  const sessionPids = server.sessionPids();
  // A session process may end between the listing and the read (sesman's helpers do): it has no command line then.
  const commandLines = sessionPids.map((pid) => { try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8'); } catch { return ''; } });
  const xorg = sessionPids.find((_pid, index) => commandLines[index]?.startsWith('/usr/lib/xorg/Xorg') === true);
  assert.ok(xorg !== undefined, `no Xorg among ${commandLines.join(' | ')}`);
  assert.ok(lab.livePids().includes(xorg), 'the session X server does not carry LANTERNA_LAB_ID');
  const deadline = Date.now() + 10_000;
  let difference = compareImages(generateReferenceImage(1920, 1080), await sessionDisplay.screenshot());
  while (difference !== undefined && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    difference = compareImages(generateReferenceImage(1920, 1080), await sessionDisplay.screenshot());
  }
  assert.equal(difference, undefined, describeDifference(difference));
  await server.stop();
  assert.deepEqual(server.sessionPids(), [], 'session processes outlived stop()');
  assert.equal(existsSync(server.user.home), false, 'test user home not removed');
});

function windowTitle(windowClass: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('xdotool', ['search', '--onlyvisible', '--class', windowClass, 'getwindowname'], { env: { ...process.env, DISPLAY: display.name }, timeout: 5000 }, (error, stdout) =>
      error === null ? resolve(stdout.trim()) : reject(new Error(`xdotool getwindowname failed: ${error.message}`)));
  });
}

function changedFraction(a: RgbImage, b: RgbImage): number {
  let changed = 0;
  for (let offset = 0; offset < a.data.length; offset += 4) if (a.data.readUInt32BE(offset) !== b.data.readUInt32BE(offset)) changed += 1;
  return changed / (a.width * a.height);
}

test('the terminal scene types into a full-screen xterm', async (t) => {
  await timed(t, 'terminal scene shown', () => display.showScene('terminal'));
  const first = await display.screenshot();
  // Wait until the typing shows (a screenshot that differs), not for a fixed time.
  const typedBy = Date.now() + 15_000;
  let second = await display.screenshot();
  while (changedFraction(first, second) === 0 && Date.now() < typedBy) second = await display.screenshot();
  const reference = generateReferenceImage(1920, 1080);
  // the xterm covers the reference picture everywhere, corners included
  assert.ok(changedFraction(reference, first) > 0.95, 'xterm does not cover the screen');
  const change = changedFraction(first, second);
  assert.ok(change > 0 && change < 0.2, `typing should change a little of the screen, changed ${change}`);
});

test('the animation scene runs chromium full screen and repaints every frame', async (t) => {
  await timed(t, 'animation scene shown', () => display.showScene('animation'));
  const frameOf = async (): Promise<number> => Number(/lanterna animation (\d+)/.exec(await windowTitle('chromium'))?.[1] ?? NaN);
  // the first frames come once the page has loaded
  const deadline = Date.now() + 15_000;
  while (Number.isNaN(await frameOf().catch(() => NaN)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  const startFrame = await frameOf();
  const started = Date.now();
  const first = await display.screenshot();
  // Measure over the time the page takes to draw 10 more frames, however busy the machine is.
  const drawnBy = Date.now() + 20_000;
  while ((await frameOf()) < startFrame + 10 && Date.now() < drawnBy) await new Promise((resolve) => setTimeout(resolve, 100));
  const second = await display.screenshot();
  const fps = ((await frameOf()) - startFrame) / ((Date.now() - started) / 1000);
  t.diagnostic(`animation: ${fps.toFixed(1)} frames/s on Xvfb (software)`);
  assert.ok(fps > 5, `animation too slow or stopped: ${fps} fps`);
  assert.ok(changedFraction(generateReferenceImage(1920, 1080), first) > 0.95, 'chromium does not cover the screen');
  assert.ok(changedFraction(first, second) > 0.3, 'most of the screen should change between frames');
});

test('scenes replace each other: back to the reference after chromium', async () => {
  await display.showScene('reference');
  const difference = compareImages(generateReferenceImage(1920, 1080), await display.screenshot());
  assert.equal(difference, undefined, describeDifference(difference));
});

test('a server with a bad option fails fast with its name, command line and log', async () => {
  const error = await assertStartFails(() => lab.shadowServer({ display, auth: 'tls', extraArgs: ['/lanterna-no-such-option'], readyTimeoutMs: 10_000 }), 10_000, [
    /^freerdp-shadow-cli3 \(tls\) failed to start \(exited/,
    /command: freerdp-shadow-cli3 .*\/lanterna-no-such-option/,
  ]);
  assert.ok(error.logTail.length > 0, 'no log lines in the error');
});

test('a server whose port is taken fails within its deadline and says why', async (t) => {
  const port = await allocateFreePort();
  // the blocker drops whatever connects, so closing it never waits on a probe's socket
  const blocker: Server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  await assertStartFails(() => lab.shadowServer({ display, auth: 'tls', port, readyTimeoutMs: 8000 }), 8000, [
    /freerdp-shadow-cli3 \(tls\) failed to start/,
    /Port already used/,
  ]);
});

test('close() stops every process the lab started and removes its directory', async () => {
  await assertOwnLabEndsAll('close-test', async (own) => {
    const ownDisplay = await own.display({ width: 800, height: 600 });
    await ownDisplay.showScene('terminal');
    await own.shadowServer({ display: ownDisplay, auth: 'tls' });
    const pids = own.livePids();
    // Xvfb, openbox, xterm (+ cat), the typing loop, the shadow server
    assert.ok(pids.length >= 5, `expected at least 5 live processes, found ${pids.length}`);
    return pids;
  });
});
