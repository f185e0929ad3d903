// What the launcher and the display page (web/src/pages/display) agree on.
// The page's side: kioskHeartbeat.ts (the binding, every 2 s) and
// displayLocation.ts (where it keeps its token). The kiosk does not import the
// page's package (a browser bundle); kioskOnDisplay.test.ts proves the two
// sides agree against the built page (heartbeats arrive, the token is found).

/** The function the launcher adds to the page's window; the page calls it with a KioskHeartbeat. */
export const KIOSK_HEARTBEAT_BINDING = 'lanternaKioskHeartbeat';

export interface KioskHeartbeat {
  /** The control socket's state: 'starting', 'connecting', 'online', 'waiting', 'stopped' or 'no-token'. */
  readonly control: string;
  /** Whether a presentation is on screen (or starting). */
  readonly presenting: boolean;
}

/** The localStorage key the display page reads its token from. */
export function tokenStorageKey(displayId: string): string {
  return `lanterna.display.${displayId}.token`;
}
