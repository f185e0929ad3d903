// Havoc-style byte mutations, as libFuzzer and AFL stack them: bit flips,
// interesting values, small arithmetic, length fix-ups (a big-endian or
// little-endian length set to what is left of the input, the commonest way to
// get past a header check), range copies, deletions, insertions, dictionary
// tokens, and crossover with another corpus entry.
import type { SeededRandom } from './seededRandom.js';

const INTERESTING_8 = [0, 1, 2, 3, 4, 5, 7, 8, 0x0a, 0x0d, 0x10, 0x20, 0x22, 0x26, 0x30, 0x3c, 0x3e, 0x3f, 0x40, 0x5c, 0x7f, 0x80, 0x81, 0x82, 0x83, 0x84, 0xfe, 0xff];
const INTERESTING_16 = [0, 1, 7, 8, 0x7f, 0x80, 0xff, 0x100, 0x3fff, 0x4000, 0x7fff, 0x8000, 0xfffe, 0xffff];
const INTERESTING_32 = [0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x10ffff, 0x110000];

export type Donor = () => Uint8Array;

export class ByteMutator {
  constructor(
    private readonly random: SeededRandom,
    private readonly dictionary: readonly Uint8Array[],
    private readonly maxBytes: number,
  ) {}

  /** A mutated copy of `input`: 1 to 16 stacked changes; `donor` gives another corpus entry for crossover. */
  mutate(input: Uint8Array, donor: Donor): Uint8Array {
    let data: Uint8Array = input.slice();
    const changes = 1 << this.random.below(5);
    for (let i = 0; i < changes; i++) data = this.#once(data, donor);
    return data.length > this.maxBytes ? data.subarray(0, this.maxBytes) : data;
  }

  #once(data: Uint8Array, donor: Donor): Uint8Array {
    const random = this.random;
    const length = data.length;
    if (length === 0) return random.chance(0.5) ? this.#token() : random.bytes(1 + random.below(8));
    const at = random.below(length);
    switch (random.below(16)) {
      case 0:
        data[at] = (data[at] ?? 0) ^ (1 << random.below(8));
        return data;
      case 1:
        data[at] = random.pick(INTERESTING_8);
        return data;
      case 2:
        data[at] = ((data[at] ?? 0) + random.between(-16, 16)) & 0xff;
        return data;
      case 3:
        data[at] = random.next() & 0xff;
        return data;
      case 4:
        return writeNumber(data, at, random.pick(INTERESTING_16), 2, random.chance(0.5));
      case 5:
        return writeNumber(data, at, random.pick(INTERESTING_32), 4, random.chance(0.5));
      case 6: {
        // A length field that counts from here (or from a few bytes before) to the end.
        const width = random.chance(0.7) ? 2 : 1;
        const value = length - at + random.between(-4, 4) + (random.chance(0.5) ? 0 : at);
        return writeNumber(data, at, Math.max(0, value), width, random.chance(0.3));
      }
      case 7: {
        const size = 1 + random.skewed(Math.min(length - at, 64) - 1);
        return concat(data.subarray(0, at), data.subarray(at + size));
      }
      case 8: {
        // Duplicate a range: repeated fields, repeated PDUs, repeated elements.
        const from = random.below(length);
        const size = 1 + random.skewed(Math.min(length - from, 256) - 1);
        return concat(data.subarray(0, at), data.subarray(from, from + size), data.subarray(at));
      }
      case 9: {
        const from = random.below(length);
        const size = 1 + random.skewed(Math.min(length - from, length - at, 64) - 1);
        data.copyWithin(at, from, from + size);
        return data;
      }
      case 10:
        return concat(data.subarray(0, at), random.bytes(1 + random.skewed(15)), data.subarray(at));
      case 11:
        return concat(data.subarray(0, at), this.#token(), data.subarray(at));
      case 12: {
        const token = this.#token();
        return concat(data.subarray(0, at), token, data.subarray(Math.min(length, at + token.length)));
      }
      case 13: {
        // Crossover: our head, another entry's tail (or all of it appended).
        const other = donor();
        if (other.length === 0) return data;
        return random.chance(0.3) ? concat(data, other) : concat(data.subarray(0, at), other.subarray(random.below(other.length)));
      }
      case 14:
        return random.chance(0.5) ? data.subarray(0, at) : data.subarray(at);
      default: {
        // Insert a run of one byte (long names, long numbers, padding).
        const run = new Uint8Array(1 + random.skewed(255)).fill(random.chance(0.5) ? (data[at] ?? 0) : random.pick(INTERESTING_8));
        return concat(data.subarray(0, at), run, data.subarray(at));
      }
    }
  }

  #token(): Uint8Array {
    return this.dictionary.length === 0 ? this.random.bytes(1 + this.random.below(4)) : this.random.pick(this.dictionary);
  }
}

function writeNumber(data: Uint8Array, at: number, value: number, width: number, littleEndian: boolean): Uint8Array {
  for (let i = 0; i < width && at + i < data.length; i++) {
    const shift = 8 * (littleEndian ? i : width - 1 - i);
    data[at + i] = Math.floor(value / 2 ** shift) & 0xff;
  }
  return data;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
