// A module under test for the fuzzer's own tests: a bug behind three nested
// byte checks that all end in the same outcome, so only coverage can lead there.
export function nestedBranches(bytes: Uint8Array): string {
  if (bytes[0] === 0x4c) {
    if (bytes[1] === 0x61) {
      if (bytes[2] === 0x6e) {
        if (bytes[3] === 0x74) throw new RangeError('reached the planted bug');
      }
    }
  }
  return 'ok';
}
