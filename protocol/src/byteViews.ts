// New byte views of the caller's own kind. The package speaks Uint8Array, but
// a Node caller hands in Buffers and sends what comes back on sockets that
// take a Buffer as is (ws wraps anything else in one more view per send). A
// typed array's species constructor builds the same kind, Buffer included
// (Node's Buffer[Symbol.species] is its allocation-free FastBuffer), so
// views made here keep the caller's class without any Node API.

type ViewConstructor = new (...args: [ArrayBufferLike, number, number] | [number]) => Uint8Array;

function speciesOf(template: Uint8Array): ViewConstructor {
  const constructor = template.constructor as { [Symbol.species]?: ViewConstructor } | undefined;
  return constructor?.[Symbol.species] ?? Uint8Array;
}

/** A view of `length` bytes at `byteOffset` of `template`'s memory, of `template`'s kind. */
export function viewLike<T extends Uint8Array>(template: T, byteOffset: number, length: number): T {
  return new (speciesOf(template))(template.buffer, byteOffset, length) as T;
}

/** `pieces` copied back to back into one new array of `length` bytes, of the first piece's kind. */
export function concatLike<T extends Uint8Array>(pieces: readonly Uint8Array[], length: number, allocate?: (length: number) => T): T {
  const first = pieces[0];
  const out = allocate ? allocate(length) : (new (first ? speciesOf(first) : Uint8Array)(length) as T);
  let at = 0;
  for (const piece of pieces) {
    const take = Math.min(piece.length, length - at);
    out.set(take === piece.length ? piece : piece.subarray(0, take), at);
    at += take;
    if (at === length) break;
  }
  return out;
}
