// Projection set-up time: from the admin API's request to the display's
// `secured` (the server leg is up and the first RDP bytes may flow), through
// the real in-process gateway with the embedded broker store and with a real
// Redis, alternating rounds so both see the same machine load. The RDP server
// is the test kit's echo peer (TLS, no RDP work): what is measured is the
// broker, the sockets and the handshake.
//   node gateway/bench/dist/projectionSetupBench.js [rounds]
import { startFaultyPeer, startRedis, startTestGateway, connectControl, openData, waitFor, type TestGateway } from '@lanterna/testkit';
import { buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';

const rounds = Number(process.argv[2] ?? 40);
const TOKEN = 'bench-display-token-0123456789';

async function once(gateway: TestGateway, control: Awaited<ReturnType<typeof connectControl>>, port: number): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, {
    method: 'POST', headers: { authorization: `Bearer ${gateway.adminToken}` },
    body: JSON.stringify({ displayId: 'room', target: { host: '127.0.0.1', port } }),
  });
  if (response.status !== 202) throw new Error(`projection answered ${response.status}: ${await response.text()}`);
  const message = await control.next('project');
  const data = await openData(gateway.url, String(message.sessionId), String(message.sessionToken));
  data.socket.send(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }));
  await data.queue.nextText('secured');
  const took = performance.now() - started;
  data.socket.send(JSON.stringify({ type: 'close' }));
  await data.queue.closed();
  // The display is free again once the broker has recorded the end.
  await waitFor('display free', async () => {
    const { displays } = await (await fetch(`${gateway.httpUrl}/v1/admin/displays`, { headers: { authorization: `Bearer ${gateway.adminToken}` } })).json() as { displays: { sessionId?: string }[] };
    return displays[0]?.sessionId === undefined;
  }, 10_000, 100);
  return took;
}

function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return `median ${at(0.5).toFixed(1)} ms, p90 ${at(0.9).toFixed(1)} ms, min ${at(0).toFixed(1)} ms, max ${at(1).toFixed(1)} ms (n=${values.length})`;
}

const peer = await startFaultyPeer('echo');
const redis = await startRedis();
const config = (broker: Record<string, unknown>): Record<string, unknown> => ({
  displays: [{ id: 'room', token: TOKEN }], certificates: { mode: 'insecure' }, broker,
  // Many requests from one address: not what the admin API's limits are for.
  admin: { requestsPerSecond: 10_000, burst: 10_000 },
});
const embedded = await startTestGateway(config({ store: 'embedded' }));
const shared = await startTestGateway(config({ store: 'redis', redisUrl: redis.url }));
const setups = [
  { name: 'embedded store', gateway: embedded, control: await connectControl(embedded.url, 'room', TOKEN), times: [] as number[] },
  { name: 'redis store', gateway: shared, control: await connectControl(shared.url, 'room', TOKEN), times: [] as number[] },
];
for (const setup of setups) await once(setup.gateway, setup.control, peer.port); // warm-up
for (let i = 0; i < rounds; i += 1) {
  for (const setup of i % 2 === 0 ? setups : [...setups].reverse()) setup.times.push(await once(setup.gateway, setup.control, peer.port));
}
for (const setup of setups) console.log(`${setup.name}: request → secured ${summary(setup.times)}`);
for (const setup of setups) { setup.control.close(); await setup.gateway.close(); }
await redis.close();
await peer.close();
