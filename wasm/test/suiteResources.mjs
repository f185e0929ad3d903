// What a test file's tests share (the wasm module, an RDP server, a gateway,
// a display's control socket), opened once for the file and closed after it.
import { before, after } from 'node:test';

/**
 * Opens `openers` in their order before the file's first test, each given
 * those opened before it, and closes them in the reverse order after its
 * last, those that have a close() (also when an opener failed part way: what
 * was opened is closed; a lab closes what it started). The
 * object returned holds them by name once before() has run.
 * @template {Record<string, (opened: any) => Promise<any>>} T
 * @param {T} openers
 * @returns {{ [K in keyof T]: Awaited<ReturnType<T[K]>> }}
 */
export function openForSuite(openers) {
  const opened = {};
  before(async () => {
    for (const [name, open] of Object.entries(openers)) opened[name] = await open(opened);
  });
  after(async () => {
    for (const name of Object.keys(openers).reverse()) await opened[name]?.close?.();
  });
  return /** @type {any} */ (opened);
}
