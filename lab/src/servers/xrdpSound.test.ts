import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { planScene } from '../scenes/sceneCatalogue.js';
import { renderSessionScript, SESSION_DISPLAY } from '../scenes/scenePlan.js';
import { pipewireConfig, soundSessionLines, toneWave, XRDP_SOUND_RATE } from './xrdpSound.js';

const TONE = { left: { hz: 1000, amplitude: 0.5 }, right: { hz: 440, amplitude: 0.25 } };

test('toneWave is a 16-bit stereo 44.1 kHz WAV whose samples are the two sines', () => {
  const wave = toneWave({ ...TONE, seconds: 0.5 });
  const frames = XRDP_SOUND_RATE / 2;
  assert.equal(wave.length, 44 + frames * 4);
  assert.equal(wave.toString('ascii', 0, 4), 'RIFF');
  assert.equal(wave.toString('ascii', 8, 16), 'WAVEfmt ');
  assert.deepEqual([wave.readUInt16LE(20), wave.readUInt16LE(22), wave.readUInt32LE(24), wave.readUInt16LE(34)], [1, 2, 44_100, 16]);
  assert.equal(wave.readUInt32LE(40), frames * 4);
  let peakLeft = 0;
  let peakRight = 0;
  for (let i = 0; i < frames; i++) {
    peakLeft = Math.max(peakLeft, Math.abs(wave.readInt16LE(44 + i * 4)));
    peakRight = Math.max(peakRight, Math.abs(wave.readInt16LE(46 + i * 4)));
  }
  assert.ok(Math.abs(peakLeft - 16384) < 3 && Math.abs(peakRight - 8192) < 3, `peaks ${peakLeft} / ${peakRight}`);
  // a quarter period of 1 kHz at 44.1 kHz is 11.025 samples: sample 11 is near the crest
  assert.ok(wave.readInt16LE(44 + 11 * 4) > 16300);
});

test('toneWave refuses lengths, levels and frequencies out of range', () => {
  assert.throws(() => toneWave({ ...TONE, seconds: 0 }), RangeError);
  assert.throws(() => toneWave({ ...TONE, seconds: 600 }), RangeError);
  assert.throws(() => toneWave({ ...TONE, left: { hz: 1000, amplitude: 1.5 } }), RangeError);
  assert.throws(() => toneWave({ ...TONE, right: { hz: 30_000, amplitude: 0.5 } }), RangeError);
});

test('the sound lines run before the scene in a session script /bin/sh accepts; the config loads access, the xrdp module and auto port config', () => {
  const lines = soundSessionLines({ config: "/tmp/it's/pipewire.conf", wave: '/tmp/a b/tone.wav', logPath: '/tmp/sound.log' });
  const plan = planScene('reference', { display: SESSION_DISPLAY, width: 320, height: 200, workDir: '/tmp' });
  const script = renderSessionScript(plan, lines);
  execFileSync('sh', ['-n', '-c', script]);
  assert.ok(script.indexOf('pipewire -c') < script.indexOf('-window root'), 'sound starts before the scene');
  assert.match(script, /'\/tmp\/it'\\''s\/pipewire.conf'/);
  const config = pipewireConfig();
  for (const part of ['libpipewire-module-access', 'libpipewire-module-xrdp', 'node.name = xrdp-sink', 'adapter.auto-port-config', 'support.node.driver']) {
    assert.ok(config.includes(part), part);
  }
});
