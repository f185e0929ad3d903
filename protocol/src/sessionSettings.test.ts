import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { projectSettingsSchema, sessionSettingsSchema } from './sessionSettings.js';

void test('a request\'s settings are read strictly, the project message\'s leniently', () => {
  const settings = { colorDepth: 16, gfx: true, codecs: ['planar', 'remotefx'], performance: { wallpaper: false } };
  assert.deepEqual(sessionSettingsSchema.parse(settings), settings);
  assert.equal(sessionSettingsSchema.safeParse({ ...settings, future: 1 }).success, false);
  assert.equal(sessionSettingsSchema.safeParse({ performance: { future: true } }).success, false);
  assert.equal(sessionSettingsSchema.safeParse({ codecs: ['avc'] }).success, false);
  assert.equal(sessionSettingsSchema.safeParse({ codecs: ['planar', 'planar', 'planar', 'planar', 'planar', 'planar'] }).success, false);
  assert.equal(sessionSettingsSchema.safeParse({ codecs: ['planar', 'remotefx', 'progressive', 'avc420', 'avc444'] }).success, true);
  assert.equal(sessionSettingsSchema.safeParse({ colorDepth: 8 }).success, false);
  assert.deepEqual(projectSettingsSchema.parse({ ...settings, future: 1, assistance: { invitation: '<x/>', password: 'p' } }), {
    ...settings, assistance: { invitation: '<x/>', password: 'p' },
  });
});

void test('the schema composes into the gateway\'s classic zod request bodies, with its errors', () => {
  const body = z.object({ displayId: z.string(), settings: z.optional(sessionSettingsSchema) });
  assert.deepEqual(body.parse({ displayId: 'room', settings: { gfx: false } }), { displayId: 'room', settings: { gfx: false } });
  const refused = body.safeParse({ displayId: 'room', settings: { gfx: false, nope: 1 } });
  assert.equal(refused.success, false);
  assert.match(z.prettifyError(refused.error), /nope[\s\S]*settings/);
});
