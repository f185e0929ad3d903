// Name resolution with a deadline and an abort signal. The system resolver
// (getaddrinfo on libuv's thread pool) cannot be cancelled: when the deadline
// passes or the signal fires we stop waiting and say so, and the lookup ends
// on its own in the background. The lookup is injectable so a resolver that
// never answers can be tested without a network.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** Every address a name resolves to, in the resolver's order. */
export type LookupAll = (host: string) => Promise<string[]>;

export const systemLookup: LookupAll = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

export type ResolveFailure = 'timeout' | 'aborted' | 'not-found';

export class ResolveError extends Error {
  constructor(
    readonly kind: ResolveFailure,
    message: string,
    /** The resolver's error code (ENOTFOUND, EAI_AGAIN, …) when it gave one. */
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ResolveError';
  }
}

export interface ResolveOptions {
  deadlineMs: number;
  signal?: AbortSignal | undefined;
  lookup?: LookupAll | undefined;
}

/** An IP literal resolves to itself; a name goes to the resolver, bounded by the deadline and the signal. */
export function resolveHost(host: string, options: ResolveOptions): Promise<string[]> {
  if (isIP(host) !== 0) return Promise.resolve([host]);
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(new ResolveError('aborted', `resolving "${host}" was aborted`));
  const resolver = options.lookup ?? systemLookup;
  return new Promise((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => settle(new ResolveError('timeout', `the name "${host}" did not resolve within ${options.deadlineMs} ms`)), options.deadlineMs);
    const onAbort = (): void => settle(new ResolveError('aborted', `resolving "${host}" was aborted`));
    signal?.addEventListener('abort', onAbort, { once: true });
    function settle(outcome: string[] | ResolveError): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (outcome instanceof ResolveError) reject(outcome);
      else resolve(outcome);
    }
    resolver(host).then(
      (addresses) => settle(addresses.length > 0 ? addresses : new ResolveError('not-found', `the name "${host}" does not resolve`)),
      (error: unknown) => settle(new ResolveError('not-found', `the name "${host}" does not resolve`, (error as NodeJS.ErrnoException).code)),
    );
  });
}
