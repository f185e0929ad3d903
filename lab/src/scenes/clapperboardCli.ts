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
// logged). The sound is written in 10 ms chunks into a FIFO of 8 KiB that
// pw-cat reads, each chunk holding the frames for the wall-clock time it is
// written at (never more than 40 ms ahead), so a click enters the FIFO up to
// about 40 ms before its second (logged) and pw-cat takes it at most 46 ms
// later; PipeWire's quantum (1024 frames, 23 ms) and xrdp's sink follow — the
// server's own sound path, which the display's A/V offset includes, as it
// includes xrdp's picture path.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, createWriteStream, existsSync, mkdtempSync, openSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripStamp, stripWhiteRects, TIMESTAMP_STRIP } from '@lanterna/protocol';
import { AUTO_PORTS } from '../servers/xrdpSound.js';
import { X11Connection } from '../stripPainter/x11Connection.js';
import { CLAPPER, clapperFrames, frameAt, nextFlashAt } from './clapperTrack.js';

const STREAM = 'lanterna-clapper';
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

// ---- the sound: pw-cat reads raw PCM from a FIFO of 8 KiB (46 ms), so its reads pace
// the writes and no backlog can build up in front of the clicks. Through a pipe of the
// usual 64 KiB (or Node's socket pair) every stall of the graph left its backlog there for
// good: measured up to 70 KB, 400 ms. 4 KiB (23 ms) starved pw-cat whenever this process
// stalled (a quarter of the clicks lost at the display in two runs; 8 KiB lost none).
// Node has no fcntl: a python3 one-liner sets the FIFO's size and holds it open (the
// size lasts while any end is open).
const origin = Date.now();
const PIPE_BYTES = 8192;
const CHUNK_FRAMES = Math.round(CLAPPER.rate / 100);
/** Further from the wall clock than this, the stream jumps to it (a stall) or waits for it. */
const RESYNC_FRAMES = frameAt(0, 40);
let written = 0;
let sink: WriteStream | undefined;
let skipped = 0;
/** When the chunk that starts each second's click was taken into the FIFO (for the log). */
const clickQueued = new Map<number, number>();
const SIZE_FIFO = `import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, ${PIPE_BYTES})
print(fcntl.fcntl(fd, fcntl.F_GETPIPE_SZ), flush=True)
while True: time.sleep(3600)`;
let fifoHolder: ChildProcess | undefined;

function writeNext(): void {
  const out = sink;
  if (out === undefined) return;
  const now = frameAt(origin, Date.now());
  if (written - now > RESYNC_FRAMES) {
    setTimeout(writeNext, 5);
    return;
  }
  if (now - written > RESYNC_FRAMES) {
    skipped += now - written;
    written = now;
  }
  const from = written;
  const pcm = clapperFrames(origin, from, CHUNK_FRAMES);
  written += CHUNK_FRAMES;
  const second = Math.ceil((origin + (from * 1000) / CLAPPER.rate) / CLAPPER.periodMs) * CLAPPER.periodMs;
  const clickFrame = frameAt(origin, second);
  out.write(pcm, (error) => {
    if (error) return; // the player is being restarted
    if (clickFrame >= from && clickFrame < from + CHUNK_FRAMES) clickQueued.set(second, Date.now());
    writeNext();
  });
}

/** The FIFO pw-cat reads, sized and held open by python3; undefined when that fails (no sound). */
async function openFifo(): Promise<string | undefined> {
  const fifo = join(mkdtempSync(join(tmpdir(), 'lanterna-clapper-')), 'sound.fifo');
  if ((await output('mkfifo', ['-m', '600', fifo])) === undefined) return undefined;
  const holder = spawn('python3', ['-c', SIZE_FIFO, fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
  fifoHolder = holder;
  const size = await new Promise<string>((resolve) => {
    const timer = setTimeout(() => resolve('no answer in 5 s'), 5000);
    holder.stdout.once('data', (chunk: Buffer) => { clearTimeout(timer); resolve(chunk.toString().trim()); });
    holder.once('exit', (code) => { clearTimeout(timer); resolve(`python3 exited ${String(code)}`); });
  });
  if (size !== String(PIPE_BYTES)) {
    say(`could not size the sound FIFO (${size})`);
    return undefined;
  }
  return fifo;
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
  const fifo = await openFifo();
  if (fifo === undefined) return;
  for (;;) {
    // pw-cat given the FIFO's path ends at once (it reads a file without blocking): its stdin instead
    const reading = openSync(fifo, 'r');
    const child = spawn('pw-cat', ['--playback', '--raw', `--rate=${CLAPPER.rate}`, '--channels=2', '--format=s16', '--latency=1024',
      '-P', `{ node.autoconnect = false node.name = ${STREAM} ${AUTO_PORTS} }`, '-'], { stdio: [reading, 'inherit', 'inherit'] });
    closeSync(reading);
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
      // written only once linked: an unlinked stream is not run, and what waited would stay in front of every click
      written = frameAt(origin, Date.now());
      sink = createWriteStream(fifo);
      sink.on('error', (error) => say(`sound FIFO: ${error.message}`));
      say(`clicks play into xrdp-sink (through a ${PIPE_BYTES}-byte FIFO)`);
      writeNext();
    }
    const code = await exited;
    const stale = sink;
    sink = undefined;
    stale?.destroy();
    say(`pw-cat ended (${String(code)}); again in 1 s`);
    await sleep(1000);
  }
}

void startPlayer();

// ---- the flashes
let flashes = 0;
const stop = (): void => {
  say(`stopped after ${flashes} flashes, ${skipped} sound frames skipped`);
  x.close();
  fifoHolder?.kill();
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
