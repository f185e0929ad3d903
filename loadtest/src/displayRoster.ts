// The simulated displays of a run: ids and tokens the gateway config lists and
// the generators log in with.
import { randomBytes } from 'node:crypto';

export interface DisplayIdentity { id: string; token: string }

export function buildDisplayRoster(count: number, runTag = randomBytes(3).toString('hex')): DisplayIdentity[] {
  const token = randomBytes(18).toString('base64url');
  return Array.from({ length: count }, (_unused, index) => ({ id: `lt-${runTag}-${String(index).padStart(5, '0')}`, token }));
}

/**
 * A distinct loopback source address per display (127.1.x.y), so a load
 * balancer hashing on the source address sees each display as its own client,
 * as real kiosks on a LAN are.
 */
export function sourceAddressFor(index: number): string {
  return `127.1.${Math.floor(index / 250) % 250}.${(index % 250) + 1}`;
}
