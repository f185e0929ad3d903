// Reads the few series the soak watches out of Prometheus text exposition
// (the gateway's /metrics): names with optional labels, one value each.

export type MetricSamples = Map<string, number>;

/** `name{labels} value` lines → "name{labels}" → value; comments and unparsable lines are skipped. */
export function parsePrometheusText(text: string): MetricSamples {
  const samples: MetricSamples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?)\s+(\S+)/.exec(line);
    if (!match?.[1] || match[2] === undefined) continue;
    const value = Number(match[2]);
    if (!Number.isNaN(value)) samples.set(match[1], value);
  }
  return samples;
}

/** Every sample of `name` by the value of one label (e.g. nodejs_active_resources by type). */
export function byLabel(samples: MetricSamples, name: string, label: string): Record<string, number> {
  const out: Record<string, number> = {};
  const pattern = new RegExp(`^${name}\\{(?:.*,)?${label}="([^"]*)"`);
  for (const [series, value] of samples) {
    const match = pattern.exec(series);
    if (match?.[1] !== undefined) out[match[1]] = (out[match[1]] ?? 0) + value;
  }
  return out;
}
