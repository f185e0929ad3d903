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
// not spend its neighbours' /64 budget. The price: a host that rotates its
// addresses within a /64 shared with displays locks that /64's token checks
// for the rest of the window (README, "Security by default").
import { isIP } from 'node:net';
import type { BrokerStore, CounterState } from './brokerStore.js';
import { sourceKey, type AttemptLimit } from './pinAttempts.js';
import { canonicalAddress } from '../policy/canonicalHost.js';

export interface TokenGuessLimits {
  /** Wrong tokens from one address in a window. */
  readonly perAddress: AttemptLimit;
  /** Wrong tokens from one IPv6 /64 (all its addresses together) in a window. */
  readonly perNetwork: AttemptLimit;
}

export type TokenAttempt =
  /** Compare the token, then `settle` with whether it was right. */
  | { readonly allowed: true; settle(right: boolean): Promise<void> }
  | { readonly allowed: false; readonly retryAfterMs: number };

/** Store keys of one source's counters: its address, and its /64 when it is IPv6. */
export function tokenCounterKeys(address: string | undefined): { address: string; network?: string } {
  const bare = address === undefined || address === '' ? 'unknown' : canonicalAddress(address).replace(/%.*$/, '');
  const keys = { address: `token-wrong:address:${bare}` };
  return isIP(bare) === 6 ? { ...keys, network: `token-wrong:network:${sourceKey(bare)}` } : keys;
}

export class TokenGuesses {
  constructor(
    private readonly store: BrokerStore,
    private readonly limits: TokenGuessLimits,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Counts one token check from `address` (the client's, trusted proxies resolved), or refuses it. */
  async attempt(address: string | undefined): Promise<TokenAttempt> {
    const { store, limits } = this;
    const keys = tokenCounterKeys(address);
    if (keys.network !== undefined) {
      const network = await store.addToCounter(keys.network, 0, limits.perNetwork.windowMs);
      if (network.count >= limits.perNetwork.max) return this.refused(network);
    }
    const own = await store.addToCounter(keys.address, 1, limits.perAddress.windowMs);
    if (own.count > limits.perAddress.max) return this.refused(own);
    if (keys.network !== undefined) {
      const network = await store.addToCounter(keys.network, 1, limits.perNetwork.windowMs);
      if (network.count > limits.perNetwork.max) return this.refused(network);
    }
    return {
      allowed: true,
      settle: async (right) => {
        if (!right) return;
        // A give-back that does not reach the store leaves one count too many: the safe side, so never an error.
        await Promise.all([
          store.addToCounter(keys.address, -1, limits.perAddress.windowMs),
          keys.network === undefined ? undefined : store.addToCounter(keys.network, -1, limits.perNetwork.windowMs),
        ]).catch(() => undefined);
      },
    };
  }

  private refused(counter: CounterState): TokenAttempt {
    return { allowed: false, retryAfterMs: Math.max(0, counter.resetAt - this.clock()) };
  }
}
