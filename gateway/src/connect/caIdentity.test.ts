// In `ca` mode a verified chain must also name the server that was asked for:
// an IP target is checked against the certificate's IP addresses (it was not
// checked at all, so any CA-signed certificate passed for any address).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { connectTarget } from './targetConnector.js';
import { CertificatePolicy } from '../policy/certificatePolicy.js';
import { PinStore } from '../policy/pinStore.js';
import { TargetPolicy } from '../policy/targetPolicy.js';
import { SessionError } from '../session/sessionError.js';
import { buildConnectionRequest, PROTOCOL } from '../rdp/x224.js';
import { startFaultyPeer } from '../testkit/faultyRdpPeer.js';

/** A self-signed certificate is its own CA: trusting it as `caFile` makes the chain verify. */
async function certificateFor(altNames: ({ type: 2; value: string } | { type: 7; ip: string })[]): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: 'lanterna-ca-test' }], {
    keySize: 2048, algorithm: 'sha256',
    extensions: [{ name: 'basicConstraints', cA: true }, { name: 'subjectAltName', altNames }],
  });
  return { cert: pems.cert, key: pems.private };
}

async function connectInCaMode(identity: { cert: string; key: string }): Promise<unknown> {
  const peer = await startFaultyPeer('echo', identity);
  try {
    const connected = await connectTarget({
      target: { host: '127.0.0.1', port: peer.port },
      connectionRequest: buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL }),
      policy: new TargetPolicy({ allowNetworks: ['127.0.0.0/8'], allowPorts: ['1024-65535'], ownPorts: [] }),
      certificates: new CertificatePolicy('ca', {}, new PinStore(join(mkdtempSync(join(tmpdir(), 'lanterna-ca-')), 'pins.json'))),
      ca: identity.cert,
      timeouts: { connectMs: 2000, confirmMs: 2000, tlsMs: 5000 },
    });
    connected.socket.destroy();
    return connected.secured.trust;
  } catch (error) {
    return error;
  } finally {
    await peer.close();
  }
}

test('ca mode: an IP target needs the address in the certificate, not just a trusted chain', async () => {
  const nameOnly = await connectInCaMode(await certificateFor([{ type: 2, value: 'rdp.example' }]));
  assert.ok(nameOnly instanceof SessionError, `a certificate for rdp.example is refused for 127.0.0.1 (got ${String(nameOnly)})`);
  assert.equal(nameOnly.code, 'certificate-untrusted');
  assert.match(String(nameOnly.detail.reason), /not for 127\.0\.0\.1/);
  const localhost = await connectInCaMode(await certificateFor([{ type: 2, value: 'localhost' }]));
  assert.ok(localhost instanceof SessionError && localhost.code === 'certificate-untrusted', `a certificate for localhost is not one for 127.0.0.1 (got ${String(localhost)})`);
  assert.equal(await connectInCaMode(await certificateFor([{ type: 7, ip: '127.0.0.1' }])), 'ca');
});
