// The room PINs of all displays over the BrokerStore: what a display shows
// now (rotated lazily when its timer has run out, so no worker needs a timer
// of its own and every worker and gateway sharing the store agrees), the
// check of a presenter's PIN under the wrong-PIN limits, and its use.
import { randomInt } from 'node:crypto';
import type { BrokerStore, RoomPinRecord } from './brokerStore.js';
import type { PublishEvent } from './brokerEvents.js';
import { isDue, isPinShaped, matchPin, normalisePin, rotate, type RandomInt, type RoomPinSettings } from './roomPin.js';
import { attemptCounterKeys, judgeAttempt, type AttemptLimits } from './pinAttempts.js';

export type PinCheck =
  | { readonly ok: true; readonly record: RoomPinRecord }
  | { readonly ok: false; readonly code: 'pin-required' }
  | { readonly ok: false; readonly code: 'pin-wrong'; readonly attemptsLeft: number }
  | { readonly ok: false; readonly code: 'pin-locked'; readonly scope: 'display' | 'source'; readonly retryAfterMs: number };

export interface RoomPinsDeps {
  store: BrokerStore;
  settings: RoomPinSettings;
  limits: AttemptLimits;
  /** Every rotation is announced, so the worker holding the display's control socket sends the new PIN. */
  publish: PublishEvent;
  clock?: () => number;
  random?: RandomInt;
}

export class RoomPins {
  private readonly clock: () => number;
  private readonly random: RandomInt;

  constructor(private readonly deps: RoomPinsDeps) {
    this.clock = deps.clock ?? Date.now;
    this.random = deps.random ?? ((max) => randomInt(max));
  }

  get settings(): RoomPinSettings {
    return this.deps.settings;
  }

  /** The display's PIN now; a missing or timed-out one is replaced first (once, whichever worker asks). */
  async current(displayId: string): Promise<RoomPinRecord> {
    const { store, settings } = this.deps;
    const record = await store.getRoomPin(displayId);
    const now = this.clock();
    if (record && !isDue(record, now, settings)) return record;
    const cause = record && record.pin.length === settings.digits ? 'timer' : 'first';
    const outcome = await store.swapRoomPin(displayId, record?.pin ?? null, rotate(record, cause, now, settings, this.random));
    if (outcome.swapped) this.deps.publish({ kind: 'room-changed', displayId });
    return outcome.record;
  }

  /**
   * A presenter's PIN for the display, from `source` (see pinAttempts.sourceKey).
   * Every attempt counts against both limits before the PIN is compared; a
   * right one gives its count back. The attempt that uses up the last try is
   * answered as a lockout, with when to try again.
   */
  async check(displayId: string, given: string | undefined, source: string): Promise<PinCheck> {
    if (given === undefined || given.trim() === '') return { ok: false, code: 'pin-required' };
    const { store, limits, settings } = this.deps;
    const keys = attemptCounterKeys(displayId, source);
    const [display, from] = await Promise.all([
      store.addToCounter(keys.display, 1, limits.perDisplay.windowMs),
      store.addToCounter(keys.source, 1, limits.perSource.windowMs),
    ]);
    const now = this.clock();
    const verdict = judgeAttempt(display, from, limits, now);
    if (!verdict.allowed) return { ok: false, code: 'pin-locked', scope: verdict.scope, retryAfterMs: verdict.retryAfterMs };
    const record = await this.current(displayId);
    const typed = normalisePin(given);
    if (isPinShaped(typed, settings.digits) && matchPin(record, typed, now) !== undefined) {
      await Promise.all([
        store.addToCounter(keys.display, -1, limits.perDisplay.windowMs),
        store.addToCounter(keys.source, -1, limits.perSource.windowMs),
      ]);
      return { ok: true, record };
    }
    if (verdict.attemptsLeft > 0) return { ok: false, code: 'pin-wrong', attemptsLeft: verdict.attemptsLeft };
    const next = judgeAttempt({ ...display, count: display.count + 1 }, { ...from, count: from.count + 1 }, limits, now);
    return next.allowed
      ? { ok: false, code: 'pin-wrong', attemptsLeft: 0 }
      : { ok: false, code: 'pin-locked', scope: next.scope, retryAfterMs: next.retryAfterMs };
  }

  /**
   * The PIN in `record` let a projection in: replace it (the used PIN, and a
   * previous one still in its grace, open nothing more). False when another
   * request used or rotated it first: that request won.
   */
  async use(displayId: string, record: RoomPinRecord): Promise<boolean> {
    const next = rotate(record, 'use', this.clock(), this.deps.settings, this.random);
    const outcome = await this.deps.store.swapRoomPin(displayId, record.pin, next);
    if (outcome.swapped) this.deps.publish({ kind: 'room-changed', displayId });
    return outcome.swapped;
  }
}
