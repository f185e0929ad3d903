import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readPng } from '../display/pngFile.js';
import { compareImages, type RgbImage } from '../image/rgbImage.js';
import { runOnce, startChild, type SupervisedChild } from '../process/childSupervisor.js';
import { customProbe } from '../process/readiness.js';
import { writeScenePng, type StillSceneName } from '../scenes/scenePicture.js';
import { generatePassword } from './credentials.js';
import { startOnFreePort } from './portClashRetry.js';
import type { RdpEndpoint } from './rdpEndpoint.js';
import { startRdpServerChild } from './rdpServerChild.js';
import { makeSelfSignedCertificate } from './selfSignedCertificate.js';
import type { ServerContext } from './shadowServer.js';

export interface WestonOptions {
  /** The picture shown full-screen: the reference picture (default) or the slide. */
  picture?: StillSceneName;
  /** Output size; the picture is drawn for it and clients get it whatever they ask. Default 1920×1080. */
  width?: number;
  height?: number;
  /**
   * Let clients size the output (Weston's default; the lab's is `--no-resizeable`):
   * the output takes the client's desktop size at activation. Its RDP backend's
   * debug scope is logged too, where it prints each client monitor's
   * `desktopScaleFactor` and `deviceScaleFactor`.
   */
  resizeable?: boolean;
  /** Extra weston arguments (tests use a bad one to see a start failure). */
  extraArgs?: readonly string[];
  readyTimeoutMs?: number;
}

export interface WestonServer extends RdpEndpoint {
  readonly weston: SupervisedChild;
  /** weston-image, showing the picture. */
  readonly viewer: SupervisedChild;
  /** What the output shows, exactly (read back from the PNG weston-image was given). */
  readonly picture: RgbImage;
  /** Weston's own capture of its output (weston-screenshooter), exact. */
  screenshot(): Promise<RgbImage>;
  stop(): Promise<void>;
}

const SOCKET_NAME = 'lanterna-weston';
const SCREENSHOT_TIMEOUT_MS = 15_000;

/**
 * Weston 14's RDP backend on 127.0.0.1 and a free port: TLS only (no NLA),
 * any user name and password, RemoteFX surface bits for clients that take
 * them (no GFX), raw bitmaps otherwise. It requires the clipboard channel:
 * it opens its cliprdr end at activation and ends the session when the client
 * did not join one.
 *
 * kiosk-shell, not desktop-shell: desktop-shell places windows at random,
 * draws decorations and a panel clock; kiosk-shell makes weston-image
 * full-screen, so a picture of the output's size is shown 1:1 (checked pixel
 * for pixel before start returns). `--debug` is what lets
 * weston-screenshooter capture; `--no-resizeable` keeps the output at the
 * picture's size whatever size a client asks for; idle time 0, so it never
 * blanks.
 */
export async function startWeston(options: WestonOptions, context: ServerContext): Promise<WestonServer> {
  const width = options.width ?? 1920;
  const height = options.height ?? 1080;
  const pictureName = options.picture ?? 'reference';
  // Weston refuses a runtime dir others can read
  const runtimeDir = join(context.dir, 'run');
  mkdirSync(runtimeDir, { mode: 0o700 });
  const certPath = join(context.dir, 'tls.crt');
  const keyPath = join(context.dir, 'tls.key');
  await makeSelfSignedCertificate(certPath, keyPath, 'lanterna-lab-weston');
  const picturePath = await writeScenePng(pictureName, width, height, context.dir);
  const picture = await readPng(picturePath);
  const env: Record<string, string | undefined> = {
    ...context.env,
    XDG_RUNTIME_DIR: runtimeDir,
    WAYLAND_DISPLAY: undefined,
    WAYLAND_SOCKET: undefined,
    DISPLAY: undefined,
  };
  // the clipboard channel is what this server is picky about: its log says what each side sent
  const serverEnv = { ...env, WLOG_FILTER: 'com.freerdp.channels.cliprdr.server:DEBUG' };
  const clientEnv = { ...env, WAYLAND_DISPLAY: SOCKET_NAME };

  const screenshot = async (): Promise<RgbImage> => {
    const dir = mkdtempSync(join(context.dir, 'screenshot-'));
    try {
      // it writes wayland-screenshot-<time>.png into its working directory, one per run
      await runOnce({ component: 'weston-screenshooter', command: 'weston-screenshooter', env: clientEnv, cwd: dir, logPath: context.logPathFor('weston-screenshooter'), timeoutMs: SCREENSHOT_TIMEOUT_MS });
      const files = readdirSync(dir).filter((name) => name.endsWith('.png'));
      if (files.length !== 1 || files[0] === undefined) throw new Error(`weston-screenshooter wrote ${files.length} pictures, expected one`);
      return await readPng(join(dir, files[0]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  const component = `weston (rdp, ${width}x${height})`;
  const start = async (port: number): Promise<WestonServer> => {
    const logPath = context.logPathFor(component);
    const { child: weston, certificateDer } = await startRdpServerChild({
      component,
      // FreeRDP logs below warnings to stdout, which is block-buffered into a file:
      // line-buffered, its lines are in the log when they happen
      command: 'stdbuf',
      args: [
        '-oL', 'weston', '--backend=rdp', '--renderer=pixman', '--shell=kiosk', '--no-config', '--debug', '--idle-time=0',
        `--socket=${SOCKET_NAME}`, '--address=127.0.0.1', `--port=${port}`, `--width=${width}`, `--height=${height}`,
        ...(options.resizeable === true ? ['--logger-scopes=log,rdp-backend'] : ['--no-resizeable']), `--rdp-tls-cert=${certPath}`, `--rdp-tls-key=${keyPath}`, ...(options.extraArgs ?? []),
      ],
      env: serverEnv,
      logPath,
      readyTimeoutMs: options.readyTimeoutMs ?? 20_000,
    }, port);
    let viewer: SupervisedChild;
    try {
      viewer = await startChild({
        component: `weston-image (${pictureName})`,
        command: 'weston-image',
        args: [picturePath],
        env: clientEnv,
        logPath: context.logPathFor('weston-image'),
        ready: customProbe(`weston's output shows the ${pictureName} picture pixel for pixel`, async () => compareImages(picture, await screenshot()) === undefined),
        readyTimeoutMs: options.readyTimeoutMs ?? 20_000,
      });
    } catch (error) {
      await weston.stop();
      throw error;
    }
    return {
      host: '127.0.0.1' as const,
      port,
      username: 'viewer',
      password: generatePassword(), // Weston takes any
      certificateDer,
      logPath,
      weston,
      viewer,
      picture,
      screenshot,
      stop: async () => {
        await viewer.stop();
        await weston.stop();
      },
    };
  };
  return startOnFreePort(start);
}
