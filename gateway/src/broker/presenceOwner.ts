// Who holds a display's control socket, as its presence record in the store
// says it: `<instance>.<socket>`. The instance part is one gateway instance's
// (all its cluster workers share it; a new one every start), so in a farm
// sharing Redis the presence names the gateway that holds the display — the
// one that announces it over WS-Discovery. A per-start value, not a persisted
// one: a gateway killed outright leaves presences naming an instance that no
// longer exists, and nobody announces those displays until their kiosks
// reconnect somewhere.
import { randomBytes } from 'node:crypto';

/** A new instance tag (hex, no separator: it prefixes owners). */
export function newInstanceTag(): string {
  return randomBytes(6).toString('hex');
}

/** A new owner id for one control socket; with a tag, the presence names the instance. */
export function newPresenceOwner(instanceTag?: string): string {
  const socket = randomBytes(8).toString('hex');
  return instanceTag ? `${instanceTag}.${socket}` : socket;
}

/** True when the owner was made by the instance with this tag. */
export function ownedByInstance(owner: string, instanceTag: string): boolean {
  return owner.startsWith(`${instanceTag}.`);
}
