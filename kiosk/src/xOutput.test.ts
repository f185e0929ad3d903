import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseXrandr, withOutput } from './xOutput.js';

void test('the primary connected output with its mode is the panel; Xvfb\'s single screen is taken as it is', () => {
  const laptop = [
    'Screen 0: minimum 320 x 200, current 5760 x 2160, maximum 16384 x 16384',
    'eDP-1 connected 1920x1080+3840+0 (normal left inverted right x axis y axis) 309mm x 174mm',
    '   1920x1080     60.01*+',
    'HDMI-1 connected primary 3840x2160+0+0 (normal left inverted right x axis y axis) 1210mm x 680mm',
    '   3840x2160     60.00*+  30.00',
    'DP-1 disconnected (normal left inverted right x axis y axis)',
  ].join('\n');
  assert.deepEqual(parseXrandr(laptop), { name: 'HDMI-1', width: 3840, height: 2160 });
  const xvfb = 'Screen 0: minimum 1 x 1, current 1600 x 900, maximum 1600 x 900\nscreen connected 1600x900+0+0 0mm x 0mm\n   1600x900       0.00*\n';
  assert.deepEqual(parseXrandr(xvfb), { name: 'screen', width: 1600, height: 900 });
  // a portrait panel: the mode as the output is rotated
  assert.deepEqual(parseXrandr('DP-2 connected primary 1080x1920+0+0 left (normal left inverted right x axis y axis) 0mm x 0mm'), { name: 'DP-2', width: 1080, height: 1920 });
});

void test('no connected output with a mode, or not xrandr at all: nothing', () => {
  assert.equal(parseXrandr('HDMI-1 connected (normal left inverted right x axis y axis)\nDP-1 disconnected'), null);
  assert.equal(parseXrandr('<html>not xrandr</html>'), null);
  assert.equal(parseXrandr(''), null);
});

void test('the output goes in the page\'s query; nothing is added without one', () => {
  const page = new URL('https://gw.example:8443/display/room-1');
  assert.equal(withOutput(page, { name: 'HDMI-1', width: 3840, height: 2160 }).href, 'https://gw.example:8443/display/room-1?output=HDMI-1%3A3840x2160');
  assert.equal(withOutput(page, null).href, page.href);
});
