// The kiosk launcher (kiosk/) watches this page through a binding it adds to
// the window. The page's own code calls it every few seconds, so a page whose
// script failed to start, or whose main thread hangs, stops beating, and the
// launcher reloads it. In a browser without the launcher nothing happens.
// The contract itself is @lanterna/protocol's displayPageContract.ts.

import { KIOSK_HEARTBEAT_BINDING, KIOSK_HEARTBEAT_MS, type KioskHeartbeat } from '@lanterna/protocol';

export type { KioskHeartbeat };

type Binding = (beat: KioskHeartbeat) => unknown;

export function startKioskHeartbeat(status: () => KioskHeartbeat): void {
  const beat = (): void => {
    const binding = (globalThis as unknown as Record<string, unknown>)[KIOSK_HEARTBEAT_BINDING];
    if (typeof binding === 'function') void Promise.resolve((binding as Binding)(status())).catch(() => undefined);
  };
  beat();
  setInterval(beat, KIOSK_HEARTBEAT_MS);
}
