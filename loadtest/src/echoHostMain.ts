#!/usr/bin/env node
// Process entry of the echo host, so it runs on its own (pinned) core and its
// CPU can be measured apart from the generators. Prints one JSON line when
// listening, with the certificate clients should trust.
import { Command, Option } from 'commander';
import { startEchoHost, type EchoHandshake } from './echoHost.js';
import { generateLoopbackCertificate } from './selfSignedCertificate.js';

const program = new Command()
  .name('lanterna-echo-host')
  .description('stand-in RDP server: X.224 + TLS, then echoes TPKT PDUs')
  .addOption(new Option('--handshake <mode>', 'x224-then-tls or tls-first').choices(['x224-then-tls', 'tls-first']).default('x224-then-tls'))
  .option('--no-session-tickets', 'send no TLS session tickets (TLS 1.2 only)')
  .option('--reply-bytes <n>', 'answer each request with a PDU of n bytes (default: echo)', Number)
  .option('--sized-replies', 'answer each request with a PDU of the size it names (mixed traffic)')
  .option('--stream-pdu-bytes <n>', 'throughput mode: stream PDUs of n bytes', Number)
  .option('--host <address>', 'listen address', '127.0.0.1')
  .option('--port <n>', 'listen port (0 = any)', Number, 0)
  .parse();
const options = program.opts<{ handshake: EchoHandshake; sessionTickets: boolean; replyBytes?: number; sizedReplies?: boolean; streamPduBytes?: number; host: string; port: number }>();

const certificate = await generateLoopbackCertificate();
const host = await startEchoHost({
  handshake: options.handshake,
  sessionTickets: options.sessionTickets,
  replyBytes: options.replyBytes,
  sizedReplies: options.sizedReplies,
  streamPduBytes: options.streamPduBytes,
  host: options.host,
  port: options.port,
  certificate,
});
process.stdout.write(`${JSON.stringify({ msg: 'listening', port: host.port, certificatePem: host.certificatePem })}\n`);
const shutdown = (): void => { void host.close().then(() => process.exit(0)); };
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
