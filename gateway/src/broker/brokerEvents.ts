// What the broker tells every worker: a display's control socket and a
// session's data socket may live in any of them. The gateway bus
// (../cluster/gatewayBus.ts) carries these; the channel adapters act on them.

import type { DesktopPreference, ProjectMessage } from '@lanterna/protocol';

export type BrokerEvent =
  /** Send this `project` message to the display, wherever its control socket is. */
  | { kind: 'project'; displayId: string; message: ProjectMessage }
  /** End this session's relay and tell its display why. */
  | { kind: 'stop-session'; displayId: string; sessionId: string; reason: string }
  /** A control socket took over the display: any other socket of it is replaced. */
  | { kind: 'display-claimed'; displayId: string; owner: string }
  /** The session is over; the worker holding the display's control socket may project it again. */
  | { kind: 'session-ended'; displayId: string; sessionId: string }
  /** The display was deleted or its token rotated: its control socket is closed (a new token must be used). */
  | { kind: 'display-revoked'; displayId: string }
  /** The display's room PIN changed: the worker holding its control socket reads it from the store and sends `room`. */
  | { kind: 'room-changed'; displayId: string }
  /** A source joined or left one of the display's slots, or its layout changed: the worker holding its control socket sends `layout`. */
  | { kind: 'slots-changed'; displayId: string }
  /** An admin renamed or moved the display: the worker holding its control socket tells the page (`display`). */
  | { kind: 'display-changed'; displayId: string; name: string; location: string | undefined; desktop?: DesktopPreference | undefined }
  /**
   * The presenter allowed or revoked control of their computer from the
   * display (issue 30): the relay engine holding the session's data socket
   * lets the display's input through or drops it, at once.
   */
  | { kind: 'touch-changed'; displayId: string; sessionId: string; allowed: boolean }
  /**
   * A finger on a browser presenter's picture at the display (issue 30), as
   * fractions of the picture: every worker's laser feed keeps it for the
   * presenter's page (api/laserFeed.ts).
   */
  | { kind: 'laser'; displayId: string; sessionId: string; x: number; y: number; down: boolean }
  /** An admin changed the display's volume or mute: the worker holding its control socket tells the page (`sound`). */
  | { kind: 'sound-changed'; displayId: string; volume: number; muted: boolean };

export type PublishEvent = (event: BrokerEvent) => void;
