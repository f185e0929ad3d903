// Replays recorded sessions (/work/shared/recordings/) into the wasm client
// and reports decode time: wall time from the first to the last frame and ms
// per frame, single session, frames acknowledged at once (no renderer).
//   node wasm/bench/replay.mjs [name …]   (default: the decodable recordings)
import { readRecording } from '@lanterna/lab/recording/recordingReader';

import { loadLanternaRdp } from '../js/nodeLoader.js';
import { replayRecording } from '../js/recordingReplay.js';

const DIR = process.env.LANTERNA_RECORDINGS ?? '/work/shared/recordings';
// static-gfx.dump is H.264 (AVC444v2), which this build does not decode
const names = process.argv.slice(2).length > 0 ? process.argv.slice(2)
  : ['cold-shadow', 'cold-xrdp', 'xrdp-tls-default', 'static-nogfx-rfx', 'static-gfxprogressive'];

const rdp = await loadLanternaRdp({ logLevel: 'OFF' });
try {
  // warm-up: the engine optimises hot wasm functions after a while
  await replayRecording(rdp, (await readRecording(`${DIR}/static-nogfx-rfx.dump`)).records.slice(0, 400), { keepLastFrame: false });
  for (const name of names) {
    const { records } = await readRecording(`${DIR}/${name}.dump`);
    const bytes = records.filter((r) => r.direction === 'server-to-client').reduce((n, r) => n + r.data.length, 0);
    let first = 0;
    let last = 0;
    const result = await replayRecording(rdp, records, {
      keepLastFrame: false,
      onframe: () => { const t = performance.now(); if (!first) first = t; last = t; },
    });
    const span = last - first;
    console.log(JSON.stringify({
      recording: name, serverBytes: bytes, frames: result.frames, totalMs: Math.round(result.ms),
      firstToLastFrameMs: Math.round(span), msPerFrame: result.frames > 1 ? Number((span / (result.frames - 1)).toFixed(2)) : null,
      end: result.end?.reason,
    }));
  }
} finally {
  rdp.close();
}
