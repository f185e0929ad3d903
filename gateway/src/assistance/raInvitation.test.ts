import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InvitationError, readInvitation, MAX_INVITATION_CHARS, MAX_INVITATION_ADDRESSES } from './raInvitation.js';
import { parseXml, XmlError } from '@lanterna/protocol/xml';

// A type 2 invitation made by Windows, from FreeRDP's own test suite
// (libfreerdp/common/test/TestCommonAssistance.c, Apache-2.0): the one
// independent check that the key derivation and decryption match Windows.
const WINDOWS_LHTICKET = [
  '20FCC407AA53E95F8505AB56D485D26835064B03AF86CDA326248FD304626AD4',
  'DBDBDFFE0C473228EFFF7A1E6CEB445BBEC429294BB6616BBB600854438DDFB5',
  '82FC377CF65A2060EB3221647643C9B29BF5EC320856180B34D1BE9827A528C7',
  'E8F0DCD53C8D38F974160FEE317458FAC9DBDBA7B972D21DF3BC5B1AF0E01878',
  '65F07A3B915618C03E6EAF843FC1185770A1208C29C836DBCA5A040CB276D3C4',
  '1DDE2FA8CA9627E5E74FA750A92C0E01AD6C3D1000A5B1479DEB899BF5BCD402',
  'CE3BB3BF104CE0286C3F985AA711943C88C5EEEEE86F35B63F68883A90ADBCFD',
  'CBBAE3EAB993EFD9148E1A21D092CE9498695943946236D65D20B4A38D724C61',
  '72319E38E19C04E98EBC03F56A4A190E971F8EAEBFE6B415A3A2D8F35F7BF785',
  '26B9BFAAB48D11BDD6C905EFE503D2265678E1EAD2F2F124E570667F04103180',
  '2F63587276C14E6A5AB436CE234F722CE7C9B5D244508F14C012E84A49FE6992',
  '3F30320ABB3641F1EFA66205F3EA709E7E1C3E6874BB9642486FB96D2730CDF4',
  '514AA738167F00FC13B2978AED1D6678413FDF62008B03DD729E36173BE02742',
  'B69CAD44938512D0F56335394759338AF6ADBCF39CE829116D97435085D05BB5',
  '9320A134698050DCDBE01305A6B4712FD6BD48958BD2DC497498FF35CAECC9A8',
  '2C97FD1A5B5EC4BAF5FFB75A1471B765C465B35A7C950019066BB219B391C6E9',
  '8AE8FD2038E774F36F226D9FB9A38BCC313785612165D1EF69D19E2B9CF6E0F7',
  'FE1ECCF00AB81F9E8B626363CA82FAC719A3B7D243325C9D6042B2488EC95B80',
  'A31273FF9B72FBBB86F946E6D3DF8816BE4533F0B547C8BC028309EA9784C1E6',
].join('');
const WINDOWS_PASSWORD = '48BJQ853X3B4';

function uploadInfo(attributes: string): string {
  return `<?xml version="1.0"?><UPLOADINFO TYPE="Escalated"><UPLOADDATA ${attributes}/></UPLOADINFO>`;
}
const windowsType2 = uploadInfo(`USERNAME="awake" LHTICKET="${WINDOWS_LHTICKET}" RCTICKET="65538,1,192.168.1.200:49230;169.254.6.170:49231,*,+ULZ6ifjoCa6cGPMLQiGHRPwkg6VyJqGwxMnO6GcelwUh9a6/FBq3It5ADSndmLL,*,*,BNRjdu97DyczQSRuMRrDWoue+HA=" PassStub="WB^6HsrIaFmEpi" RCTICKETENCRYPTED="1" DtStart="1403972263" DtLength="14400" L="0"`);
const type1 = uploadInfo('USERNAME="Administrator" RCTICKET="65538,1,10.0.3.105:3389;127.0.0.1:13389,*,rb+v0oPmEISmi8N2zK/vuhgul/ABqlDt6wW0VxMyxK8=,*,*,IuaRySSbPDNna4+2mKcsKxsbJFI=" RCTICKETENCRYPTED="1" PassStub="RT=0PvIndan52*" L="0"');

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof InvitationError || error instanceof XmlError) return error.code;
    throw error;
  }
  return 'no error';
}

test('a Windows type 2 invitation decrypts to its addresses in order and its session id', () => {
  const invitation = readInvitation(windowsType2, WINDOWS_PASSWORD);
  assert.equal(invitation.type, 2);
  assert.deepEqual(invitation.addresses, [
    { host: 'fe80::1032:53d9:5a01:909b%3', port: 49228 }, { host: 'fe80::3d8f:9b2d:6b4e:6aa%6', port: 49229 },
    { host: '192.168.1.200', port: 49230 }, { host: '169.254.6.170', port: 49231 },
  ]);
  assert.equal(invitation.sessionId, '+ULZ6ifjoCa6cGPMLQiGHRPwkg6VyJqGwxMnO6GcelwUh9a6/FBq3It5ADSndmLL');
});

test('a wrong password is told apart from a damaged invitation', () => {
  assert.equal(code(() => readInvitation(windowsType2, 'not-the-password')), 'invitation-password');
  assert.equal(code(() => readInvitation(windowsType2.replace('LHTICKET="20FC', 'LHTICKET="0FC'), WINDOWS_PASSWORD)), 'invitation-malformed');
});

test('a type 1 invitation gives its plain-text address list; no password is needed to read it', () => {
  const invitation = readInvitation(type1, '');
  assert.equal(invitation.type, 1);
  assert.deepEqual(invitation.addresses, [{ host: '10.0.3.105', port: 3389 }, { host: '127.0.0.1', port: 13389 }]);
  assert.equal(invitation.sessionId, 'rb+v0oPmEISmi8N2zK/vuhgul/ABqlDt6wW0VxMyxK8=');
});

test('an invitation naming more than 16 addresses is refused before any is resolved', () => {
  const list = (n: number): string => Array.from({ length: n }, (_, i) => `10.0.0.${i + 1}:3389`).join(';');
  const invitation = (n: number): string => uploadInfo(`RCTICKET="65538,1,${list(n)},*,c2Vzc2lvbg==,*,*,x" PassStub="x" L="0"`);
  assert.equal(readInvitation(invitation(MAX_INVITATION_ADDRESSES), '').addresses.length, MAX_INVITATION_ADDRESSES);
  assert.throws(() => readInvitation(invitation(MAX_INVITATION_ADDRESSES + 1), ''), /names 17 addresses, at most 16/);
});

test('missing fields, other documents and bad ports are malformed invitations', () => {
  assert.equal(code(() => readInvitation(type1.replace(' PassStub="RT=0PvIndan52*"', ''), '')), 'invitation-malformed');
  assert.equal(code(() => readInvitation(type1.replace(/RCTICKET="[^"]*"/, ''), '')), 'invitation-malformed');
  assert.equal(code(() => readInvitation(type1.replace('3389;', '99999;'), '')), 'invitation-malformed');
  assert.equal(code(() => readInvitation('<html><body/></html>', '')), 'invitation-malformed');
  assert.equal(code(() => readInvitation(type1.replace('</UPLOADINFO>', ''), '')), 'invitation-malformed');
  assert.equal(code(() => readInvitation('not xml at all', '')), 'invitation-malformed');
});

test('entity declarations and expansion are refused before any work is done', () => {
  const laughs = '<?xml version="1.0"?><!DOCTYPE UPLOADINFO [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
    + '<UPLOADINFO TYPE="Escalated"><UPLOADDATA RCTICKET="&b;" PassStub="x"/></UPLOADINFO>';
  assert.equal(code(() => readInvitation(laughs, '')), 'invitation-markup');
  // an undeclared entity without the DTD is refused too (only XML's five and character references)
  assert.equal(code(() => readInvitation(type1.replace('PassStub="', 'PassStub="&b;'), '')), 'invitation-markup');
  assert.equal(code(() => readInvitation(type1.replace('<UPLOADDATA', '<!-- hi --><UPLOADDATA'), '')), 'invitation-markup');
  assert.equal(code(() => readInvitation(type1.replace('<UPLOADDATA', '<?php x ?><UPLOADDATA'), '')), 'invitation-markup');
});

test('huge or deeply nested input is refused by its size, not parsed', () => {
  const huge = type1.replace('L="0"', `L="0" X="${'a'.repeat(MAX_INVITATION_CHARS)}"`);
  assert.equal(code(() => readInvitation(huge, '')), 'invitation-too-large');
  const deep = `${'<a>'.repeat(50)}${'</a>'.repeat(50)}`;
  assert.equal(code(() => parseXml(deep)), 'too-large');
  assert.equal(code(() => readInvitation(deep, '')), 'invitation-too-large');
  // Within the reader's defaults (512 elements), past the invitation's own cap (128).
  const wide = `<r>${'<a/>'.repeat(300)}</r>`;
  assert.equal(code(() => readInvitation(wide, '')), 'invitation-too-large');
});

test('the five predefined entities and character references are decoded', () => {
  const root = parseXml('<r a="&lt;&amp;&gt;&quot;&apos;&#65;&#x42;"/>');
  assert.equal(root.attributes.get('a'), '<&>"\'AB');
  assert.equal(code(() => parseXml('<r a="&#0;"/>')), 'malformed');
  assert.equal(code(() => parseXml('<r a="a & b"/>')), 'malformed');
});
