// Pixel truth: the lab shows a picture full screen on a server's desktop;
// through the gateway and the kiosk page (1920×1080 page, 1920×1080 desktop,
// so 1:1) the picture must equal it exactly on lossless paths and, on lossy
// ones, lose nothing beyond what the codec loses (measured against native
// FreeRDP on the same server) and stay at ≥ 40 dB on projector content.
// Two scenes (lab/src/scenes/README.md): the hard reference image catches
// lossless errors; the slide measures lossy fidelity on realistic content.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Lab, SLIDE_REGIONS, compareImages, describeDifference, generateReferenceImage, type LabDisplay, type RdpEndpoint, type RgbImage, type SceneName } from '@lanterna/lab';
import { startNativeViewer } from './nativeViewer.js';
import { startKioskRig, waitForPicture, type ProjectedTarget } from './kioskRig.js';
import { psnr } from './psnr.js';
import { keepImage } from './keepScreenshot.js';
import { projectRecorded } from './recordedProjection.js';

const reference = generateReferenceImage();
const equalsReference = (image: RgbImage): boolean => compareImages(reference, image) === undefined;

interface SceneOnDisplay {
  display: LabDisplay;
  /** What the server's display shows: the truth the kiosk's picture is held to. */
  screen: RgbImage;
}
interface SharedLab {
  lab: Lab;
  scenes: Record<'reference' | 'slide', SceneOnDisplay>;
}

let labPromise: Promise<SharedLab> | null = null;
// One lab for the whole file, one display per still scene; closed after the last test.
function sharedLab(): Promise<SharedLab> {
  if (labPromise === null) {
    labPromise = (async () => {
      const lab = await Lab.create({ name: 'e2e-pixel-truth' });
      const show = async (scene: SceneName): Promise<SceneOnDisplay> => {
        const display = await lab.display({ width: 1920, height: 1080 });
        await display.showScene(scene);
        return { display, screen: await display.screenshot() };
      };
      return { lab, scenes: { reference: await show('reference'), slide: await show('slide') } };
    })();
  }
  return labPromise;
}
test.after(async () => {
  if (labPromise) await (await labPromise).lab.close();
});

async function projectAndCapture(target: ProjectedTarget, query: string | undefined, accept: (image: RgbImage) => boolean, name: string): Promise<{ image: RgbImage; problems: string[] }> {
  const rig = await startKioskRig({ target, ...(query !== undefined ? { query } : {}) });
  try {
    const image = await waitForPicture(rig, accept, 45_000);
    await keepImage(image, name);
    return { image, problems: [...rig.kiosk.problems] };
  } finally {
    await rig.close();
  }
}

test('shadow TLS, GFX with only the lossless planar codec: exact', async (t) => {
  const { lab, scenes: { reference: { display, screen } } } = await sharedLab();
  assert.equal(compareImages(reference, screen), undefined, 'the display shows the reference image');
  // In GFX mode the shadow server picks the codec from its own switches (RemoteFX
  // over GFX, then progressive, then planar), whatever the client advertises:
  // turning the lossy two off on the server leaves planar.
  const shadow = await lab.shadowServer({ display, auth: 'tls', gfx: true, extraArgs: ['-gfx-progressive', '-gfx-rfx'] });
  t.after(() => shadow.stop());
  const { image, problems } = await projectAndCapture(shadow, 'codecs=planar', equalsReference, 'shadow-tls-gfx-planar');
  assert.deepEqual(problems, []);
  assert.equal(describeDifference(compareImages(reference, image)), 'images are equal');
});

// Lossy paths: PSNR against the server's display (the codec's loss), and the
// kiosk's picture against what native FreeRDP (xfreerdp3 on its own lab
// display) decodes from the same server: the wasm decoders should match it.
async function nativePicture(lab: Lab, server: RdpEndpoint, args: readonly string[], truth: RgbImage, settleDb = 30): Promise<RgbImage> {
  const viewer = await startNativeViewer(lab, server, args);
  try {
    let previous: RgbImage | null = null;
    const end = Date.now() + 45_000;
    for (;;) {
      const image = await viewer.screenshot();
      const settled = previous !== null && compareImages(previous, image) === undefined && psnr(truth, image) > settleDb;
      if (settled || Date.now() > end) return image;
      previous = image;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await viewer.stop();
  }
}

function largestChannelDifference(a: RgbImage, b: RgbImage): number {
  let worst = 0;
  for (let i = 0; i < a.data.length; i++) {
    if (i % 4 !== 3) worst = Math.max(worst, Math.abs((a.data[i] ?? 0) - (b.data[i] ?? 0)));
  }
  return worst;
}

interface LossyCase {
  name: string;
  scene: 'reference' | 'slide';
  server: { auth: 'tls' | 'nla'; gfx: boolean; extraArgs?: readonly string[] };
  query: string | undefined;
  nativeArgs: readonly string[];
}

/** Settled: the same picture twice in a row, above `settleDb` against the display (the scene, not a blank or half-drawn screen). */
function settledOn(truth: RgbImage, settleDb: number): (image: RgbImage) => boolean {
  let previous: RgbImage | null = null;
  return (image) => {
    const same = previous !== null && compareImages(previous, image) === undefined && psnr(truth, image) > settleDb;
    previous = image;
    return same;
  };
}

/** The kiosk's settled picture and native FreeRDP's from the same server, with their PSNR against the display. */
async function lossyPath(t: TestContext, c: LossyCase): Promise<{ kiosk: RgbImage; truth: RgbImage; kioskDb: number; nativeDb: number }> {
  const { lab, scenes } = await sharedLab();
  const { display, screen: truth } = scenes[c.scene];
  const shadow = await lab.shadowServer({ display, ...c.server });
  t.after(() => shadow.stop());
  const { image, problems } = await projectAndCapture(shadow, c.query, settledOn(truth, 30), c.name);
  const kioskDb = psnr(truth, image);
  let native = await nativePicture(lab, shadow, c.nativeArgs, truth);
  let nativeDb = psnr(truth, native);
  if (Math.abs(nativeDb - kioskDb) > 0.05) {
    // The shadow server encodes each session's picture afresh, and not always
    // the same way: the same slide through RemoteFX came as 45.55 dB in most
    // sessions, 45.72 in some, 45.64 in one. The native reference is a session
    // of its own, so one more is taken, and the nearer of the two is compared:
    // a kiosk that loses on its own stays below both.
    const again = await nativePicture(lab, shadow, c.nativeArgs, truth);
    const againDb = psnr(truth, again);
    console.log(`# ${c.name}: native FreeRDP's first session at ${nativeDb.toFixed(2)} dB, the kiosk's at ${kioskDb.toFixed(2)}: a second native session at ${againDb.toFixed(2)} dB`);
    if (Math.abs(againDb - kioskDb) < Math.abs(nativeDb - kioskDb)) [native, nativeDb] = [again, againDb];
  }
  console.log(`# ${c.name}: kiosk PSNR ${kioskDb.toFixed(2)} dB, native xfreerdp3 PSNR ${nativeDb.toFixed(2)} dB, kiosk vs native: ${describeDifference(compareImages(native, image))} (PSNR ${psnr(native, image).toFixed(2)} dB)`);
  assert.deepEqual(problems, []);
  // Debian's native libfreerdp3 rounds its SIMD colour conversion differently
  // from the wasm build in a few thousand pixels (measured: 3,534 on the
  // reference, 1,091 on the slide, all by 1): more than ±1 would be the kiosk's own error.
  const worst = largestChannelDifference(native, image);
  console.log(`# ${c.name}: largest difference from native FreeRDP ${worst} per channel`);
  assert.ok(worst <= 1, `the kiosk differs from native FreeRDP by up to ${worst} per channel: ${describeDifference(compareImages(native, image))}`);
  // No loss of its own on top of the codec's:
  assert.ok(kioskDb >= nativeDb - 0.05, `PSNR ${kioskDb.toFixed(2)} dB against the display, below native FreeRDP's ${nativeDb.toFixed(2)} dB`);
  return { kiosk: image, truth, kioskDb, nativeDb };
}

// The shadow server's RemoteFX encoder (surface bits and GFX progressive alike)
// quantises with one fixed table: on a slide that keeps ≥ 40 dB everywhere.
async function slideAtLeast40Db(t: TestContext, c: Omit<LossyCase, 'scene'>): Promise<void> {
  const { kiosk, truth, kioskDb } = await lossyPath(t, { ...c, scene: 'slide' });
  const regions = SLIDE_REGIONS.map((region) => ({ name: region.name, db: psnr(truth, kiosk, region) }));
  console.log(`# ${c.name}: slide by region: ${regions.map((r) => `${r.name} ${r.db.toFixed(2)} dB`).join(', ')}`);
  assert.ok(kioskDb >= 40, `the slide at ${kioskDb.toFixed(2)} dB, below 40`);
  for (const region of regions) assert.ok(region.db >= 40, `the slide's ${region.name} at ${region.db.toFixed(2)} dB, below 40`);
}

const PROGRESSIVE_NATIVE = ['/gfx:progressive:on,RFX:off,AVC420:off,AVC444:off'];
const REMOTEFX_NATIVE = ['-gfx', '/rfx'];

test('slide, shadow NLA, GFX progressive: at least 40 dB whole and by region, within ±1 of native FreeRDP', async (t) => {
  await slideAtLeast40Db(t, { name: 'slide-shadow-nla-gfx-progressive', server: { auth: 'nla', gfx: true }, query: 'codecs=progressive', nativeArgs: PROGRESSIVE_NATIVE });
});

test('slide, shadow TLS without GFX (RemoteFX surface bits): at least 40 dB whole and by region, within ±1 of native FreeRDP', async (t) => {
  await slideAtLeast40Db(t, { name: 'slide-shadow-tls-remotefx', server: { auth: 'tls', gfx: false }, query: undefined, nativeArgs: REMOTEFX_NATIVE });
});

// The hard reference image through RemoteFX: its seeded noise, 1-px gratings
// and 5×7 text come back at ≈35 dB (37.06 dB whole frame, native FreeRDP the
// same): the codec's limit on a test card, printed; the kiosk still answers
// for matching native FreeRDP within ±1.
test('reference image, shadow TLS, RemoteFX surface bits: the codec\'s limit (printed), within ±1 of native FreeRDP', async (t) => {
  const { kioskDb } = await lossyPath(t, { name: 'reference-shadow-tls-remotefx', scene: 'reference', server: { auth: 'tls', gfx: false }, query: undefined, nativeArgs: REMOTEFX_NATIVE });
  assert.ok(kioskDb >= 35, `PSNR ${kioskDb.toFixed(2)} dB against the reference: the picture is not the reference scene`);
});

// xrdp sends a pointer shape at (0, 0) before any input, and the page draws
// the pointer over the desktop as it should: the desktop must be exact
// everywhere outside the pointer's 32×32 box, and the pointer must be there.
const pointerBox = { x: 0, y: 0, width: 32, height: 32 };
function withPointerBoxFrom(expected: RgbImage, actual: RgbImage): RgbImage {
  const merged = { width: expected.width, height: expected.height, data: Buffer.from(expected.data) };
  for (let y = pointerBox.y; y < pointerBox.y + pointerBox.height; y++) {
    const start = (y * expected.width + pointerBox.x) * 4;
    actual.data.copy(merged.data, start, start, start + pointerBox.width * 4);
  }
  return merged;
}
const equalsOutsidePointer = (image: RgbImage): boolean => compareImages(withPointerBoxFrom(reference, image), image) === undefined;

test('xrdp (xorgxrdp, TLS, bitmap updates): exact outside the pointer', async () => {
  const { lab } = await sharedLab();
  const xrdp = await lab.xrdp({ scene: 'reference', width: 1920, height: 1080 });
  const { image, problems } = await projectAndCapture(xrdp, undefined, equalsOutsidePointer, 'xrdp');
  assert.deepEqual(problems, []);
  assert.equal(describeDifference(compareImages(withPointerBoxFrom(reference, image), image)), 'images are equal');
  assert.notEqual(compareImages(reference, image), undefined, 'no pointer drawn at (0, 0)');
});

// Weston's RDP backend ends a session at activation unless the client joined
// the clipboard channel (wasm/README.md, "Clipboard channel"); the kiosk page
// must draw it. Weston (kiosk-shell) shows the reference picture 1:1, and its
// own screenshot is the truth; without RemoteFX it sends plain bitmaps: exact.
test('weston (RDP backend, needs cliprdr), plain bitmaps: exact', async () => {
  const { lab } = await sharedLab();
  const weston = await lab.weston({ picture: 'reference', width: 1920, height: 1080 });
  const truth = await weston.screenshot();
  assert.equal(compareImages(reference, truth), undefined, 'Weston shows the reference picture');
  const { image, problems } = await projectAndCapture(weston, 'codecs=planar', equalsReference, 'weston-bitmaps');
  assert.deepEqual(problems, []);
  assert.equal(describeDifference(compareImages(truth, image)), 'images are equal');
});

// GFX H.264: the page advertises AVC420/AVC444 (its VideoDecoder said yes) and
// the shadow server, with its GFX defaults, sends AVC444v2; asked for AVC420
// only, AVC420. WebCodecs decodes, FreeRDP combines and converts. The encoder
// is not deterministic from one session to the next, so "the same picture as
// native FreeRDP" is held on the same input: the kiosk projects through a
// recording proxy (testkit's recordingTlsProxy: TLS terminated on both legs,
// the plaintext PDUs recorded), the proxy holds the server's stream once the
// picture has settled, and the very PDUs the kiosk received are replayed into
// the native twin (nativeTwin.ts: the same FreeRDP 3.15 and glue, FFmpeg's
// decoder): within ±2 per channel. Debian's xfreerdp3 (FreeRDP 3.10.3) on its
// own session is printed beside it for information (and AVC420 still held to
// it, measured equal): its AVC444 pictures differ from 3.15's (up to 162 per
// channel on the reference), not the kiosk's doing.
const AVC444_NATIVE = ['/gfx:AVC444:on'];
const AVC420_NATIVE = ['/gfx:AVC420:on,AVC444:off,RFX:off,progressive:off'];
const TWIN_TOLERANCE = 2;
// The reference test card is beyond the shadow server's H.264 encoder (its
// noise, gratings and zone plate): AVC444v2 24.4–24.7 dB for the kiosk, 24.1–24.2
// for xfreerdp3; AVC420 19.9–20.1 dB for both (equal pictures). It does not
// refine with time, even while the encoder keeps sending P-frames: with the
// timestamp strip changing the top 64 rows every frame, PSNR below them,
// sampled every second for 20 s (e2e/dist/bench/h264Refinement.js), stayed at
// 24.44 dB (AVC444v2) and 19.90 dB (AVC420) from the first picture on, the same
// as without the strip (24.35 / 19.89). Why: after its first frame, FreeRDP's
// H.264 encoder lists in the metablock only the 64×64 tiles whose input changed
// (libfreerdp/codec/h264.c, detect_changes), and the client copies only those
// rectangles from the decoded picture, so a still area keeps the first frame's
// quality whatever later frames carry (and Debian's shadow server fixes the
// rate at 10 Mbit/s VBR with no option). 35 dB on the card is therefore out of
// reach without patching the server: there only "no worse than native" is held
// and the figure printed; 18 dB is a floor that says the picture is the scene at all.
const H264_FLOOR_DB = { slide: 35, reference: 18 } as const;

interface H264Case {
  name: string;
  scene: 'reference' | 'slide';
  query: string | undefined;
  nativeArgs: readonly string[];
  /** Largest difference per channel allowed against xfreerdp3's own session; null: printed only. */
  xfreerdpTolerance: number | null;
}

async function h264Path(t: TestContext, c: H264Case): Promise<{ kioskDb: number }> {
  const { lab, scenes } = await sharedLab();
  const { display, screen: truth } = scenes[c.scene];
  const shadow = await lab.shadowServer({ display, auth: 'tls', gfx: true });
  t.after(() => shadow.stop());
  // The reference card arrives near 20 dB through this encoder: 15 says "the scene".
  const settleDb = 15;
  const { image, problems, twin, serverPdus } = await projectRecorded(shadow, {
    ...(c.query !== undefined ? { query: c.query } : {}),
    name: c.name,
    deadlineMs: 45_000,
    accept: settledOn(truth, settleDb),
  });
  const native = await nativePicture(lab, shadow, c.nativeArgs, truth, settleDb);
  const kioskDb = psnr(truth, image);
  const nativeDb = psnr(truth, native);
  const twinWorst = largestChannelDifference(twin.picture, image);
  const nativeWorst = largestChannelDifference(native, image);
  console.log(`# ${c.name}: kiosk PSNR ${kioskDb.toFixed(2)} dB, twin (same ${serverPdus} server PDUs, ${twin.frames} frames) ${psnr(truth, twin.picture).toFixed(2)} dB, native xfreerdp3 (own session) ${nativeDb.toFixed(2)} dB`);
  console.log(`# ${c.name}: kiosk vs twin: ${describeDifference(compareImages(twin.picture, image))}, largest ${twinWorst} per channel`);
  console.log(`# ${c.name}: kiosk vs xfreerdp3 3.10.3: ${describeDifference(compareImages(native, image))} (PSNR ${psnr(native, image).toFixed(2)} dB), largest ${nativeWorst} per channel`);
  assert.deepEqual(problems, []);
  assert.ok(twin.frames > 0, `the native twin drew nothing from the recording (${twin.end})`);
  assert.ok(twinWorst <= TWIN_TOLERANCE, `the kiosk differs from native FreeRDP 3.15 on the same PDUs by up to ${twinWorst} per channel: ${describeDifference(compareImages(twin.picture, image))}`);
  if (c.xfreerdpTolerance !== null) assert.ok(nativeWorst <= c.xfreerdpTolerance, `the kiosk differs from xfreerdp3 by up to ${nativeWorst} per channel`);
  assert.ok(kioskDb >= nativeDb - 0.05, `PSNR ${kioskDb.toFixed(2)} dB against the display, below xfreerdp3's ${nativeDb.toFixed(2)} dB`);
  return { kioskDb };
}

for (const scene of ['slide', 'reference'] as const) {
  test(`${scene}, shadow TLS, GFX defaults (AVC444v2 through WebCodecs): at least ${H264_FLOOR_DB[scene]} dB, within ±${TWIN_TOLERANCE} of native FreeRDP on the same PDUs`, async (t) => {
    const { kioskDb } = await h264Path(t, { name: `${scene}-shadow-tls-avc444`, scene, query: undefined, nativeArgs: AVC444_NATIVE, xfreerdpTolerance: null });
    assert.ok(kioskDb >= H264_FLOOR_DB[scene], `PSNR ${kioskDb.toFixed(2)} dB against the ${scene}, below ${H264_FLOOR_DB[scene]}`);
  });
  test(`${scene}, shadow TLS, AVC420 only (page ?codecs=planar,progressive,avc420): at least ${H264_FLOOR_DB[scene]} dB, within ±${TWIN_TOLERANCE} of native FreeRDP on the same PDUs`, async (t) => {
    const { kioskDb } = await h264Path(t, { name: `${scene}-shadow-tls-avc420`, scene, query: 'codecs=planar,progressive,avc420', nativeArgs: AVC420_NATIVE, xfreerdpTolerance: 2 });
    assert.ok(kioskDb >= H264_FLOOR_DB[scene], `PSNR ${kioskDb.toFixed(2)} dB against the ${scene}, below ${H264_FLOOR_DB[scene]}`);
  });
}
