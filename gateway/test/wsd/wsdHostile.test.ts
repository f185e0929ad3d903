// Hostile datagrams do not silence the responder: malformed XML, bytes that
// are not UTF-8, an oversized datagram, a DTD, an entity bomb, nesting past
// the depth cap, and a flood of one Probe's bytes (one MessageID) are sent to
// the group and straight to the responder's port; a presenter beside the
// attacker then probes and is answered within its deadline. Each kind is
// counted in the metrics under its reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeLan, runPeer, startDiscoveryGateway } from './discoveryLan.js';

const APP_MAX_DELAY_MS = 200;
/**
 * The answer's random delay plus room for a loaded 2-core machine. The probe
 * repeats as SOAP-over-UDP has clients do (a copy the flood crowded out of a
 * full socket buffer is followed by another).
 */
const PROBE_DEADLINE_MS = APP_MAX_DELAY_MS + 1800;

test('after malformed, oversized, DTD, entity-bomb and duplicate-MessageID floods the responder answers a normal Probe within its deadline', { timeout: 90_000 }, async (t) => {
  const lan = makeLan(t);
  const gateway = await startDiscoveryGateway(t, lan, { wsd: { enabled: true, interfaces: [lan.gateway.interfaceName], appMaxDelayMs: APP_MAX_DELAY_MS } });
  await gateway.online('room1');
  const attack = runPeer(t, lan, 4, ['hostile', '--target', lan.gateway.ipv4, '--flood', '3000', '--probe-from', lan.neighbourIpv4, '--timeout-ms', String(PROBE_DEADLINE_MS)]);
  assert.equal(await attack.done, 0, JSON.stringify(attack.lines));
  const sent = attack.lines.filter((line) => line.event === 'sent').map((line) => line.case);
  assert.deepEqual(sent, ['malformed', 'not-utf8', 'oversized', 'dtd', 'entity-bomb', 'deep', 'duplicate-message-id-flood']);
  const answer = attack.lines.find((line) => line.event === 'normal-probe');
  t.diagnostic(`normal Probe answered after ${String(answer?.firstMatchMs)} ms (flood took ${String(attack.lines.find((line) => line.case === 'duplicate-message-id-flood')?.ms)} ms to send)`);
  const metrics = await gateway.metrics();
  const counters = metrics.split('\n').filter((line) => line.startsWith('lanterna_wsd_udp_')).join('\n');
  assert.equal(typeof answer?.firstMatchMs, 'number', `no answer to the normal Probe: ${JSON.stringify(attack.lines)}\n${counters}`);
  assert.ok((answer?.firstMatchMs as number) < PROBE_DEADLINE_MS);

  const dropped = (reason: string): number => Number(new RegExp(`lanterna_wsd_udp_dropped_total\\{reason="${reason}"\\} (\\d+)`).exec(metrics)?.[1] ?? '0');
  for (const reason of ['malformed', 'too-large', 'forbidden-markup']) assert.ok(dropped(reason) >= 1, `${reason} counted:\n${metrics}`);
  // The flood's copies: the first is answered, the rest are duplicates or over the source's rate.
  assert.ok(dropped('duplicate') + dropped('rate-limited') >= 100, metrics);
  assert.match(metrics, /lanterna_wsd_udp_datagrams_total\{direction="out",kind="probe-matches"\} [1-9]/);
});
