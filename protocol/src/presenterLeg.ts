// The presenter's socket (docs/kiosk-protocol.md "Presenter socket",
// docs/browser-presenter.md): a presenter page running FreeRDP's server side
// in wasm is the session's server leg. The page opens
// /v1/sessions/{sessionId}/present, shows its single-use presenter token in
// `present`, then carries binary RDP (the display's Connection Request in,
// the Confirm and whole PDUs out). These are its JSON messages, both ways;
// the gateway's `ended` and `error` are the data socket's.
import * as z from 'zod/mini';
import { ended, errorMessage, messageReader, type EndedMessage, type ErrorMessage } from './kioskMessages.js';

/** A presenter's certificate is a fresh P-256 self-signed one (about 400 bytes); the cap leaves room for RSA. */
export const MAX_PRESENTER_CERTIFICATE_CHARS = 8 * 1024;

/** The presenter socket's path for a session. */
export function presenterSocketPath(sessionId: string): string {
  return `/v1/sessions/${encodeURIComponent(sessionId)}/present`;
}

const base64 = (max: number) => z.string().check(z.minLength(1), z.maxLength(max), z.regex(/^[A-Za-z0-9+/]+={0,2}$/));

/**
 * Presenter → gateway, the first message: the presenter token of the
 * projection's answer, and what the display's `secured` will report of this
 * leg: the page's SubjectPublicKey (`PresenterSession.publicKey`, base64)
 * and, when it has it, its certificate (base64 DER).
 */
const present = z.object({
  type: z.literal('present'),
  token: z.string().check(z.minLength(1), z.maxLength(4096)),
  /** Optional: the wasm peer reports its key; a page that has the DER certificate too sends it (the display does not judge it). */
  certificate: z.optional(base64(MAX_PRESENTER_CERTIFICATE_CHARS)),
  publicKey: base64(MAX_PRESENTER_CERTIFICATE_CHARS),
});

/** Presenter → gateway, any time after `present`: the presenter stops (the display's session ends `server-closed`). */
const close = z.object({ type: z.literal('close') });

/**
 * Gateway → presenter page, while relaying, at most once a second and only
 * after a second in which the gateway held the page back (it read the page's
 * socket later because of relay.presenterBytesPerSecond): for `ofMs` ms up to
 * now it waited `heldMs` ms and read `bytesPerSecond` on average. TCP's
 * buffers hide that wait from the page for seconds (megabytes on loopback),
 * so the gateway says it; the page's H.264 bitrate follows
 * (web/src/pages/present/bitrateController.ts).
 */
const pace = z.object({
  type: z.literal('pace'),
  heldMs: z.number().check(z.int(), z.minimum(0), z.maximum(3_600_000)),
  ofMs: z.number().check(z.int(), z.minimum(1), z.maximum(3_600_000)),
  bytesPerSecond: z.number().check(z.int(), z.minimum(0)),
});

export type PresentMessage = z.infer<typeof present>;
export type PresenterCloseMessage = z.infer<typeof close>;
/** What a presenter page sends as JSON on its socket. */
export type PresenterLegMessage = PresentMessage | PresenterCloseMessage;
export type PresenterPaceMessage = z.infer<typeof pace>;
/** What the gateway sends a presenter page as JSON: how its session ended, and its pace while it holds the page back. */
export type GatewayPresenterMessage = EndedMessage | ErrorMessage | PresenterPaceMessage;

/** The gateway's reader of the presenter socket's JSON messages. */
export const parsePresenterLegMessage = messageReader<PresenterLegMessage>({ present, close });
/** The presenter page's reader of the gateway's JSON messages. */
export const parseGatewayPresenterMessage = messageReader<GatewayPresenterMessage>({ ended, error: errorMessage, pace });
