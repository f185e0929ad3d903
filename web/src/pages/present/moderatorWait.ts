// A share that waits in a moderated room (issue 29): the page keeps its
// capture (the browser's picker was answered once, on the person's click —
// it cannot be asked again without a new click) and follows its request with
// the status's long poll until the moderator decides. Accepted, the status
// carries the presenter socket (its token minted then, so it cannot lapse
// while the request waits); declined, withdrawn or ended, it says by whom.
import type { PresenterRefusal, PresenterSocket, ProjectionStatus } from '@lanterna/protocol';
import { projectionStatus, UNREACHABLE } from './presenterClient.js';

/** How long one status request waits for a change at the gateway (its cap is 25 s). */
const FOLLOW_WAIT_MS = 20_000;
/** After the gateway did not answer, the next try. */
const RETRY_AFTER_MS = 2000;

export type ModeratorDecision =
  | { readonly kind: 'accepted'; readonly presenter: PresenterSocket; readonly status: ProjectionStatus }
  | { readonly kind: 'over'; readonly status: ProjectionStatus }
  | { readonly kind: 'lost'; readonly refusal: PresenterRefusal }
  | { readonly kind: 'cancelled' };

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}

/**
 * Follows the waiting request until the moderator decides, telling
 * `onstatus` each change (its place in the queue); `signal` ends the wait
 * (the presenter stopped waiting) with `cancelled`.
 */
export async function waitForModerator(displayId: string, stopToken: string, signal: AbortSignal, onstatus: (status: ProjectionStatus) => void): Promise<ModeratorDecision> {
  let since: string | undefined;
  // read through a call: the abort comes while a request is out, which narrowing does not see
  const cancelled = (): boolean => signal.aborted;
  while (!cancelled()) {
    const answer = await projectionStatus(displayId, stopToken, { since, waitMs: since === undefined ? 0 : FOLLOW_WAIT_MS, signal });
    if (cancelled()) break;
    if (!answer.ok) {
      if (answer.refusal.code !== UNREACHABLE) return { kind: 'lost', refusal: answer.refusal };
      await pause(RETRY_AFTER_MS, signal);
      continue;
    }
    const status = answer.value;
    if (status.presenter !== undefined) return { kind: 'accepted', presenter: status.presenter, status };
    const request = status.request?.state;
    if (status.state === 'ended' || request === 'declined' || request === 'withdrawn' || request === 'ended') return { kind: 'over', status };
    onstatus(status);
    since = status.tag;
  }
  return { kind: 'cancelled' };
}
