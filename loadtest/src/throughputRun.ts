// Single-session throughput on loopback: raw TLS from the echo host (the
// ceiling), through the Lanterna gateway, and through websockify.
import { randomBytes } from 'node:crypto';
import { startEchoHostProcess } from './echoHostProcess.js';
import { startGateway } from './gatewayInstance.js';
import { startWebsockify } from './websockifyInstance.js';
import { buildDisplayRoster } from './displayRoster.js';
import { planCpuLayout } from './cpuLayout.js';
import { measureThroughput } from './throughputClientProcess.js';
import { coresBetween, sampleProcessTree } from './processTreeUsage.js';
import type { ThroughputResult } from './runReport.js';
import { stopInReverse } from './stopInReverse.js';

const PDU_BYTES = 16_000;
const WARMUP_SECONDS = 1;

export async function runThroughput(options: { seconds: number; cpus: number }): Promise<ThroughputResult[]> {
  const layout = planCpuLayout(options.cpus, 1);
  const results: ThroughputResult[] = [];
  for (const path of ['raw-tls', 'lanterna', 'websockify'] as const) {
    const cleanups: (() => Promise<void>)[] = [];
    try {
      const echo = await startEchoHostProcess({
        handshake: path === 'websockify' ? 'tls-first' : 'x224-then-tls', sessionTickets: path !== 'websockify',
        streamPduBytes: PDU_BYTES, cpus: layout.loadCpus,
      });
      cleanups.push(() => echo.process.stop());
      const common = ['--pdu-bytes', String(PDU_BYTES), '--warmup-seconds', String(WARMUP_SECONDS), '--seconds', String(options.seconds)];
      let args: string[];
      let relayPids: number[] = [];
      if (path === 'raw-tls') {
        args = ['--path', 'raw-tls', '--port', String(echo.port), ...common];
      } else if (path === 'lanterna') {
        const [display] = buildDisplayRoster(1);
        if (!display) throw new Error('no display');
        const gateway = await startGateway({ displays: [display], echoPort: echo.port, workers: 1, cpus: layout.relayCpus, sessionSecret: randomBytes(32).toString('hex') });
        cleanups.push(() => gateway.stop());
        relayPids = [gateway.process.pid];
        args = ['--path', 'lanterna', '--url', gateway.baseUrl, '--display-id', display.id, '--display-token', display.token, ...common];
      } else {
        const websockify = await startWebsockify({ targetPort: echo.port, targetCertPem: echo.certificatePem, cpus: layout.relayCpus });
        cleanups.push(() => websockify.stop());
        relayPids = [websockify.process.pid];
        args = ['--path', 'websockify', '--url', websockify.url, ...common];
      }
      const before = relayPids.length > 0 ? sampleProcessTree(relayPids, false) : undefined;
      const measured = await measureThroughput(args, { cpus: layout.loadCpus, timeoutMs: (options.seconds + WARMUP_SECONDS + 30) * 1000 });
      const after = relayPids.length > 0 ? sampleProcessTree(relayPids, false) : undefined;
      results.push({
        path, pduBytes: PDU_BYTES, seconds: Math.round(measured.seconds * 10) / 10,
        megabytesPerSecond: Math.round(measured.megabytesPerSecond * 10) / 10,
        // includes the warm-up and connection set-up, so slightly below the true rate
        relayCpuCores: before && after ? Math.round(coresBetween(before, after) * 100) / 100 : undefined,
        error: undefined,
      });
    } catch (error) {
      results.push({ path, pduBytes: PDU_BYTES, seconds: 0, megabytesPerSecond: 0, relayCpuCores: undefined, error: error instanceof Error ? error.message.split('\n')[0] : String(error) });
    } finally {
      await stopInReverse(cleanups);
    }
  }
  return results;
}
