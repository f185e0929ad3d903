import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setIniValues } from './iniFile.js';

const SAMPLE = `[Globals]
; comment port=1
port=3389
fork=true

[Logging]
LogFile=xrdp.log

[Xorg]
param=Xorg
param=-noreset
`;

test('replaces keys in the right section only, adds missing ones there', () => {
  const out = setIniValues(SAMPLE, 'Globals', { port: 'tcp://127.0.0.1:4000', security_layer: 'tls' });
  assert.match(out, /^port=tcp:\/\/127\.0\.0\.1:4000$/m);
  assert.match(out, /; comment port=1/);
  const globals = out.slice(0, out.indexOf('[Logging]'));
  assert.match(globals, /security_layer=tls/);
  assert.equal(out.match(/^port=/gm)?.length, 1);
  assert.match(out, /param=Xorg\nparam=-noreset/);
});

test('appends a missing section', () => {
  const out = setIniValues(SAMPLE, 'SessionVariables', { LANTERNA_LAB_ID: 'abc' });
  assert.match(out, /\[SessionVariables\]\nLANTERNA_LAB_ID=abc\n$/);
  assert.equal(setIniValues(out, 'SessionVariables', { LANTERNA_LAB_ID: 'def' }).match(/LANTERNA_LAB_ID=/g)?.length, 1);
});

test('works on the installed xrdp.ini and sesman.ini', () => {
  const xrdp = setIniValues(readFileSync('/etc/xrdp/xrdp.ini', 'utf8'), 'Globals', { port: 'tcp://127.0.0.1:5555' });
  assert.match(xrdp, /^port=tcp:\/\/127\.0\.0\.1:5555$/m);
  assert.doesNotMatch(xrdp, /^port=3389$/m);
  const sesman = setIniValues(readFileSync('/etc/xrdp/sesman.ini', 'utf8'), 'Globals', { ListenPort: '5556' });
  assert.match(sesman, /^ListenPort=5556$/m);
});
