// The display side of the demo when a screen exists: Chromium in kiosk mode on
// the display page. This is the one place the kiosk launcher (kiosk/, a later
// issue: watchdog, restarts) takes over; the demo needs only "open this URL
// full screen and let me stop it".
import { spawn, type ChildProcess } from 'node:child_process';
import { KIOSK_CHROMIUM_FLAGS } from '@lanterna/lab';

export interface KioskWindow {
  readonly stop: () => void;
}

/** Opens url full screen in Chromium with a fresh profile in profileDir. */
export function openKioskWindow(url: string, profileDir: string): KioskWindow {
  const chromium: ChildProcess = spawn('/usr/bin/chromium', [
    ...KIOSK_CHROMIUM_FLAGS, '--kiosk', '--ignore-certificate-errors', `--user-data-dir=${profileDir}`, `--app=${url}`,
  ], { stdio: 'ignore' });
  return { stop: () => chromium.kill('SIGTERM') };
}
