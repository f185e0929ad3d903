// The room PIN: a short number on the display's idle screen that proves a
// presenter can see the display (is in the room). Pure: the clock and the
// random source are passed in, the record lives in the BrokerStore.
//
// Why 6 digits (docs/presenter-api.md "Room PIN"): the wrong-PIN limit per
// display (10 per 10 minutes by default) caps guessing at 1,440 tries a day
// whatever the number of source addresses. Against 10^6 PINs that is a 0.14 %
// chance a day, about two years of non-stop guessing on average, each try
// logged; 4 digits would fall in 3–4 days. Six digits is also what people
// already type from authenticator apps, and reads well across a room in
// two groups of three.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RoomPinRecord } from './brokerStore.js';

export interface RoomPinSettings {
  /** Digits in a PIN (4–10). */
  readonly digits: number;
  /** The timer: a PIN no one used is replaced after this long. */
  readonly rotateMs: number;
  /** After a timer rotation the previous PIN is still accepted this long (it may have just been read). */
  readonly graceMs: number;
}

/** A uniform integer in [0, max): node:crypto's randomInt in production, a script in tests. */
export type RandomInt = (max: number) => number;

/** Why a PIN is replaced: first sight of the display, its timer ran out, or it was used to project. */
export type RotationCause = 'first' | 'timer' | 'use';

/** People type "123 456" or "123-456" as the screen groups it. */
export function normalisePin(given: string): string {
  return given.replace(/[\s-]/g, '');
}

export function isPinShaped(given: string, digits: number): boolean {
  return given.length === digits && /^\d+$/.test(given);
}

export function drawPin(settings: RoomPinSettings, random: RandomInt, avoid: readonly string[] = []): string {
  for (;;) {
    const pin = String(random(10 ** settings.digits)).padStart(settings.digits, '0');
    // A new PIN equal to the one on screen would look like no rotation at all.
    if (!avoid.includes(pin)) return pin;
  }
}

/** True when the display needs a new PIN: none yet, its timer ran out, or the configured length changed. */
export function isDue(record: RoomPinRecord | undefined, now: number, settings: RoomPinSettings): boolean {
  return record === undefined || record.expiresAt <= now || record.pin.length !== settings.digits;
}

/**
 * The record after a rotation. A used PIN is gone at once (it let one
 * projection in); a PIN the timer replaced stays good for the grace time
 * counted from when it was due, so a late rotation does not extend it.
 */
export function rotate(record: RoomPinRecord | undefined, cause: RotationCause, now: number, settings: RoomPinSettings, random: RandomInt): RoomPinRecord {
  const avoid = record ? [record.pin, ...(record.previous ? [record.previous.pin] : [])] : [];
  const pin = drawPin(settings, random, avoid);
  const graceUntil = record ? Math.min(record.expiresAt, now) + settings.graceMs : 0;
  const previous = cause === 'timer' && record && graceUntil > now ? { pin: record.pin, until: graceUntil } : undefined;
  return { pin, issuedAt: now, expiresAt: now + settings.rotateMs, ...(previous ? { previous } : {}) };
}

/**
 * Which PIN `given` is: the current one, the previous one within its grace,
 * or neither. Constant time: both candidates are always compared, as
 * fixed-length digests, so timing tells nothing about either.
 */
export function matchPin(record: RoomPinRecord, given: string, now: number): 'current' | 'previous' | undefined {
  const typed = digest(normalisePin(given));
  const current = timingSafeEqual(typed, digest(record.pin));
  const previousLive = record.previous !== undefined && record.previous.until > now;
  // Compared even when there is no live previous PIN, so both paths cost the same.
  const previous = timingSafeEqual(typed, digest(record.previous?.pin ?? '\u0000no previous pin')) && previousLive;
  if (current) return 'current';
  return previous ? 'previous' : undefined;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
