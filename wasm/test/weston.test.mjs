// Weston's RDP backend (issue 10, finding 8): a server that opens its end of
// the clipboard channel at activation and ends the session when the client
// has not joined `cliprdr` (its log: "WTSVirtualChannelOpen for cliprdr
// failed", "Activate for peer … failed"). The client joins cliprdr, answers
// its handshake as a client with an empty clipboard, and never carries
// clipboard content (src/clipboard_handshake.c).
//
// Pixels: Weston (kiosk-shell) shows a known picture full-screen, 1:1; the
// lab proves that with Weston's own screenshot before the server is handed
// out. The wasm client's stable frame, through the real gateway, is compared
// with a screenshot Weston takes after the frame: exact where Weston sends
// plain bitmaps (no RemoteFX advertised), at least 40 dB whole frame and in
// every region of the slide through RemoteFX surface bits (Weston has no GFX).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SLIDE_REGIONS, compareImages, describeDifference } from '@lanterna/lab';
import { waitFor } from '@lanterna/testkit';

import { runOverGateway } from '../js/gatewaySession.js';
import { labThroughGateway, psnr, stableFrameOverGateway } from './gatewayFrame.mjs';
import { tappedSocket } from './tappedSocket.mjs';
import { CLIPRDR, channelMessages, decodeClientSession, readCliprdrGeneralCapability, readCliprdrPdu, splitPdus } from './clientPdus.mjs';

const SIZE = { width: 1920, height: 1080 };
const CB_USE_LONG_FORMAT_NAMES = 0x2;

/**
 * The client's messages on the clipboard channel, or null before it asked for
 * one. FreeRDP-based servers (Weston's backend is one) number the static
 * channels from 1004 in the order of the client's list (and let the client
 * skip the channel joins, so there are none on the wire to read ids from).
 */
function clientClipboardMessages(wire) {
  if (!wire.connectInitial) return null;
  const index = wire.connectInitial.channels.indexOf('cliprdr');
  if (index < 0) return null;
  const channelId = 1004 + index;
  return channelMessages(wire.sendData.filter((m) => m.channelId === channelId)).map((m) => readCliprdrPdu(m.data));
}

test('Weston (RDP backend, needs cliprdr) through the real gateway', { timeout: 300000 }, async (t) => {
  const { lab, rdp, projecting } = await labThroughGateway(t, 'wasm-weston');
  const weston = await lab.weston({ picture: 'reference', ...SIZE });
  const credentials = { username: weston.username, password: weston.password };

  await t.test('cliprdr joined: the session is activated and draws the reference picture exactly (plain bitmaps)', async () => {
    const { image } = await stableFrameOverGateway(rdp, projecting, weston, { ...SIZE, ...credentials, gfx: false, codecs: ['planar'] });
    const screen = await weston.screenshot();
    const againstScreen = compareImages(screen, image);
    assert.equal(againstScreen && describeDifference(againstScreen), undefined, 'the frame against Weston\'s screenshot');
    const againstPicture = compareImages(weston.picture, image);
    assert.equal(againstPicture && describeDifference(againstPicture), undefined, 'the frame against the picture Weston was given');
  });

  await t.test('without cliprdr Weston ends the session at activation (the finding, still true of the server)', async () => {
    const before = readFileSync(weston.logPath, 'utf8').length;
    await assert.rejects(
      stableFrameOverGateway(rdp, projecting, weston, { ...SIZE, ...credentials, gfx: false, codecs: ['planar'], freerdpSettings: { FreeRDP_RedirectClipboard: false } }),
      (err) => {
        assert.equal(err.end?.reason, 'server-ended', err.message);
        return true;
      },
    );
    const log = readFileSync(weston.logPath, 'utf8').slice(before);
    assert.match(log, /WTSVirtualChannelOpen for cliprdr failed/);
  });

  await t.test('on the wire: the clipboard handshake is answered with an empty clipboard, no content either way', async () => {
    // Weston's log has its cliprdr channel at DEBUG (lab): what it received and answered
    const logFrom = readFileSync(weston.logPath, 'utf8').length;
    const serverLog = () => readFileSync(weston.logPath, 'utf8').slice(logFrom);
    const serverDone = /ClientFormatList: numFormats: 0[\s\S]*ServerFormatListResponse/;
    const sent = [];
    const wire = () => clientClipboardMessages(decodeClientSession(sent.flatMap((frame) => splitPdus(frame))));
    const { dataUrl, token } = await projecting.project(weston);
    const session = rdp.createSession({ ...SIZE, ...credentials, gfx: false, codecs: ['planar'] });
    let frames = 0;
    session.onframe = () => { frames += 1; };
    const ended = runOverGateway(session, tappedSocket(dataUrl, sent), { token });
    let over = false;
    void ended.then(() => { over = true; });
    try {
      await waitFor('a frame, the client\'s format list and Weston\'s answer (or the end of the session)',
        () => over || (frames > 0 && Boolean(wire()?.some((m) => m.msgType === CLIPRDR.FORMAT_LIST)) && serverDone.test(serverLog())), 30000);
    } finally {
      session.stop();
    }
    const end = await ended;
    assert.equal(end.reason, 'stopped', `the session ended by itself: ${end.reason} (code ${end.code})`);
    assert.ok(frames > 0, 'the session drew');
    const messages = wire();
    assert.ok(messages, 'the client asked for cliprdr');
    const log = serverLog();
    assert.match(log, serverDone, 'Weston took the empty format list and answered it');
    assert.doesNotMatch(log, /\[ERROR\]\[com\.freerdp\.channels\.cliprdr/);
    t.diagnostic(`client cliprdr messages: ${messages.map((m) => `0x${m.msgType.toString(16)}/${m.msgFlags}/${m.dataLen}`).join(', ')}`);
    assert.equal(messages[0]?.msgType, CLIPRDR.CLIP_CAPS, 'capabilities first');
    const caps = readCliprdrGeneralCapability(messages[0].data);
    assert.equal(caps.version, 2);
    assert.equal(caps.generalFlags & ~CB_USE_LONG_FORMAT_NAMES, 0, `no file, lock or stream features: 0x${caps.generalFlags.toString(16)}`);
    const lists = messages.filter((m) => m.msgType === CLIPRDR.FORMAT_LIST);
    assert.equal(lists.length, 1, 'one format list');
    assert.equal(lists[0].dataLen, 0, 'and it offers no format');
    for (const m of messages.slice(1)) {
      const name = `0x${m.msgType.toString(16)}`;
      assert.ok([CLIPRDR.FORMAT_LIST, CLIPRDR.FORMAT_LIST_RESPONSE, CLIPRDR.FORMAT_DATA_RESPONSE, CLIPRDR.FILECONTENTS_RESPONSE].includes(m.msgType), `client sent ${name}`);
      if (m.msgType === CLIPRDR.FORMAT_DATA_RESPONSE || m.msgType === CLIPRDR.FILECONTENTS_RESPONSE) {
        assert.equal(m.msgFlags, CLIPRDR.RESPONSE_FAIL, `${name} is a refusal`);
        assert.equal(m.dataLen, 0, `${name} carries nothing`);
      }
    }
  });

  await t.test('slide through RemoteFX surface bits: at least 40 dB whole frame and in every region', async () => {
    const slide = await lab.weston({ picture: 'slide', ...SIZE });
    const { image } = await stableFrameOverGateway(rdp, projecting, slide, { ...SIZE, ...credentials, gfx: false, codecs: ['remotefx'] });
    const screen = await slide.screenshot();
    const whole = psnr(screen, image);
    const regions = SLIDE_REGIONS.map((region) => ({ name: region.name, db: psnr(screen, image, region) }));
    t.diagnostic(`Weston RemoteFX, slide: whole frame ${whole.toFixed(2)} dB; ${regions.map((r) => `${r.name} ${r.db.toFixed(2)}`).join(', ')}`);
    assert.ok(whole >= 40, `slide at ${whole.toFixed(2)} dB, below 40`);
    for (const region of regions) assert.ok(region.db >= 40, `slide's ${region.name} at ${region.db.toFixed(2)} dB, below 40`);
  });
});
