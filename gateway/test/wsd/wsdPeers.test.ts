// Independent WS-Discovery peers find the gateway's displays across a real
// (virtual) LAN: the gateway's CLI with two workers in the test's namespace,
// the peers in a presenter's namespace on the other end of a veth, IPv4 and
// IPv6. wsdd (Debian) lists the display after fetching its DPWS metadata;
// the PyPI wsdiscovery package finds it by our Types and resolves it; our
// own peer tool sees exactly one answer per display (one responder, in the
// cluster primary), Hello and Bye, and an InstanceId that rises on restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@lanterna/testkit';
import { readWsdMessage, writeWsdMessage, NS } from '@lanterna/protocol/wsd';
import { makeLan, runPeer, startDiscoveryGateway, venvPython } from './discoveryLan.js';

const wsdiscoveryPeer = fileURLToPath(new URL('../../wsd/wsdiscoveryPeer.py', import.meta.url));

test('wsdd --discovery lists the online display over IPv4 and IPv6 after a WS-Transfer Get; the offline one is not announced', { timeout: 90_000 }, async (t) => {
  const lan = makeLan(t);
  const gateway = await startDiscoveryGateway(t, lan);
  await gateway.online('room1');
  const wsdd = spawn(lan.presenterExec[0] ?? 'ip', [...lan.presenterExec.slice(1), 'wsdd', '--discovery', '--no-host', '--interface', lan.presenter.interfaceName, '--verbose'], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => wsdd.kill('SIGKILL'));
  let log = '';
  // wsdd 0.7.0's `list` API cannot start on Python 3.11 (asyncio's removed loop argument): its log says what it discovered.
  wsdd.stderr.on('data', (chunk: Buffer) => { log += chunk.toString(); });
  wsdd.stdout.on('data', (chunk: Buffer) => { log += chunk.toString(); });
  await waitFor('wsdd discovers the display on both families', () => log.includes(`discovered Room one on ${lan.gateway.ipv4}%`) && log.includes('discovered Room one on [fe80::1]%'), 30_000)
    .catch((error: unknown) => { throw new Error(`${(error as Error).message}:\n${log}`); });
  assert.doesNotMatch(log, /Room two/);
  assert.doesNotMatch(log, /could not fetch metadata/);
});

test('the wsdiscovery package finds the display by our Types and resolves its endpoint to its XAddrs', { timeout: 90_000 }, async (t) => {
  const lan = makeLan(t);
  const gateway = await startDiscoveryGateway(t, lan);
  await gateway.online('room1');
  const python = spawn(lan.presenterExec[0] ?? 'ip', [...lan.presenterExec.slice(1), venvPython(), wsdiscoveryPeer, '3'], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => python.kill('SIGKILL'));
  let out = '';
  python.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
  const code = await new Promise<number | null>((resolve) => python.once('exit', resolve));
  assert.equal(code, 0, out);
  const lines = out.trim().split('\n').map((line) => JSON.parse(line) as { event: string; endpoint: string; xaddrs: string[] | null; types?: string[]; scopes?: string[] });
  const matches = lines.filter((line) => line.event === 'probe-match');
  assert.equal(matches.length, 1, out);
  const [match] = matches;
  assert.match(match?.endpoint ?? '', /^urn:uuid:[0-9a-f-]{36}$/);
  assert.ok(match?.types?.includes(`${NS.lp}:Display`), out);
  assert.ok(match?.scopes?.includes('urn:lanterna:display:room1'), out);
  const resolved = lines.find((line) => line.event === 'resolve-match');
  assert.ok(resolved?.xaddrs?.some((xaddr) => xaddr === `http://${lan.gateway.ipv4}:${gateway.port}/wsd/room1` || xaddr === `http://[fe80::1]:${gateway.port}/wsd/room1`), out);
});

test('a WS-Transfer Get on the XAddr returns DPWS metadata that parses: model, device, the hosted projector service, room and state', { timeout: 60_000 }, async (t) => {
  const lan = makeLan(t);
  const gateway = await startDiscoveryGateway(t, lan);
  await gateway.online('room1');
  const get = writeWsdMessage({ kind: 'get', header: { messageId: 'urn:uuid:00000000-0000-4000-8000-000000000001', to: 'urn:uuid:whatever', replyTo: `${NS.wsa}/role/anonymous` } });
  const response = await fetch(`http://127.0.0.1:${gateway.port}/wsd/room1`, { method: 'POST', headers: { 'content-type': 'application/soap+xml; charset=utf-8' }, body: get });
  assert.equal(response.status, 200);
  assert.ok(response.headers.get('content-security-policy'), 'the listener\'s headers apply to WS-Discovery answers too');
  const read = readWsdMessage(new Uint8Array(await response.arrayBuffer()));
  assert.ok(read.ok && read.message.kind === 'get-response', JSON.stringify(read));
  const { metadata } = read.message;
  assert.equal(metadata.device.friendlyName, 'Room one');
  assert.equal(metadata.display?.location, 'Floor 2, east');
  assert.equal(metadata.display.state, 'idle');
  assert.equal(metadata.model.manufacturer, 'Lanterna');
  assert.equal(metadata.hosted[0]?.address, `http://127.0.0.1:${gateway.port}/wsd/room1/projector`);
  assert.equal(read.message.header.relatesTo, 'urn:uuid:00000000-0000-4000-8000-000000000001');
  const wrongType = await fetch(`http://127.0.0.1:${gateway.port}/wsd/room1`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: get });
  assert.equal(wrongType.status, 415);
  const unknown = await fetch(`http://127.0.0.1:${gateway.port}/wsd/nowhere`, { method: 'POST', headers: { 'content-type': 'application/soap+xml' }, body: get });
  assert.equal(unknown.status, 404);
});

test('one responder per gateway: one answer per display whatever the workers; Hello, Bye on offline and on drain; InstanceId rises across restarts', { timeout: 120_000 }, async (t) => {
  const lan = makeLan(t);
  const first = await startDiscoveryGateway(t, lan);
  const listener = runPeer(t, lan, 4, ['listen', '--timeout-ms', '60000']);
  await waitFor('the listener joins the group', () => listener.lines.some((line) => line.event === 'listening'), 10_000);
  const offline1 = await first.online('room1');
  await first.online('room2');
  await waitFor('Hello from both displays', () => listener.lines.filter((line) => line.event === 'hello').length >= 2, 10_000);

  for (const family of [4, 6] as const) {
    const probe = runPeer(t, lan, family, ['probe', '--timeout-ms', '2000']);
    await probe.done;
    const matches = probe.lines.filter((line) => line.event === 'probe-match');
    assert.deepEqual(matches.map((line) => (line.scopes as string[])[0]).sort(), ['urn:lanterna:display:room1', 'urn:lanterna:display:room2'], `IPv${family}: ${JSON.stringify(probe.lines)}`);
    const host = family === 6 ? '[fe80::1]' : lan.gateway.ipv4;
    assert.ok(matches.every((line) => (line.xaddrs as string[])[0] === `http://${host}:${first.port}/wsd/${(line.scopes as string[])[0]?.split(':').at(-1) ?? ''}`), JSON.stringify(matches));
  }

  offline1();
  await waitFor('Bye when room1 goes offline', () => listener.lines.some((line) => line.event === 'bye'), 10_000);
  const helloIds = listener.lines.filter((line) => line.event === 'hello');
  const byeIds = listener.lines.filter((line) => line.event === 'bye');
  const room1 = helloIds.find((line) => (line.xaddrs as string[])[0]?.endsWith('/room1'))?.endpoint;
  assert.equal(byeIds[0]?.endpoint, room1);
  // Each distinct message has its own number, and the Bye, sent after both Hellos, a higher one. (Hellos of
  // two displays go out after their own random delays, so their first copies may arrive in either order.)
  const firstCopies = listener.lines.filter((line, i) => (line.event === 'hello' || line.event === 'bye') && listener.lines.findIndex((other) => other.messageId === line.messageId) === i);
  const numberOf = (line: Record<string, unknown>): number => (line.appSequence as { messageNumber: number }).messageNumber;
  const numbers = firstCopies.map(numberOf);
  const byeNumber = numberOf(firstCopies.find((line) => line.event === 'bye') ?? {});
  const helloNumbers = firstCopies.filter((line) => line.event === 'hello').map(numberOf);
  assert.ok(numbers.length >= 3 && new Set(numbers).size === numbers.length && helloNumbers.every((n) => n < byeNumber), `MessageNumber rises: ${numbers.join(',')}`);
  const firstInstance = (helloIds[0]?.appSequence as { instanceId: number }).instanceId;

  first.child.kill('SIGTERM');
  await waitFor('Bye for room2 on drain', () => listener.lines.filter((line) => line.event === 'bye').length >= 2, 10_000);
  await new Promise((resolve) => first.child.once('exit', resolve));

  const second = await startDiscoveryGateway(t, lan, {}, first.dir);
  await second.online('room1');
  await waitFor('Hello with a higher InstanceId after the restart', () => listener.lines.filter((line) => line.event === 'hello').some((line) => (line.appSequence as { instanceId: number }).instanceId > firstInstance), 15_000);
  const again = listener.lines.filter((line) => line.event === 'hello').at(-1);
  assert.equal(again?.endpoint, room1, 'the endpoint address survives the restart');
  const metrics = await second.metrics();
  assert.match(metrics, /lanterna_wsd_udp_datagrams_total\{direction="out",kind="hello"\} [1-9]/);
});
