// What the display tells the gateway about its session, about once a second
// (the control socket's `figures`, docs/kiosk-protocol.md): the pictures it
// presented (the HUD's "frames/s"), how many of them brought new pixels from
// the session — what a viewer calls frames per second; a present for a
// pointer move alone is not one — and the binary messages and bytes its data
// socket brought. The admin's live
// view shows them beside the gateway's own counts, so "frames" there means
// pictures on this screen, not WebSocket messages.
import { FIGURES_MAX_INTERVAL_MS, type FiguresMessage } from '@lanterna/protocol';
import type { SessionTraffic } from '../../session/sessionHost.js';
import type { SoundReport } from '../../audio/audioOutput.js';

export const FIGURES_REPORT_MS = 1000;

export interface FiguresSink {
  /** False when the report could not go (socket down, a gateway that does not read figures). */
  sendFigures(message: FiguresMessage): boolean;
  /** The display's sound since the last report (null: this page plays none). */
  sound?: () => SoundReport | null;
}

export class FiguresReporter {
  private sessionId: string | null = null;
  private traffic: SessionTraffic | null = null;
  private presents = 0;
  private frames = 0;
  private messages = 0;
  private bytes = 0;
  private since = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly sink: FiguresSink, private readonly onreport: (message: FiguresMessage) => void = () => undefined, private readonly now: () => number = () => performance.now()) {}

  /** A session started: its counts begin at zero. */
  start(sessionId: string, traffic: SessionTraffic): void {
    this.stop();
    this.sessionId = sessionId;
    this.traffic = traffic;
    this.restart();
    this.timer = setTimeout(() => this.tick(), FIGURES_REPORT_MS);
  }

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.sessionId = null;
    this.traffic = null;
  }

  /** One picture reached the screen; `newPixels`: it carried the session's changed rectangles (not only the pointer). */
  onPresent(newPixels: boolean): void {
    if (this.sessionId === null) return;
    this.presents += 1;
    if (newPixels) this.frames += 1;
  }

  private restart(): void {
    this.presents = 0;
    this.frames = 0;
    this.messages = this.traffic?.messagesIn ?? 0;
    this.bytes = this.traffic?.bytesIn ?? 0;
    this.since = this.now();
  }

  private tick(): void {
    const sessionId = this.sessionId;
    const traffic = this.traffic;
    if (sessionId === null || traffic === null) return;
    const intervalMs = Math.round(this.now() - this.since);
    // A page that was asleep (a throttled tab) has no rate to tell: it starts a new interval.
    if (intervalMs >= 1 && intervalMs <= FIGURES_MAX_INTERVAL_MS) {
      const message: FiguresMessage = {
        type: 'figures', sessionId, intervalMs,
        presents: Math.min(this.presents, 10_000),
        frames: Math.min(this.frames, 10_000),
        messages: Math.max(0, traffic.messagesIn - this.messages),
        bytes: Math.max(0, traffic.bytesIn - this.bytes),
      };
      const sound = this.sink.sound?.() ?? null;
      if (sound) message.sound = { playing: sound.playing, state: sound.state, delayMs: Math.min(Math.max(sound.delayMs, 0), 60_000) };
      if (this.sink.sendFigures(message)) this.onreport(message);
    }
    this.restart();
    this.timer = setTimeout(() => this.tick(), FIGURES_REPORT_MS);
  }
}
