// `node clapperboardCli.js :N [--log FILE]`: the clapperboard scene's one
// program (issue 27). At every whole second of the wall clock it fills the
// screen white for 100 ms, with @lanterna/protocol's timestamp strip carrying
// that second (the display page names the present that first shows it), and
// its sound stream has a 5 ms 2 kHz click starting at the frame that plays at
// that second. When the session has a sound server (an xrdp session's
// PipeWire, XDG_RUNTIME_DIR/pipewire-0) the stream goes to xrdp-sink through
// pw-cat; without one (a lab Xvfb) it only flashes.
//
// How close the two are at the source: both come from one clock, Date.now().
// The flash is drawn when its second's timer fires (a few ms late, more on a
// loaded machine: each flash's lateness to the end of the X round trip is
// logged). The click is written about 60 ms ahead of its second into pw-cat's
// pipe, which hands PipeWire a 1024-frame quantum (23 ms) at a time to
// xrdp's sink (another 1024 frames): so the click leaves the session a few
// tens of ms after its second — the server's own sound path, which the
// display's A/V offset includes, as it includes xrdp's picture path.
import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { stripStamp, stripWhiteRects, TIMESTAMP_STRIP } from '@lanterna/protocol';
import { AUTO_PORTS } from '../servers/xrdpSound.js';
import { X11Connection } from '../stripPainter/x11Connection.js';
import { CLAPPER, clapperFrames, frameAt, nextFlashAt } from './clapperTrack.js';

const STREAM = 'lanterna-clapper';
const WRITE_EVERY_MS = 10;
const SOUND_SERVER_WAIT_MS = 30_000;
const LINK_DEADLINE_MS = 15_000;
const COMMAND_DEADLINE_MS = 2000;

function parse(argv: readonly string[]): { display: string; log: string | undefined } {
  const [display, flag, value] = argv;
  if (display === undefined || !display.startsWith(':')) throw new Error('usage: clapperboardCli :N [--log FILE]');
  if (flag === undefined) return { display, log: undefined };
  if (flag !== '--log' || value === undefined) throw new Error(`bad option ${flag} ${value ?? ''}`);
  return { display, log: value };
}

const { display, log } = parse(process.argv.slice(2));
const say = (words: string): void => {
  const line = `lanterna clapper: ${words}`;
  console.log(line);
  if (log !== undefined) appendFileSync(log, `${line}\n`);
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A command's output, or undefined when it fails or passes its deadline. */
function output(command: string, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: COMMAND_DEADLINE_MS, maxBuffer: 1 << 20 }, (error, stdout) => resolve(error ? undefined : stdout));
  });
}

// ---- the picture: a full-screen window of our own, black, white at each second
const x = await X11Connection.open(display);
const screen = { x: 0, y: 0, width: x.screen.width, height: x.screen.height };
const window = x.createWindow(screen, { backgroundPixel: x.screen.blackPixel, overrideRedirect: true });
const gc = x.createGc(window, x.screen.blackPixel);
x.mapWindow(window);
x.raiseWindow(window);
await x.sync();
const band = { x: TIMESTAMP_STRIP.x, y: TIMESTAMP_STRIP.y, width: TIMESTAMP_STRIP.width, height: TIMESTAMP_STRIP.height };

function paint(flashAt: number | undefined): void {
  x.setForeground(gc, flashAt === undefined ? x.screen.blackPixel : x.screen.whitePixel);
  x.fillRectangles(window, gc, [screen]);
  // the strip: black cells, and the second's stamp in white while the flash lasts
  x.setForeground(gc, x.screen.blackPixel);
  x.fillRectangles(window, gc, [band]);
  if (flashAt !== undefined) {
    x.setForeground(gc, x.screen.whitePixel);
    x.fillRectangles(window, gc, stripWhiteRects(stripStamp(flashAt)).map((rect) => ({ ...rect, x: rect.x + band.x, y: rect.y + band.y })));
  }
  x.raiseWindow(window);
}

// ---- the sound: pw-cat reading raw PCM from our pipe, paced by the wall clock
const origin = Date.now();
let written = 0;
let player: ChildProcessByStdio<Writable, null, null> | undefined;
let draining = false;
let skipped = 0;
/** When the frame that plays at the latest whole second was handed to pw-cat (for the log). */
const clickQueued = new Map<number, number>();

function writeAhead(): void {
  if (player === undefined || draining) return;
  const now = Date.now();
  const target = frameAt(origin, now + CLAPPER.leadMs);
  if (target - written > frameAt(0, CLAPPER.maxBehindMs)) {
    // stalled (or pw-cat stopped reading): skip to now rather than play every click late
    skipped += target - written - frameAt(0, CLAPPER.leadMs);
    written = target - frameAt(0, CLAPPER.leadMs);
  }
  if (target <= written) return;
  const second = Math.floor((now + CLAPPER.leadMs) / CLAPPER.periodMs) * CLAPPER.periodMs;
  const clickFrame = frameAt(origin, second);
  if (clickFrame >= written && clickFrame < target) clickQueued.set(second, now);
  const pcm = clapperFrames(origin, written, Math.min(target - written, CLAPPER.rate));
  written += pcm.length / 4;
  // a full pipe means pw-cat is not reading: hold until it drains (the skip above bounds what is owed)
  if (!player.stdin.write(pcm)) {
    draining = true;
    player.stdin.once('drain', () => { draining = false; });
  }
}

async function linked(): Promise<boolean> {
  const links = await output('pw-link', ['-l']);
  return (links?.match(new RegExp(`\\|<- ${STREAM}:output_F[LR]`, 'g')) ?? []).length === 2;
}

async function startPlayer(): Promise<void> {
  const runtime = process.env.XDG_RUNTIME_DIR;
  const socket = runtime === undefined ? undefined : join(runtime, 'pipewire-0');
  const waitUntil = Date.now() + SOUND_SERVER_WAIT_MS;
  while (socket === undefined || !existsSync(socket)) {
    if (socket === undefined || Date.now() > waitUntil) {
      say(`no sound server (${socket ?? 'XDG_RUNTIME_DIR unset'}): flashes only`);
      return;
    }
    await sleep(200);
  }
  for (;;) {
    const child = spawn('pw-cat', ['--playback', '--raw', `--rate=${CLAPPER.rate}`, '--channels=2', '--format=s16', '--latency=1024',
      '-P', `{ node.autoconnect = false node.name = ${STREAM} ${AUTO_PORTS} }`, '-'], { stdio: ['pipe', 'inherit', 'inherit'] });
    child.stdin.on('error', () => undefined); // its exit says it
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const linkUntil = Date.now() + LINK_DEADLINE_MS;
    while (!(await linked())) {
      if (Date.now() > linkUntil || child.exitCode !== null) {
        say(`could not link ${STREAM} to xrdp-sink in ${LINK_DEADLINE_MS / 1000} s`);
        break;
      }
      await output('pw-link', [`${STREAM}:output_FL`, 'xrdp-sink:send_FL']);
      await output('pw-link', [`${STREAM}:output_FR`, 'xrdp-sink:send_FR']);
      await sleep(200);
    }
    if (await linked()) {
      // written only once linked: an unlinked stream is not run, and what waited in the pipe
      // (up to 64 KiB, 370 ms) would stay as a lasting delay in front of every click
      written = frameAt(origin, Date.now());
      draining = false;
      player = child;
      say(`clicks play into xrdp-sink (written ${CLAPPER.leadMs} ms ahead)`);
    }
    const code = await exited;
    player = undefined;
    say(`pw-cat ended (${String(code)}); again in 1 s`);
    await sleep(1000);
  }
}

setInterval(writeAhead, WRITE_EVERY_MS);
void startPlayer();

// ---- the flashes
let flashes = 0;
const stop = (): void => {
  say(`stopped after ${flashes} flashes, ${skipped} sound frames skipped`);
  x.close();
  player?.kill();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
say(`flashing on ${display} (${screen.width}×${screen.height}) at every whole second`);
for (;;) {
  const at = nextFlashAt(Date.now() + 1);
  await sleep(at - Date.now());
  paint(at);
  await x.sync();
  const drawn = Date.now() - at;
  flashes += 1;
  const queued = clickQueued.get(at);
  for (const second of clickQueued.keys()) if (second <= at) clickQueued.delete(second);
  say(`flash ${at}: drawn +${drawn} ms; click ${queued === undefined ? 'not written (no sound)' : `written ${queued - at} ms`}`);
  await sleep(at + CLAPPER.flashMs - Date.now());
  paint(undefined);
  await x.sync();
}
