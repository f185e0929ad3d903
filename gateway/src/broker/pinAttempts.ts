// Wrong-PIN limits, per display and per source address, as pure decisions
// over the store's fixed-window counters. Every PIN check first adds one to
// both counters (atomically, in the store) and is judged on the counts that
// include it, so a burst of parallel guesses cannot all slip in before the
// first one is counted; a right PIN gives its attempt back.
import { isIP } from 'node:net';
import type { CounterState } from './brokerStore.js';

export interface AttemptLimit {
  /** Wrong PINs allowed in one window; the next attempt is refused until the window ends. */
  readonly max: number;
  readonly windowMs: number;
}

export interface AttemptLimits {
  /** Bounds guessing whatever the number of addresses an attacker has. */
  readonly perDisplay: AttemptLimit;
  /** Stops one requester (or one IPv6 /64) early, before it locks the display for everyone. */
  readonly perSource: AttemptLimit;
}

export type AttemptVerdict =
  /** `attemptsLeft`: wrong PINs still allowed after this attempt, should it be wrong. */
  | { readonly allowed: true; readonly attemptsLeft: number }
  | { readonly allowed: false; readonly scope: 'display' | 'source'; readonly retryAfterMs: number };

/** The attempt whose counts (this attempt included) are given: checked, or refused for a lockout and until when. */
export function judgeAttempt(display: CounterState, source: CounterState, limits: AttemptLimits, now: number): AttemptVerdict {
  const overDisplay = display.count > limits.perDisplay.max;
  const overSource = source.count > limits.perSource.max;
  if (overDisplay || overSource) {
    // Both locked: the later unlock is the one that matters.
    const until = Math.max(overDisplay ? display.resetAt : 0, overSource ? source.resetAt : 0);
    return { allowed: false, scope: overDisplay ? 'display' : 'source', retryAfterMs: Math.max(0, until - now) };
  }
  return { allowed: true, attemptsLeft: Math.min(limits.perDisplay.max - display.count, limits.perSource.max - source.count) };
}

/**
 * The key a source address is counted under: an IPv4 address as is (an
 * IPv4-mapped IPv6 address as its IPv4), an IPv6 address by its /64, since
 * one host usually has a whole /64 to pick addresses from.
 */
export function sourceKey(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped?.[1]) return mapped[1];
  if (isIP(bare) === 4) return bare;
  if (isIP(bare) !== 6) return 'unknown';
  return `${expandIpv6(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, lower case, without leading zeros. */
function expandIpv6(address: string): string[] {
  let text = address.toLowerCase();
  // A trailing dotted quad (::1.2.3.4) is two groups.
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16).toString(16));
}

/** Store keys of the two counters of one attempt. */
export function attemptCounterKeys(displayId: string, source: string): { display: string; source: string } {
  return { display: `pin-wrong:display:${displayId}`, source: `pin-wrong:source:${source}` };
}
