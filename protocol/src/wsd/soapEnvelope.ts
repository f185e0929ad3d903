// The SOAP 1.2 envelope with WS-Addressing (2004/08) headers that every
// WS-Discovery, WS-Transfer and projector message travels in: read from bytes
// or text through the hardened XML reader, and written with fixed prefixes.
import { childNamed, parseXml, XmlError, type XmlElement } from '../xml/hardenedXml.js';
import { MAX_WSD_MESSAGE_BYTES, NS, type QName } from './wsdConstants.js';

// Present in browsers and Node alike; the protocol package compiles against the language's library only.
declare const TextDecoder: new (label: string, options: { fatal: boolean }) => { decode(input: Uint8Array): string };
declare const TextEncoder: new () => { encode(input: string): Uint8Array };

export interface AppSequence {
  /** Rises every time the sender restarts (persisted by the sender). */
  readonly instanceId: number;
  /** Rises with every message of one instance. */
  readonly messageNumber: number;
  readonly sequenceId?: string | undefined;
}

export interface SoapHeader {
  readonly action: string;
  readonly messageId?: string | undefined;
  readonly to?: string | undefined;
  readonly relatesTo?: string | undefined;
  readonly replyTo?: string | undefined;
  readonly appSequence?: AppSequence | undefined;
}

/** Why a message was not read; the responder counts drops by these. */
export type WsdFailureReason = 'too-large' | 'forbidden-markup' | 'malformed' | 'not-soap' | 'unknown-action' | 'bad-body';

export class WsdMessageError extends Error {
  constructor(readonly reason: WsdFailureReason, message: string) {
    super(message);
    this.name = 'WsdMessageError';
  }
}

export interface SoapEnvelope {
  readonly header: SoapHeader;
  /** The Body's one child (absent for an empty Body, as in WS-Transfer Get). */
  readonly body: XmlElement | undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

export function utf8Bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Reads an envelope from a datagram or HTTP body, or throws a WsdMessageError. */
export function readEnvelope(input: Uint8Array | string): SoapEnvelope {
  let text: string;
  if (typeof input === 'string') {
    text = input;
    if (text.length > MAX_WSD_MESSAGE_BYTES) throw new WsdMessageError('too-large', `${text.length} characters, at most ${MAX_WSD_MESSAGE_BYTES}`);
  } else {
    if (input.byteLength > MAX_WSD_MESSAGE_BYTES) throw new WsdMessageError('too-large', `${input.byteLength} bytes, at most ${MAX_WSD_MESSAGE_BYTES}`);
    try {
      text = utf8.decode(input);
    } catch {
      throw new WsdMessageError('malformed', 'not UTF-8');
    }
  }
  let root: XmlElement;
  try {
    root = parseXml(text, { namespaces: true, maxChars: MAX_WSD_MESSAGE_BYTES, maxDepth: 16, maxElements: 512, maxAttributes: 32 });
  } catch (error) {
    if (error instanceof XmlError) throw new WsdMessageError(error.code, error.message);
    throw error;
  }
  if (root.uri !== NS.soap || root.local !== 'Envelope') throw new WsdMessageError('not-soap', `root is {${root.uri}}${root.local}, not a SOAP 1.2 Envelope`);
  const headerElement = childNamed(root, NS.soap, 'Header');
  const bodyElement = childNamed(root, NS.soap, 'Body');
  if (!headerElement || !bodyElement) throw new WsdMessageError('not-soap', 'the envelope needs a Header and a Body');
  const text1 = (local: string): string | undefined => {
    const value = childNamed(headerElement, NS.wsa, local)?.text.trim();
    return value === '' ? undefined : value;
  };
  const action = text1('Action');
  if (!action) throw new WsdMessageError('not-soap', 'no wsa:Action header');
  const replyTo = childNamed(headerElement, NS.wsa, 'ReplyTo');
  const sequence = childNamed(headerElement, NS.wsd, 'AppSequence');
  const header: SoapHeader = {
    action,
    messageId: text1('MessageID'),
    to: text1('To'),
    relatesTo: text1('RelatesTo'),
    replyTo: replyTo ? childNamed(replyTo, NS.wsa, 'Address')?.text.trim() : undefined,
    appSequence: sequence ? readAppSequence(sequence) : undefined,
  };
  return { header, body: bodyElement.children[0] };
}

function readAppSequence(element: XmlElement): AppSequence {
  const instanceId = unsignedInt(element.attributes.get('InstanceId'), 'AppSequence InstanceId');
  const messageNumber = unsignedInt(element.attributes.get('MessageNumber'), 'AppSequence MessageNumber');
  return { instanceId, messageNumber, sequenceId: element.attributes.get('SequenceId') };
}

export function unsignedInt(text: string | undefined, what: string): number {
  const trimmed = text?.trim() ?? '';
  if (!/^\d{1,10}$/.test(trimmed) || Number(trimmed) > 0xffffffff) throw new WsdMessageError('bad-body', `${what} is not an unsigned 32-bit number`);
  return Number(trimmed);
}

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;'));
}

const PREFIXES: readonly (readonly [string, string])[] = [
  ['soap', NS.soap], ['wsa', NS.wsa], ['wsd', NS.wsd], ['wsdp', NS.wsdp], ['wsx', NS.wsx], ['lp', NS.lp],
];
const PREFIX_OF = new Map(PREFIXES.map(([prefix, uri]) => [uri, prefix]));
const ENVELOPE_OPEN = `<soap:Envelope ${PREFIXES.map(([prefix, uri]) => `xmlns:${prefix}="${uri}"`).join(' ')}>`;

/**
 * A QName list as text, with the prefixes the envelope declares; a namespace
 * of someone else's gets a declaration (returned) on the element that holds it.
 */
export function writeQNames(names: readonly QName[]): { text: string; declarations: string } {
  const extra = new Map<string, string>();
  const parts = names.map((name) => {
    let prefix = PREFIX_OF.get(name.namespace) ?? extra.get(name.namespace);
    if (!prefix) {
      prefix = `q${extra.size}`;
      extra.set(name.namespace, prefix);
    }
    return `${prefix}:${name.local}`;
  });
  return { text: parts.join(' '), declarations: [...extra].map(([uri, prefix]) => ` xmlns:${prefix}="${escapeXml(uri)}"`).join('') };
}

/** Reads a QName list written with the prefixes in scope at `element`. */
export function readQNames(element: XmlElement): QName[] {
  const names: QName[] = [];
  for (const token of element.text.split(/\s+/)) {
    if (token === '') continue;
    const colon = token.indexOf(':');
    const prefix = colon < 0 ? '' : token.slice(0, colon);
    const namespace = element.scope[prefix];
    if (namespace === undefined) throw new WsdMessageError('bad-body', `the QName "${token}" uses an undeclared prefix`);
    names.push({ namespace, local: colon < 0 ? token : token.slice(colon + 1) });
  }
  return names;
}

/** A whole message: the XML declaration, the envelope with our prefixes, the header and `body` (already XML). */
export function writeEnvelope(header: SoapHeader, body: string): string {
  const lines = [`<wsa:Action>${escapeXml(header.action)}</wsa:Action>`];
  if (header.messageId) lines.push(`<wsa:MessageID>${escapeXml(header.messageId)}</wsa:MessageID>`);
  if (header.to) lines.push(`<wsa:To>${escapeXml(header.to)}</wsa:To>`);
  if (header.relatesTo) lines.push(`<wsa:RelatesTo>${escapeXml(header.relatesTo)}</wsa:RelatesTo>`);
  if (header.replyTo) lines.push(`<wsa:ReplyTo><wsa:Address>${escapeXml(header.replyTo)}</wsa:Address></wsa:ReplyTo>`);
  const sequence = header.appSequence;
  if (sequence) {
    const id = sequence.sequenceId ? ` SequenceId="${escapeXml(sequence.sequenceId)}"` : '';
    lines.push(`<wsd:AppSequence InstanceId="${sequence.instanceId}"${id} MessageNumber="${sequence.messageNumber}"/>`);
  }
  return `<?xml version="1.0" encoding="utf-8"?>${ENVELOPE_OPEN}<soap:Header>${lines.join('')}</soap:Header><soap:Body>${body}</soap:Body></soap:Envelope>`;
}

/** Text of the child `local` in namespace `uri`, trimmed; undefined when absent or empty. */
export function childText(parent: XmlElement, uri: string, local: string): string | undefined {
  const value = childNamed(parent, uri, local)?.text.trim();
  return value === '' ? undefined : value;
}
