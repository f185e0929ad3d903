#!/usr/bin/env node
// Process entry of the pipe baseline relay, so it runs pinned on the relay's
// core and its CPU is measured as the gateway's is. Prints one JSON line when
// listening.
import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { startPipeRelay } from './pipeRelay.js';

const options = new Command()
  .name('lanterna-pipe-relay')
  .description('WebSocket → TLS pipe to one target: the minimal Node relay baseline')
  .requiredOption('--target-port <n>', 'target TLS port', Number)
  .option('--target-host <address>', 'target host', '127.0.0.1')
  .option('--host <address>', 'listen address', '127.0.0.1')
  .option('--port <n>', 'listen port (0 = any)', Number, 0)
  .option('--tls-cert-file <path>', 'listen on wss:// with this certificate (PEM; needs --tls-key-file)')
  .option('--tls-key-file <path>', 'the certificate\'s private key (PEM)')
  .parse()
  .opts<{ targetPort: number; targetHost: string; host: string; port: number; tlsCertFile?: string; tlsKeyFile?: string }>();

if ((options.tlsCertFile === undefined) !== (options.tlsKeyFile === undefined)) throw new Error('--tls-cert-file and --tls-key-file go together');
const tls = options.tlsCertFile !== undefined && options.tlsKeyFile !== undefined
  ? { certPem: await readFile(options.tlsCertFile, 'utf8'), keyPem: await readFile(options.tlsKeyFile, 'utf8') }
  : undefined;
const relay = await startPipeRelay({ host: options.host, port: options.port, target: { host: options.targetHost, port: options.targetPort }, tls });
process.stdout.write(`${JSON.stringify({ msg: 'listening', port: relay.port })}\n`);
const shutdown = (): void => { void relay.close().then(() => process.exit(0)); };
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
