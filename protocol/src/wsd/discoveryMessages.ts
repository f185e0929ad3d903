// WS-Discovery (April 2005) bodies: Hello, Bye, Probe, ProbeMatches, Resolve,
// ResolveMatches. Written with our prefixes, read by namespace.
import { childNamed, childrenNamed, type XmlElement } from '../xml/hardenedXml.js';
import { childText, escapeXml, readQNames, unsignedInt, WsdMessageError, writeQNames } from './soapEnvelope.js';
import { MATCH_BY, NS, type QName } from './wsdConstants.js';

/** What a target service says about itself in Hello, ProbeMatch and ResolveMatch. */
export interface TargetDescription {
  /** Its stable endpoint address, `urn:uuid:…`. */
  readonly endpoint: string;
  readonly types: readonly QName[];
  readonly scopes: readonly string[];
  /** Where to reach it over HTTP(S) (WS-Transfer Get, its hosted services). */
  readonly xaddrs: readonly string[];
  readonly metadataVersion: number;
}

export interface ProbeBody {
  readonly types: readonly QName[];
  readonly scopes: readonly string[];
  /** The scope matching rule; absent means RFC 2396. */
  readonly matchBy?: string | undefined;
}

function endpointReference(endpoint: string): string {
  return `<wsa:EndpointReference><wsa:Address>${escapeXml(endpoint)}</wsa:Address></wsa:EndpointReference>`;
}

function typesElement(types: readonly QName[]): string {
  if (types.length === 0) return '';
  const { text, declarations } = writeQNames(types);
  return `<wsd:Types${declarations}>${text}</wsd:Types>`;
}

function scopesElement(scopes: readonly string[], matchBy?: string): string {
  if (scopes.length === 0 && !matchBy) return '';
  return `<wsd:Scopes${matchBy ? ` MatchBy="${escapeXml(matchBy)}"` : ''}>${scopes.map(escapeXml).join(' ')}</wsd:Scopes>`;
}

function description(target: TargetDescription, withAddresses = true): string {
  return endpointReference(target.endpoint)
    + typesElement(target.types)
    + scopesElement(target.scopes)
    + (withAddresses && target.xaddrs.length > 0 ? `<wsd:XAddrs>${target.xaddrs.map(escapeXml).join(' ')}</wsd:XAddrs>` : '')
    + `<wsd:MetadataVersion>${target.metadataVersion}</wsd:MetadataVersion>`;
}

export function writeHello(target: TargetDescription): string {
  return `<wsd:Hello>${description(target)}</wsd:Hello>`;
}

/** Bye carries the endpoint and may carry more; we send the endpoint only, as wsdd does. */
export function writeBye(endpoint: string): string {
  return `<wsd:Bye>${endpointReference(endpoint)}</wsd:Bye>`;
}

export function writeProbe(probe: ProbeBody): string {
  return `<wsd:Probe>${typesElement(probe.types)}${scopesElement(probe.scopes, probe.matchBy)}</wsd:Probe>`;
}

export function writeProbeMatches(matches: readonly TargetDescription[]): string {
  return `<wsd:ProbeMatches>${matches.map((match) => `<wsd:ProbeMatch>${description(match)}</wsd:ProbeMatch>`).join('')}</wsd:ProbeMatches>`;
}

export function writeResolve(endpoint: string): string {
  return `<wsd:Resolve>${endpointReference(endpoint)}</wsd:Resolve>`;
}

export function writeResolveMatches(match: TargetDescription | undefined): string {
  return `<wsd:ResolveMatches>${match ? `<wsd:ResolveMatch>${description(match)}</wsd:ResolveMatch>` : ''}</wsd:ResolveMatches>`;
}

function scopeList(element: XmlElement | undefined): string[] {
  return element ? element.text.split(/\s+/).filter((scope) => scope !== '') : [];
}

export function readEndpoint(parent: XmlElement): string {
  const reference = childNamed(parent, NS.wsa, 'EndpointReference');
  const address = reference ? childText(reference, NS.wsa, 'Address') : undefined;
  if (!address) throw new WsdMessageError('bad-body', `<${parent.local}> has no wsa:EndpointReference/wsa:Address`);
  return address;
}

export function readTargetDescription(parent: XmlElement): TargetDescription {
  const types = childNamed(parent, NS.wsd, 'Types');
  const version = childText(parent, NS.wsd, 'MetadataVersion');
  return {
    endpoint: readEndpoint(parent),
    types: types ? readQNames(types) : [],
    scopes: scopeList(childNamed(parent, NS.wsd, 'Scopes')),
    xaddrs: (childText(parent, NS.wsd, 'XAddrs') ?? '').split(/\s+/).filter((address) => address !== ''),
    metadataVersion: version === undefined ? 0 : unsignedInt(version, 'MetadataVersion'),
  };
}

export function readProbe(body: XmlElement): ProbeBody {
  const types = childNamed(body, NS.wsd, 'Types');
  const scopes = childNamed(body, NS.wsd, 'Scopes');
  return { types: types ? readQNames(types) : [], scopes: scopeList(scopes), matchBy: scopes?.attributes.get('MatchBy')?.trim() ?? undefined };
}

export function readMatches(body: XmlElement, local: 'ProbeMatch' | 'ResolveMatch'): TargetDescription[] {
  return childrenNamed(body, NS.wsd, local).map(readTargetDescription);
}

export { MATCH_BY };
