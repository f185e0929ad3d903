// Real RDP servers through the real gateway, driven by the real native
// FreeRDP client (xfreerdp3) acting as the kiosk through a test bridge.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { startTestGateway, type TestGateway, connectControl, findServerKeyFiles, startNativeClientBridge, type BridgeObservation } from '@lanterna/testkit';
import { Lab, probeNative, type RdpEndpoint } from '@lanterna/lab';

/**
 * What CredSSP binds to: the certificate's SubjectPublicKey, for RSA the DER
 * RSAPublicKey inside the BIT STRING, which is what Node exports as PKCS#1 —
 * computed here without the gateway's own DER reader, so the two check each other.
 */
function rsaSubjectPublicKey(certificateDer: Buffer): Buffer {
  return new X509Certificate(certificateDer).publicKey.export({ type: 'pkcs1', format: 'der' });
}

const TOKEN = 'display-token-0123456789';

/** MCS Connect Response: TPKT, X.224 Data (02 f0 80), BER application tag 102 (7f 66). */
function isMcsConnectResponse(pdu: Buffer): boolean {
  return pdu[0] === 0x03 && pdu[5] === 0xf0 && pdu[7] === 0x7f && pdu[8] === 0x66;
}
/** After the Connect Response, the desktop streams: capabilities, then a steady flow of updates. */
const UPDATES_FOR_SESSION_UP = 30;
function sessionStreaming(observation: BridgeObservation): boolean {
  const connected = observation.toClient.findIndex(isMcsConnectResponse);
  return connected >= 0 && observation.toClient.length - connected > UPDATES_FOR_SESSION_UP;
}

async function sessionThroughGateway(
  lab: Lab, gateway: TestGateway, server: RdpEndpoint, serverCert: string, serverKey: string,
  serverSaysUp: () => Promise<boolean> = () => Promise.resolve(true),
): Promise<BridgeObservation> {
  const control = await connectControl(gateway.url, 'lab', TOKEN);
  try {
    const response = await fetch(`${gateway.httpUrl}/v1/admin/sessions`, {
      method: 'POST', headers: { authorization: `Bearer ${gateway.adminToken}` },
      body: JSON.stringify({ displayId: 'lab', target: { host: server.host, port: server.port } }),
    });
    assert.equal(response.status, 202);
    const project = await control.next('project');
    const bridge = await startNativeClientBridge({
      gateway: gateway.url, sessionId: String(project.sessionId), sessionToken: String(project.sessionToken), serverCert, serverKey,
    });
    const clientScreen = await lab.display({ width: 1024, height: 768 });
    try {
      await probeNative({
        host: '127.0.0.1', port: bridge.port, username: server.username, password: server.password,
        authOnly: false, display: clientScreen.name, timeoutMs: 30_000,
        // Up = the server's MCS Connect Response and then screen updates came back through the gateway.
        sessionUp: async () => sessionStreaming(bridge.observation) && await serverSaysUp(),
      });
    } catch (error) {
      throw new Error(`${String(error)}\nbridge saw ${bridge.observation.toClient.length} server PDUs: ${JSON.stringify({ ...bridge.observation, secured: undefined, toClient: bridge.observation.toClient.slice(0, 12).map((b) => b.toString('hex')), toServer: bridge.observation.toServer.slice(0, 12).map((b) => b.toString('hex')) })}`);
    } finally {
      bridge.close();
    }
    return bridge.observation;
  } finally {
    control.close();
  }
}

for (const auth of ['tls', 'nla'] as const) {
  test(`FreeRDP shadow server (${auth}) through the gateway: MCS Connect Response, screen updates, server key reported`, { timeout: 120_000 }, async (t) => {
    const lab = await Lab.create({ name: `gateway-shadow-${auth}` });
    t.after(() => lab.close());
    const display = await lab.display();
    await display.showScene('reference');
    const server = await lab.shadowServer({ display, auth });
    const keys = findServerKeyFiles(lab.dir, 'freerdp-shadow');
    assert.ok(keys && server.certificateDer, 'the shadow server wrote its certificate and key');
    const gateway = await startTestGateway({ displays: [{ id: 'lab', token: TOKEN }], certificates: { mode: 'first-use' } });
    t.after(() => gateway.close());

    const first = await sessionThroughGateway(lab, gateway, server, readFileSync(keys.cert, 'utf8'), readFileSync(keys.key, 'utf8'));
    assert.equal(first.error, undefined, JSON.stringify(first.error));
    const secured = first.secured ?? {};
    assert.equal(secured.trust, 'first-use');
    if (auth === 'tls') assert.equal(secured.protocol, 'ssl');
    else assert.ok(secured.protocol === 'hybrid' || secured.protocol === 'hybrid-ex', String(secured.protocol));
    const der = server.certificateDer;
    assert.equal(secured.publicKey, rsaSubjectPublicKey(der).toString('base64'), 'the key CredSSP binds to is the certificate\'s SubjectPublicKey');
    assert.equal(Buffer.from(secured.publicKey, 'base64').length, 270, 'RSA-2048 SubjectPublicKey, not the 294-byte SPKI');
    assert.equal(secured.fingerprint, `sha256:${new X509Certificate(der).fingerprint256}`);
    if (auth === 'nla') assert.ok(first.toServer.some((pdu) => pdu[0] === 0x30), 'CredSSP TSRequests went through');
    assert.ok(first.toServer.some((pdu) => pdu[0] === 0x03 && pdu[7] === 0x7f && pdu[8] === 0x65), 'MCS Connect-Initial went through');

    // The second time the recorded pin is what vouches for the server.
    const second = await sessionThroughGateway(lab, gateway, server, readFileSync(keys.cert, 'utf8'), readFileSync(keys.key, 'utf8'));
    assert.equal(second.secured?.trust, 'pinned');
    const metrics = await gateway.metricsText();
    assert.match(metrics, /lanterna_sessions_total 2\b/);
    assert.match(metrics, /lanterna_handshake_phase_seconds_count\{phase="tls"\} 2\b/);
  });
}

test('xrdp (TLS, xorgxrdp) through the gateway: login, MCS Connect Response, screen updates', { timeout: 120_000 }, async (t) => {
  const lab = await Lab.create({ name: 'gateway-xrdp' });
  t.after(() => lab.close());
  const server = await lab.xrdp({ scene: 'reference', width: 1024, height: 768 });
  const keys = findServerKeyFiles(lab.dir, 'xrdp');
  assert.ok(keys && server.certificateDer, 'the lab wrote xrdp\'s certificate and key');
  const gateway = await startTestGateway({ displays: [{ id: 'lab', token: TOKEN }], certificates: { mode: 'first-use' } });
  t.after(() => gateway.close());
  const observation = await sessionThroughGateway(lab, gateway, server, readFileSync(keys.cert, 'utf8'), readFileSync(keys.key, 'utf8'), server.sessionUp);
  assert.equal(observation.error, undefined, JSON.stringify(observation.error));
  assert.equal(observation.secured?.protocol, 'ssl');
  assert.equal(observation.secured.publicKey, rsaSubjectPublicKey(server.certificateDer).toString('base64'));
  assert.ok(observation.toClient.some(isMcsConnectResponse));
});
