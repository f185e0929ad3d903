// The versions Windows' Function Discovery and wsdd speak: WS-Discovery April
// 2005, WS-Addressing August 2004, DPWS February 2006, WS-Transfer and
// WS-MetadataExchange September 2004, SOAP 1.2 envelopes, SOAP-over-UDP
// (September 2004, Appendix I timings). Our projector service lives in its own
// namespace (docs/projector-service.md).

export const NS = {
  soap: 'http://www.w3.org/2003/05/soap-envelope',
  wsa: 'http://schemas.xmlsoap.org/ws/2004/08/addressing',
  wsd: 'http://schemas.xmlsoap.org/ws/2005/04/discovery',
  wsdp: 'http://schemas.xmlsoap.org/ws/2006/02/devprof',
  wsx: 'http://schemas.xmlsoap.org/ws/2004/09/mex',
  wst: 'http://schemas.xmlsoap.org/ws/2004/09/transfer',
  lp: 'urn:lanterna:ws:2026:projector',
  xml: 'http://www.w3.org/XML/1998/namespace',
} as const;

export type NamespacePrefix = keyof typeof NS;

export const ACTION = {
  hello: `${NS.wsd}/Hello`,
  bye: `${NS.wsd}/Bye`,
  probe: `${NS.wsd}/Probe`,
  probeMatches: `${NS.wsd}/ProbeMatches`,
  resolve: `${NS.wsd}/Resolve`,
  resolveMatches: `${NS.wsd}/ResolveMatches`,
  get: `${NS.wst}/Get`,
  getResponse: `${NS.wst}/GetResponse`,
  connect: `${NS.lp}/Connect`,
  connectResponse: `${NS.lp}/ConnectResponse`,
  disconnect: `${NS.lp}/Disconnect`,
  disconnectResponse: `${NS.lp}/DisconnectResponse`,
  fault: `${NS.wsa}/fault`,
} as const;

/** wsa:To of every multicast discovery message. */
export const DISCOVERY_URN = 'urn:schemas-xmlsoap-org:ws:2005:04:discovery';
export const ANONYMOUS = `${NS.wsa}/role/anonymous`;

export const DIALECT = {
  thisModel: `${NS.wsdp}/ThisModel`,
  thisDevice: `${NS.wsdp}/ThisDevice`,
  relationship: `${NS.wsdp}/Relationship`,
  /** Ours: the display's room and whether it is presenting now (live, not versioned). */
  display: `${NS.lp}/Display`,
} as const;
export const RELATIONSHIP_HOST = `${NS.wsdp}/host`;

export const MATCH_BY = {
  rfc2396: `${NS.wsd}/rfc2396`,
  uuid: `${NS.wsd}/uuid`,
  ldap: `${NS.wsd}/ldap`,
  strcmp0: `${NS.wsd}/strcmp0`,
} as const;

export interface QName { readonly namespace: string; readonly local: string }

/** A DPWS device: what wsdd and Windows probe for. */
export const DEVICE_TYPE: QName = { namespace: NS.wsdp, local: 'Device' };
/** A Lanterna display (the target service a presenter looks for). */
export const DISPLAY_TYPE: QName = { namespace: NS.lp, local: 'Display' };
/** The hosted projector service (Connect, Disconnect). */
export const PROJECTOR_TYPE: QName = { namespace: NS.lp, local: 'Projector' };

export const WSD_PORT = 3702;
export const WSD_IPV4_GROUP = '239.255.255.250';
export const WSD_IPV6_GROUP = 'ff02::c';

/** A WS-Discovery datagram or SOAP body larger than this is dropped unread. */
export const MAX_WSD_MESSAGE_BYTES = 32 * 1024;

/** SOAP-over-UDP, Appendix I (the values wsdd and Windows use). */
export const SOAP_OVER_UDP = {
  unicastRepeat: 2,
  multicastRepeat: 4,
  minDelayMs: 50,
  maxDelayMs: 250,
  upperDelayMs: 500,
} as const;

/** WS-Discovery: a target waits a random time up to this before answering a multicast Probe or Resolve, or saying Hello. */
export const APP_MAX_DELAY_MS = 500;
/** WS-Discovery: how long a client waits for ProbeMatches. */
export const MATCH_TIMEOUT_MS = 10_000;
