// The Chromium command line of a kiosk: full screen with no browser UI
// (--kiosk --app), no first-run or crash-restore bubbles, no background
// traffic, and WebGL2 on the GPU or on SwiftShader when there is none.
import { readdirSync } from 'node:fs';

export interface ChromiumFlagOptions {
  /** The first page the window shows (the launcher's waiting page). */
  readonly appUrl: string;
  readonly webgl: 'gpu' | 'swiftshader';
  /** SPKI pins whose certificates Chromium accepts although no CA signed them. */
  readonly spkiPins: readonly string[];
  /** Root cannot run Chromium's sandbox; anyone else keeps it. */
  readonly runningAsRoot: boolean;
  readonly extra: readonly string[];
}

/**
 * Chromium without background traffic, first-run or default-browser prompts
 * (NOTES.md's base flags): the kiosk's, and the test kit's Chromium for page
 * tests (subpath export `@lanterna/kiosk/chromiumFlags`), so tests run the
 * browser as displays do.
 */
export const quietChromiumFlags: readonly string[] = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--no-default-browser-check',
];

export const baseKioskFlags: readonly string[] = [
  ...quietChromiumFlags,
  '--noerrdialogs',
  '--disable-infobars',
  '--disable-session-crashed-bubble',
  // a touch screen cannot be zoomed or swiped back away from the display page
  '--disable-pinch',
  '--overscroll-history-navigation=0',
  // a projector plays the presenter's sound with nobody there to click: the display
  // page's AudioContext must start on its own (it shows a muted icon when refused)
  '--autoplay-policy=no-user-gesture-required',
];

export function chromiumFlags(options: ChromiumFlagOptions): string[] {
  const flags = [...(options.runningAsRoot ? ['--no-sandbox'] : []), ...baseKioskFlags];
  if (options.webgl === 'swiftshader') {
    // both: --use-angle alone no longer enables SwiftShader for WebGL (NOTES.md); never --use-gl=swiftshader (kills WebGL)
    flags.push('--use-angle=swiftshader', '--enable-unsafe-swiftshader');
  } else {
    // small boards' GPUs (VideoCore on a Raspberry Pi) are often on Chromium's blocklist, which would turn WebGL2 off
    flags.push('--ignore-gpu-blocklist');
  }
  if (options.spkiPins.length > 0) flags.push(`--ignore-certificate-errors-spki-list=${options.spkiPins.join(',')}`);
  flags.push('--kiosk', `--app=${options.appUrl}`);
  return [...flags, ...options.extra];
}

/** 'auto' means the GPU when the kernel offers a DRM render node, SwiftShader otherwise. */
export function resolveWebgl(mode: 'auto' | 'gpu' | 'swiftshader', driDir = '/dev/dri'): 'gpu' | 'swiftshader' {
  if (mode !== 'auto') return mode;
  try {
    return readdirSync(driDir).some((name) => name.startsWith('renderD')) ? 'gpu' : 'swiftshader';
  } catch {
    return 'swiftshader';
  }
}
