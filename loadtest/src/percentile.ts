// Nearest-rank percentile of a sorted list (the chaos run's reconnect times
// are a few hundred values: no histogram needed).

/** The value at percentile `p` (0..100) of an ascending list; undefined for an empty one. */
export function percentile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}
