// The Remote Assistance invitation reader's fuzz invariant: any invitation
// text and password give the addresses or an InvitationError (never another
// exception, never an XmlError that slipped through); what is read has 1 to
// 16 addresses with real ports, a host and a session id; and it reads back
// the same from a type 2 invitation (and a type 1 one where its text allows)
// written from it (build→parse). An input is `password \n invitation`.
import { deepStrictEqual } from 'node:assert';
import { invariant, textFuzzTarget, type SeededRandom } from '@lanterna/fuzzer';
import { InvitationError, MAX_INVITATION_ADDRESSES, MAX_INVITATION_CHARS, readInvitation, type InvitationAddress } from '#assistance/raInvitation.js';
import { MAX_MESSAGE_CHARS } from './boundedXmlFuzzTarget.js';
import { connectionString2, encryptTicket, invitationXml, type1Invitation, type2Invitation } from './raTicketCipher.js';
import { generateXmlDocument } from './xmlDocuments.js';

const CODES = ['invitation-too-large', 'invitation-markup', 'invitation-malformed', 'invitation-password'];

/** Reads `invitation` with `password`; returns what happened. */
export function checkInvitation(invitation: string, password: string): string {
  let read;
  try {
    read = readInvitation(invitation, password);
  } catch (error) {
    if (!(error instanceof InvitationError)) throw error;
    invariant(CODES.includes(error.code), `unknown InvitationError code ${error.code}`);
    // Lower case; a final "." can be the input's own (an attribute named "n."), so it is not judged here.
    invariant(!/^[A-Z][a-z]/.test(error.message), `badly formed ${error.code} message`);
    invariant(error.message.length <= MAX_MESSAGE_CHARS + 60, `an ${error.code} message over ${MAX_MESSAGE_CHARS + 60} characters`);
    return error.code;
  }
  const { type, addresses, sessionId } = read;
  invariant(addresses.length >= 1 && addresses.length <= MAX_INVITATION_ADDRESSES, 'too few or too many addresses');
  for (const address of addresses) {
    invariant(Number.isInteger(address.port) && address.port >= 1 && address.port <= 65535, 'a port out of range');
    invariant(address.host !== '', 'an empty host');
  }
  invariant(sessionId !== '', 'an empty session id');
  const rebuilt2 = type2Invitation(addresses, sessionId, password);
  if (rebuilt2.length <= MAX_INVITATION_CHARS) deepStrictEqual(readInvitation(rebuilt2, password), { type: 2, addresses, sessionId });
  const rebuilt1 = type1Invitation(addresses, sessionId);
  if (rebuilt1 !== undefined && rebuilt1.length <= MAX_INVITATION_CHARS) deepStrictEqual(readInvitation(rebuilt1, ''), { type: 1, addresses, sessionId });
  return `type ${type}${addresses.length > 1 ? ', several addresses' : ''}`;
}


/** An input is the password, a line feed, the invitation. */
export function splitInput(text: string): { password: string; invitation: string } {
  const newline = text.indexOf('\n');
  return newline < 0 ? { password: '', invitation: text } : { password: text.slice(0, newline), invitation: text.slice(newline + 1) };
}

// Generation: invitations of both types around real-looking addresses, and
// type 2 tickets whose decrypted XML is itself generated or damaged.
const HOSTS = ['10.0.3.105', '192.168.1.200', '127.0.0.1', 'fe80::1032:53d9:5a01:909b%3', '::1', 'novice-pc.corp', 'a', '[::1]', 'host,with,commas', 'semi;colon', 'x:y:z'];

function addresses(random: SeededRandom): InvitationAddress[] {
  return Array.from({ length: random.chance(0.05) ? random.between(15, 18) : random.between(1, 4) }, () => ({
    host: random.pick(HOSTS),
    port: random.chance(0.9) ? random.pick([3389, 49230, 1, 65535]) : random.between(0, 70000),
  }));
}

function password(random: SeededRandom): string {
  return random.pick(['48BJQ853X3B4', '', 'pässwörd', 'x'.repeat(random.below(40))]);
}

function sessionId(random: SeededRandom): string {
  return random.pick(['+ULZ6ifjoCa6cGPMLQiGHRPwkg6VyJqGwxMnO6GcelwUh9a6/FBq3It5ADSndmLL', 'rb+v0oPmEISmi8N2zK/vuhgul/ABqlDt6wW0VxMyxK8=', 's', '', 'a,b']);
}

function generateInvitation(random: SeededRandom): string {
  const secret = password(random);
  switch (random.below(5)) {
    case 0:
      return `${secret}\n${type1Invitation(addresses(random), sessionId(random)) ?? ''}`;
    case 1:
      return `${secret}\n${type2Invitation(addresses(random), sessionId(random), secret)}`;
    case 2: {
      // A ticket whose XML is generated, or a valid one cut short.
      const inner = random.chance(0.5) ? generateXmlDocument(random, 12) : connectionString2(addresses(random), sessionId(random)).slice(0, random.below(200));
      return `${secret}\n${invitationXml({ LHTICKET: encryptTicket(inner, secret), PassStub: 'x' })}`;
    }
    case 3:
      // The wrong password.
      return `${password(random)}\n${type2Invitation(addresses(random), sessionId(random), secret)}`;
    default:
      return `${secret}\n${generateXmlDocument(random, 8)}`;
  }
}

export const fuzzTarget = textFuzzTarget({
  name: 'ra-invitation',
  checks:
    'readInvitation on any invitation text and password (type 1 plain, type 2 AES-encrypted XML): only InvitationError, with a short lower-case message; ' +
    '1-16 addresses with ports 1-65535, a host and a session id; a type 2 (and where possible type 1) invitation written from the result reads back equal (build→parse)',
  maxInputBytes: 16 * 1024,
  corpusExtension: '.txt',
  dictionary: [
    '\n', '<UPLOADINFO TYPE="Escalated">', '</UPLOADINFO>', '<UPLOADDATA ', '/>', 'RCTICKET="', 'LHTICKET="', 'PassStub="x"', '"', '65538,1,', ',*,',
    ':3389', ';', ',', '<E>', '</E>', '<A ID="s"/>', '<C><T><L P="3389" N="h"/></T></C>', '&amp;', '&#0;', '0123456789ABCDEF', '00000000000000000000000000000000',
  ],
  executeText(text) {
    const { password: secret, invitation } = splitInput(text);
    return checkInvitation(invitation, secret);
  },
  generateText: generateInvitation,
});
