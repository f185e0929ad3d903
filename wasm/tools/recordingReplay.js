// Plays a recorded RDP session (the shared recordings, FreeRDP's /dump
// format as read by @lanterna/lab's recordingReader) into a wasm client as if
// a server sent it: deterministic decoder tests and benchmarks without a
// server. Recordings start at MCS Connect-Initial, after TLS, so the replay
// plays the part the gateway plays before that: it answers the client's
// X.224 Connection Request with a Connection Confirm selecting TLS and reports
// the connection `secured`; from then on the client reads the recorded
// server→client PDUs in order from its receive ring, and the input ends after
// the last one. What the client sends is counted, not checked (its requests
// decide nothing: a recorded server answers what it answered).

import { buildConnectionConfirm, PROTOCOL } from '@lanterna/protocol';

/** X.224 Connection Confirm with an RDP_NEG_RSP selecting TLS (also what the page bench's stand-in gateway answers). */
export function tlsConnectionConfirm() {
  return buildConnectionConfirm({ kind: 'response', selectedProtocol: PROTOCOL.SSL, flags: 0 });
}

/**
 * FreeRDP settings a replaying client needs beyond the page's defaults: the static
 * channel list must be the recorded client's (rdpdr, rdpsnd, cliprdr, drdynvc for
 * FreeRDP's xfreerdp3), or the server's channel ids land on the wrong channels.
 * (cliprdr is in the defaults now too; named here so replays do not depend on them.)
 */
export const recordedClientSettings = Object.freeze({ FreeRDP_RedirectClipboard: true });

/**
 * @param {import('../js/lanternaRdp.js').LanternaRdp} rdp
 * @param {readonly { direction: string, data: Uint8Array }[]} records a parsed recording
 * @param {{ session?: import('../js/lanternaRdp.js').SessionOptions, keepLastFrame?: boolean,
 *           onframe?: (frame: import('../js/lanternaRdp.js').Frame) => void, deadlineMs?: number }} [options]
 */
export function replayRecording(rdp, records, options = {}) {
  const { keepLastFrame = true, deadlineMs = 120000 } = options;
  // the recording's server decides size and codecs; the client only has to accept them
  const session = rdp.createSession({
    width: 1920, height: 1080, connectTimeoutMs: deadlineMs, ...options.session,
    freerdpSettings: { ...recordedClientSettings, ...options.session?.freerdpSettings },
  });
  const serverPdus = records.filter((r) => r.direction === 'server-to-client');
  const result = { frames: 0, clientPdus: 0, serverPdus: serverPdus.length, lastFrame: null, desktop: null, end: null, ms: 0 };
  let started = 0;
  let fed = false;
  session.onsend = () => {
    result.clientPdus += 1;
    if (fed) return;
    fed = true; // the first PDU is the Connection Request
    session.secured(new Uint8Array(270));
    session.receive(tlsConnectionConfirm());
    for (const pdu of serverPdus) session.receive(pdu.data);
    session.endOfInput();
  };
  session.onconnected = (desktop) => { result.desktop = desktop; };
  session.onframe = (frame) => {
    result.frames += 1;
    options.onframe?.(frame);
    if (keepLastFrame) {
      result.lastFrame = {
        width: frame.width, height: frame.height, stride: frame.stride, layout: frame.layout,
        pixels: frame.pixels.slice(0, frame.stride * frame.height),
      };
    }
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      session.stop();
      reject(new Error(`replay did not end within ${deadlineMs} ms (${result.frames} frames)`));
    }, deadlineMs);
    session.ondisconnected = (end) => {
      clearTimeout(timer);
      result.end = end;
      result.ms = performance.now() - started;
      resolve(result);
    };
    started = performance.now();
    session.start();
  });
}
