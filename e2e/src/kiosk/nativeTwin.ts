// The wasm client's native twin (wasm/bench/native: the same glue and FreeRDP
// source, built with gcc, H.264 decoded by FreeRDP's own FFmpeg backend): the
// picture native FreeRDP draws from a recording, which the page must match.
// Built on first use and cached by wasm/bench's scripts (minutes when cold).
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { RgbImage } from '@lanterna/lab';

const run = promisify(execFile);
const wasmDir = fileURLToPath(new URL('../../../wasm/', import.meta.url));
const cacheDir = join(process.env.LANTERNA_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? tmpdir(), '.cache'), 'lanterna'), 'wasm');
const BUILD_TIMEOUT_MS = 20 * 60_000;

let binary: Promise<string> | null = null;

/** The twin's binary, built (or found in the cache) once per process. */
export function nativeTwin(): Promise<string> {
  binary ??= (async () => {
    const prefix = (await run('bash', [join(wasmDir, 'bench/native-freerdp.sh')], { timeout: BUILD_TIMEOUT_MS, maxBuffer: 1 << 24 })).stdout.trim();
    return (await run('bash', [join(wasmDir, 'bench/native/build.sh'), prefix, join(cacheDir, 'bench')], { timeout: BUILD_TIMEOUT_MS, maxBuffer: 1 << 24 })).stdout.trim();
  })();
  return binary;
}

export interface TwinReplay {
  readonly picture: RgbImage;
  readonly frames: number;
  readonly end: string;
}

/**
 * Replays a recording (a FreeRDP /dump file) into the twin and returns its
 * final picture. The twin is the measuring stick, not what is measured: a
 * twin killed by a signal (a SIGSEGV inside native FreeRDP's H.264 path,
 * once in a clean-clone suite) is run once more on the same recording,
 * which is kept for the crash to be reproduced; a second crash fails.
 */
export async function nativeReplay(recording: string): Promise<TwinReplay> {
  try {
    return await replayOnce(recording);
  } catch (error) {
    const { signal, killed } = error as { signal?: unknown; killed?: boolean };
    // killed: our own timeout, not a crash
    if (typeof signal !== 'string' || killed === true) throw error;
    const kept = join(await mkdtemp(join(tmpdir(), 'lanterna-twin-crash-')), 'recording.dump');
    await copyFile(recording, kept);
    console.log(`# the native twin died of ${signal} replaying ${recording} (kept at ${kept}); run once more`);
    return await replayOnce(recording);
  }
}

async function replayOnce(recording: string): Promise<TwinReplay> {
  const twin = await nativeTwin();
  const dir = await mkdtemp(join(tmpdir(), 'lt-twin-'));
  try {
    const file = join(dir, 'final.ppm');
    const { stdout } = await run(twin, [recording, '--picture', file], { timeout: 120_000 });
    const result = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as { frames: number; end: string };
    return { picture: readPpm(await readFile(file)), frames: result.frames, end: result.end };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A binary PPM (P6, 8 bit) as RGBA. */
function readPpm(bytes: Buffer): RgbImage {
  const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(bytes.subarray(0, 64).toString('latin1'));
  if (!header) throw new Error('the twin wrote no binary ppm');
  const width = Number(header[1]);
  const height = Number(header[2]);
  const rgb = bytes.subarray(header[0].length);
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    data[i * 4] = rgb[i * 3] ?? 0;
    data[i * 4 + 1] = rgb[i * 3 + 1] ?? 0;
    data[i * 4 + 2] = rgb[i * 3 + 2] ?? 0;
    data[i * 4 + 3] = 255;
  }
  return { width, height, data };
}
