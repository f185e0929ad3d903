// The one limiter for every secret a client shows the gateway (the admin
// token on the admin API, on /metrics and as the presenter API's shortcut,
// the metrics token, display tokens on the control socket), over the broker
// store's fixed-window counters like the wrong-PIN limits (pinAttempts.ts):
// so every worker, and every gateway sharing Redis, counts one budget.
//
// Judged first, counted after (issue 31's regression): the caller compares
// the token, then asks `check(address, kind, right)`. A wrong token adds one
// to its source's counts; a right one only reads them. Counting before
// judging (as this did first) made every check two store round trips and
// refused a storm of right tokens from one address (a NAT, a layer-4
// balancer, displays reconnecting after a gateway died) once more were in
// flight than the limit. A burst of parallel wrong guesses still cannot slip
// in: this process adds each wrong one to its own count in the same tick the
// caller judged it, before anything is awaited, and every check past the
// limit is refused whatever the token was, so its answer tells the guesser
// nothing. Across a farm the store's count is the one budget; checks on other
// gateways in flight during one round trip may each pass before they see it.
//
// A right token reads the store at most once a second per address (the last
// reading is kept, capped in number): a lock set on another gateway refuses
// right tokens here within a second, and a reconnect storm costs the store
// nothing.
//
// Keys: the exact address, and for IPv6 also its /64 (a host picks addresses
// from a whole /64 at will). A source past its limit is refused even with
// the right token until the window ends: otherwise the refusal itself would
// tell a guesser nothing and the oracle would stay.
//
// The /64 is read before anything is added (a read creates no counter), so an
// attacker spraying addresses of one /64 makes at most `perNetwork.max`
// address counters a window, and a single address past its own limit does
// not spend its neighbours' /64 budget. A host rotating its addresses within
// a /64 it shares with displays would lock that /64's token checks, displays
// included, with no token at all; so an address that showed a right token in
// the last day (VOUCHED_MS) is vouched for: a locked /64 does not stop it,
// only its own address limit does. A stranger cannot use that without taking
// a vouched address over (on a LAN: spoofing it, at which point it could
// intercept the display anyway).
import { isIP } from 'node:net';
import { StoreUnavailableError, type BrokerStore, type CounterState } from './brokerStore.js';
import { MemoryBrokerStore } from './memoryBrokerStore.js';
import { sourceKey, type AttemptLimit } from './pinAttempts.js';
import { canonicalAddress } from '../policy/canonicalHost.js';

export interface TokenGuessLimits {
  /** Wrong tokens from one address in a window. */
  readonly perAddress: AttemptLimit;
  /** Wrong tokens from one IPv6 /64 (all its addresses together) in a window. */
  readonly perNetwork: AttemptLimit;
}

/** How long a right token vouches for its IPv6 address against its /64's lock (a display reconnects far more often). */
export const VOUCHED_MS = 24 * 60 * 60_000;

/** Where a token is checked (the refusals metric's label). */
export type TokenCheck = 'admin' | 'metrics' | 'presenter' | 'display';

export type TokenVerdict =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly retryAfterMs: number };

/** How long a right token's reading of its address's counts stands in for the store. */
export const READING_MS = 1000;
/** Addresses whose counts this process keeps (wrong tokens in the window, the last reading): the oldest go first. */
const MAX_LOCAL_ADDRESSES = 10_000;

interface LocalCounts {
  /** Wrong tokens this process judged in the window (counted before any await). */
  wrong: number;
  windowEnds: number;
  /** The store's count for the address when a right token last read it, and when (none since a wrong one here). */
  reading?: { count: number; resetAt: number; at: number };
}

/** Store keys of one source's counters: its address, and when it is IPv6 its /64 and whether it is vouched for. */
export function tokenCounterKeys(address: string | undefined): { address: string; network?: string; vouched?: string } {
  const bare = address === undefined || address === '' ? 'unknown' : canonicalAddress(address).replace(/%.*$/, '');
  const keys = { address: `token-wrong:address:${bare}` };
  return isIP(bare) === 6 ? { ...keys, network: `token-wrong:network:${sourceKey(bare)}`, vouched: `token-right:address:${bare}` } : keys;
}

export class TokenGuesses {
  /** This process's own counters, for while the shared store cannot be reached. */
  private readonly fallback: BrokerStore;
  private readonly local = new Map<string, LocalCounts>();

  constructor(
    private readonly store: BrokerStore,
    private readonly limits: TokenGuessLimits,
    private readonly clock: () => number = Date.now,
    /** Told of every refusal (metrics). */
    private readonly onRefused: (check: TokenCheck) => void = () => undefined,
  ) {
    this.fallback = new MemoryBrokerStore(clock);
  }

  /**
   * One token check from `address` (the client's, trusted proxies resolved),
   * already judged `right` or not: allowed, or refused (the token right or
   * wrong alike) until the window ends. Call it in the tick that judged the
   * token, before awaiting anything else.
   */
  async check(address: string | undefined, check: TokenCheck, right: boolean): Promise<TokenVerdict> {
    const keys = tokenCounterKeys(address);
    const local = this.localCounts(keys.address);
    if (!right) {
      local.wrong += 1;
      // a reading from before a wrong token no longer stands for the store
      local.reading = undefined;
    }
    const now = this.clock();
    let verdict: TokenVerdict;
    if (local.wrong > this.limits.perAddress.max || (right && local.wrong >= this.limits.perAddress.max)) {
      verdict = { allowed: false, retryAfterMs: Math.max(0, local.windowEnds - now) };
      // still counted in the store, so the farm's budget knows
      if (!right) void this.counted(keys, right, local).catch(() => undefined);
    } else if (right && keys.network === undefined && local.reading !== undefined && now - local.reading.at < READING_MS) {
      verdict = local.reading.count >= this.limits.perAddress.max ? this.refused(local.reading) : { allowed: true };
    } else {
      verdict = await this.counted(keys, right, local);
    }
    if (!verdict.allowed) this.onRefused(check);
    return verdict;
  }

  private async counted(keys: ReturnType<typeof tokenCounterKeys>, right: boolean, local: LocalCounts): Promise<TokenVerdict> {
    try {
      return await this.count(this.store, keys, right, local);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      // Redis down or the primary silent: this process counts alone until the
      // store is back, so /metrics and the admin API stay usable, and throttled.
      return this.count(this.fallback, keys, right, local);
    }
  }

  private async count(store: BrokerStore, keys: ReturnType<typeof tokenCounterKeys>, right: boolean, local: LocalCounts): Promise<TokenVerdict> {
    const { limits } = this;
    // Counted against its /64 unless the /64 is locked and the address is vouched for.
    let network = keys.network;
    if (keys.network !== undefined && keys.vouched !== undefined) {
      const counted = await store.addToCounter(keys.network, 0, limits.perNetwork.windowMs);
      if (counted.count >= limits.perNetwork.max) {
        if ((await store.addToCounter(keys.vouched, 0, VOUCHED_MS)).count === 0) return this.refused(counted);
        network = undefined;
      }
    }
    const own = await store.addToCounter(keys.address, right ? 0 : 1, limits.perAddress.windowMs);
    if (right) local.reading = { count: own.count, resetAt: own.resetAt, at: this.clock() };
    if (right ? own.count >= limits.perAddress.max : own.count > limits.perAddress.max) return this.refused(own);
    if (right) {
      // A vouching that does not reach the store only leaves the address unvouched: never an error.
      if (keys.vouched !== undefined) await store.addToCounter(keys.vouched, 1, VOUCHED_MS).catch(() => undefined);
      return { allowed: true };
    }
    if (network !== undefined) {
      const counted = await store.addToCounter(network, 1, limits.perNetwork.windowMs);
      if (counted.count > limits.perNetwork.max) return this.refused(counted);
    }
    return { allowed: true };
  }

  /** This process's counts for an address, in the current window. */
  private localCounts(key: string): LocalCounts {
    const now = this.clock();
    let counts = this.local.get(key);
    if (counts === undefined || now >= counts.windowEnds) {
      counts = { wrong: 0, windowEnds: now + this.limits.perAddress.windowMs };
      if (this.local.size >= MAX_LOCAL_ADDRESSES) this.local.delete(this.local.keys().next().value as string);
    } else {
      // most recently used last, so the oldest go first
      this.local.delete(key);
    }
    this.local.set(key, counts);
    return counts;
  }

  private refused(counter: CounterState): TokenVerdict {
    return { allowed: false, retryAfterMs: Math.max(0, counter.resetAt - this.clock()) };
  }
}
