// The one limiter for every secret a client shows the gateway (the admin
// token on the admin API, on /metrics and as the presenter API's shortcut,
// the metrics token, display tokens on the control socket), over the broker
// store's fixed-window counters like the wrong-PIN limits (pinAttempts.ts):
// so every worker, and every gateway sharing Redis, counts one budget.
//
// Keys: the exact address, and for IPv6 also its /64 (a host picks addresses
// from a whole /64 at will). Every check first adds one to the counts and is
// judged on them, so a burst of parallel guesses cannot slip in before the
// first is counted; a right token gives its count back. A source past its
// limit is refused even with the right token until the window ends: otherwise
// the refusal itself would tell a guesser nothing and the oracle would stay.
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

export type TokenAttempt =
  /** Compare the token, then `settle` with whether it was right. */
  | { readonly allowed: true; settle(right: boolean): Promise<void> }
  | { readonly allowed: false; readonly retryAfterMs: number };

/** Store keys of one source's counters: its address, and when it is IPv6 its /64 and whether it is vouched for. */
export function tokenCounterKeys(address: string | undefined): { address: string; network?: string; vouched?: string } {
  const bare = address === undefined || address === '' ? 'unknown' : canonicalAddress(address).replace(/%.*$/, '');
  const keys = { address: `token-wrong:address:${bare}` };
  return isIP(bare) === 6 ? { ...keys, network: `token-wrong:network:${sourceKey(bare)}`, vouched: `token-right:address:${bare}` } : keys;
}

export class TokenGuesses {
  /** This process's own counters, for while the shared store cannot be reached. */
  private readonly local: BrokerStore;

  constructor(
    private readonly store: BrokerStore,
    private readonly limits: TokenGuessLimits,
    private readonly clock: () => number = Date.now,
    /** Told of every refusal (metrics). */
    private readonly onRefused: (check: TokenCheck) => void = () => undefined,
  ) {
    this.local = new MemoryBrokerStore(clock);
  }

  /** Counts one token check from `address` (the client's, trusted proxies resolved), or refuses it. */
  async attempt(address: string | undefined, check: TokenCheck): Promise<TokenAttempt> {
    let attempt: TokenAttempt;
    try {
      attempt = await this.count(this.store, address);
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      // Redis down or the primary silent: this process counts alone until the
      // store is back, so /metrics and the admin API stay usable, and throttled.
      attempt = await this.count(this.local, address);
    }
    if (!attempt.allowed) this.onRefused(check);
    return attempt;
  }

  private async count(store: BrokerStore, address: string | undefined): Promise<TokenAttempt> {
    const { limits } = this;
    const keys = tokenCounterKeys(address);
    // Counted against its /64 unless the /64 is locked and the address is vouched for.
    let network = keys.network;
    if (keys.network !== undefined && keys.vouched !== undefined) {
      const counted = await store.addToCounter(keys.network, 0, limits.perNetwork.windowMs);
      if (counted.count >= limits.perNetwork.max) {
        if ((await store.addToCounter(keys.vouched, 0, VOUCHED_MS)).count === 0) return this.refused(counted);
        network = undefined;
      }
    }
    const own = await store.addToCounter(keys.address, 1, limits.perAddress.windowMs);
    if (own.count > limits.perAddress.max) return this.refused(own);
    if (network !== undefined) {
      const counted = await store.addToCounter(network, 1, limits.perNetwork.windowMs);
      if (counted.count > limits.perNetwork.max) return this.refused(counted);
    }
    return {
      allowed: true,
      settle: async (right) => {
        if (!right) return;
        // A give-back that does not reach the store leaves one count too many: the safe side, so never an error.
        await Promise.all([
          store.addToCounter(keys.address, -1, limits.perAddress.windowMs),
          network === undefined ? undefined : store.addToCounter(network, -1, limits.perNetwork.windowMs),
          keys.vouched === undefined ? undefined : store.addToCounter(keys.vouched, 1, VOUCHED_MS),
        ]).catch(() => undefined);
      },
    };
  }

  private refused(counter: CounterState): TokenAttempt {
    return { allowed: false, retryAfterMs: Math.max(0, counter.resetAt - this.clock()) };
  }
}
