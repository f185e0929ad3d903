// Builds Remote Assistance invitations for the fuzz target: the inverse of
// what raInvitation.ts reads (AES-128-CBC, zero IV, key from CryptDeriveKey
// over SHA-1 of the UTF-16LE password). The Windows-made invitation in
// raInvitation.test.ts pins the reader to Windows; round trips through this
// writer pin the writer to the reader.
import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import type { InvitationAddress } from '#assistance/raInvitation.js';
import { escapeXml } from './xmlDocuments.js';

function deriveKey(password: string): Buffer {
  const hash = createHash('sha1').update(Buffer.from(password, 'utf16le')).digest();
  const inner = Buffer.alloc(64, 0x36);
  for (let i = 0; i < hash.length; i++) inner.writeUInt8((inner.readUInt8(i) ^ (hash[i] ?? 0)) & 0xff, i);
  return createHash('sha1').update(inner).digest().subarray(0, 16);
}

export function encryptTicket(plaintext: string, password: string): string {
  const cipher = createCipheriv('aes-128-cbc', deriveKey(password), Buffer.alloc(16));
  return Buffer.concat([cipher.update(Buffer.from(plaintext, 'utf16le')), cipher.final()]).toString('hex').toUpperCase();
}

/** The decrypted ticket of a type 2 invitation: <E><A ID=…/><C><T><L P=… N=…/>…</T></C></E>. */
export function connectionString2(addresses: readonly InvitationAddress[], sessionId: string): string {
  const locations = addresses.map((address) => `<L P="${address.port}" N="${escapeXml(address.host)}"/>`).join('');
  return `<E><A KH="x" ID="${escapeXml(sessionId)}"/><C><T ID="1" SID="0">${locations}</T></C></E>`;
}

export function invitationXml(upload: Record<string, string>): string {
  const attributes = Object.entries(upload).map(([name, value]) => ` ${name}="${escapeXml(value)}"`).join('');
  return `<?xml version="1.0"?><UPLOADINFO TYPE="Escalated"><UPLOADDATA${attributes}/></UPLOADINFO>`;
}

export function type2Invitation(addresses: readonly InvitationAddress[], sessionId: string, password: string): string {
  return invitationXml({ USERNAME: 'novice', LHTICKET: encryptTicket(connectionString2(addresses, sessionId), password), RCTICKET: '65538,1,,*,*,*,*,x', PassStub: 'x', RCTICKETENCRYPTED: '1', L: '0' });
}

/** Type 1 carries the list in plain text; undefined when a host or the session id could not be written there. */
export function type1Invitation(addresses: readonly InvitationAddress[], sessionId: string): string | undefined {
  if (/[,]/.test(sessionId) || addresses.some((address) => /[,;]/.test(address.host) || address.host === '')) return undefined;
  const list = addresses.map((address) => `${address.host}:${address.port}`).join(';');
  return invitationXml({ USERNAME: 'novice', RCTICKET: `65538,1,${list},*,${sessionId},*,*,x`, PassStub: 'x', RCTICKETENCRYPTED: '1', L: '0' });
}

/** The ticket's plaintext (for seeds made from real invitations). */
export function decryptTicket(hex: string, password: string): string {
  const decipher = createDecipheriv('aes-128-cbc', deriveKey(password), Buffer.alloc(16));
  return Buffer.concat([decipher.update(Buffer.from(hex, 'hex')), decipher.final()]).toString('utf16le');
}
