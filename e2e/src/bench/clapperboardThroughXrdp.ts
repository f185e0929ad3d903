// The clapperboard through a real RDP server (issue 27): xrdp 0.9.21 with
// PipeWire and pipewire-module-xrdp in its session, where the lab's
// clapperboard scene (lab/src/scenes/clapperboardCli.ts) fills the screen
// white for 100 ms at every whole second of this machine's clock, with the
// timestamp strip carrying that second, and puts a 5 ms click at that second
// in its sound stream. xrdp sends the picture as bitmap updates and the sound
// over rdpsnd (PCM, 44.1 kHz) through the real gateway (native data plane) to
// the display page in headless Chromium (?audiotap). As for the browser
// presenter: the picture's time is the end of the present that first shows
// the second's stamp (the render worker's strip reading), the sound's the
// click's onset in the worklet's tap on the same clock (getOutputTimestamp).
// The scene's own log gives the source: how late each flash was drawn (X
// round trip done) and how far ahead its click was written; the display's
// own share of the sound's latency (its queue + output) is sampled from its
// ring while the flashes run, the rest is the server's and the way there.
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { Lab, type XrdpServer } from '@lanterna/lab';
import { waitFor } from '@lanterna/testkit';
import { startKioskRig, type KioskRig } from '../kiosk/kioskRig.js';
import { hook, soundState } from '../kiosk/soundTap.js';
import { clapperTable, clicksHeard, describeDisplayEvents, installStripLog, pairFlashes, readClockedTap, readStripLog, sampleDisplayDelay } from './clapperboardFigures.js';

export interface ThroughXrdpOptions { seconds: number; width: number; height: number; out: string }

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The scene's log, or '' before it exists. */
export function clapperLog(xrdp: XrdpServer): string {
  try {
    return xrdp.soundLogPath === undefined ? '' : readFileSync(xrdp.soundLogPath, 'utf8');
  } catch {
    return '';
  }
}

/** Per flash at each of `seconds`, from the scene's log: drawn (ms after its second) and click written (ms, negative: ahead). */
export function sourceTimings(log: string, seconds: readonly number[]): { drawn: number[]; written: number[] } {
  const drawn: number[] = [];
  const written: number[] = [];
  for (const match of log.matchAll(/^lanterna clapper: flash (\d+): drawn \+(\d+) ms; click (?:written (-?\d+) ms|not written)/gm)) {
    if (!seconds.includes(Number(match[1]))) continue;
    drawn.push(Number(match[2]));
    if (match[3] !== undefined) written.push(Number(match[3]));
  }
  return { drawn, written };
}

export async function clapperboardThroughXrdp(options: ThroughXrdpOptions): Promise<number> {
  const loadBefore = loadavg()[0] ?? 0;
  const tapSeconds = Math.min(60, options.seconds + 8);
  const lab = await Lab.create({ name: 'clapperboard-xrdp' });
  let rig: KioskRig | undefined;
  try {
    const xrdp = await lab.xrdp({ scene: 'clapperboard', width: options.width, height: options.height });
    rig = await startKioskRig({ target: xrdp, width: options.width, height: options.height, query: `audiotap=${tapSeconds}` });
    const { page } = rig;
    await waitFor('the display\'s sound running', async () => (await soundState(page)) === 'running', 30_000);
    await installStripLog(page);
    try {
      await waitFor('clicks from xrdp at the display', async () => ((await hook(page, (sound) => sound.counters().waves ?? 0)) > 20), 90_000);
    } catch (error) {
      throw new Error(`${(error as Error).message}; the scene's log:\n${clapperLog(xrdp)}`);
    }
    // the stream settles in the display's jitter buffer
    await sleep(3000);
    if (!(await hook(page, (sound) => sound.armTap()))) throw new Error('the display page has no tap');
    const first = Math.ceil((Date.now() + 500) / 1000) * 1000;
    const flashTimes = Array.from({ length: options.seconds }, (_, k) => first + k * 1000);
    // what the display itself adds to the sound: its queue and its output, sampled while the flashes run
    const displayShare = await sampleDisplayDelay(page, first, first + options.seconds * 1000 + 2500);

    const strips = await readStripLog(page);
    const tap = await readClockedTap(page);
    const clicks = clicksHeard(tap);
    const counters = await hook(page, (sound) => sound.counters());
    const source = sourceTimings(clapperLog(xrdp), flashTimes);
    const pairs = pairFlashes(flashTimes, strips, clicks);
    const loadAfter = loadavg()[0] ?? 0;
    const table = clapperTable(
      `Clapperboard through xrdp 0.9.21 (session ${options.width}×${options.height}: bitmap updates + rdpsnd PCM ${String(counters.rate ?? '?')} Hz from PipeWire's xrdp sink, ${options.seconds} flashes a second apart; ${pairs.offsets.length} paired, ${pairs.pictures} pictures read, ${clicks.length} clicks heard); display context ${tap.rate} Hz; load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)} on ${cpus().length} cores; jitter target ${counters.targetMs} ms, ${counters.underruns} underruns (${displayShare.underruns} while the flashes ran), ${displayShare.stretchedMs} ms stretched meanwhile, ${counters.dropped} frames dropped`,
      pairs,
      [
        ['source: second → flash drawn in the session (X round trip done)', source.drawn],
        ['source: second → click written to pw-cat (− = ahead)', source.written],
        ['display: its queue + output, sampled every 200 ms (of the sound latency)', displayShare.delays],
      ],
    );
    const report = `${table}\n\n${describeDisplayEvents(displayShare)}`;
    console.log(report);
    await writeFile(options.out, `${report}\n`);
    if (pairs.offsets.length * 2 >= options.seconds) return 0;
    console.log(`fewer than half the flashes paired; the scene's log, but its flashes:\n${clapperLog(xrdp).split('\n').filter((line) => !line.startsWith('lanterna clapper: flash ')).join('\n')}`);
    return 1;
  } finally {
    try {
      await rig?.close();
    } finally {
      await lab.close();
    }
  }
}
