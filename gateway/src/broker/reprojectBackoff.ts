// When a signage display's (autoProject) session ends, the gateway projects
// it again. A target that fails at once (wrong password, server down) would
// otherwise cycle the screen every few seconds and hammer the server: each
// short-lived session doubles the pause, up to a ceiling; a session that ran
// for a while resets it. The end of a session that ran for a while is most
// often not the target's doing (a gateway worker died, the network blinked):
// the screen is projected again at once, and if the target really is gone
// that next, short session starts the pauses.
//
// Pure state transitions: the broker keeps the state in its store (so a store
// shared by several gateways shares it too) and owns no timer.

/** A session that lasted this long was a presentation, not a failure. */
export const STABLE_SESSION_MS = 30_000;

export interface ReprojectionState {
  /** When the display was last projected. */
  readonly projectedAt: number;
  /** Sessions in a row that ended sooner than STABLE_SESSION_MS. */
  readonly failures: number;
}

export interface BackoffLimits { readonly baseMs: number; readonly maxMs: number }

/** The display was just projected. No state: it (re)connected, start from the base pause. */
export function projectedAt(state: ReprojectionState | undefined, now: number): ReprojectionState {
  return { projectedAt: now, failures: state?.failures ?? 0 };
}

/** The pause before projecting again after a session of this display ended, and the state after it. */
export function afterSessionEnd(
  state: ReprojectionState | undefined,
  now: number,
  limits: BackoffLimits,
): { delayMs: number; state: ReprojectionState } {
  const lived = state ? now - state.projectedAt : Infinity;
  const failures = lived < STABLE_SESSION_MS ? (state?.failures ?? 0) + 1 : 0;
  const delayMs = failures === 0 ? 0 : Math.min(limits.baseMs * 2 ** (failures - 1), limits.maxMs);
  return { delayMs, state: { projectedAt: state?.projectedAt ?? 0, failures } };
}
