// Runs the echo host as its own process and waits for its "listening" line:
// the Node one (echoHostMain.ts) or the Go one (loadtest/generator-go/cmd/echo-host),
// which take the same arguments and print the same line.
import { fileURLToPath } from 'node:url';
import { ManagedProcess } from './managedProcess.js';
import { goProgramPath, resolveImplementation, type Implementation } from './goPrograms.js';
import type { EchoHandshake } from './echoHost.js';

const ECHO_MAIN = fileURLToPath(new URL('./echoHostMain.js', import.meta.url));
export const GO_ECHO_HOST_BINARY = goProgramPath('lanterna-echo-host');

export type EchoHostKind = Implementation;

/**
 * `auto` is the Go echo host when it is built: it answers a KW v1 request for
 * a fraction of the Node one's CPU, and the echo host shares the load core
 * with the generator (loadtest/README.md, "Echo hosts"); otherwise the Node one.
 */
export function resolveEchoHostKind(requested: EchoHostKind | 'auto'): EchoHostKind {
  return resolveImplementation('echo host', GO_ECHO_HOST_BINARY, requested);
}

export interface EchoHostProcessOptions {
  /**
   * Which implementation (default node: the throughput, long-fat-network,
   * chaos and soak runs keep the one their published figures were taken with;
   * capacity cases choose with `--echo-host`).
   */
  kind?: EchoHostKind | undefined;
  handshake: EchoHandshake;
  sessionTickets: boolean;
  replyBytes?: number | undefined;
  sizedReplies?: boolean | undefined;
  streamPduBytes?: number | undefined;
  cpus?: string | undefined;
  /** Its niceness, instead of the run's. */
  niceness?: string | undefined;
  host?: string;
  /** Wraps the command, e.g. ['ip', 'netns', 'exec', 'ns'] to run it in a namespace. */
  prefix?: string[];
}

export interface EchoHostProcess { port: number; certificatePem: string; kind: EchoHostKind; process: ManagedProcess }

export async function startEchoHostProcess(options: EchoHostProcessOptions): Promise<EchoHostProcess> {
  const kind = options.kind ?? 'node';
  const command = kind === 'go' ? GO_ECHO_HOST_BINARY : process.execPath;
  const args = [...(kind === 'go' ? [] : [ECHO_MAIN]), '--handshake', options.handshake];
  if (!options.sessionTickets) args.push('--no-session-tickets');
  if (options.replyBytes !== undefined) args.push('--reply-bytes', String(options.replyBytes));
  if (options.sizedReplies === true) args.push('--sized-replies');
  if (options.streamPduBytes !== undefined) args.push('--stream-pdu-bytes', String(options.streamPduBytes));
  if (options.host !== undefined) args.push('--host', options.host);
  const prefix = options.prefix ?? [];
  let announce: (value: { port: number; certificatePem: string }) => void = () => undefined;
  const announced = new Promise<{ port: number; certificatePem: string }>((resolve) => { announce = resolve; });
  const child = new ManagedProcess('echo-host', {
    command: prefix[0] ?? command,
    args: prefix.length > 0 ? [...prefix.slice(1), command, ...args] : args,
    cpus: options.cpus,
    niceness: options.niceness,
    // shares its CPU with the Go generator: both under SCHED_BATCH (managedProcess.ts)
    batchScheduling: kind === 'go',
    onLine: (line) => {
      if (!line.startsWith('{')) return;
      const parsed = JSON.parse(line) as { msg?: string; port?: number; certificatePem?: string };
      if (parsed.msg === 'listening' && parsed.port !== undefined && parsed.certificatePem !== undefined) {
        announce({ port: parsed.port, certificatePem: parsed.certificatePem });
      }
    },
  });
  const timeout = new Promise<never>((_resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`echo host did not listen within 20 s\n${child.recentOutput()}`)), 20_000);
    void announced.then(() => clearTimeout(timer));
    child.child.once('exit', () => { clearTimeout(timer); reject(new Error(`echo host exited\n${child.recentOutput()}`)); });
  });
  timeout.catch(() => { /* observed through the race below; later exits are expected */ });
  try {
    const { port, certificatePem } = await Promise.race([announced, timeout]);
    return { port, certificatePem, kind, process: child };
  } catch (error) {
    await child.stop();
    throw error;
  }
}
