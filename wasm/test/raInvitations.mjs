// Remote Assistance invitations made up for tests ([MS-RAI] .msrcIncident):
// type 1 lists the novice's addresses in RCTICKET in plain text; type 2 hides
// them in LHTICKET, AES-128-CBC encrypted with a key derived from the password
// the way Windows' CryptDeriveKey does it (SHA-1 of the UTF-16LE password, then
// SHA-1 of it XOR 0x36-padding, first 16 bytes). Written from the spec, not
// from FreeRDP, so FreeRDP reading them back checks both.
import { createCipheriv, createHash } from 'node:crypto';

function ticketKey(password) {
  const hash = createHash('sha1').update(Buffer.from(password, 'utf16le')).digest();
  const pad = Buffer.alloc(64, 0x36);
  for (let i = 0; i < hash.length; i++) pad[i] ^= hash[i];
  return createHash('sha1').update(pad).digest().subarray(0, 16);
}

function uploadInfo(attributes) {
  const text = Object.entries(attributes).map(([k, v]) => `${k}="${v}"`).join(' ');
  return `<?xml version="1.0"?><UPLOADINFO TYPE="Escalated"><UPLOADDATA ${text}/></UPLOADINFO>`;
}

/**
 * @param {{ addresses: { host: string, port: number }[], sessionId: string, passStub: string, username?: string }} spec
 */
export function type1Invitation(spec) {
  const list = spec.addresses.map((a) => `${a.host}:${a.port}`).join(';');
  return uploadInfo({
    ...(spec.username ? { USERNAME: spec.username } : {}),
    RCTICKET: `65538,1,${list},*,${spec.sessionId},*,*,KHtestKH=`,
    RCTICKETENCRYPTED: '1', DtStart: '1700000000', DtLength: '360', PassStub: spec.passStub, L: '0',
  });
}

/**
 * @param {{ addresses: { host: string, port: number }[], sessionId: string, passStub: string, password: string, username?: string }} spec
 */
export function type2Invitation(spec) {
  const locations = spec.addresses.map((a) => `<L P="${a.port}" N="${a.host}"/>`).join('\n');
  const connectionString2 = `<E>\n<A KH="KHtestKH=" ID="${spec.sessionId}"/>\n<C>\n<T ID="1" SID="0">\n${locations}\n</T>\n</C>\n</E>`;
  const cipher = createCipheriv('aes-128-cbc', ticketKey(spec.password), Buffer.alloc(16));
  const ticket = Buffer.concat([cipher.update(Buffer.from(connectionString2, 'utf16le')), cipher.final()]);
  return uploadInfo({
    ...(spec.username ? { USERNAME: spec.username } : {}),
    LHTICKET: ticket.toString('hex').toUpperCase(),
    RCTICKET: `65538,1,${spec.addresses.map((a) => `${a.host}:${a.port}`).join(';')},*,${spec.sessionId},*,*,KHtestKH=`,
    PassStub: spec.passStub, RCTICKETENCRYPTED: '1', DtStart: '1700000000', DtLength: '360', L: '0',
  });
}
