// Remote Assistance invitations end to end, as far as this machine allows: no
// RA server runs here (the novice side is Windows only), so the real gateway
// relays the wasm client to a scripted peer (clientInfoPeer.mjs) that records
// what the client sends up to its Client Info PDU. The gateway must choose the
// target from the invitation under its policy (no open relay); the client must
// turn the invitation into the fields an RA server checks. Bad invitations end
// with typed errors, and the module keeps running sessions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { connectControl, startTestGateway } from '@lanterna/testkit';

import { loadLanternaRdp } from '../js/nodeLoader.js';
import { runOverGateway } from '../js/gatewaySession.js';
import { sessionOptionsFromProject } from '../js/projectSettings.js';
import { RdpSessionError } from '../js/lanternaRdp.js';
import { startClientInfoPeer } from './clientInfoPeer.mjs';
import { decodeClientSession } from './clientPdus.mjs';
import { type1Invitation, type2Invitation } from './raInvitations.mjs';
import { openForSuite } from './suiteResources.mjs';

const DISPLAY_TOKEN = 'wasm-ra-display-token-0123456789';
const PASSWORD = 'Expert-Pa55';
const FORBIDDEN = { host: '198.51.100.7', port: 3389 }; // outside the test gateway's 127.0.0.0/8
const PROTOCOL_SSL = 1;
const PERF_DISABLE_WALLPAPER = 0x01;
const PERF_DISABLE_FULLWINDOWDRAG = 0x02;
const PERF_DISABLE_MENUANIMATIONS = 0x04;
const PERF_DISABLE_THEMING = 0x08;

const suite = openForSuite({
  rdp: () => loadLanternaRdp({ logLevel: process.env.LT_LOG ?? 'OFF' }),
  peer: () => startClientInfoPeer(),
  gateway: () => startTestGateway({ displays: [{ id: 'ra', token: DISPLAY_TOKEN }], certificates: { mode: 'first-use' } }),
  control: ({ gateway }) => connectControl(gateway.url, 'ra', DISPLAY_TOKEN),
});

function errorCode(fn) {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof RdpSessionError, `not an RdpSessionError: ${error}`);
    return error.code;
  }
  return 'created';
}

function createWith(invitation, password = PASSWORD) {
  return () => suite.rdp.createSession({ assistance: { invitation, password } }).stop();
}

async function project(body) {
  const response = await fetch(`${suite.gateway.httpUrl}/v1/admin/sessions`, {
    method: 'POST', headers: { authorization: `Bearer ${suite.gateway.adminToken}` },
    body: JSON.stringify({ displayId: 'ra', ...body }),
  });
  return { status: response.status, body: await response.json() };
}

/** The kiosk's part: the project message → session options → data socket, until the peer has the Client Info. */
async function runProjected(projectMessage) {
  const sessionsBefore = suite.peer.sessions.length;
  const session = suite.rdp.createSession({ ...sessionOptionsFromProject(projectMessage, { width: 1280, height: 720 }), connectTimeoutMs: 10000 });
  const socket = new WebSocket(`${suite.gateway.url}/v1/sessions/${projectMessage.sessionId}/data`, 'lanterna.v1');
  const ended = runOverGateway(session, socket, { token: String(projectMessage.sessionToken) });
  let timer;
  const deadline = new Promise((_resolve, reject) => { timer = setTimeout(() => reject(new Error('no end within 20 s')), 20000); });
  try {
    const end = await Promise.race([ended, deadline]);
    const recorded = suite.peer.sessions[sessionsBefore];
    assert.ok(recorded, 'the gateway connected to the peer');
    await Promise.race([recorded.clientInfo, deadline]);
    return { end, wire: decodeClientSession(recorded.pdus) };
  } finally {
    clearTimeout(timer);
  }
}

test('bad invitations are refused by the client with a typed error, before any connection', () => {
  const good = type2Invitation({ addresses: [{ host: '127.0.0.1', port: 3389 }], sessionId: 'S1', passStub: 'Ab1!cdefghijkl', password: PASSWORD });
  assert.equal(errorCode(createWith(good, 'not-the-password')), 'wrong-password');
  assert.equal(errorCode(createWith('<UPLOADINFO TYPE="Escalated"><UPLOADDATA')), 'invalid-invitation');
  assert.equal(errorCode(createWith(good.replace(/ PassStub="[^"]*"/, ''))), 'invalid-invitation');
  // FreeRDP's own check: a connection string 1 needs all eight fields
  const type1 = type1Invitation({ addresses: [{ host: '127.0.0.1', port: 3389 }], sessionId: 'S1', passStub: 'Ab1!cdefghijkl' });
  assert.equal(errorCode(createWith(type1.replace(',*,*,KHtestKH=', ',KHtestKH='))), 'invalid-invitation');
  const laughs = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>${type1.slice(type1.indexOf('<UPLOADINFO'))}`;
  assert.equal(errorCode(createWith(laughs)), 'invalid-invitation');
  assert.equal(errorCode(createWith(type1.replace('PassStub="', 'PassStub="&b;'))), 'invalid-invitation');
  assert.equal(errorCode(createWith(type1.replace('L="0"', `L="0" X="${'a'.repeat(13 * 1024)}"`))), 'invalid-invitation');
  assert.equal(suite.rdp.sessions.size, 0, 'no half-made session is left behind');
});

test('the gateway refuses invitations it cannot read or whose addresses its policy forbids', async () => {
  const onlyForbidden = type2Invitation({ addresses: [FORBIDDEN], sessionId: 'S2', passStub: 'Ab1!cdefghijkl', password: PASSWORD });
  const forbidden = await project({ assistance: { invitation: onlyForbidden, password: PASSWORD } });
  assert.equal(forbidden.status, 403);
  assert.equal(forbidden.body.code, 'target-forbidden');
  assert.match(forbidden.body.message, /198\.51\.100\.7 is outside the allowed networks/);

  const wrong = await project({ assistance: { invitation: onlyForbidden, password: 'wrong' } });
  assert.deepEqual([wrong.status, wrong.body.code], [400, 'invitation-password']);
  const laughs = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaa">]>${onlyForbidden.slice(onlyForbidden.indexOf('<UPLOADINFO'))}`;
  const markup = await project({ assistance: { invitation: laughs, password: PASSWORD } });
  assert.deepEqual([markup.status, markup.body.code], [400, 'invitation-markup']);
  const huge = await project({ assistance: { invitation: `${onlyForbidden}${' '.repeat(13 * 1024)}`, password: PASSWORD } });
  assert.equal(huge.status, 400);
  const both = await project({ target: { host: '127.0.0.1', port: suite.peer.port }, assistance: { invitation: onlyForbidden, password: PASSWORD } });
  assert.equal(both.status, 400);
  // avc420/avc444 may be asked for (the display grants them when its decoder can); unknown codecs may not
  const unknown = await project({ target: { host: '127.0.0.1', port: suite.peer.port }, settings: { codecs: ['h265'] } });
  assert.equal(unknown.status, 400, 'an unknown codec was accepted');
  await assert.rejects(suite.control.next('project', 300), 'no project message for a refused request');
});

test('type 2 invitation through the gateway: first allowed address, RA fields in the Client Info', async () => {
  const sessionId = '+ULZ6ifjoCa6cGPMLQiGHRPwkg6VyJqGwxMnO6GcelwUh9a6/FBq3It5ADSndmLL';
  const invitation = type2Invitation({
    addresses: [FORBIDDEN, { host: '127.0.0.1', port: suite.peer.port }, { host: '127.0.0.2', port: suite.peer.port }],
    sessionId, passStub: 'WB^6HsrIaFmEpi', password: PASSWORD, username: 'novice',
  });
  const projected = await project({ assistance: { invitation, password: PASSWORD } });
  assert.equal(projected.status, 202, JSON.stringify(projected.body));
  assert.deepEqual(projected.body.target, { host: '127.0.0.1', port: suite.peer.port });
  const message = await suite.control.next('project');
  assert.deepEqual(message.target, { name: `127.0.0.1:${suite.peer.port}`, host: '127.0.0.1', port: suite.peer.port });
  assert.equal(message.credentials, undefined);

  const { end, wire } = await runProjected(message);
  assert.ok(['connection-reset', 'server-ended', 'protocol-error', 'closed'].includes(end.reason), `ended ${end.reason}`);
  // RA mode turns NLA off: TLS only, so the expert's password never goes to CredSSP
  assert.equal(wire.connectionRequest.requestedProtocols, PROTOCOL_SSL);
  assert.ok(wire.connectInitial.channels.includes('remdesk'), `channels ${wire.connectInitial.channels}`);
  assert.ok(wire.connectInitial.channels.includes('encomsp'), `channels ${wire.connectInitial.channels}`);
  const info = wire.clientInfo;
  assert.equal(info.workingDir, sessionId, 'the RA session id rides in the working-directory field');
  assert.equal(info.alternateShell, '*', 'with a PassStub the alternate shell is "*"');
  assert.equal(info.password, '*', 'the password field is "*": the expert proves itself on the remdesk channel');
  assert.equal(info.username, 'novice');
});

test('type 1 invitation with performance flags and colour depth from the project settings', async () => {
  const sessionId = 'rb+v0oPmEISmi8N2zK/vuhgul/ABqlDt6wW0VxMyxK8=';
  const invitation = type1Invitation({ addresses: [{ host: '127.0.0.1', port: suite.peer.port }], sessionId, passStub: 'RT=0PvIndan52*' });
  const settings = { colorDepth: 16, performance: { wallpaper: false, fullWindowDrag: true, menuAnimations: false, themes: false } };
  const projected = await project({ assistance: { invitation, password: PASSWORD }, settings });
  assert.equal(projected.status, 202, JSON.stringify(projected.body));
  const message = await suite.control.next('project');
  assert.deepEqual({ ...message.settings, assistance: undefined }, { ...settings, assistance: undefined });

  const { wire } = await runProjected(message);
  assert.equal(wire.clientInfo.workingDir, sessionId);
  assert.equal(wire.clientInfo.alternateShell, '*');
  const perf = wire.clientInfo.performanceFlags;
  assert.equal(perf & 0x0f, PERF_DISABLE_WALLPAPER | PERF_DISABLE_MENUANIMATIONS | PERF_DISABLE_THEMING, `performanceFlags 0x${perf.toString(16)}`);
  assert.equal(perf & PERF_DISABLE_FULLWINDOWDRAG, 0);
  assert.equal(wire.connectInitial.core.highColorDepth, 16);
  assert.equal(wire.connectInitial.core.earlyCapabilityFlags & 0x0002, 0, 'no 32 bpp session wanted');
});
