// A run starts its parts one after another and stops them last-first; one
// that fails to stop must not keep the others running.

/** Runs the cleanups newest first, each whatever the previous one did. */
export async function stopInReverse(cleanups: readonly (() => unknown)[]): Promise<void> {
  for (const cleanup of [...cleanups].reverse()) {
    try { await cleanup(); } catch { /* keep stopping the rest */ }
  }
}
