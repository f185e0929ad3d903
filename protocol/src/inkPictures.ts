// Ink on the display (issue 30): the HTTP contract between the display page,
// which saves a PNG of the picture and the ink drawn over it, the gateway,
// which keeps it for a while, and whoever may fetch it (the presenter with
// its stop token, anyone in the room with the room PIN for the whiteboard).

/** The largest PNG a display may save: a 3840×2160 picture with ink compresses well below it. */
export const INK_MAX_PNG_BYTES = 8 * 1024 * 1024;

/** The header that carries the room PIN when the idle screen's whiteboard is fetched. */
export const INK_PIN_HEADER = 'x-lanterna-pin';

/** What the display says it saved: ink over a presenter's picture (one session), or the idle screen's whiteboard. */
export type InkPictureKind = 'session' | 'whiteboard';

/** `/v1/displays/{id}/ink`: the display saves (POST, its token, `?session=ID`), the presenter fetches (GET, its stop token). */
export function inkPath(displayId: string): string {
  return `/v1/displays/${encodeURIComponent(displayId)}/ink`;
}

/** `/v1/displays/{id}/whiteboard`: the display saves its idle whiteboard (POST, its token), the room fetches it (GET, the PIN). */
export function whiteboardPath(displayId: string): string {
  return `/v1/displays/${encodeURIComponent(displayId)}/whiteboard`;
}

/** The refusals of the ink endpoints, as `{code, message}` bodies; the pages word them. */
export type InkRefusalCode = 'ink-saving-off' | 'no-ink' | 'too-large' | 'not-png' | 'unauthorized' | 'no-session' | 'rate-limited' | 'pin-required' | 'pin-wrong' | 'pin-locked' | 'stop-token-wrong' | 'not-found';

/** What a person reads for each refusal (the display page after Save, the presenter page). */
export function sentenceForInkCode(code: string): string {
  switch (code) {
    case 'ink-saving-off': return 'Saving ink is turned off by the administrator.';
    case 'no-ink': return 'Nothing has been saved from the display yet.';
    case 'too-large': return 'The picture is too large to save.';
    case 'not-png': return 'The display sent something that is not a PNG picture.';
    case 'unauthorized': return 'This display is not allowed to save (its token was refused).';
    case 'no-session': return 'The presentation has ended; the picture was not saved for it.';
    case 'rate-limited': return 'Too many tries: wait a moment and try again.';
    case 'pin-required': return 'Enter the PIN shown on the display.';
    case 'pin-wrong': return 'That is not the PIN shown on the display.';
    case 'pin-locked': return 'Too many wrong PINs: wait a few minutes.';
    case 'stop-token-wrong': return 'This page did not start that presentation.';
    default: return 'The picture could not be saved or fetched.';
  }
}
