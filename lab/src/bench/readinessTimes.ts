// How long each lab component takes to become ready, over several rounds:
// node lab/dist/bench/readinessTimes.js [rounds]
import { Lab } from '../lab.js';
import { probeNative } from '../client/probeNative.js';

const rounds = Number(process.argv[2] ?? 5);
const samples = new Map<string, number[]>();

async function measure<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  const list = samples.get(label) ?? [];
  list.push(performance.now() - started);
  samples.set(label, list);
  return result;
}

for (let round = 0; round < rounds; round += 1) {
  const lab = await Lab.create({ name: 'readiness-bench' });
  try {
    const display = await measure('Xvfb + openbox (1920x1080)', () => lab.display());
    await measure('reference scene', () => display.showScene('reference'));
    await measure('terminal scene', () => display.showScene('terminal'));
    await measure('animation scene (chromium)', () => display.showScene('animation'));
    await display.showScene('reference');
    const tls = await measure('shadow tls', () => lab.shadowServer({ display, auth: 'tls' }));
    await measure('probeNative shadow tls (auth-only)', () => probeNative(tls));
    const nla = await measure('shadow nla', () => lab.shadowServer({ display, auth: 'nla' }));
    await measure('probeNative shadow nla (auth-only)', () => probeNative(nla));
    const xrdp = await measure('xrdp + sesman (incl. user, certificate)', () => lab.xrdp({ scene: 'reference' }));
    await measure('xrdp login until session X answers', () =>
      probeNative({ ...xrdp, authOnly: false, display: display.name, sessionUp: xrdp.sessionUp, timeoutMs: 30_000 }));
    await measure('lab.close()', () => lab.close());
  } finally {
    await lab.close();
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
process.stdout.write(`| component | median ms | min | max | rounds |\n|---|---|---|---|---|\n`);
for (const [label, values] of samples) {
  process.stdout.write(`| ${label} | ${median(values).toFixed(0)} | ${Math.min(...values).toFixed(0)} | ${Math.max(...values).toFixed(0)} | ${values.length} |\n`);
}
