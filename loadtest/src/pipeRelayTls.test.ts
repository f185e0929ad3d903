import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startPipeRelay } from './pipeRelay.js';
import { generateLoopbackCertificate } from './selfSignedCertificate.js';
import { pickFreePort } from './tcpPorts.js';

/** 'open', or the message of the error that ended the attempt. */
async function outcome(socket: WebSocket): Promise<string> {
  const result = await new Promise<string>((resolve) => {
    socket.once('open', () => resolve('open'));
    socket.once('error', (error) => resolve(error.message));
  });
  socket.terminate();
  return result;
}

void test('the pipe relay with a certificate serves wss:// only, to clients that trust that certificate', async () => {
  const certificate = await generateLoopbackCertificate('pipe relay test');
  // the upgrade is answered before the pipe dials its target, so an unused port will do
  const relay = await startPipeRelay({ host: '127.0.0.1', port: 0, target: { host: '127.0.0.1', port: await pickFreePort() }, tls: certificate });
  try {
    assert.equal(await outcome(new WebSocket(`wss://127.0.0.1:${relay.port}/`, { ca: certificate.certPem })), 'open');
    assert.match(await outcome(new WebSocket(`wss://127.0.0.1:${relay.port}/`)), /self-signed certificate/);
    assert.notEqual(await outcome(new WebSocket(`ws://127.0.0.1:${relay.port}/`)), 'open');
  } finally {
    await relay.close();
  }
});
