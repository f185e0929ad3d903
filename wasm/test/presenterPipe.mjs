// Joins a display's wasm client (RdpSession) to a presenter's wasm server
// (PresenterSession) in this process, playing the gateway's part the way it
// will have to for a presenter's leg (docs/browser-presenter.md):
//   - the client's Connection Request goes to the presenter as it is;
//   - the presenter's first PDU must be a Connection Confirm selecting TLS
//     (PROTOCOL_SSL: no NLA towards a presenter); the gateway then reports the
//     leg `secured` to the client (the presenter certificate's key) before it
//     passes the Confirm on — the client's TLSConnect hook only checks that the
//     report came, the TLS itself being the gateway's;
//   - from then on whole PDUs are relayed both ways; each presenter message
//     must be exactly one whole PDU within the gateway's PDU cap (what the
//     gateway's framer will hold the presenter page to).
// Delivery is asynchronous (a macrotask per message), as over two sockets.
import { after, before } from 'node:test';

import { DEFAULT_MAX_PDU_BYTES, parseConnectionConfirm, PROTOCOL, selectedProtocol, splitWholePdus } from '@lanterna/protocol';

import { loadLanternaPresenter, loadLanternaRdp } from '../js/nodeLoader.js';

/**
 * Loads the display's client module and the presenter's server module once
 * for a test file (hands them to `use` before its tests) and closes both after.
 * @param {(modules: { rdp: import('../js/lanternaRdp.js').LanternaRdp, presenters: import('../js/lanternaPresenter.js').LanternaPresenter }) => void} use
 */
export function withBothModules(use) {
  let modules;
  before(async () => {
    const [rdp, presenters] = await Promise.all([loadLanternaRdp(), loadLanternaPresenter()]);
    modules = { rdp, presenters };
    use(modules);
  });
  after(async () => {
    await Promise.all([modules?.rdp.close(), modules?.presenters.close()]);
  });
}

/**
 * Joins a configured client and presenter (pipeLikeGateway), starts both, and
 * stops both, waiting for their ends, when the test `t` is over.
 * @returns {ReturnType<typeof pipeLikeGateway>}
 */
export function startJoined(t, client, presenter) {
  const pipe = pipeLikeGateway(client, presenter);
  t.after(async () => {
    client.stop();
    presenter.stop();
    await Promise.all([client.closed, presenter.ended]);
  });
  presenter.start();
  client.start();
  return pipe;
}

/**
 * @param {import('../js/lanternaRdp.js').RdpSession} client a configured, not yet started session
 * @param {import('../js/lanternaPresenter.js').PresenterSession} presenter a created, not yet started session
 * @returns {{ stats: { toPresenter: number, toClient: number, pdusToClient: number, largestPdu: number, confirm: object | null, failure: Error | null } }}
 */
export function pipeLikeGateway(client, presenter) {
  const stats = { toPresenter: 0, toClient: 0, pdusToClient: 0, largestPdu: 0, confirm: null, failure: null };
  let confirmed = false;
  const fail = (error) => {
    stats.failure ??= error;
    client.stop();
    presenter.stop();
  };
  client.onsend = (bytes) => {
    stats.toPresenter += bytes.length;
    setImmediate(() => presenter.feed(bytes));
  };
  presenter.onoutput = (bytes) => {
    stats.toClient += bytes.length;
    if (!confirmed) {
      confirmed = true;
      try {
        const confirm = parseConnectionConfirm(bytes);
        stats.confirm = confirm;
        if (selectedProtocol(confirm) !== PROTOCOL.SSL) throw new Error(`the presenter selected protocol ${selectedProtocol(confirm)}, not TLS`);
      } catch (error) {
        fail(error);
        return;
      }
      const key = presenter.publicKey;
      setImmediate(() => {
        client.secured(key);
        client.receive(bytes);
      });
      return;
    }
    try {
      const pdus = splitWholePdus(bytes, 'rdp', { maxPduBytes: DEFAULT_MAX_PDU_BYTES });
      if (pdus.length !== 1) throw new Error(`a presenter message held ${pdus.length} PDUs, not one`);
    } catch (error) {
      fail(error);
      return;
    }
    stats.pdusToClient += 1;
    stats.largestPdu = Math.max(stats.largestPdu, bytes.length);
    setImmediate(() => client.receive(bytes));
  };
  const userClientEnd = client.ondisconnected;
  client.ondisconnected = (end) => {
    setImmediate(() => presenter.endOfInput());
    userClientEnd.call(client, end);
  };
  const userPresenterEnd = presenter.onended;
  presenter.onended = (end) => {
    setImmediate(() => client.endOfInput());
    userPresenterEnd.call(presenter, end);
  };
  return { stats };
}

/** A width×height picture in B,G,R,X bytes where (nearly) every pixel differs from its neighbours, none black. */
export function testPicture(width, height, seed = 0) {
  const pixels = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = (y * width + x) * 4;
      pixels[i] = (((x * 7) + (y * 13) + seed) & 127) + 64; // B, never 0
      pixels[i + 1] = (y + seed) & 255; // G
      pixels[i + 2] = (x + (seed * 3)) & 255; // R
      pixels[i + 3] = 0; // X: not alpha, not compared
    }
  }
  return pixels;
}

/**
 * Pixels of a client frame (bgrx) that differ from `expected` (B,G,R,X rows of
 * width×4) in the rectangle at (x, y); X bytes are not compared.
 */
export function countDifferences(frame, expected, { x = 0, y = 0, width, height }) {
  if (frame.layout !== 'bgrx') throw new Error(`frame layout ${frame.layout}, expected bgrx`);
  let differ = 0;
  let first = null;
  for (let row = 0; row < height; row += 1) {
    const at = (y + row) * frame.stride + x * 4;
    for (let col = 0; col < width; col += 1) {
      const got = at + col * 4;
      const want = (row * width + col) * 4;
      if (frame.pixels[got] !== expected[want] || frame.pixels[got + 1] !== expected[want + 1] || frame.pixels[got + 2] !== expected[want + 2]) {
        differ += 1;
        first ??= { x: x + col, y: y + row, got: [...frame.pixels.subarray(got, got + 3)], want: [...expected.subarray(want, want + 3)] };
      }
    }
  }
  return { differ, first };
}

/**
 * A module's heap (src/heap_guard.h), in bytes: size (fixed), top (the
 * high-water mark: dlmalloc never gives memory back), inUse now, and how many
 * heap extensions were refused.
 */
export function heapStats(module) {
  const ptr = module._malloc(5 * 4);
  if (!ptr) throw new Error('no room in the heap to read the heap');
  try {
    module._lt_heap_stats(ptr);
    const [size, top, , inUse, refused] = new Uint32Array(module.HEAPU8.buffer, ptr, 5);
    return { size, top, inUse, refused };
  } finally {
    module._free(ptr);
  }
}
