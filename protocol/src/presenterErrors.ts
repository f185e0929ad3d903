// The presenter API's refusals (docs/presenter-api.md "Refusals"): each
// code's HTTP status, the gateway's message (lower case, for logs and the
// JSON answer) and the sentence the presenter page shows. How a projection
// that did start went is worded by sentenceForProjectionEnd, which falls back
// on the kiosk protocol's table for the session's error codes.
import { errorTable } from './errorTable.js';
import { isSessionErrorCode, sentenceForCode } from './sessionErrors.js';

export interface PresenterErrorEntry {
  readonly status: number;
  readonly message: string;
  readonly sentence: string;
}

const table = {
  'bad-request': {
    status: 400,
    message: 'the request is not understood',
    sentence: 'The gateway did not understand the request. Check what you entered and try again.',
  },
  'pin-required': {
    status: 401,
    message: 'the room pin is required',
    sentence: 'Enter the PIN shown on the display.',
  },
  'pin-wrong': {
    status: 403,
    message: 'the room pin is wrong',
    sentence: 'That is not the PIN on the display. Check the display and try again.',
  },
  'pin-locked': {
    status: 429,
    message: 'too many wrong pins',
    sentence: 'Too many wrong PINs. Wait before you try again.',
  },
  'rate-limited': {
    status: 429,
    message: 'too many requests',
    sentence: 'Too many requests from this computer. Wait a moment and try again.',
  },
  'unknown-display': {
    status: 404,
    message: 'no such display',
    sentence: 'That display does not exist (any more). Reload the list of displays.',
  },
  'display-offline': {
    status: 409,
    message: 'the display is not connected to the gateway',
    sentence: 'That display is switched off or not connected to the gateway.',
  },
  'display-busy': {
    status: 409,
    message: 'the display is showing another presentation',
    sentence: 'Someone is presenting on that display right now. Wait until they stop, or choose another display.',
  },
  'target-forbidden': {
    status: 403,
    message: "the presenter's computer is not allowed by the gateway's policy",
    sentence: 'The gateway may not connect to that computer. Check the address and port, or ask the administrator which ones are allowed.',
  },
  'invitation-too-large': {
    status: 400,
    message: 'the invitation is too large',
    sentence: 'That invitation file is too large to be a Remote Assistance invitation.',
  },
  'invitation-markup': {
    status: 400,
    message: 'the invitation holds forbidden markup',
    sentence: 'That invitation file holds markup an invitation never has, so it was not read.',
  },
  'invitation-malformed': {
    status: 400,
    message: 'the invitation is malformed',
    sentence: 'That file is not a Remote Assistance invitation the gateway can read.',
  },
  'invitation-password': {
    status: 400,
    message: 'the invitation password does not open the invitation',
    sentence: 'The invitation password does not open that invitation.',
  },
  'no-projection': {
    status: 404,
    message: 'no projection of this requester on the display',
    sentence: 'Your presentation on that display has already ended.',
  },
  'stop-token-wrong': {
    status: 403,
    message: 'the stop token does not belong to the projection on the display',
    sentence: 'This page did not start the presentation on that display, so it cannot stop it.',
  },
  'browser-unsupported': {
    status: 501,
    message: "this gateway cannot carry a presenter page's screen yet: its node relay engine runs several workers",
    sentence: 'This gateway cannot show a screen shared from the browser yet. Ask the administrator, or use one of the other ways to present.',
  },
  'queue-full': {
    status: 409,
    message: "the display's moderator has too many requests waiting",
    sentence: 'Too many people are waiting for that display. Try again once the moderator has answered some of them.',
  },
  'no-request': {
    status: 404,
    message: 'no such request on the display',
    sentence: 'That request is no longer known. Reload the list.',
  },
  'not-waiting': {
    status: 409,
    message: 'the request is not waiting any more',
    sentence: 'Someone has already answered that request.',
  },
  'room-full': {
    status: 409,
    message: 'every slot of the display is taken',
    sentence: 'Every place on that display is taken. Choose a source to replace, or end one first.',
  },
  'bad-slot': {
    status: 400,
    message: 'no such slot on the display',
    sentence: 'That display has no such place.',
  },
  'not-host': {
    status: 403,
    message: "the stop token is not the room host's",
    sentence: "Only the room's host or the administrator may do that.",
  },
  'not-found': {
    status: 404,
    message: 'no such endpoint',
    sentence: 'The gateway does not offer that. The page may need reloading.',
  },
  internal: {
    status: 500,
    message: 'an internal error in the gateway',
    sentence: 'The gateway ran into an internal error. Try again; if it happens again, tell the administrator.',
  },
} as const satisfies Record<string, PresenterErrorEntry>;

export type PresenterErrorCode = keyof typeof table;

/** Every code in the document's order, its entry, the guard, and the sentence for a refusal (also for a code this version does not know). */
export const { codes: PRESENTER_ERROR_CODES, entries: PRESENTER_ERRORS, isCode: isPresenterErrorCode, sentenceFor: sentenceForPresenterCode } =
  errorTable<PresenterErrorCode, PresenterErrorEntry>(table, (code) => `The gateway refused the request (${code}).`);

/** "2 minutes", "45 seconds": how long to wait, for sentences. */
export function waitInWords(seconds: number): string {
  const whole = Math.max(1, Math.ceil(seconds));
  if (whole < 90) return `${whole} second${whole === 1 ? '' : 's'}`;
  const minutes = Math.ceil(whole / 60);
  return `${minutes} minutes`;
}

const endSentences: Readonly<Record<string, string>> = {
  stopped: 'The presentation was stopped.',
  'server-closed': 'Your computer ended the session.',
  'client-closed': 'The display ended the session; if it never showed your screen, check the user name and password.',
  expired: 'The display did not start the presentation in time.',
  'gateway-shutdown': 'The gateway restarted and ended the presentation.',
};

/** Why a projection that did start ended, for the presenter; session error codes are worded by the kiosk protocol's table. */
export function sentenceForProjectionEnd(reason: string): string {
  if (Object.hasOwn(endSentences, reason)) return endSentences[reason] ?? reason;
  if (isSessionErrorCode(reason)) return sentenceForCode(reason);
  return `The presentation ended (${reason}).`;
}
