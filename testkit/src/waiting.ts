// Tests wait on conditions, never for fixed times: a loaded machine makes any
// fixed sleep either too short (a flake) or too long (a slow suite).

/**
 * Resolves once `condition` holds, checking every `intervalMs` (a few ms by
 * default; more for conditions that cost a request); rejects at the deadline
 * naming what it waited for.
 */
export async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 20_000, intervalMs = 10): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The promise's value, or a rejection naming what did not happen within the deadline. */
export async function withDeadline<T>(promise: Promise<T>, what: string, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: not within ${timeoutMs} ms`)), timeoutMs); });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
