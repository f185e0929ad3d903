import { execFile } from 'node:child_process';
import type { RgbImage } from '../image/rgbImage.js';

const CONVERT_TIMEOUT_MS = 30_000;

function convert(args: readonly string[], input?: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile('convert', args, { encoding: 'buffer', maxBuffer: 512 * 1024 * 1024, timeout: CONVERT_TIMEOUT_MS }, (error, stdout, stderr) => {
      if (error === null) resolve(stdout);
      else reject(new Error(`convert ${args.join(' ')} failed: ${stderr.toString('utf8').trim() || error.message}`));
    });
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
  });
}

/**
 * Reads a PNG with ImageMagick into an RgbImage (8-bit, alpha forced to 255:
 * RgbImage pixels are opaque, and a compositor's capture may leave alpha unset).
 */
export async function readPng(path: string): Promise<RgbImage> {
  const size = (await convert([`png:${path}`, '-format', '%w %h', 'info:'])).toString('ascii').trim().split(' ').map(Number);
  const [width, height] = size;
  if (width === undefined || height === undefined || !(width > 0) || !(height > 0)) throw new Error(`cannot read the size of ${path}`);
  const data = await convert([`png:${path}`, '-depth', '8', 'rgba:-']);
  if (data.length !== width * height * 4) throw new Error(`${path}: ${data.length} bytes of pixels for ${width}x${height}`);
  for (let at = 3; at < data.length; at += 4) data[at] = 255;
  return { width, height, data };
}

/** Writes any image ImageMagick reads (`ppm:…`, `mvg:…`) as an 8-bit RGB PNG, the kind every PNG loader takes exactly. */
export async function writeRgbPng(source: string, path: string): Promise<void> {
  await convert([source, '-depth', '8', '-alpha', 'off', `PNG24:${path}`]);
}
