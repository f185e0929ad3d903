// The long-fat-network case: echo host (streaming) in the "far" namespace,
// client and gateway in the "near" one, 250 ms RTT between them. For each
// socket buffer ceiling, one session's throughput raw and through the gateway:
// TCP's window, not the relay, sets the rate (throughput ≈ window / RTT).
import { randomBytes } from 'node:crypto';
import { createNamespacePair } from './networkNamespaces.js';
import { startEchoHostProcess } from './echoHostProcess.js';
import { startGateway } from './gatewayInstance.js';
import { buildDisplayRoster } from './displayRoster.js';
import { measureThroughput } from './throughputClientProcess.js';
import type { LongFatNetworkResult } from './runReport.js';
import { stopInReverse } from './stopInReverse.js';

const PDU_BYTES = 16_000;

export async function runLongFatNetwork(options: { bufferBytes: number[]; seconds: number; rttMs: number }): Promise<LongFatNetworkResult[]> {
  const results: LongFatNetworkResult[] = [];
  let pair;
  try {
    pair = await createNamespacePair(options.rttMs / 2);
  } catch (error) {
    return [{ rttMs: options.rttMs, bufferBytes: 0, path: 'raw-tls', megabytesPerSecond: 0, windowLimitMegabytesPerSecond: 0, error: error instanceof Error ? error.message : String(error) }];
  }
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const echo = await startEchoHostProcess({ handshake: 'x224-then-tls', sessionTickets: true, streamPduBytes: PDU_BYTES, host: pair.farAddress, prefix: pair.exec(pair.far) });
    cleanups.push(() => echo.process.stop());
    const [display] = buildDisplayRoster(1);
    if (!display) throw new Error('no display');
    const gateway = await startGateway({
      displays: [display], echoPort: echo.port, echoHost: pair.farAddress, allowNetworks: ['10.213.0.0/30'],
      workers: 1, sessionSecret: randomBytes(32).toString('hex'), prefix: pair.exec(pair.near),
    });
    cleanups.push(() => gateway.stop());
    // slow start needs ~log2(window / 14 KB) round trips of 250 ms before the window is open
    const warmup = String(Math.max(3, Math.ceil(options.rttMs * 14 / 1000)));
    for (const bufferBytes of options.bufferBytes) {
      pair.setSocketBufferMax(bufferBytes);
      const windowLimit = bufferBytes / (options.rttMs / 1000) / 1e6;
      for (const path of ['raw-tls', 'lanterna'] as const) {
        const args = path === 'raw-tls'
          ? ['--path', 'raw-tls', '--host', pair.farAddress, '--port', String(echo.port)]
          : ['--path', 'lanterna', '--url', gateway.baseUrl, '--display-id', display.id, '--display-token', display.token];
        try {
          const measured = await measureThroughput([...args, '--pdu-bytes', String(PDU_BYTES), '--warmup-seconds', warmup, '--seconds', String(options.seconds)],
            { prefix: pair.exec(pair.near), timeoutMs: (Number(warmup) + options.seconds + 30) * 1000 });
          results.push({ rttMs: options.rttMs, bufferBytes, path, megabytesPerSecond: Math.round(measured.megabytesPerSecond * 100) / 100, windowLimitMegabytesPerSecond: Math.round(windowLimit * 100) / 100, error: undefined });
        } catch (error) {
          results.push({ rttMs: options.rttMs, bufferBytes, path, megabytesPerSecond: 0, windowLimitMegabytesPerSecond: Math.round(windowLimit * 100) / 100, error: error instanceof Error ? error.message.split('\n')[0] : String(error) });
        }
      }
    }
  } catch (error) {
    results.push({ rttMs: options.rttMs, bufferBytes: 0, path: 'raw-tls', megabytesPerSecond: 0, windowLimitMegabytesPerSecond: 0, error: error instanceof Error ? error.message.split('\n')[0] : String(error) });
  } finally {
    await stopInReverse(cleanups);
    await pair.remove();
  }
  return results;
}
