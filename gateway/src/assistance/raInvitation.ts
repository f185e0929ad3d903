import { createDecipheriv, createHash } from 'node:crypto';
import { findElement, parseXml, XmlError, type XmlElement } from '@lanterna/protocol/xml';

const MAX_EXCERPT_CHARS = 40;

/** What an error message quotes of the input: names and values can be kilobytes long. */
export function excerpt(text: string): string {
  return text.length > MAX_EXCERPT_CHARS ? `${text.slice(0, MAX_EXCERPT_CHARS)}…` : text;
}

/**
 * What the gateway needs from a Windows Remote Assistance invitation
 * (.msrcIncident, [MS-RAI]) to choose and police the target: the novice's
 * addresses, in the invitation's order. The client (FreeRDP in wasm) reads
 * the same invitation again for its own fields; the gateway only decides where
 * the TCP connection goes.
 *
 * Two kinds exist. Type 1 carries the addresses in plain text in RCTICKET
 * ("65538,1,host:port;host:port,*,sessionId,*,*,params"). Type 2 (Windows 7
 * and later) carries them in LHTICKET, encrypted with the invitation password:
 * AES-128-CBC, zero IV, key from CryptDeriveKey over SHA-1 of the UTF-16LE
 * password; the plaintext is XML, <E><A ID=…/><C><T><L P="port" N="host"/>…</T></C></E>.
 */

export type InvitationErrorCode = 'invitation-too-large' | 'invitation-markup' | 'invitation-malformed' | 'invitation-password';

export class InvitationError extends Error {
  constructor(readonly code: InvitationErrorCode, message: string) {
    super(message);
    this.name = 'InvitationError';
  }
}

export interface InvitationAddress { readonly host: string; readonly port: number }

export interface RemoteAssistanceInvitation {
  readonly type: 1 | 2;
  readonly addresses: readonly InvitationAddress[];
  readonly sessionId: string;
}

/** Invitations Windows writes are 1–7 KB; this leaves room and no more. */
export const MAX_INVITATION_CHARS = 12 * 1024;
export const MAX_INVITATION_ADDRESSES = 16;

function fromXmlError(error: unknown): never {
  if (error instanceof XmlError) {
    const code = error.code === 'too-large' ? 'invitation-too-large' : error.code === 'forbidden-markup' ? 'invitation-markup' : 'invitation-malformed';
    throw new InvitationError(code, `the invitation is not acceptable xml: ${error.message}`);
  }
  throw error;
}

function parse(text: string): XmlElement {
  try {
    // The protocol package's hardened reader (saxes), the one WS-Discovery uses too; invitations carry no namespaces.
    return parseXml(text, { maxChars: MAX_INVITATION_CHARS, maxDepth: 8, maxElements: 128, maxAttributes: 16 });
  } catch (error) {
    return fromXmlError(error);
  }
}

function port(text: string | undefined, where: string): number {
  const value = Number(text);
  if (!/^\d{1,5}$/.test(text ?? '') || value < 1 || value > 65535) throw new InvitationError('invitation-malformed', `bad port "${excerpt(text ?? '')}" in ${where}`);
  return value;
}

function readConnectionString1(ticket: string): Omit<RemoteAssistanceInvitation, 'type'> {
  const fields = ticket.split(',');
  if (fields.length !== 8 || fields[0] !== '65538' || fields[1] !== '1') {
    throw new InvitationError('invitation-malformed', 'RCTICKET is not a version 65538 connection string');
  }
  const addresses = (fields[2] ?? '').split(';').filter((entry) => entry !== '').map((entry) => {
    const colon = entry.lastIndexOf(':');
    if (colon <= 0) throw new InvitationError('invitation-malformed', `address "${excerpt(entry)}" has no port`);
    return { host: entry.slice(0, colon), port: port(entry.slice(colon + 1), 'RCTICKET') };
  });
  return { addresses, sessionId: fields[4] ?? '' };
}

function deriveKey(password: string): Buffer {
  const hash = createHash('sha1').update(Buffer.from(password, 'utf16le')).digest();
  const inner = Buffer.alloc(64, 0x36);
  for (let i = 0; i < hash.length; i++) inner[i] = (inner[i] ?? 0) ^ (hash[i] ?? 0);
  return createHash('sha1').update(inner).digest().subarray(0, 16);
}

function decryptTicket(hex: string, password: string): string {
  if (!/^([0-9A-Fa-f]{32})+$/.test(hex)) throw new InvitationError('invitation-malformed', 'LHTICKET is not whole AES blocks of hex');
  try {
    const decipher = createDecipheriv('aes-128-cbc', deriveKey(password), Buffer.alloc(16));
    return Buffer.concat([decipher.update(Buffer.from(hex, 'hex')), decipher.final()]).toString('utf16le');
  } catch {
    throw new InvitationError('invitation-password', 'the invitation password is wrong (its ticket does not decrypt)');
  }
}

function readConnectionString2(text: string): Omit<RemoteAssistanceInvitation, 'type'> {
  let root: XmlElement;
  try {
    root = parse(text);
  } catch (error) {
    // garbage after a padding check that happened to pass is a wrong password too
    if (error instanceof InvitationError && error.code === 'invitation-malformed' && !text.trimStart().startsWith('<E')) {
      throw new InvitationError('invitation-password', 'the invitation password is wrong (its ticket does not decrypt to xml)');
    }
    throw error;
  }
  if (root.name !== 'E') throw new InvitationError('invitation-malformed', `the decrypted ticket's root is <${excerpt(root.name)}>, not <E>`);
  const sessionId = findElement(root, 'A')?.attributes.get('ID');
  if (!sessionId) throw new InvitationError('invitation-malformed', 'the decrypted ticket has no <A ID=…>');
  const addresses: InvitationAddress[] = [];
  for (const transport of findElement(root, 'C')?.children ?? []) {
    for (const location of transport.children) {
      const host = location.attributes.get('N');
      if (location.name === 'L' && host) addresses.push({ host, port: port(location.attributes.get('P'), '<L>') });
    }
  }
  return { addresses, sessionId };
}

/** Reads an invitation's addresses (and RA session id), or throws an InvitationError. */
export function readInvitation(text: string, password: string): RemoteAssistanceInvitation {
  if (text.length > MAX_INVITATION_CHARS) throw new InvitationError('invitation-too-large', `the invitation has ${text.length} characters, at most ${MAX_INVITATION_CHARS}`);
  const root = parse(text);
  const data = root.name === 'UPLOADINFO' ? findElement(root, 'UPLOADDATA') : undefined;
  if (!data || root.attributes.get('TYPE') !== 'Escalated') {
    throw new InvitationError('invitation-malformed', 'not a Remote Assistance invitation (<UPLOADINFO TYPE="Escalated"><UPLOADDATA …/>)');
  }
  const lhTicket = data.attributes.get('LHTICKET');
  const rcTicket = data.attributes.get('RCTICKET');
  let found: Omit<RemoteAssistanceInvitation, 'type'>;
  let type: 1 | 2;
  if (lhTicket) {
    type = 2;
    found = readConnectionString2(decryptTicket(lhTicket, password));
  } else if (rcTicket) {
    type = 1;
    found = readConnectionString1(rcTicket);
  } else {
    throw new InvitationError('invitation-malformed', 'the invitation has neither LHTICKET nor RCTICKET');
  }
  if (!data.attributes.get('PassStub')) throw new InvitationError('invitation-malformed', 'the invitation has no PassStub');
  if (found.addresses.length === 0) throw new InvitationError('invitation-malformed', 'the invitation names no address');
  // Each address costs a DNS lookup and a policy check; Windows lists a handful (one per interface).
  if (found.addresses.length > MAX_INVITATION_ADDRESSES) {
    throw new InvitationError('invitation-malformed', `the invitation names ${found.addresses.length} addresses, at most ${MAX_INVITATION_ADDRESSES}`);
  }
  if (found.sessionId === '') throw new InvitationError('invitation-malformed', 'the invitation has no session id');
  return { type, ...found };
}
