// Runs one capacity case end to end: echo host, relay (gateway, gateway farm
// behind HAProxy, or websockify), generators, the ramp; stops everything it
// started even when a step fails.
import { randomBytes } from 'node:crypto';
import { isGatewayRelay, type CapacityCase } from './scenarios.js';
import { planCpuLayout, type CpuLayout } from './cpuLayout.js';
import { resolveEchoHostKind, startEchoHostProcess, type EchoHostKind } from './echoHostProcess.js';
import { buildDisplayRoster } from './displayRoster.js';
import { startGateway, type GatewayInstance } from './gatewayInstance.js';
import { startHaproxy, type HaproxyInstance } from './haproxyInstance.js';
import { startWebsockify, type WebsockifyInstance } from './websockifyInstance.js';
import { GeneratorPool } from './generatorPool.js';
import { runRamp, type StepResult } from './capacityRamp.js';
import { judgeCapacity, type Capacity } from './capacityVerdict.js';
import type { RelayTarget } from './generatorProtocol.js';
import { startPipeRelayProcess } from './pipeRelayInstance.js';
import { resolveGeneratorKind, type GeneratorKind } from './goGenerator.js';
import { generateLoopbackCertificate } from './selfSignedCertificate.js';
import { stopInReverse } from './stopInReverse.js';

export interface RunSettings {
  cpus: number;
  generators: number;
  budgetMs: number;
  stopP99Ms: number;
  settleSeconds: number;
  /** No new step starts after this many seconds into a case. */
  caseDeadlineSeconds: number;
  saturation: { cpuCores: number; loopDelayMs: number };
  connectConcurrency: number;
  connectTimeoutMs: number;
  confirmHolds: number;
  /** Which generator offers the load (goGenerator.ts); `auto` (the default) is Go when it is built, else Node. */
  generator?: GeneratorKind | 'auto' | undefined;
  /** Which echo host answers (echoHostProcess.ts); `auto` (the default) is Go when it is built, else Node. */
  echoHost?: EchoHostKind | 'auto' | undefined;
  /** Node options for the relay's processes (gateway, pipe), e.g. --cpu-prof for a profile (loadtest/README.md, "Profiling"). */
  relayNodeOptions?: string[] | undefined;
  /**
   * `--kiosk-tls`: the gateway's kiosk listener and the pipe run TLS with a
   * self-signed certificate made for the case, and the generators speak
   * wss:// to them, trusting only that certificate (websockify stays ws://).
   */
  kioskTls?: boolean | undefined;
}

/** What the kiosk leg spoke: ws:// or wss:// (undefined for `direct`, which has no WebSocket). */
export type KioskScheme = 'ws' | 'wss';

export interface CaseResult {
  case: CapacityCase;
  layout: CpuLayout;
  steps: StepResult[];
  capacity: Capacity;
  error: string | undefined;
  durationSeconds: number;
  haproxyConfig: string | undefined;
  /** The generator that offered the load. */
  generator: GeneratorKind;
  /** The echo host that answered it. */
  echoHost: EchoHostKind;
  /** The scheme of the URL the generators were given, read from the target rather than from the setting. */
  kioskScheme: KioskScheme | undefined;
}

function schemeOf(target: RelayTarget | undefined): KioskScheme | undefined {
  if (target === undefined || target.kind === 'direct') return undefined;
  const protocol = new URL(target.kind === 'lanterna' ? target.baseUrl : target.url).protocol;
  return protocol === 'wss:' ? 'wss' : 'ws';
}

export interface CaseProgress {
  onStep?: (step: StepResult, index: number) => void;
  onPhase?: (phase: string) => void;
}

export async function runCapacityCase(testCase: CapacityCase, settings: RunSettings, progress: CaseProgress = {}): Promise<CaseResult> {
  const started = performance.now();
  const relayCores = isGatewayRelay(testCase.relay) ? testCase.workers * testCase.instances : 1;
  const layout = planCpuLayout(settings.cpus, relayCores, testCase.instances);
  const cleanups: (() => Promise<void>)[] = [];
  let steps: StepResult[] = [];
  let error: string | undefined;
  let haproxy: HaproxyInstance | undefined;
  let generator: GeneratorKind = 'node';
  let echoHost: EchoHostKind = 'node';
  let target: RelayTarget | undefined;
  try {
    generator = resolveGeneratorKind(settings.generator ?? 'auto');
    echoHost = resolveEchoHostKind(settings.echoHost ?? 'auto');
    progress.onPhase?.('starting echo host');
    const echo = await startEchoHostProcess({
      kind: echoHost,
      // websockify and the pipes carry no plaintext preamble: TLS from the first byte
      handshake: testCase.relay === 'websockify' || testCase.relay === 'pipe' || testCase.relay === 'pipe-go' ? 'tls-first' : 'x224-then-tls',
      // websockify's TLS client hangs on TLS 1.3 session tickets (NOTES.md)
      sessionTickets: testCase.relay !== 'websockify',
      replyBytes: testCase.pattern.downBytes === testCase.pattern.upBytes ? undefined : testCase.pattern.downBytes,
      cpus: layout.loadCpus,
    });
    cleanups.push(() => echo.process.stop());
    const displays = buildDisplayRoster(testCase.ramp.max);
    const kioskTls = settings.kioskTls === true && (isGatewayRelay(testCase.relay) || testCase.relay === 'pipe' || testCase.relay === 'pipe-go')
      ? await generateLoopbackCertificate('lanterna-loadtest-kiosk-leg')
      : undefined;

    let relayPids: () => number[];
    if (isGatewayRelay(testCase.relay)) {
      progress.onPhase?.('starting gateway');
      const sessionSecret = randomBytes(32).toString('hex');
      const gateways: GatewayInstance[] = [];
      for (let index = 0; index < testCase.instances; index += 1) {
        const gateway = await startGateway({ displays, echoPort: echo.port, workers: testCase.workers, cpus: layout.instanceCpus[index], sessionSecret, nodeOptions: settings.relayNodeOptions, tls: kioskTls,
          engine: testCase.relay === 'lanterna-native' ? 'native' : 'node' });
        cleanups.push(() => gateway.stop());
        gateways.push(gateway);
      }
      relayPids = () => gateways.map((gateway) => gateway.process.pid);
      const farm = testCase.scenario === 'farm';
      if (farm) {
        progress.onPhase?.('starting haproxy');
        haproxy = await startHaproxy(gateways.map((gateway) => gateway.port), testCase.ramp.max * 2 + 100, layout.loadCpus);
        const balancer = haproxy;
        cleanups.push(() => balancer.stop());
      }
      // HAProxy (mode tcp) passes TLS through to instances that share the certificate
      const baseUrl = haproxy === undefined ? gateways[0]?.baseUrl ?? '' : haproxy.baseUrl.replace(/^ws:/, kioskTls === undefined ? 'ws:' : 'wss:');
      target = { kind: 'lanterna', baseUrl, distinctSourceAddresses: farm, caPem: kioskTls?.certPem };
    } else if (testCase.relay === 'direct') {
      relayPids = () => [];
      target = { kind: 'direct', host: '127.0.0.1', port: echo.port, distinctSourceAddresses: false };
    } else if (testCase.relay === 'pipe' || testCase.relay === 'pipe-go') {
      const implementation = testCase.relay === 'pipe-go' ? 'go' : 'node';
      progress.onPhase?.(`starting ${testCase.relay} relay`);
      const pipe = await startPipeRelayProcess({ implementation, targetPort: echo.port, cpus: layout.relayCpus, nodeOptions: settings.relayNodeOptions, tls: kioskTls });
      cleanups.push(() => pipe.stop());
      relayPids = () => [pipe.process.pid];
      target = { kind: testCase.relay, url: pipe.url, distinctSourceAddresses: false, caPem: pipe.caPem };
    } else {
      progress.onPhase?.('starting websockify');
      const websockify: WebsockifyInstance = await startWebsockify({ targetPort: echo.port, targetCertPem: echo.certificatePem, cpus: layout.relayCpus });
      cleanups.push(() => websockify.stop());
      relayPids = () => [websockify.process.pid];
      target = { kind: 'websockify', url: websockify.url, distinctSourceAddresses: false };
    }

    progress.onPhase?.('starting generators');
    const pool = await GeneratorPool.start(settings.generators, layout.loadCpus, generator);
    cleanups.push(() => pool.stop());
    pool.configure(target, testCase.pattern, settings.connectConcurrency, settings.connectTimeoutMs);
    const balancerPids = haproxy ? ((instance: HaproxyInstance) => () => [instance.process.pid])(haproxy) : undefined;
    steps = await runRamp({
      pool, displays, relayPids, echoPids: () => [echo.process.pid],
      ...(balancerPids ? { balancerPids } : {}),
      ...(progress.onStep ? { onStep: progress.onStep } : {}),
      ...(progress.onPhase ? { onPhase: progress.onPhase } : {}),
    }, {
      stepConnections: testCase.ramp.step,
      maxConnections: testCase.ramp.max,
      holdSeconds: testCase.ramp.holdSeconds,
      settleSeconds: settings.settleSeconds,
      budgetMs: settings.budgetMs,
      stopP99Ms: settings.stopP99Ms,
      deadline: Date.now() + settings.caseDeadlineSeconds * 1000,
      saturation: settings.saturation,
      connectTimeoutMs: settings.connectTimeoutMs,
      confirmHolds: settings.confirmHolds,
      dedicatedLoadCpus: layout.shared ? undefined : layout.loadCpus.split(',').map(Number),
    });
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  } finally {
    progress.onPhase?.('stopping');
    await stopInReverse(cleanups);
  }
  const capacity = judgeCapacity(steps.map((step) => ({
    connections: step.connections, established: step.established, p99Ms: step.latency.p99Ms, meanMs: step.latency.meanMs,
    generatorSaturated: step.generatorSaturated, lostSessions: step.lostSessions,
  })), settings.budgetMs);
  return { case: testCase, layout, steps, capacity, error, durationSeconds: Math.round((performance.now() - started) / 100) / 10, haproxyConfig: haproxy?.config, generator, echoHost,
    kioskScheme: schemeOf(target) };
}
