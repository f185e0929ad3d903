// The settings a projection asks for, read back from the wire of a real session:
// a FreeRDP shadow server on a lab display behind the real gateway, every frame
// the client sends on the data socket tapped on its way out (whole PDUs). Checked where a server reads them: performanceFlags
// in the Client Info PDU, colour depth in the client core data of MCS
// Connect-Initial, and the GFX CapsAdvertise, which offers AVC only when the host
// says its VideoDecoder can decode it (never in Node, which has no WebCodecs). The
// sessions must also draw, so the fields are those of a working session, not of
// one the server turned away; where AVC is offered to a Node client on purpose, the
// server's H.264 must end the session with its clear reason instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Lab } from '@lanterna/lab';
import { startProjectingGateway } from '@lanterna/testkit';

import { loadLanternaRdp, NODE_VIDEO_DECODER } from '../js/nodeLoader.js';
import { runOverGateway } from '../js/gatewaySession.js';
import { startFlatDesktop } from './flatDesktop.mjs';
import { tappedSocket } from './tappedSocket.mjs';
import { GFX, channelMessages, decodeClientSession, dynamicChannelMessages, readGfxCapsAdvertise, splitPdus } from './clientPdus.mjs';
import { openForSuite } from './suiteResources.mjs';

const HIGH_COLOR_16BPP = 0x10;
const HIGH_COLOR_24BPP = 0x18;
const RNS_UD_32BPP_SUPPORT = 0x0008;
const RNS_UD_CS_WANT_32BPP_SESSION = 0x0002;
const PERF_EFFECTS_MASK = 0x0f; // wallpaper, full-window drag, menu animations, theming

const suite = openForSuite({
  rdp: () => loadLanternaRdp({ logLevel: process.env.LT_LOG ?? 'OFF' }),
  lab: () => Lab.create({ name: 'wasm-settings-on-wire' }),
  server: ({ lab }) => startFlatDesktop(lab, { auth: 'tls' }),
  projecting: () => startProjectingGateway({ displayId: 'wire' }),
});

/** One session with these options until it has drawn twice; returns the client's PDUs, decoded. */
async function sessionWire(options, { mustDraw = true, onsession = () => {} } = {}) {
  const sent = [];
  const { dataUrl, token } = await suite.projecting.project(suite.server);
  const session = suite.rdp.createSession({ width: 1024, height: 768, connectTimeoutMs: 15000, username: 'viewer', password: 'x', ...options });
  let frames = 0;
  session.onframe = () => { frames += 1; if (frames === 2) session.stop(); };
  const timer = setTimeout(() => session.stop(), 30000);
  onsession(session);
  const end = await runOverGateway(session, tappedSocket(dataUrl, sent), { token });
  clearTimeout(timer);
  if (mustDraw) assert.ok(frames >= 2, `the session drew ${frames} frames and ended ${end.reason}`);
  const pdus = sent.flatMap((frame) => splitPdus(frame));
  return { ...decodeClientSession(pdus), end, frames };
}

/** A host whose VideoDecoder said yes (a browser's probeAvcSupport); Node never says it on its own. */
const AVC_DECODER = { avc420: true, avc444: true, reason: 'supported (stated by the test)' };

function assertNoAvc(sets) {
  for (const { version, flags } of sets) {
    const name = `caps 0x${version.toString(16)} flags 0x${flags.toString(16)}`;
    assert.equal(flags & GFX.CAPS_FLAG_AVC420_ENABLED, 0, `${name}: AVC420 enabled`);
    if (version >= 0x000a0002) assert.ok(flags & GFX.CAPS_FLAG_AVC_DISABLED, `${name}: AVC not disabled`);
  }
  assert.ok(sets.some((s) => s.version >= 0x000a0002), 'RDPGFX 10.x offered (AVC_DISABLED is how 10.x says no AVC)');
  assert.ok(!sets.some((s) => s.version === 0x000a0100), 'RDPGFX 10.1 offered: it has no flag to refuse AVC');
}

/** Every GFX CapsAdvertise the client sent, whichever static channel carries drdynvc. */
function gfxCapsAdvertised(wire) {
  const found = [];
  // the IO channel, the user's and a message channel carry no channel PDUs: skip what does not parse
  const byChannel = new Map();
  for (const m of wire.sendData) {
    if (m.channelId !== 1003 && m.data.length >= 8) byChannel.set(m.channelId, [...(byChannel.get(m.channelId) ?? []), m]);
  }
  for (const pdus of byChannel.values()) {
    let dynamic;
    try {
      dynamic = dynamicChannelMessages(channelMessages(pdus).map((m) => m.data));
    } catch {
      continue; // not drdynvc
    }
    for (const message of dynamic) {
      const sets = message.cmd === 0x03 ? readGfxCapsAdvertise(message.payload) : null;
      if (sets) found.push(sets);
    }
  }
  return found;
}

test('all desktop effects asked for: none disabled; 32 bpp asked; GFX caps advertise no AVC', async () => {
  const wire = await sessionWire({ performance: { wallpaper: true, fullWindowDrag: true, menuAnimations: true, themes: true } });
  assert.equal(wire.clientInfo.performanceFlags & PERF_EFFECTS_MASK, 0, `performanceFlags 0x${wire.clientInfo.performanceFlags.toString(16)}`);
  const { core } = wire.connectInitial;
  assert.equal(core.highColorDepth, HIGH_COLOR_24BPP);
  assert.ok(core.earlyCapabilityFlags & RNS_UD_CS_WANT_32BPP_SESSION, 'client core data wants a 32 bpp session');
  assert.ok(core.supportedColorDepths & RNS_UD_32BPP_SUPPORT);
  assert.deepEqual([core.width, core.height], [1024, 768]);

  const advertised = gfxCapsAdvertised(wire);
  assert.equal(advertised.length, 1, 'one CapsAdvertise');
  const sets = advertised[0];
  assert.ok(sets.length >= 3, `${sets.length} capability sets`);
  assertNoAvc(sets);
});

test('avc420 and avc444 asked for in Node: left out quietly (no WebCodecs), the session draws with the others', async () => {
  let avc;
  const wire = await sessionWire({ codecs: ['planar', 'remotefx', 'progressive', 'avc420', 'avc444'], videoDecoder: NODE_VIDEO_DECODER }, {
    onsession: (session) => { avc = session.avc; },
  });
  const advertised = gfxCapsAdvertised(wire);
  assert.equal(advertised.length, 1, 'one CapsAdvertise');
  assertNoAvc(advertised[0]);
  assert.deepEqual({ avc420: avc.avc420, avc444: avc.avc444 }, { avc420: false, avc444: false });
  assert.match(avc.reason, /AVC is unavailable in Node: no WebCodecs/);
});

test('a host that can decode AVC444: 8.1 with AVC420, every 10.x set without AVC_DISABLED, 10.1 offered; the server\'s H.264 then ends this Node client with video-unsupported', async () => {
  const wire = await sessionWire({ videoDecoder: AVC_DECODER }, { mustDraw: false });
  const [sets] = gfxCapsAdvertised(wire);
  assert.ok(sets, 'a CapsAdvertise');
  const v81 = sets.find((s) => s.version === 0x00080105);
  assert.ok(v81 && (v81.flags & GFX.CAPS_FLAG_AVC420_ENABLED), 'RDPGFX 8.1 with AVC420');
  const v10 = sets.filter((s) => s.version >= 0x000a0002);
  assert.ok(v10.length > 0, 'RDPGFX 10.x offered');
  for (const s of v10) assert.equal(s.flags & GFX.CAPS_FLAG_AVC_DISABLED, 0, `caps 0x${s.version.toString(16)}: AVC disabled`);
  assert.ok(sets.some((s) => s.version === 0x000a0100), 'RDPGFX 10.1 offered (it implies AVC)');
  // FreeRDP's shadow server sends H.264 to a client that offers it; Node cannot decode it
  assert.equal(wire.end.reason, 'video-unsupported', `ended ${JSON.stringify(wire.end)}`);
  assert.equal(wire.frames, 0, 'nothing drawn from H.264 it could not decode');
});

test('a host that can decode AVC420 only: AVC420 in the 8.1 set and no 10.x set (10.x would mean AVC444 too)', async () => {
  const wire = await sessionWire({ codecs: ['planar', 'progressive', 'avc420'], videoDecoder: AVC_DECODER }, { mustDraw: false });
  const [sets] = gfxCapsAdvertised(wire);
  assert.ok(sets, 'a CapsAdvertise');
  const v81 = sets.find((s) => s.version === 0x00080105);
  assert.ok(v81 && (v81.flags & GFX.CAPS_FLAG_AVC420_ENABLED), 'RDPGFX 8.1 with AVC420');
  assert.ok(!sets.some((s) => s.version >= 0x000a0002), `10.x offered: ${sets.map((s) => s.version.toString(16)).join(' ')}`);
  assert.equal(wire.end.reason, 'video-unsupported', `ended ${JSON.stringify(wire.end)}`);
});

test('all desktop effects turned off and 16 bpp: the wire says so', async () => {
  const wire = await sessionWire({ colorDepth: 16, performance: { wallpaper: false, fullWindowDrag: false, menuAnimations: false, themes: false } });
  assert.equal(wire.clientInfo.performanceFlags & PERF_EFFECTS_MASK, PERF_EFFECTS_MASK, `performanceFlags 0x${wire.clientInfo.performanceFlags.toString(16)}`);
  const { core } = wire.connectInitial;
  assert.equal(core.highColorDepth, HIGH_COLOR_16BPP);
  assert.equal(core.earlyCapabilityFlags & RNS_UD_CS_WANT_32BPP_SESSION, 0);
  // NLA is off here (shadow server without auth), so these are the settings' own words
  assert.equal(wire.clientInfo.username, 'viewer');
});
