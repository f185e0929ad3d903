// The native FreeRDP client (xfreerdp3, Debian's libfreerdp3) full screen on a
// lab display of its own: what FreeRDP itself decodes from a server, as a
// screenshot. Lossy paths are judged against it (the kiosk must show what a
// native client shows) as well as against the reference image.
import type { Lab, LabDisplay, RdpEndpoint, RgbImage } from '@lanterna/lab';

export interface NativeViewer {
  readonly display: LabDisplay;
  screenshot(): Promise<RgbImage>;
  stop(): Promise<void>;
}

/** `args`: codec switches, e.g. ['/gfx:progressive:on,RFX:off,AVC420:off,AVC444:off'] or ['-gfx', '/rfx']. */
export async function startNativeViewer(lab: Lab, server: RdpEndpoint, args: readonly string[], width = 1920, height = 1080): Promise<NativeViewer> {
  const display = await lab.display({ width, height });
  const child = await lab.start({
    component: 'xfreerdp3 viewer',
    command: 'xfreerdp3',
    args: [
      `/v:${server.host}:${server.port}`, `/u:${server.username}`, `/p:${server.password}`,
      '/cert:ignore', `/size:${width}x${height}`, '/f', '/bpp:32', '-decorations', '/log-level:ERROR',
      ...args,
    ],
    env: { DISPLAY: display.name },
  });
  return {
    display,
    screenshot: () => display.screenshot(),
    stop: () => child.stop(),
  };
}
