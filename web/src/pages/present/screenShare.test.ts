import { test } from 'node:test';
import assert from 'node:assert/strict';
import { desktopFor } from './screenShare.js';

void test('a capture keeps its size and shape up to 1920×1080, with even sides', () => {
  assert.deepEqual(desktopFor(1280, 720), { width: 1280, height: 720 });
  assert.deepEqual(desktopFor(1281, 721), { width: 1280, height: 720 });
  assert.deepEqual(desktopFor(3840, 2160), { width: 1920, height: 1080 });
  assert.deepEqual(desktopFor(2560, 1600), { width: 1728, height: 1080 });
});

void test('a capture larger than what the display shows it at is sized to that, not to the presenter\'s screen', () => {
  // a 1440p screen on a 1366×768 panel (a hair wider than 16:9: the height limits it)
  assert.deepEqual(desktopFor(2560, 1440, { width: 1366, height: 768 }), { width: 1364, height: 768 });
  // a landscape screen on a portrait panel: the width limits it (the display would letterbox it to these pixels anyway)
  assert.deepEqual(desktopFor(1920, 1080, { width: 1080, height: 1920 }), { width: 1080, height: 606 });
  // half of a 1080p panel, side by side with another source
  assert.deepEqual(desktopFor(1920, 1080, { width: 960, height: 1080 }), { width: 960, height: 540 });
});

void test('a display larger than the capture does not enlarge it', () => {
  assert.deepEqual(desktopFor(1280, 800, { width: 3840, height: 2160 }), { width: 1280, height: 800 });
});
