// What the kiosk launcher (kiosk/) and the display page (web/src/pages/display)
// agree on, written once: the heartbeat binding the launcher adds to the
// page's window and the page calls every KIOSK_HEARTBEAT_MS, and where the
// page keeps its display token (the launcher writes it there before the page
// loads). kiosk/src/kioskOnDisplay.test.ts proves the two sides against the
// built page (heartbeats arrive, the token is found).

/** The function the launcher adds to the page's window; the page calls it with a KioskHeartbeat. */
export const KIOSK_HEARTBEAT_BINDING = 'lanternaKioskHeartbeat';
/** How often the page beats; the launcher's timeout is a multiple of it. */
export const KIOSK_HEARTBEAT_MS = 2000;

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
