// Invitations read with the protocol package's hardened XML reader (saxes):
// the fuzz campaign's findings against the hand-written reader it replaced
// hold for it too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseXml, XmlError } from '@lanterna/protocol/xml';
import { InvitationError, readInvitation } from './raInvitation.js';

function refusal(fn: () => unknown): XmlError | InvitationError {
  try {
    fn();
  } catch (error) {
    if (error instanceof XmlError || error instanceof InvitationError) return error;
    throw error;
  }
  assert.fail('accepted');
}

// Found by the fuzz campaign (gateway/fuzz, corpus seed-regression-*): the
// five entities were looked up with `in`, which also finds what every object
// inherits, so "&constructor;" read as the text of a function.
test('names an object inherits are not entities', () => {
  for (const name of ['constructor', 'toString', 'valueOf', '__proto__']) {
    assert.equal(refusal(() => parseXml(`<r a="&${name};"/>`)).code, 'forbidden-markup', name);
    assert.equal(refusal(() => parseXml(`<r>&${name};</r>`)).code, 'forbidden-markup', name);
  }
});

// Found by the fuzz campaign: messages quoted names and values whole, so a
// 12 KB attribute name came back whole in the admin API's answer and the log.
test('error messages quote at most a short excerpt of what they complain about', () => {
  const long = 'n'.repeat(5000);
  const xmlCases = [`<r ${long}/>`, `<r a="1" a${long}="2" a${long}="3"/>`, `<${long}>`, `<r></${long}>`, `<r></${long} x>`, `<r ${long}=x/>`, `<r ${long}="x/>`];
  for (const text of xmlCases) assert.ok(refusal(() => parseXml(text)).message.length < 200, text.slice(0, 20));
  const upload = (attributes: string): string => `<?xml version="1.0"?><UPLOADINFO TYPE="Escalated"><UPLOADDATA ${attributes}/></UPLOADINFO>`;
  const invitationCases = [
    upload(`RCTICKET="65538,1,${long},*,s,*,*,x" PassStub="x"`),
    upload(`RCTICKET="65538,1,h:${'9'.repeat(3000)},*,s,*,*,x" PassStub="x"`),
  ];
  for (const text of invitationCases) assert.ok(refusal(() => readInvitation(text, '')).message.length < 300);
});

// Found by the fuzz campaign (corpus seed-regression-self-closing-depth): the
// depth was checked only when an element opened another level, so an empty
// element one level past the limit was accepted.
test('an empty element past the depth limit is refused like any other', () => {
  const limits = { maxChars: 1000, maxDepth: 3, maxElements: 10, maxAttributes: 2 };
  assert.equal(parseXml('<a><b><c/></b></a>', limits).children[0]?.children[0]?.name, 'c');
  assert.equal(refusal(() => parseXml('<a><b><c><d/></c></b></a>', limits)).code, 'too-large');
  assert.equal(refusal(() => parseXml('<a><b><c><d></d></c></b></a>', limits)).code, 'too-large');
});
