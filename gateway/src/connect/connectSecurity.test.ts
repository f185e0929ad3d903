// The server leg's security decisions: in `ca` mode a verified chain must also
// name the server that was asked for (an IP target was checked against
// "localhost"), and with requireNla plain TLS is refused however it is chosen.
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

interface Attempt { identity: { cert: string; key: string }; mode?: 'ca' | 'insecure'; requested?: number; requireNla?: boolean }

/** Connects to a TLS-choosing peer with these settings: the trust or protocol reached, or the error. */
async function attempt({ identity, mode = 'ca', requested = PROTOCOL.SSL, requireNla = false }: Attempt): Promise<unknown> {
  const peer = await startFaultyPeer('echo', identity);
  try {
    const connected = await connectTarget({
      target: { host: '127.0.0.1', port: peer.port },
      connectionRequest: buildConnectionRequest({ requestedProtocols: requested }),
      policy: new TargetPolicy({ allowNetworks: ['127.0.0.0/8'], allowPorts: ['1024-65535'], ownPorts: [] }),
      certificates: new CertificatePolicy(mode, {}, new PinStore(join(mkdtempSync(join(tmpdir(), 'lanterna-ca-')), 'pins.json'))),
      ca: identity.cert,
      timeouts: { connectMs: 2000, confirmMs: 2000, tlsMs: 5000 },
      requireNla,
    });
    connected.socket.destroy();
    return mode === 'ca' ? connected.secured.trust : connected.secured.protocol;
  } catch (error) {
    return error;
  } finally {
    await peer.close();
  }
}

async function connectInCaMode(identity: { cert: string; key: string }): Promise<unknown> {
  return attempt({ identity });
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

test('requireNla: a server that picks plain TLS, or a display that offers no NLA, is refused', async () => {
  const identity = await certificateFor([{ type: 7, ip: '127.0.0.1' }]);
  const offered = PROTOCOL.SSL | PROTOCOL.HYBRID;
  assert.equal(await attempt({ identity, mode: 'insecure', requested: offered }), 'ssl', 'without the option plain TLS is accepted');
  const downgraded = await attempt({ identity, mode: 'insecure', requested: offered, requireNla: true });
  assert.ok(downgraded instanceof SessionError, String(downgraded));
  assert.equal(downgraded.code, 'negotiation-failed');
  assert.equal(downgraded.phase, 'x224');
  const noNla = await attempt({ identity, mode: 'insecure', requested: PROTOCOL.SSL, requireNla: true });
  assert.ok(noNla instanceof SessionError, String(noNla));
  assert.equal(noNla.phase, 'request');
});
