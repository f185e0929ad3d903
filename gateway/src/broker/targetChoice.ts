// Where a projection request may go: no open relay, whether the request names
// a target or carries a Remote Assistance invitation. Every address goes
// through the target policy; names are resolved first (with a deadline, by the
// resolver the broker is given) so a name cannot smuggle in a forbidden address.
import type { TargetPolicy } from '../policy/targetPolicy.js';
import { InvitationError, readInvitation, type InvitationErrorCode } from '../assistance/raInvitation.js';

/** Every address a host name stands for; rejects (with words a person can act on) when it has none in time. */
export type ResolveTarget = (host: string) => Promise<string[]>;

export type TargetChoice =
  | { allowed: true; target: { host: string; port: number } }
  | { allowed: false; code: 'target-forbidden' | InvitationErrorCode; reason: string };

export async function checkTarget(policy: TargetPolicy, resolve: ResolveTarget, host: string, port: number): Promise<TargetChoice> {
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch (error) {
    return { allowed: false, code: 'target-forbidden', reason: (error as Error).message };
  }
  const verdicts = addresses.map((address) => policy.check(address, port));
  const verdict = verdicts.find((v) => v.allowed) ?? verdicts[0];
  if (verdict?.allowed) return { allowed: true, target: { host, port } };
  return { allowed: false, code: 'target-forbidden', reason: verdict?.reason ?? 'no address' };
}

/**
 * No open relay through invitations either: every address the invitation names
 * goes through the same policy as a plain target, in the invitation's order,
 * and the first one allowed is the target. None allowed: refused, naming why.
 */
export async function chooseInvitationTarget(
  policy: TargetPolicy,
  resolve: ResolveTarget,
  assistance: { invitation: string; password: string },
): Promise<TargetChoice> {
  let addresses;
  try {
    ({ addresses } = readInvitation(assistance.invitation, assistance.password));
  } catch (error) {
    if (error instanceof InvitationError) return { allowed: false, code: error.code, reason: error.message };
    throw error;
  }
  // All at once: each lookup has its own deadline, and one after another a
  // list of names that never resolve would cost that deadline times the list.
  const verdicts = await Promise.all(addresses.map((address) => checkTarget(policy, resolve, address.host, address.port)));
  const refusals: string[] = [];
  for (const verdict of verdicts) {
    if (verdict.allowed) return verdict; // the invitation's order decides
    refusals.push(verdict.reason);
  }
  return { allowed: false, code: 'target-forbidden', reason: `no address in the invitation is allowed: ${refusals.join('; ')}` };
}
