// Replays recorded sessions (@lanterna/lab's recordingsDir()) into the wasm client
// and reports decode time: wall time from the first to the last frame and ms
// per frame, single session, frames acknowledged at once (no renderer), and
// the final picture's hash. replay-compare.mjs puts the native twin beside it.
//   node wasm/bench/replay.mjs [name …]   (default: the decodable recordings)
import { readRecording, recordingPath } from '@lanterna/lab';

import { loadLanternaRdp } from '../js/nodeLoader.js';
import { timeWasmReplay } from './replayTiming.mjs';

// static-gfx and cold-shadow are H.264, which decodes only in a browser (WebCodecs): Node ends them video-unsupported
const names = process.argv.slice(2).length > 0 ? process.argv.slice(2)
  : ['cold-xrdp', 'xrdp-tls-default', 'static-nogfx-rfx', 'static-gfxprogressive'];

const rdp = await loadLanternaRdp({ logLevel: 'OFF' });
try {
  // warm-up: the engine optimises hot wasm functions after a while
  const warmUp = (await readRecording(recordingPath('static-nogfx-rfx'))).records.slice(0, 400);
  await timeWasmReplay(rdp, 'warm-up', warmUp);
  for (const name of names) {
    const { records } = await readRecording(recordingPath(name));
    const serverBytes = records.filter((r) => r.direction === 'server-to-client').reduce((n, r) => n + r.data.length, 0);
    console.log(JSON.stringify({ ...await timeWasmReplay(rdp, name, records), serverBytes }));
  }
} finally {
  await rdp.close();
}
