// The display page's sound: the output (../../audio/audioOutput.ts), the
// muted icon in the corner — shown whenever the display is silent for a
// reason a viewer cannot see (the browser refused sound, this page cannot play
// it, an administrator muted it), never silence without a word — the
// administrator's volume and mute from the control socket, and the test hook.
// ?audiotap=SECONDS keeps a copy of what the worklet rendered (tests compare
// samples; nothing is copied without it); ?sound=0: a display without speakers
// joins no audio channel and shows no icon.
import { AudioOutput, type SoundLevel, type SoundOutputState, type SoundReport } from '../../audio/audioOutput.js';

/** The instrumentation tests reach through page.evaluate. */
export interface DisplaySoundHook {
  state(): SoundOutputState;
  level(): SoundLevel;
  armTap(): boolean;
  /** Stereo interleaved float32, little-endian, as base64 (megabytes cross page.evaluate faster this way than as a list of numbers). */
  readTap(): { base64: string; sampleRate: number; startFrame: number; clock: { contextTime: number; epochMs: number } | null } | null;
  counters(): Record<string, number>;
}

const WORDS: Record<Exclude<SoundOutputState, 'running'>, string> = {
  starting: 'Sound is starting',
  blocked: 'Sound is blocked by the browser — touch the screen or press a key to allow it',
  unavailable: 'No sound: this browser cannot play it here',
};

function float32Base64(samples: Float32Array): string {
  const bytes = new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

export class DisplaySound {
  /** null when the page cannot play sound (no shared memory, no AudioWorklet): sessions join no audio channel. */
  readonly output: AudioOutput | null;
  private readonly icon: HTMLElement;
  private readonly text: HTMLElement;
  /** ?sound=0: this display plays no sound, on purpose. */
  private readonly off: boolean;

  constructor(search: string) {
    this.icon = document.getElementById('sound-muted') ?? document.createElement('p');
    this.text = document.getElementById('sound-muted-text') ?? this.icon;
    const query = new URLSearchParams(search);
    const tapSeconds = Number(query.get('audiotap') ?? '0');
    this.off = query.get('sound') === '0';
    this.output = AudioOutput.supported() && !this.off
      ? new AudioOutput(new URL('./audio.worklet.js', import.meta.url), () => this.show(), { tapSeconds: Number.isFinite(tapSeconds) ? tapSeconds : 0 })
      : null;
    this.show();
    if (this.output) void this.output.start();
    const output = this.output;
    const hook: DisplaySoundHook = {
      state: () => output?.currentState ?? 'unavailable',
      level: () => output?.currentLevel ?? { volume: 100, muted: false },
      armTap: () => output?.armTap() ?? false,
      readTap: () => {
        const tap = output?.readTap();
        return tap ? { base64: float32Base64(tap.samples), sampleRate: tap.sampleRate, startFrame: tap.startFrame, clock: tap.clock } : null;
      },
      counters: () => output?.counters() ?? {},
    };
    (window as unknown as { lanternaSound: DisplaySoundHook }).lanternaSound = hook;
  }

  /** The control socket's `sound`: applied at once. */
  setLevel(level: SoundLevel): void {
    this.output?.setLevel(level);
    this.show();
  }

  /** For the display's figures: whether sound reached the output since the last report. */
  report(): SoundReport | null {
    return this.output?.report() ?? null;
  }

  private show(): void {
    const state = this.output?.currentState ?? 'unavailable';
    const muted = this.output?.currentLevel.muted ?? false;
    let words: string | null = null;
    if (state !== 'running') words = WORDS[state];
    else if (muted) words = 'Sound muted by the administrator';
    // 'starting' lasts a moment at load: no icon for it
    const visible = words !== null && state !== 'starting' && !this.off;
    this.icon.hidden = !visible;
    this.icon.dataset.state = muted && state === 'running' ? 'muted' : state;
    this.text.textContent = words ?? '';
    this.icon.setAttribute('aria-label', words ?? 'sound on');
  }
}
