/** Null when equal, else where the first differing pixel is and what it holds. */
export function firstPixelDifference(actual: Uint8Array, expected: Uint8Array, width: number): string | null {
  if (actual.length !== expected.length) return `sizes differ: ${actual.length} vs ${expected.length} bytes`;
  for (let i = 0; i < actual.length; i++) {
    if (actual[i] !== expected[i]) {
      const p = Math.floor(i / 4);
      const a = Array.from(actual.subarray(p * 4, p * 4 + 4));
      const e = Array.from(expected.subarray(p * 4, p * 4 + 4));
      return `pixel (${p % width}, ${Math.floor(p / width)}) is [${a.join(',')}], expected [${e.join(',')}]`;
    }
  }
  return null;
}
