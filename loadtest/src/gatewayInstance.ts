// Starts one Lanterna gateway (gateway/dist/cli.js) for a run: a generated
// config with one display per simulated kiosk, each auto-projecting to the
// echo host, ws:// on loopback (wss:// with a given certificate: `--kiosk-tls`),
// and readiness from GET /readyz.
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManagedProcess } from './managedProcess.js';
import { pickFreePort } from './tcpPorts.js';
import { waitForHttpOk, waitFor } from './httpReadiness.js';
import type { DisplayIdentity } from './displayRoster.js';
import type { CertificatePair } from './selfSignedCertificate.js';

/**
 * The gateway the run starts: this checkout's, or the build named by
 * LANTERNA_GATEWAY_CLI (a copy of another build's dist/cli.js, for A/B runs
 * of a change: loadtest/README.md, "Profiling").
 */
export const GATEWAY_CLI = process.env['LANTERNA_GATEWAY_CLI'] ?? fileURLToPath(import.meta.resolve('@lanterna/gateway/cli'));

export interface GatewayInstanceOptions {
  displays: readonly DisplayIdentity[];
  echoPort: number;
  /**
   * A second echo host for some displays (the chaos run's probe displays): a
   * real presenter's computer serves one session, so a probe whose server
   * also answered the reconnect storm's handshakes would measure the load
   * side's stall, not the gateway's.
   */
  probeServer?: { port: number; ids: ReadonlySet<string> } | undefined;
  workers: number;
  cpus?: string | undefined;
  port?: number;
  /** Shared by every instance of a farm so a token issued by one verifies on any. */
  sessionSecret: string;
  /** For the admin API and /metrics (the chaos run asks each instance which displays it holds; the soak reads metrics). */
  adminToken?: string | undefined;
  /** Counts every timer, unref'd ones too (lanterna_debug_timers): for the soak, it costs a little on every async resource. */
  timerCensus?: boolean | undefined;
  /** Where the echo host listens (default 127.0.0.1) and the policy networks that allow it. */
  echoHost?: string;
  allowNetworks?: string[];
  /** Wraps the command, e.g. ['ip', 'netns', 'exec', 'ns']: readiness then comes from the log, not /readyz. */
  prefix?: string[];
  /** Node options for the gateway process (its cluster workers inherit them): profiling flags. */
  nodeOptions?: string[] | undefined;
  /**
   * Serve the kiosk listener over TLS with this certificate (`listen.tls`,
   * `tls.certFile`/`keyFile`), as a deployed gateway does: wss:// and https://.
   * One pair for every instance of a farm, so one trusted certificate covers them.
   */
  tls?: CertificatePair | undefined;
  /** The gateway's relay engine (`relay.engine`): Node's, or the native data plane's; unset, the gateway's default. */
  engine?: 'node' | 'native' | undefined;
}

export interface GatewayInstance {
  readonly port: number;
  readonly baseUrl: string;
  /** http://host:port of the same listener, for the admin API and /metrics. */
  readonly httpUrl: string;
  /** The certificate clients trust for wss:// and https:// (undefined: plain ws://). */
  readonly caPem: string | undefined;
  readonly process: ManagedProcess;
  stop(): Promise<void>;
}

export function gatewayConfig(options: GatewayInstanceOptions, port: number, stateDir: string): Record<string, unknown> {
  return {
    listen: { host: '127.0.0.1', port, tls: options.tls !== undefined },
    ...(options.tls === undefined ? {} : { tls: { certFile: join(stateDir, CERT_FILE), keyFile: join(stateDir, KEY_FILE) } }),
    stateDir,
    workers: options.workers,
    sessionSecret: options.sessionSecret,
    ...(options.adminToken === undefined ? {} : { adminToken: options.adminToken }),
    ...(options.timerCensus === true ? { diagnostics: { timerCensus: true } } : {}),
    // info for the "listening" line; the gateway logs per session, not per PDU
    logLevel: 'info',
    displays: options.displays.map((display) => ({
      id: display.id,
      token: display.token,
      autoProject: {
        host: options.echoHost ?? '127.0.0.1',
        port: options.probeServer?.ids.has(display.id) === true ? options.probeServer.port : options.echoPort,
        name: 'loadtest echo host',
      },
    })),
    policy: {
      allowNetworks: options.allowNetworks ?? ['127.0.0.0/8'],
      allowPorts: [String(options.echoPort), ...(options.probeServer ? [String(options.probeServer.port)] : [])],
    },
    certificates: { mode: 'first-use' },
    // unnamed: the gateway's own default (auto), or LANTERNA_RELAY_ENGINE
    ...(options.engine === undefined ? {} : { relay: { engine: options.engine } }),
    // Every simulated display connects from loopback (or one HAProxy address):
    // the per-address and pending budgets meant for a LAN would cap the ramp.
    limits: { perAddressConnections: 20000, perNetworkConnections: 20000, maxPendingSockets: 10000, perSourcePendingSockets: 10000, maxSessions: 10000 },
    // The token-guess budget stays the default: right tokens only read it, so a reconnect storm from one address passes.
  };
}

const CERT_FILE = 'kiosk-cert.pem';
const KEY_FILE = 'kiosk-key.pem';

export async function startGateway(options: GatewayInstanceOptions): Promise<GatewayInstance> {
  const stateDir = await mkdtemp(join(tmpdir(), 'lanterna-loadtest-gw-'));
  const port = options.port ?? await pickFreePort();
  const configFile = join(stateDir, 'gateway.json');
  if (options.tls !== undefined) {
    await writeFile(join(stateDir, CERT_FILE), options.tls.certPem);
    await writeFile(join(stateDir, KEY_FILE), options.tls.keyPem, { mode: 0o600 });
  }
  await writeFile(configFile, JSON.stringify(gatewayConfig(options, port, stateDir)));
  const secure = options.tls !== undefined;
  const httpUrl = `${secure ? 'https' : 'http'}://127.0.0.1:${port}`;
  const trust = { caPem: options.tls?.certPem };
  const prefix = options.prefix ?? [];
  let heardListening = false;
  const child = new ManagedProcess('gateway', {
    command: prefix[0] ?? process.execPath,
    args: [...prefix.slice(1), ...(prefix.length > 0 ? [process.execPath] : []), ...(options.nodeOptions ?? []), GATEWAY_CLI, '--config', configFile],
    cpus: options.cpus,
    onLine: (line) => { if (line.includes('"msg":"listening"')) heardListening = true; },
  });
  const stop = async (): Promise<void> => {
    await child.stop(10_000);
    await rm(stateDir, { recursive: true, force: true });
  };
  try {
    if (prefix.length === 0) await waitForHttpOk(`${httpUrl}/readyz`, 30_000, () => child.isAlive(), trust);
    else await waitFor(() => heardListening, 30_000, () => child.isAlive());
  } catch (error) {
    await stop();
    throw new Error(`gateway did not become ready: ${error instanceof Error ? error.message : String(error)}\n${child.recentOutput()}`);
  }
  return { port, baseUrl: `${secure ? 'wss' : 'ws'}://127.0.0.1:${port}`, httpUrl, caPem: trust.caPem, process: child, stop };
}
