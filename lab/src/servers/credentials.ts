import { randomBytes } from 'node:crypto';

/** A password that satisfies common complexity rules (upper, lower, digit, symbol) and needs no shell quoting. */
export function generatePassword(): string {
  return `Lab-${randomBytes(9).toString('base64url').replaceAll(/[-_]/g, 'x')}9a`;
}
