// The physical output the kiosk's X display drives, as xrandr reports it
// (its name and mode): what the display page cannot see from inside the
// browser (window size × devicePixelRatio is the page's view; a panel whose
// mode the window manager or a scaling setting hides shows here). Read once
// per page load and handed to the page in its address (`?output=NAME:WxH`),
// which reports it with its panel (docs/kiosk-protocol.md, "The panel and the desktop").
import { execFile } from 'node:child_process';

export interface XOutput {
  readonly name: string;
  readonly width: number;
  readonly height: number;
}

/** xrandr's answer is a few lines per output; a bigger one is not xrandr's. */
const MAX_XRANDR_BYTES = 256 * 1024;
const XRANDR_TIMEOUT_MS = 3000;

/**
 * The primary connected output with a mode, else the first connected one
 * with a mode (Xvfb's single "screen"); null when xrandr lists none.
 */
export function parseXrandr(text: string): XOutput | null {
  const outputs: (XOutput & { primary: boolean })[] = [];
  for (const line of text.split('\n')) {
    const match = /^(\S{1,64}) connected( primary)? (\d{1,5})x(\d{1,5})\+\d+\+\d+/.exec(line);
    if (!match) continue;
    const [, name = '', primary, width = '0', height = '0'] = match;
    const size = { width: Number(width), height: Number(height) };
    if (size.width < 1 || size.height < 1 || size.width > 65_535 || size.height > 65_535) continue;
    outputs.push({ name, ...size, primary: primary !== undefined });
  }
  const chosen = outputs.find((output) => output.primary) ?? outputs[0];
  return chosen ? { name: chosen.name, width: chosen.width, height: chosen.height } : null;
}

/** Runs `xrandr --current` on the X display in `env` (DISPLAY); null when it fails, times out or lists nothing. */
export function readXOutput(env: NodeJS.ProcessEnv): Promise<XOutput | null> {
  return new Promise((resolve) => {
    execFile('xrandr', ['--current'], { env, timeout: XRANDR_TIMEOUT_MS, maxBuffer: MAX_XRANDR_BYTES, encoding: 'utf8' }, (error, stdout) => {
      resolve(error ? null : parseXrandr(stdout));
    });
  });
}

/** The page's address with the output in its query (the token stays out of it). */
export function withOutput(url: URL, output: XOutput | null): URL {
  const next = new URL(url);
  if (output) next.searchParams.set('output', `${output.name}:${output.width}x${output.height}`);
  return next;
}
