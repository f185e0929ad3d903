import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultDesktopScale, desktopForPanel, desktopPreferenceSchema, desktopSizeForPanel, deviceScaleFor, outputFromQuery, panelFromWindow, panelSchema } from './panelSize.js';

/** Each [panel width, height, desktop width, height]: the desktop asked for that panel. */
function assertDesktops(cases: readonly (readonly [number, number, number, number])[]): void {
  for (const [width, height, desktopWidth, desktopHeight] of cases) {
    assert.deepEqual(desktopSizeForPanel(width, height), { width: desktopWidth, height: desktopHeight }, `${width}×${height}`);
  }
}

test('a panel that fits is asked for as it is, landscape and portrait', () => {
  assertDesktops([[3840, 2160, 3840, 2160], [1080, 1920, 1080, 1920], [2160, 3840, 2160, 3840], [1920, 1080, 1920, 1080]]);
});

test('the width is even: 1366×768 stays, 1365 becomes 1364', () => {
  assertDesktops([[1366, 768, 1366, 768], [1365, 767, 1364, 767]]);
});

test('a panel past 4K is scaled into 3840×2160 keeping its shape; tiny ones get 200', () => {
  assertDesktops([[7680, 4320, 3840, 2160], [5120, 1440, 3840, 1080], [4320, 7680, 2160, 3840], [120, 90, 200, 200]]);
});

test('default scale keeps text the size of a 1080-line desktop', () => {
  assert.equal(defaultDesktopScale(3840, 2160), 200);
  assert.equal(defaultDesktopScale(2560, 1440), 125);
  assert.equal(defaultDesktopScale(1920, 1080), 100);
  assert.equal(defaultDesktopScale(1366, 768), 100);
  assert.equal(defaultDesktopScale(1080, 1920), 100);
  assert.equal(defaultDesktopScale(2160, 3840), 200);
  assert.equal(deviceScaleFor(100), 100);
  assert.equal(deviceScaleFor(125), 100);
  assert.equal(deviceScaleFor(150), 140);
  assert.equal(deviceScaleFor(200), 180);
});

test('a preference fixes the size, the scale or both', () => {
  const panel = { width: 3840, height: 2160 };
  assert.deepEqual(desktopForPanel(panel), { width: 3840, height: 2160, desktopScale: 200, deviceScale: 180 });
  assert.deepEqual(desktopForPanel(panel, { scale: 150 }), { width: 3840, height: 2160, desktopScale: 150, deviceScale: 140 });
  assert.deepEqual(desktopForPanel(panel, { width: 1920, height: 1080 }), { width: 1920, height: 1080, desktopScale: 100, deviceScale: 100 });
  // a width without a height is no fixed size
  assert.deepEqual(desktopForPanel(panel, { width: 1280 }), { width: 3840, height: 2160, desktopScale: 200, deviceScale: 180 });
});

test('the page measures CSS pixels × devicePixelRatio', () => {
  assert.deepEqual(panelFromWindow(1920, 1080, 2), { cssWidth: 1920, cssHeight: 1080, devicePixelRatio: 2, width: 3840, height: 2160, orientation: 'landscape' });
  assert.deepEqual(panelFromWindow(1080, 1920, 1), { cssWidth: 1080, cssHeight: 1920, devicePixelRatio: 1, width: 1080, height: 1920, orientation: 'portrait' });
  assert.equal(panelFromWindow(1280, 720, Number.NaN).devicePixelRatio, 1);
  assert.ok(panelSchema.safeParse(panelFromWindow(1280, 720, 1.5)).success);
});

test('schemas refuse what no panel or admin means', () => {
  assert.equal(desktopPreferenceSchema.safeParse({ scale: 99 }).success, false);
  assert.equal(desktopPreferenceSchema.safeParse({ scale: 501 }).success, false);
  assert.equal(desktopPreferenceSchema.safeParse({ width: 8000, height: 100 }).success, false);
  assert.equal(panelSchema.safeParse({ cssWidth: 0, cssHeight: 10, devicePixelRatio: 1, width: 1, height: 1, orientation: 'landscape' }).success, false);
  assert.equal(panelSchema.safeParse({ cssWidth: 10, cssHeight: 10, devicePixelRatio: 1, width: 10, height: 10, orientation: 'sideways' }).success, false);
});

test('the kiosk launcher\'s output in the page\'s query: name and mode, checked like the panel', () => {
  assert.deepEqual(outputFromQuery('HDMI-1:3840x2160'), { name: 'HDMI-1', width: 3840, height: 2160 });
  assert.equal(outputFromQuery(null), null);
  assert.equal(outputFromQuery('HDMI-1:0x2160'), null);
  assert.equal(outputFromQuery('HDMI-1:99999x2160'), null);
  assert.equal(outputFromQuery(`${'x'.repeat(65)}:1920x1080`), null);
  assert.equal(outputFromQuery('1920x1080'), null);
  const panel = panelFromWindow(1920, 1080, 2, outputFromQuery('DP-2:3840x2160'));
  assert.deepEqual(panel.output, { name: 'DP-2', width: 3840, height: 2160 });
  assert.equal(panelSchema.safeParse(panel).success, true);
  assert.equal('output' in panelFromWindow(1920, 1080, 1), false);
});
