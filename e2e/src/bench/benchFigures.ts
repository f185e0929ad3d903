// Small figures the kiosk benchmarks print: quantiles and means of samples.

/** The q-quantile (nearest rank) of `values`, or NaN when there are none. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

export function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** "median / p95" with one decimal, "—" when there are no samples. */
export function medianP95(values: readonly number[]): string {
  if (values.length === 0) return '—';
  return `${quantile(values, 0.5).toFixed(1)} / ${quantile(values, 0.95).toFixed(1)}`;
}
