import { execFile } from 'node:child_process';
import { decodeXwd } from '../image/xwdDecoder.js';
import type { RgbImage } from '../image/rgbImage.js';

/** Captures the root window of an X display with `xwd` and decodes it to RGBA (exact pixels, no cursor). */
export function captureScreen(display: string, env: Record<string, string> = {}, timeoutMs = 15_000): Promise<RgbImage> {
  return new Promise((resolve, reject) => {
    execFile(
      'xwd',
      ['-root', '-silent', '-display', display],
      { encoding: 'buffer', maxBuffer: 512 * 1024 * 1024, timeout: timeoutMs, env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        if (error !== null) {
          reject(new Error(`xwd on ${display} failed: ${error.message} ${stderr.toString('utf8').trim()}`));
          return;
        }
        try {
          resolve(decodeXwd(stdout));
        } catch (decodeError) {
          reject(decodeError instanceof Error ? decodeError : new Error(String(decodeError)));
        }
      },
    );
  });
}
