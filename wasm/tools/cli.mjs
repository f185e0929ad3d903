#!/usr/bin/env node
// Connects the wasm FreeRDP client through a Lanterna gateway, runs until the
// desktop is drawn and stable, writes the last frame as PNG and exits 0; on
// failure prints a typed error ({"error": reason, …} on stderr) and exits 1.
//   node wasm/tools/cli.mjs --gateway ws://127.0.0.1:PORT --session ID --token K \
//     --user U --password P --out frame.png (--frames N | --seconds S)
import { writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';

import { loadLanternaRdp, NODE_VIDEO_DECODER } from '../js/nodeLoader.js';
import { runOverGateway } from '../js/gatewaySession.js';
import { encodeSurfacePng } from './framePng.js';

const USAGE = 'usage: cli.mjs --gateway URL --session ID --token K [--user U --password P --domain D] '
  + '--out FILE [--frames N | --seconds S] [--width W --height H] [--no-gfx] [--codecs planar,remotefx,progressive] (no avc420/avc444: Node has no WebCodecs) '
  + '[--timeout S] [--verbose]';

function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      gateway: { type: 'string' }, session: { type: 'string' }, token: { type: 'string' },
      user: { type: 'string' }, password: { type: 'string' }, domain: { type: 'string' },
      out: { type: 'string' }, frames: { type: 'string' }, seconds: { type: 'string' },
      width: { type: 'string' }, height: { type: 'string' }, 'no-gfx': { type: 'boolean' },
      codecs: { type: 'string' }, timeout: { type: 'string' }, verbose: { type: 'boolean' },
      'stable-ms': { type: 'string' },
    },
  });
  for (const required of ['gateway', 'session', 'token', 'out']) {
    if (!values[required]) throw new Error(`missing --${required}\n${USAGE}`);
  }
  const number = (name, fallback) => {
    if (values[name] === undefined) return fallback;
    const n = Number(values[name]);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number`);
    return n;
  };
  return {
    ...values,
    frames: number('frames', values.seconds === undefined ? 1 : 0),
    seconds: number('seconds', 0),
    width: number('width', 1920),
    height: number('height', 1080),
    timeoutMs: number('timeout', 60) * 1000,
    stableMs: number('stable-ms', 400),
  };
}

function fail(reason, detail = {}) {
  process.stderr.write(`${JSON.stringify({ error: reason, ...detail })}\n`);
  process.exit(1);
}

async function main() {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    fail('usage', { message: err.message });
  }
  const rdp = await loadLanternaRdp({ logLevel: options.verbose ? 'INFO' : 'ERROR' });
  const session = rdp.createSession({
    username: options.user, password: options.password, domain: options.domain,
    width: options.width, height: options.height, gfx: !options['no-gfx'],
    codecs: options.codecs?.split(','),
    videoDecoder: NODE_VIDEO_DECODER,
  });
  if (options.codecs?.includes('avc') || options.verbose) {
    process.stderr.write(`AVC420/AVC444 (H.264) not advertised: ${NODE_VIDEO_DECODER.reason}\n`);
  }

  const started = Date.now();
  let connectedAt = 0;
  let lastFrameAt = 0;
  let surface = null;
  let lastHash = '';
  let stableSince = 0;
  session.onconnected = (desktop) => {
    connectedAt = Date.now();
    if (options.verbose) process.stderr.write(`connected ${desktop.width}x${desktop.height}\n`);
  };
  session.onframe = (frame) => {
    lastFrameAt = Date.now();
    surface = frame;
  };

  const url = `${options.gateway.replace(/\/$/, '')}/v1/sessions/${encodeURIComponent(options.session)}/data`;
  const socket = new WebSocket(url, 'lanterna.v1', { perMessageDeflate: false });
  const ended = runOverGateway(session, socket, { token: options.token });

  const done = new Promise((resolve) => {
    const timer = setInterval(() => {
      const now = Date.now();
      if (now - started > options.timeoutMs) {
        clearInterval(timer);
        resolve(surface ? 'deadline' : 'timeout');
        return;
      }
      if (!connectedAt || !surface) return;
      const enough = session.frames >= options.frames && now - connectedAt >= options.seconds * 1000;
      if (!enough) return;
      // stable: no paint for a while, or the pixels stopped changing (servers that poll keep painting)
      const hash = createHash('sha1').update(surface.pixels.slice(0, surface.stride * surface.height)).digest('hex');
      if (hash !== lastHash) { lastHash = hash; stableSince = now; }
      if (now - lastFrameAt >= options.stableMs || now - stableSince >= options.stableMs) {
        clearInterval(timer);
        resolve('stable');
      }
    }, 100);
    void ended.then(() => { clearInterval(timer); resolve('ended'); });
  });

  const outcome = await done;
  const settle = () => Promise.race([ended, new Promise((resolve) => setTimeout(() => resolve(null), 5000))]);
  if (outcome === 'timeout') {
    session.stop();
    await settle();
    fail('timeout', { message: `no frame within ${options.timeoutMs / 1000} s` });
  }
  if (outcome === 'ended') {
    const end = await ended;
    fail(end.reason, { code: end.code, gateway: end.gateway });
  }
  writeFileSync(options.out, encodeSurfacePng(surface));
  session.stop();
  await settle();
  process.stdout.write(`${JSON.stringify({
    out: options.out, width: surface.width, height: surface.height, frames: session.frames,
    connectMs: connectedAt - started, outcome,
  })}\n`);
  process.exit(0);
}

main().catch((err) => fail('internal', { message: err.message }));
