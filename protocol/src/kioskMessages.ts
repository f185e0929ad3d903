// The JSON messages of docs/kiosk-protocol.md (version 1), both directions of
// both sockets, as schemas: the gateway and the display read them the same
// way, and the gateway builds them with the types inferred here. Unknown
// fields are ignored (dropped); an unknown `type` is a protocol error.
import * as z from 'zod/mini';
import { desktopPreferenceSchema, panelSchema } from './panelSize.js';
import { projectSettingsSchema } from './sessionSettings.js';
import { MAX_ROOM_SLOTS, ROOM_LAYOUTS, ROOM_MODES } from './roomLayout.js';
import { closeCodeFor } from './sessionErrors.js';

export const KIOSK_PROTOCOL_VERSION = 1;
export const KIOSK_SUBPROTOCOL = 'lanterna.v1';
/** The largest JSON frame either side sends or accepts. */
export const MAX_JSON_FRAME_BYTES = 16 * 1024;
/**
 * Optional messages a display may announce in `hello.features`: a gateway
 * sends a newer message type only to displays that said they read it
 * (docs/kiosk-protocol.md "Versioning").
 */
export const KIOSK_FEATURES = {
  /** The `room` message: the room PIN and the presenter page's address for the idle screen. */
  room: 'room',
  /** `project.signage`: the session is the display's own signage, not a presenter's (the page keeps the PIN in view over it). */
  signage: 'signage',
  /** The `display` message: the display's name or location changed while it was connected. */
  display: 'display',
  /**
   * Several sources at once (issue 29): the display reads the `layout`
   * message and `project.slot`, and keeps one session per slot. A display
   * that did not announce it has one slot, and is sent neither.
   */
  slots: 'slots',
  /** The `sound` message: the display's volume and mute (on welcome and when an admin changes them). */
  sound: 'sound',
} as const;

/**
 * Optional messages a gateway reads from displays, announced in
 * `welcome.features`: a display sends a newer message only to gateways that
 * said they read it (an older gateway closes the socket on an unknown type).
 */
export const GATEWAY_FEATURES = {
  /** The `figures` message: what the display showed of its session over the last interval. */
  figures: 'figures',
  /** The `panel` message: the display's panel size (panelSize.ts). */
  panel: 'panel',
  /** Not a message: this gateway keeps the ink the display saves (inkPictures.ts); absent, the page offers no Save. */
  inkSave: 'ink-save',
  /** The `laser` message: where a finger is on a browser presenter's picture, relayed to their page (issue 30). */
  laser: 'laser',
} as const;

/** A display reports its figures about once a second; the gateway drops reports that follow the last one sooner than this. */
export const FIGURES_MIN_INTERVAL_MS = 500;
/** The longest interval one report may cover (a report after a pause still reads as a rate). */
export const FIGURES_MAX_INTERVAL_MS = 10_000;

/** The gateway's `error` message (control, data and presenter sockets alike). */
export const errorMessage = z.object({
  type: z.literal('error'),
  /** One of SESSION_PHASES; any string is read, so a newer gateway's phase is not an error. */
  phase: z.string(),
  /** One of SESSION_ERROR_CODES; read likewise (sentenceForCode words unknown ones). */
  code: z.string(),
  message: z._default(z.string(), ''),
  detail: z.optional(z.record(z.string(), z.unknown())),
});

// Control socket, kiosk → gateway.
const hello = z.object({
  type: z.literal('hello'),
  protocol: z.int(),
  token: z.string(),
  client: z.optional(z.string()),
  /** Optional messages the display understands (KIOSK_FEATURES); the gateway sends only those. */
  features: z.optional(z.array(z.string()).check(z.maxLength(16))),
});
const bye = z.object({ type: z.literal('bye') });
/** Whole non-negative counts, bounded so one report cannot carry an absurd figure. */
const count = (maximum: number) => z.int().check(z.minimum(0), z.maximum(maximum));
/**
 * What the display did with its session over the last `intervalMs`: pictures
 * it presented (draws that reached the screen), how many of them carried new
 * pixels (`frames`), binary messages and bytes the
 * data socket brought. Sent at most once per FIGURES_MIN_INTERVAL_MS, only
 * while a session runs, only to gateways whose welcome named `figures`.
 */
const figures = z.object({
  type: z.literal('figures'),
  sessionId: z.string().check(z.minLength(1), z.maxLength(128)),
  intervalMs: z.int().check(z.minimum(1), z.maximum(FIGURES_MAX_INTERVAL_MS)),
  presents: count(10_000),
  /**
   * Of those presents, the ones that brought new pixels from the session (a
   * present for a pointer move or a resized window alone does not count):
   * the pictures a viewer saw change. Absent from displays older than it.
   */
  frames: z.optional(count(10_000)),
  messages: count(10_000_000),
  bytes: count(2 ** 40),
  /**
   * The display's sound over the interval, from displays that play it:
   * whether any reached the output, the output's state (`running`, or why it
   * is silent: `blocked` by the browser's autoplay policy, `unavailable`),
   * and the ms its queue and output add now.
   */
  sound: z.optional(z.object({
    playing: z.boolean(),
    state: z.enum(['starting', 'running', 'blocked', 'unavailable']),
    delayMs: z.number().check(z.minimum(0), z.maximum(60_000)),
  })),
});

/**
 * The display's panel (panelSize.ts): on welcome and whenever it changes
 * (a window resize, a rotation), at most about once a second, only to gateways
 * whose welcome named `panel`.
 */
const panel = z.object({ type: z.literal('panel'), panel: panelSchema });

/** The gateway relays at most one `laser` per display this often; faster ones are dropped. */
export const LASER_MIN_INTERVAL_MS = 16;
/**
 * A finger on a browser presenter's picture (issue 30: a browser cannot move
 * its computer's pointer, so the display's touch is a laser pointer drawn at
 * both sides): where it is as fractions of the picture (0..1), and whether it
 * still touches (`down: false` once it lifted). Only to gateways whose
 * welcome named `laser`; the gateway relays it to the presenter's page.
 */
const laser = z.object({
  type: z.literal('laser'),
  sessionId: z.string().check(z.minLength(1), z.maxLength(128)),
  x: z.number().check(z.minimum(0), z.maximum(1)),
  y: z.number().check(z.minimum(0), z.maximum(1)),
  down: z.boolean(),
});

// Control socket, gateway → kiosk.
/** `desktop`: what an admin fixed of this display's desktop (size, scale); absent: from the panel. */
const displayInfo = z.object({ id: z.string(), name: z.string(), location: z.optional(z.string()), desktop: z.optional(desktopPreferenceSchema) });
const welcome = z.object({
  type: z.literal('welcome'),
  protocol: z.int(),
  display: displayInfo,
  heartbeatMs: z._default(z.number().check(z.positive()), 15_000),
  /** Optional messages the gateway reads from the display (GATEWAY_FEATURES); the display sends only those. */
  features: z.optional(z.array(z.string()).check(z.maxLength(16))),
});
const target = z.object({ name: z.string(), host: z.string(), port: z.int().check(z.minimum(1), z.maximum(65_535)) });
const credentials = z.object({ username: z.string(), password: z.string(), domain: z.optional(z.string()) });
const project = z.object({
  type: z.literal('project'),
  sessionId: z.string(),
  sessionToken: z.string(),
  target,
  credentials: z.optional(credentials),
  settings: z.optional(projectSettingsSchema),
  /**
   * True when the session is the display's own signage (its configured
   * autoProject target), which gives way to any presenter: the display keeps
   * the room PIN readable over it. Absent for presenters' and admins'
   * projections, and for displays that did not announce `signage`.
   */
  signage: z.optional(z.boolean()),
  /** The slot the session takes (0..MAX_ROOM_SLOTS-1); sent only to displays that announced `slots`. */
  slot: z.optional(z.int().check(z.minimum(0), z.maximum(MAX_ROOM_SLOTS - 1))),
  /**
   * `browser`: the presenter shares from a browser (the presenter page is the
   * server): a touch on its picture is a laser pointer (the `laser` message),
   * never input (issue 30). Absent: a computer's RDP server.
   */
  source: z.optional(z.literal('browser')),
});
const stop = z.object({ type: z.literal('stop'), sessionId: z.string(), reason: z._default(z.string(), '') });
/** The room's PIN for the idle screen: on welcome and whenever it rotates (only to displays that announced `room`). */
/** An admin renamed or moved the display: what the idle screen shows, without a reconnect. */
const display = z.object({ type: z.literal('display'), display: displayInfo });
/** The display's volume (0–100 %) and mute, set by an administrator (only to displays that announced `sound`). */
export const soundLevel = z.object({
  volume: z.int().check(z.minimum(0), z.maximum(100)),
  muted: z.boolean(),
});
const sound = z.object({ type: z.literal('sound'), ...soundLevel.shape });
const room = z.object({
  type: z.literal('room'),
  /** What a presenter types to project here; digits only. */
  pin: z.string().check(z.regex(/^\d{4,10}$/)),
  /** When the gateway rotates it on its timer (ms since the epoch, the gateway's clock); it also rotates after each use. */
  expiresAt: z.number(),
  /** The presenter page for this display (what the idle screen prints and puts in its QR code). */
  presenterUrl: z.string(),
});

/** Where a slot sits on the panel: fractions of its width and height (roomLayout.ts slotRects); 0 × 0 is hidden. */
const fraction = z.number().check(z.minimum(0), z.maximum(1));
const layoutSlot = z.object({
  slot: z.int().check(z.minimum(0), z.maximum(MAX_ROOM_SLOTS - 1)),
  sessionId: z.string().check(z.maxLength(128)),
  /** Who presents there, for the source's name label. */
  label: z.string().check(z.maxLength(100)),
  x: fraction,
  y: fraction,
  width: fraction,
  height: fraction,
  /**
   * Its presenter lets people at the display control the computer (issue 30):
   * the page sends touch and mouse on that slot to the session and marks it.
   * Absent: not allowed. The gateway's relay enforces it whatever the page does.
   */
  touch: z.optional(z.boolean()),
});
/**
 * The room as it stands (only to displays that announced `slots`): after the
 * welcome and whenever a source joins or leaves, the layout or the large
 * source changes. Each session stays on its own data socket.
 */
const layout = z.object({
  type: z.literal('layout'),
  layout: z.enum(ROOM_LAYOUTS),
  /** The slot `full` shows and `one-large` enlarges. */
  large: z.int().check(z.minimum(0), z.maximum(MAX_ROOM_SLOTS - 1)),
  /** Whether requests wait for a moderator (the idle screen says so). */
  mode: z.enum(ROOM_MODES),
  slots: z.array(layoutSlot).check(z.maxLength(MAX_ROOM_SLOTS)),
});

// Data socket, kiosk → gateway.
const open = z.object({ type: z.literal('open'), token: z.string() });
/** A finite number the gateway echoes in `pong` (z.number() refuses NaN and infinities). */
const ping = z.object({ type: z.literal('ping'), t: z.number() });
const close = z.object({ type: z.literal('close') });

// Data socket, gateway → kiosk.
const secured = z.object({
  type: z.literal('secured'),
  protocol: z.enum(['ssl', 'hybrid', 'hybrid-ex']),
  tlsVersion: z._default(z.string(), ''),
  cipher: z._default(z.string(), ''),
  /** Base64 DER, leaf first. */
  certificates: z.array(z.string()),
  /** Base64 SubjectPublicKey (what CredSSP binds to), not the whole SPKI. */
  publicKey: z.string(),
  fingerprint: z._default(z.string(), ''),
  /** `presenter`: the server leg is a presenter page's socket (docs/browser-presenter.md), no TLS of the gateway's own. */
  trust: z.enum(['pinned', 'first-use', 'ca', 'insecure', 'presenter']),
});
/** The gateway's `ended` message (data and presenter sockets). */
export const ended = z.object({ type: z.literal('ended'), reason: z._default(z.string(), '') });
const pong = z.object({ type: z.literal('pong'), t: z.number() });

export type ErrorMessage = z.infer<typeof errorMessage>;
export type HelloMessage = z.infer<typeof hello>;
export type ByeMessage = z.infer<typeof bye>;
export type FiguresMessage = z.infer<typeof figures>;
export type PanelMessage = z.infer<typeof panel>;
export type WelcomeMessage = z.infer<typeof welcome>;
export type Target = z.infer<typeof target>;
export type Credentials = z.infer<typeof credentials>;
export type ProjectMessage = z.infer<typeof project>;
export type StopMessage = z.infer<typeof stop>;
export type RoomMessage = z.infer<typeof room>;
export type DisplayMessage = z.infer<typeof display>;
export type LayoutMessage = z.infer<typeof layout>;
export type LayoutSlot = z.infer<typeof layoutSlot>;
export type SoundMessage = z.infer<typeof sound>;
export type SoundLevel = z.infer<typeof soundLevel>;
export type OpenMessage = z.infer<typeof open>;
export type PingMessage = z.infer<typeof ping>;
export type CloseMessage = z.infer<typeof close>;
export type SecuredMessage = z.infer<typeof secured>;
export type EndedMessage = z.infer<typeof ended>;
export type PongMessage = z.infer<typeof pong>;

/** What the kiosk sends on the control socket. */
export type LaserMessage = z.infer<typeof laser>;
export type KioskControlMessage = HelloMessage | ByeMessage | FiguresMessage | PanelMessage | LaserMessage;
/** What the gateway sends on the control socket. */
export type GatewayControlMessage = WelcomeMessage | ProjectMessage | StopMessage | RoomMessage | DisplayMessage | LayoutMessage | SoundMessage | ErrorMessage;
/** What the kiosk sends as JSON on the data socket. */
export type KioskDataMessage = OpenMessage | PingMessage | CloseMessage;
/** What the gateway sends as JSON on the data socket. */
export type GatewayDataMessage = SecuredMessage | EndedMessage | ErrorMessage | PongMessage;
/** Everything the gateway sends a display, on either socket. */
export type GatewayToKioskMessage = GatewayControlMessage | GatewayDataMessage;

export type KioskMessageFailureReason = 'not-json' | 'not-a-message' | 'unknown-type' | 'invalid';

export interface KioskMessageFailure {
  readonly reason: KioskMessageFailureReason;
  /** Lower case, for logs and the `error` message's text. */
  readonly message: string;
  /** The message's `type`, once known. */
  readonly type?: string;
}

export type KioskMessageParse<Message> =
  | { readonly ok: true; readonly message: Message }
  | { readonly ok: false; readonly failure: KioskMessageFailure };

function failure(reason: KioskMessageFailureReason, message: string, type?: string): { ok: false; failure: KioskMessageFailure } {
  return { ok: false, failure: { reason, message, ...(type === undefined ? {} : { type }) } };
}

/**
 * What is wrong, in words: zod/mini leaves issue messages bare ("Invalid
 * input") unless a locale is loaded, and this is all the page needs of one.
 */
function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected}`;
    case 'invalid_value':
      return `expected ${issue.values.map((value) => JSON.stringify(value)).join(' or ')}`;
    // An exclusive bound (z.positive() is "more than 0") is not worded as an inclusive one.
    case 'too_small':
      return `${issue.origin === 'array' ? 'length' : 'value'} must be ${issue.inclusive === false ? 'more than' : 'at least'} ${String(issue.minimum)}`;
    case 'too_big':
      return `${issue.origin === 'array' ? 'length' : 'value'} must be ${issue.inclusive === false ? 'less than' : 'at most'} ${String(issue.maximum)}`;
    case 'unrecognized_keys':
      return `unknown ${issue.keys.join(', ')}`;
    default:
      return 'invalid';
  }
}

/** One reader for one direction of one socket: the types it accepts and their schemas. */
export function messageReader<Message>(schemas: Readonly<Record<string, z.ZodMiniType<Message>>>): (text: string) => KioskMessageParse<Message> {
  return (text) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return failure('not-json', 'message is not json');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return failure('not-a-message', 'message is not a json object');
    const type: unknown = (value as { type?: unknown }).type;
    if (typeof type !== 'string') return failure('not-a-message', 'message has no string type');
    const schema = Object.hasOwn(schemas, type) ? schemas[type] : undefined;
    if (schema === undefined) return failure('unknown-type', `unknown message type ${JSON.stringify(type).slice(0, 64)}`, type);
    const parsed = schema.safeParse(value);
    if (parsed.success) return { ok: true, message: parsed.data };
    const issue = parsed.error.issues[0];
    const where = [type, ...(issue?.path ?? []).map(String)].join('.');
    return failure('invalid', `${where}: ${issue ? describeIssue(issue) : 'invalid'}`, type);
  };
}

/** The gateway's reader of the control socket. */
export const parseKioskControlMessage = messageReader<KioskControlMessage>({ hello, bye, figures, panel, laser });
/** The display's reader of the control socket. */
export const parseGatewayControlMessage = messageReader<GatewayControlMessage>({ welcome, project, stop, room, display, layout, sound, error: errorMessage });
/**
 * The display's reading of one control message: the message, or undefined
 * once `refuse` was told to close the socket with `bad-message`'s close code,
 * as a display does with a message it cannot read.
 */
export function readGatewayControlMessage(text: string, refuse: (closeCode: number, reason: string) => void): GatewayControlMessage | undefined {
  const parsed = parseGatewayControlMessage(text);
  if (parsed.ok) return parsed.message;
  refuse(closeCodeFor('bad-message'), 'unreadable message');
  return undefined;
}
/** The gateway's reader of the data socket's JSON messages. */
export const parseKioskDataMessage = messageReader<KioskDataMessage>({ open, ping, close });
/** The display's reader of the data socket's JSON messages. */
export const parseGatewayDataMessage = messageReader<GatewayDataMessage>({ secured, ended, error: errorMessage, pong });
