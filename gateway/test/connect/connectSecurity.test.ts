// The server leg's security decisions through the real gateway: in `ca` mode a
// verified chain must also name the server that was asked for (an IP target was
// checked against "localhost"), and with requireNla plain TLS is refused however
// it is chosen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { startFaultyPeer, startProjectingGateway, openData } from '@lanterna/testkit';
import { buildConnectionRequest, PROTOCOL } from '@lanterna/protocol';

type Identity = { cert: string; key: string };

/** A self-signed certificate is its own CA: trusting it as `caFile` makes the chain verify. */
async function certificateFor(altNames: ({ type: 2; value: string } | { type: 7; ip: string })[]): Promise<Identity> {
  const pems = await generate([{ name: 'commonName', value: 'lanterna-ca-test' }], {
    keySize: 2048, algorithm: 'sha256',
    extensions: [{ name: 'basicConstraints', cA: true }, { name: 'subjectAltName', altNames }],
  });
  return { cert: pems.cert, key: pems.private };
}

interface Attempt { identity: Identity; mode?: 'ca' | 'insecure'; requested?: number; requireNla?: boolean }

/** One session to a TLS-choosing peer at 127.0.0.1: `secured` as the kiosk saw it, or the error it was sent. */
async function attempt({ identity, mode = 'ca', requested = PROTOCOL.SSL, requireNla = false }: Attempt): Promise<Record<string, unknown>> {
  const caFile = join(mkdtempSync(join(tmpdir(), 'lanterna-ca-')), 'ca.pem');
  writeFileSync(caFile, identity.cert);
  const peer = await startFaultyPeer('echo', identity);
  const gateway = await startProjectingGateway({ config: { certificates: { mode, caFile }, policy: { allowNetworks: ['127.0.0.0/8'], allowPorts: ['1024-65535'], requireNla } } });
  try {
    const projection = await gateway.project({ host: '127.0.0.1', port: peer.port });
    const data = await openData(gateway.gateway.url, projection.sessionId, projection.token);
    data.socket.send(buildConnectionRequest({ requestedProtocols: requested }));
    const first = await data.queue.nextText();
    data.socket.close();
    return first;
  } finally {
    await gateway.close();
    await peer.close();
  }
}

test('ca mode: an IP target needs the address in the certificate, not just a trusted chain', async () => {
  const nameOnly = await attempt({ identity: await certificateFor([{ type: 2, value: 'rdp.example' }]) });
  assert.equal(nameOnly.code, 'certificate-untrusted', JSON.stringify(nameOnly));
  const localhost = await attempt({ identity: await certificateFor([{ type: 2, value: 'localhost' }]) });
  assert.equal(localhost.code, 'certificate-untrusted', `a certificate for localhost is not one for 127.0.0.1: ${JSON.stringify(localhost)}`);
  const byAddress = await attempt({ identity: await certificateFor([{ type: 7, ip: '127.0.0.1' }]) });
  assert.equal(byAddress.type, 'secured', JSON.stringify(byAddress));
  assert.equal(byAddress.trust, 'ca');
});

test('requireNla: a server that picks plain TLS, or a display that offers no NLA, is refused', async () => {
  const identity = await certificateFor([{ type: 7, ip: '127.0.0.1' }]);
  const offered = PROTOCOL.SSL | PROTOCOL.HYBRID;
  const plain = await attempt({ identity, mode: 'insecure', requested: offered });
  assert.equal(plain.protocol, 'ssl', `without the option plain TLS is accepted: ${JSON.stringify(plain)}`);
  const downgraded = await attempt({ identity, mode: 'insecure', requested: offered, requireNla: true });
  assert.deepEqual([downgraded.code, downgraded.phase], ['negotiation-failed', 'x224'], JSON.stringify(downgraded));
  const noNla = await attempt({ identity, mode: 'insecure', requested: PROTOCOL.SSL, requireNla: true });
  assert.deepEqual([noNla.code, noNla.phase], ['negotiation-failed', 'request'], JSON.stringify(noNla));
});
