import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCliArguments } from './cliArguments.js';

test('parses the demo command and fills defaults', () => {
  assert.deepEqual(parseCliArguments(['shadow', '--auth', 'tls', '--scene', 'terminal']), {
    kind: 'shadow', auth: 'tls', gfx: true, scene: 'terminal', width: 1920, height: 1080, timestampStrip: false,
  });
  assert.deepEqual(parseCliArguments(['shadow', '--auth=nla', '--no-gfx', '--width', '1280', '--height', '720']), {
    kind: 'shadow', auth: 'nla', gfx: false, scene: 'reference', width: 1280, height: 720, timestampStrip: false,
  });
  assert.deepEqual(parseCliArguments(['display', '--scene', 'terminal', '--timestamp-strip']), {
    kind: 'display', scene: 'terminal', width: 1920, height: 1080, timestampStrip: true,
  });
  assert.deepEqual(parseCliArguments(['xrdp', '--scene', 'animation']), { kind: 'xrdp', scene: 'animation', width: 1920, height: 1080 });
  assert.deepEqual(parseCliArguments([]), { kind: 'help' });
  assert.deepEqual(parseCliArguments(['display', '-h']), { kind: 'help' });
});

test('rejects bad values with messages that name the option', () => {
  assert.throws(() => parseCliArguments(['shadow', '--auth', 'rdp']), /--auth must be tls or nla, got 'rdp'/);
  assert.throws(() => parseCliArguments(['shadow', '--scene', 'slides']), /--scene must be one of reference, slide, terminal, animation/);
  assert.throws(() => parseCliArguments(['display', '--width', '12.5']), /--width must be an integer/);
  assert.throws(() => parseCliArguments(['xrdp', '--auth', 'nla']), /shadow command only/);
  assert.throws(() => parseCliArguments(['xrdp', '--timestamp-strip']), /--timestamp-strip applies to the shadow and display commands only/);
  assert.throws(() => parseCliArguments(['projector']), /unknown command 'projector'/);
  assert.throws(() => parseCliArguments(['shadow', '--colour']), /Unknown option '--colour'/);
});
