// The gateway probe and certificate pins against real HTTP(S) servers on
// loopback, with certificates made by openssl.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readGatewayCertificatePins } from './gatewayCertificatePins.js';
import { probeGateway } from './gatewayProbe.js';
import { KioskConfigError } from './kioskConfig.js';

const dir = mkdtempSync(join(tmpdir(), 'lanterna-kiosk-probe-'));

function makeCertificate(name: string): { cert: string; key: string; certPath: string } {
  const certPath = join(dir, `${name}.pem`);
  const keyPath = join(dir, `${name}.key`);
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${name}`,
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyPath, '-out', certPath], { stdio: 'ignore' });
  return { cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8'), certPath };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const answer = (status: number) => (request: { url?: string }, response: { writeHead(s: number): void; end(b: string): void }) => {
  response.writeHead(request.url?.endsWith('/healthz') === true ? status : 404);
  response.end('ok\n');
};

describe('gateway probe', () => {
  const servers: Server[] = [];
  let gateway: ReturnType<typeof makeCertificate>;
  let stranger: ReturnType<typeof makeCertificate>;

  before(() => {
    gateway = makeCertificate('gateway');
    stranger = makeCertificate('stranger');
  });

  after(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    rmSync(dir, { recursive: true, force: true });
  });

  async function serve(server: Server): Promise<string> {
    servers.push(server);
    return listen(server);
  }

  test('200 on /healthz is ok, also under a path prefix; another status says which', async () => {
    const ok = await serve(createHttpServer(answer(200)));
    assert.deepEqual(await probeGateway({ gateway: `http://${ok}`, timeoutMs: 2000 }), { ok: true, status: 200 });
    assert.equal((await probeGateway({ gateway: `http://${ok}/lanterna`, timeoutMs: 2000 })).ok, true);
    const draining = await serve(createHttpServer(answer(503)));
    assert.deepEqual(await probeGateway({ gateway: `http://${draining}`, timeoutMs: 2000 }), { ok: false, problem: 'the gateway answered HTTP 503' });
  });

  test('a closed port is "connection refused"; a server that never answers runs into the deadline', async () => {
    const closed = createHttpServer();
    const address = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
    const refused = await probeGateway({ gateway: `http://${address}`, timeoutMs: 2000 });
    assert.ok(!refused.ok);
    assert.match(refused.problem, /connection refused/);
    const silent = await serve(createHttpServer(() => { /* never answers */ }));
    const started = Date.now();
    const late = await probeGateway({ gateway: `http://${silent}`, timeoutMs: 300 });
    assert.deepEqual(late, { ok: false, problem: 'no answer within 300 ms' });
    assert.ok(Date.now() - started < 2000);
  });

  test('a self-signed gateway: refused without a pin, accepted with its pin, refused with another certificate\'s pin', async () => {
    const secure = await serve(createHttpsServer({ cert: gateway.cert, key: gateway.key }, answer(200)));
    const unpinned = await probeGateway({ gateway: `https://${secure}`, timeoutMs: 2000 });
    assert.ok(!unpinned.ok);
    assert.match(unpinned.problem, /not trusted .*gatewayCertificate/);
    assert.equal((await probeGateway({ gateway: `https://${secure}`, pins: readGatewayCertificatePins(gateway.certPath), timeoutMs: 2000 })).ok, true);
    const wrong = await probeGateway({ gateway: `https://${secure}`, pins: readGatewayCertificatePins(stranger.certPath), timeoutMs: 2000 });
    assert.deepEqual(wrong, { ok: false, problem: 'the gateway presented a certificate other than the configured one' });
  });
});

describe('gateway certificate pins', () => {
  test('the pin is base64 SHA-256 of the DER SubjectPublicKeyInfo, as openssl computes it (what Chromium\'s SPKI list takes)', () => {
    const work = mkdtempSync(join(tmpdir(), 'lanterna-kiosk-pin-'));
    try {
      const certPath = join(work, 'cert.pem');
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=pin', '-keyout', join(work, 'key.pem'), '-out', certPath], { stdio: 'ignore' });
      const spki = execFileSync('openssl', ['x509', '-in', certPath, '-pubkey', '-noout'], { encoding: 'utf8' });
      const der = execFileSync('openssl', ['pkey', '-pubin', '-outform', 'der'], { input: spki });
      const expected = execFileSync('openssl', ['dgst', '-sha256', '-binary'], { input: der }).toString('base64');
      assert.deepEqual(readGatewayCertificatePins(certPath), [expected]);
      // a chain file gives one pin per certificate
      writeFileSync(join(work, 'chain.pem'), `${readFileSync(certPath, 'utf8')}\n${readFileSync(certPath, 'utf8')}`);
      assert.equal(readGatewayCertificatePins(join(work, 'chain.pem')).length, 2);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  test('a missing file, a file without a certificate and a broken one are configuration errors naming the file', () => {
    const work = mkdtempSync(join(tmpdir(), 'lanterna-kiosk-pin-'));
    try {
      assert.throws(() => readGatewayCertificatePins(join(work, 'missing.pem')), (error: unknown) =>
        error instanceof KioskConfigError && /gatewayCertificate: cannot read .*missing\.pem \(ENOENT\)/.test(error.message));
      writeFileSync(join(work, 'key.pem'), '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n');
      assert.throws(() => readGatewayCertificatePins(join(work, 'key.pem')), /no PEM certificate in .*key\.pem/);
      writeFileSync(join(work, 'broken.pem'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
      assert.throws(() => readGatewayCertificatePins(join(work, 'broken.pem')), /broken\.pem holds a malformed certificate/);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
