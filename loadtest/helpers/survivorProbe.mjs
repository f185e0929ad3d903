// Preloaded into a relay under load (`--relay-node-options "--import
// ./loadtest/helpers/survivorProbe.mjs"`, loadtest/README.md "Profiling"):
// after LANTERNA_SURVIVOR_DELAY_S (20) seconds it samples, for
// LANTERNA_SURVIVOR_SECONDS (10), the allocations that outlive the young
// generation (V8's sampling heap profiler keeping what minor GCs did not
// collect), and writes the profile to LANTERNA_SURVIVOR_FILE. What survives a
// scavenge is what makes scavenges long and fills the old space; the profile's
// allocation stacks say which code made it. Does nothing without the file variable.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';

const file = process.env.LANTERNA_SURVIVOR_FILE;
if (file) {
  const session = new Session();
  session.connect();
  const post = (method, params = {}) => new Promise((resolve, reject) => {
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result)));
  });
  const delayMs = Number(process.env.LANTERNA_SURVIVOR_DELAY_S ?? 20) * 1000;
  const spanMs = Number(process.env.LANTERNA_SURVIVOR_SECONDS ?? 10) * 1000;
  setTimeout(async () => {
    await post('HeapProfiler.enable');
    await post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
    setTimeout(async () => {
      const { profile } = await post('HeapProfiler.stopSampling');
      writeFileSync(file, JSON.stringify(profile));
    }, spanMs).unref();
  }, delayMs).unref();
}
