// The kiosk launcher (kiosk/) watches this page through a binding it adds to
// the window. The page's own code calls it every few seconds, so a page whose
// script failed to start, or whose main thread hangs, stops beating, and the
// launcher reloads it. In a browser without the launcher nothing happens.
// The launcher's side of this contract: kiosk/src/displayPageContract.ts.

/** The binding's name on window. */
export const KIOSK_HEARTBEAT_BINDING = 'lanternaKioskHeartbeat';
/** How often the page beats; the launcher's timeout is a multiple of it. */
export const KIOSK_HEARTBEAT_MS = 2000;

export interface KioskHeartbeat {
  /** The control socket's state: 'starting', 'connecting', 'online', 'waiting', 'stopped' or 'no-token'. */
  readonly control: string;
  /** Whether a presentation is on screen (or starting). */
  readonly presenting: boolean;
}

type Binding = (beat: KioskHeartbeat) => unknown;

export function startKioskHeartbeat(status: () => KioskHeartbeat): void {
  const beat = (): void => {
    const binding = (globalThis as unknown as Record<string, unknown>)[KIOSK_HEARTBEAT_BINDING];
    if (typeof binding === 'function') void Promise.resolve((binding as Binding)(status())).catch(() => undefined);
  };
  beat();
  setInterval(beat, KIOSK_HEARTBEAT_MS);
}
