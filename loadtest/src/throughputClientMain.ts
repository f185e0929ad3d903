#!/usr/bin/env node
// One session's receive throughput, as its own process so it can run inside a
// network namespace: connects (raw TLS to the echo host, through a Lanterna
// gateway, or through websockify) to an echo host in stream mode, skips a
// warm-up (TCP slow start), then counts bytes. Prints one JSON line.
import { Command, Option } from 'commander';
import { connectDirectTls } from './directTlsClient.js';
import { connectSimulatedKiosk } from './simulatedKiosk.js';
import { connectWebsockifyKiosk } from './websockifyKiosk.js';

const program = new Command()
  .addOption(new Option('--path <path>', 'raw-tls, lanterna or websockify').choices(['raw-tls', 'lanterna', 'websockify']).makeOptionMandatory())
  .option('--host <host>', 'echo host address (raw-tls)', '127.0.0.1')
  .option('--port <n>', 'echo host port (raw-tls)', Number, 0)
  .option('--url <url>', 'gateway base ws:// URL (lanterna) or websockify URL')
  .option('--display-id <id>', 'display id (lanterna)')
  .option('--display-token <token>', 'display token (lanterna)')
  .option('--pdu-bytes <n>', 'size of the PDUs the echo host streams', Number, 16000)
  .option('--warmup-seconds <n>', 'seconds not counted', Number, 2)
  .option('--seconds <n>', 'seconds counted', Number, 5)
  .parse();
const options = program.opts<{ path: string; host: string; port: number; url?: string; displayId?: string; displayToken?: string; pduBytes: number; warmupSeconds: number; seconds: number }>();

let bytes = 0;
let cleanup: () => void;
if (options.path === 'raw-tls') {
  const socket = await connectDirectTls({ host: options.host, port: options.port, handshake: 'x224-then-tls' });
  socket.on('data', (chunk: Buffer) => { bytes += chunk.length; });
  socket.resume();
  cleanup = () => socket.destroy();
} else {
  const channel = options.path === 'lanterna'
    ? await connectSimulatedKiosk({ baseUrl: options.url ?? '', displayId: options.displayId ?? '', displayToken: options.displayToken ?? '', timeoutMs: 15_000 })
    : await connectWebsockifyKiosk({ url: options.url ?? '', timeoutMs: 15_000 });
  channel.onResponses((count) => { bytes += count * options.pduBytes; });
  channel.onFailure((error) => { process.stderr.write(`session failed: ${error.message}\n`); process.exit(1); });
  cleanup = () => channel.close();
}
await new Promise((resolve) => setTimeout(resolve, options.warmupSeconds * 1000));
const startBytes = bytes;
const start = performance.now();
await new Promise((resolve) => setTimeout(resolve, options.seconds * 1000));
const seconds = (performance.now() - start) / 1000;
const counted = bytes - startBytes;
process.stdout.write(`${JSON.stringify({ bytes: counted, seconds, megabytesPerSecond: counted / seconds / 1e6 })}\n`);
cleanup();
setTimeout(() => process.exit(0), 200).unref();
