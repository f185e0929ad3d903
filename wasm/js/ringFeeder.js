// The gateway's bytes into a module's receive ring (src/receive_ring.c), for
// the display's client and the presenter's server alike: each message is
// copied into the heap and pushed whole; when the ring is full the rest waits
// here and is tried again shortly (the C thread is behind), and once the input
// has ended and everything is in, the C side is told so it can drain and end.

export class RingFeeder {
  /**
   * @param {object} module the Emscripten module (its _malloc, _free, HEAPU8)
   * @param {{ push: (ptr: number, length: number) => number, closeInput: () => void,
   *   running: () => boolean, mayCloseInput?: () => boolean }} ring
   *   push: 1 taken, 0 no room yet, anything else refused (what waits is dropped);
   *   running: whether the session still takes bytes; mayCloseInput: whether the
   *   C side may be told the input ended (default: running)
   */
  constructor(module, ring) {
    this.module = module;
    this.ring = ring;
    /** @type {Uint8Array[]} messages waiting for room in the ring */
    this.pending = [];
    this.timer = null;
    this.inputEnded = false;
  }

  /** One message from the gateway. */
  push(bytes) {
    this.pending.push(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
    this.feed();
  }

  /** The gateway's socket is gone: what waits still goes in, then the input closes. */
  end() {
    this.inputEnded = true;
    this.feed();
  }

  feed() {
    const m = this.module;
    while (this.pending.length > 0 && this.ring.running()) {
      const bytes = this.pending[0];
      const ptr = m._malloc(bytes.length);
      if (!ptr) break;
      m.HEAPU8.set(bytes, ptr);
      const taken = this.ring.push(ptr, bytes.length);
      m._free(ptr);
      if (taken === 1) {
        this.pending.shift();
      } else if (taken === 0) {
        // the C thread is behind: try again shortly
        this.timer ??= setTimeout(() => { this.timer = null; this.feed(); }, 2);
        return;
      } else {
        this.pending = [];
        break;
      }
    }
    if (this.inputEnded && this.pending.length === 0 && (this.ring.mayCloseInput ?? this.ring.running)()) {
      this.ring.closeInput();
    }
  }

  /** The session ended: nothing more is tried. */
  cancel() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
