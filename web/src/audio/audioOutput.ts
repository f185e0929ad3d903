// The display's sound output on the page's thread: the AudioContext, the
// worklet that plays the shared queue (playback.worklet.ts), whether the
// browser lets it play (a kiosk starts Chromium with
// --autoplay-policy=no-user-gesture-required; any other browser may keep the
// context suspended until someone touches the page, and the page must say so),
// the volume and mute the gateway sends, and what it played for the figures.
import { RING, createPlaybackRing, ringFill, ringViews, type PlaybackRingViews } from './playbackRing.js';
import type { PlaybackProcessorOptions } from './playback.worklet.js';

/**
 * running: sound plays; blocked: the browser keeps the context suspended
 * (autoplay policy) until a gesture; unavailable: this page cannot play sound
 * at all (no AudioWorklet, no shared memory, the context failed).
 */
export type SoundOutputState = 'starting' | 'running' | 'blocked' | 'unavailable';

/** What the admin set for this display (the control socket's `sound`). */
export interface SoundLevel {
  /** 0–100 %. */
  readonly volume: number;
  readonly muted: boolean;
}

/** What the output did since the last call, for the display's figures. */
export interface SoundReport {
  /** Sound from the queue reached the output in this interval. */
  readonly playing: boolean;
  readonly state: SoundOutputState;
  /** The latency the queue and the output add now, ms (what the Wave Confirms report on top of the hand-over). */
  readonly delayMs: number;
  readonly underruns: number;
  readonly dropped: number;
}

/** How long the context may stay suspended after start before the page calls sound blocked. */
const BLOCKED_AFTER_MS = 1000;

export class AudioOutput {
  /** The queue the session worker writes into (give it to SessionHost). */
  readonly ring: SharedArrayBuffer;
  private readonly views: PlaybackRingViews;
  private readonly tap: SharedArrayBuffer | null;
  private context: AudioContext | null = null;
  private state: SoundOutputState = 'starting';
  private level: SoundLevel = { volume: 100, muted: false };
  private lastSounding = 0;
  /** The playback worklet is loaded and connected to the output. */
  private connected = false;

  constructor(private readonly workletUrl: URL, private readonly onstate: (state: SoundOutputState, detail: string) => void, options: { tapSeconds?: number } = {}) {
    this.ring = createPlaybackRing();
    this.views = ringViews(this.ring);
    const tapSeconds = Math.min(Math.max(options.tapSeconds ?? 0, 0), 60);
    // 48 kHz is what the tap is sized for; at a higher context rate it just holds less time
    this.tap = tapSeconds > 0 ? new SharedArrayBuffer(Math.ceil(tapSeconds * 48_000) * 2 * 4) : null;
  }

  /** Can this page play sound at all: the worklet and the shared queue need a cross-origin isolated page. */
  static supported(): boolean {
    return typeof AudioContext === 'function' && typeof AudioWorkletNode === 'function' && typeof SharedArrayBuffer === 'function' && globalThis.crossOriginIsolated;
  }

  async start(): Promise<void> {
    let context: AudioContext;
    try {
      context = new AudioContext({ latencyHint: 'interactive' });
    } catch (error) {
      this.setState('unavailable', `the sound output could not start: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    this.context = context;
    context.onstatechange = () => this.watch();
    // Whether the browser lets sound play is known now, not after the worklet's
    // script arrives (a slow load left a refused page without its icon past 10 s).
    if (context.state !== 'running') {
      // Refused without a gesture: try once more, then say so; any touch or key later may start it.
      void context.resume().catch(() => undefined);
      setTimeout(() => this.watch(true), BLOCKED_AFTER_MS);
      const retry = (): void => void context.resume().catch(() => undefined);
      window.addEventListener('pointerdown', retry);
      window.addEventListener('keydown', retry);
    }
    try {
      await context.audioWorklet.addModule(this.workletUrl.href);
      const options: PlaybackProcessorOptions = { ring: this.ring, ...(this.tap ? { tap: this.tap } : {}) };
      const node = new AudioWorkletNode(context, 'lanterna-playback', { numberOfInputs: 0, numberOfOutputs: 1, outputChannelCount: [2], processorOptions: options });
      node.connect(context.destination);
    } catch (error) {
      this.context = null;
      void context.close().catch(() => undefined);
      this.setState('unavailable', `the sound output could not start: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    this.connected = true;
    Atomics.store(this.views.header, RING.outputRate, Math.round(context.sampleRate));
    this.updateLatency();
    this.watch();
  }

  /** The admin's volume and mute; the worklet ramps to it within one render quantum (2.7 ms at 48 kHz). */
  setLevel(level: SoundLevel): void {
    this.level = level;
    const gain = level.muted ? 0 : Math.round(Math.min(Math.max(level.volume, 0), 100) * 10);
    Atomics.store(this.views.header, RING.gainMilli, gain);
  }

  get currentLevel(): SoundLevel {
    return this.level;
  }

  get currentState(): SoundOutputState {
    return this.state;
  }

  /** What was played since the last report. */
  report(): SoundReport {
    const header = this.views.header;
    const sounding = Atomics.load(header, RING.soundingBlocks);
    const playing = sounding !== this.lastSounding && this.state === 'running';
    this.lastSounding = sounding;
    this.updateLatency();
    const rate = Atomics.load(header, RING.rate) || 48_000;
    return {
      playing,
      state: this.state,
      delayMs: Math.round(((ringFill(header) * 1000) / rate + Atomics.load(header, RING.outputLatencyUs) / 1000) * 10) / 10,
      underruns: Atomics.load(header, RING.underruns),
      dropped: Atomics.load(header, RING.dropped),
    };
  }

  /** Test hook: start copying the rendered output into the tap from now (false: no tap). */
  armTap(): boolean {
    if (!this.tap) return false;
    Atomics.store(this.views.header, RING.tapFrames, 0);
    return true;
  }

  /**
   * Test hook: the rendered output since armTap, stereo interleaved, at `sampleRate`;
   * `startFrame` is its first frame on the context's clock and `clock` the context's
   * getOutputTimestamp() now (the context time being heard at `epochMs`), so a tapped frame
   * f is heard at clock.epochMs + ((startFrame + f) / sampleRate - clock.contextTime) × 1000.
   */
  readTap(): { samples: Float32Array; sampleRate: number; startFrame: number; clock: { contextTime: number; epochMs: number } | null } | null {
    if (!this.tap) return null;
    const frames = Math.max(0, Atomics.load(this.views.header, RING.tapFrames));
    const stamp = this.context?.getOutputTimestamp();
    const clock = stamp?.contextTime !== undefined && stamp.performanceTime !== undefined
      ? { contextTime: stamp.contextTime, epochMs: performance.timeOrigin + stamp.performanceTime }
      : null;
    return {
      samples: new Float32Array(this.tap, 0, frames * 2).slice(),
      sampleRate: this.context?.sampleRate ?? 0,
      startFrame: Atomics.load(this.views.header, RING.tapStartFrame),
      clock,
    };
  }

  /** The queue's counters as they are (HUD, tests). */
  counters(): Record<keyof typeof RING, number> {
    const header = this.views.header;
    return Object.fromEntries(Object.entries(RING).map(([name, word]) => [name, Atomics.load(header, word)])) as Record<keyof typeof RING, number>;
  }

  private updateLatency(): void {
    const context = this.context;
    if (!context) return;
    // outputLatency is what the device adds after the graph; Chromium reports it, others may not
    const seconds = context.baseLatency + (Number.isFinite(context.outputLatency) ? context.outputLatency : 0);
    Atomics.store(this.views.header, RING.outputLatencyUs, Math.round(seconds * 1e6));
  }

  private watch(deadlinePassed = false): void {
    const context = this.context;
    if (!context) return;
    if (context.state === 'closed') this.setState('unavailable', 'the sound output was closed');
    else if (context.state !== 'running') {
      if (deadlinePassed || this.state === 'running') this.setState('blocked', 'the browser has not allowed sound to play on this page');
    } else if (this.connected) {
      // running, and the worklet in place to play the queue
      this.setState('running', 'sound plays');
    }
  }

  private setState(state: SoundOutputState, detail: string): void {
    if (state === this.state) return;
    this.state = state;
    Atomics.store(this.views.header, RING.running, state === 'running' ? 1 : 0);
    this.onstate(state, detail);
  }
}
