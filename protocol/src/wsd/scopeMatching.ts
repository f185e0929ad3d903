// WS-Discovery (April 2005) section 5.1: does a Probe's Types and Scopes
// select a target? Types: every QName asked for is one of the target's.
// Scopes: every scope asked for matches one of the target's under the Probe's
// rule. RFC 2396 (the default), strcmp0 and uuid are supported; LDAP and
// anything else are not, which the caller learns (and a target then stays
// silent, as the specification allows for a multicast Probe).
import { MATCH_BY, type QName } from './wsdConstants.js';

export type ProbeVerdict = 'match' | 'no-match' | 'unsupported-rule';

export function typesMatch(asked: readonly QName[], offered: readonly QName[]): boolean {
  return asked.every((name) => offered.some((own) => own.namespace === name.namespace && own.local === name.local));
}

interface SplitUri { scheme: string; authority: string; segments: string[] }

/** RFC 2396 generic syntax, case-folded where the rule says; undefined when not a hierarchical URI. */
function splitUri(uri: string): SplitUri | undefined {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):(?:\/\/([^/?#]*))?([^?#]*)/.exec(uri);
  if (!match?.[1]) return undefined;
  let segments: string[];
  try {
    segments = (match[3] ?? '').split('/').map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
  if (segments[0] === '') segments.shift();
  if (segments.at(-1) === '') segments.pop();
  if (segments.some((segment) => segment === '.' || segment === '..')) return undefined;
  return { scheme: match[1].toLowerCase(), authority: (match[2] ?? '').toLowerCase(), segments };
}

function rfc2396Match(asked: string, own: string): boolean {
  const a = splitUri(asked);
  const b = splitUri(own);
  if (!a || !b || a.scheme !== b.scheme || a.authority !== b.authority || a.segments.length > b.segments.length) return false;
  return a.segments.every((segment, i) => segment === b.segments[i]);
}

function uuidValue(uri: string): string | undefined {
  const match = /^(?:urn:)?uuid:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(uri.trim());
  return match?.[1]?.toLowerCase();
}

function uuidMatch(asked: string, own: string): boolean {
  const a = uuidValue(asked);
  return a !== undefined && a === uuidValue(own);
}

export function scopesMatch(asked: readonly string[], offered: readonly string[], matchBy: string | undefined): ProbeVerdict {
  const rule = matchBy ?? MATCH_BY.rfc2396;
  const compare = rule === MATCH_BY.rfc2396 ? rfc2396Match : rule === MATCH_BY.strcmp0 ? (a: string, b: string) => a === b : rule === MATCH_BY.uuid ? uuidMatch : undefined;
  if (!compare) return asked.length === 0 ? 'match' : 'unsupported-rule';
  return asked.every((scope) => offered.some((own) => compare(scope, own))) ? 'match' : 'no-match';
}

export function probeMatches(probe: { types: readonly QName[]; scopes: readonly string[]; matchBy?: string | undefined }, target: { types: readonly QName[]; scopes: readonly string[] }): ProbeVerdict {
  const scopes = scopesMatch(probe.scopes, target.scopes, probe.matchBy);
  if (scopes !== 'match') return scopes;
  return typesMatch(probe.types, target.types) ? 'match' : 'no-match';
}
