// Runs the echo host as its own process and waits for its "listening" line.
import { fileURLToPath } from 'node:url';
import { ManagedProcess } from './managedProcess.js';
import type { EchoHandshake } from './echoHost.js';

const ECHO_MAIN = fileURLToPath(new URL('./echoHostMain.js', import.meta.url));

export interface EchoHostProcessOptions {
  handshake: EchoHandshake;
  sessionTickets: boolean;
  replyBytes?: number | undefined;
  sizedReplies?: boolean | undefined;
  streamPduBytes?: number | undefined;
  cpus?: string | undefined;
  host?: string;
  /** Wraps the command, e.g. ['ip', 'netns', 'exec', 'ns'] to run it in a namespace. */
  prefix?: string[];
}

export interface EchoHostProcess { port: number; certificatePem: string; process: ManagedProcess }

export async function startEchoHostProcess(options: EchoHostProcessOptions): Promise<EchoHostProcess> {
  const args = [ECHO_MAIN, '--handshake', options.handshake];
  if (!options.sessionTickets) args.push('--no-session-tickets');
  if (options.replyBytes !== undefined) args.push('--reply-bytes', String(options.replyBytes));
  if (options.sizedReplies === true) args.push('--sized-replies');
  if (options.streamPduBytes !== undefined) args.push('--stream-pdu-bytes', String(options.streamPduBytes));
  if (options.host !== undefined) args.push('--host', options.host);
  const prefix = options.prefix ?? [];
  let announce: (value: { port: number; certificatePem: string }) => void = () => undefined;
  const announced = new Promise<{ port: number; certificatePem: string }>((resolve) => { announce = resolve; });
  const child = new ManagedProcess('echo-host', {
    command: prefix[0] ?? process.execPath,
    args: prefix.length > 0 ? [...prefix.slice(1), process.execPath, ...args] : args,
    cpus: options.cpus,
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
    return { port, certificatePem, process: child };
  } catch (error) {
    await child.stop();
    throw error;
  }
}
