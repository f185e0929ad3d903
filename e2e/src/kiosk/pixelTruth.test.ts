// Pixel truth: the lab shows the reference image full screen on a server's
// desktop; through the gateway and the kiosk page (1920×1080 page, 1920×1080
// desktop, so 1:1) the picture must equal it exactly on lossless paths and
// reach PSNR ≥ 40 dB on lossy ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Lab, compareImages, describeDifference, generateReferenceImage, type LabDisplay, type RgbImage } from '@lanterna/lab';
import { startKioskRig, waitForPicture, type ProjectedTarget } from './kioskRig.js';
import { psnr } from './psnr.js';
import { keepScreenshot } from './keepScreenshot.js';

const reference = generateReferenceImage();
const equalsReference = (image: RgbImage): boolean => compareImages(reference, image) === undefined;

let labPromise: Promise<{ lab: Lab; display: LabDisplay }> | null = null;
// One lab (and one reference display) for the whole file; closed after the last test.
function sharedLab(): Promise<{ lab: Lab; display: LabDisplay }> {
  if (labPromise === null) {
    labPromise = (async () => {
      const lab = await Lab.create({ name: 'e2e-pixel-truth' });
      const display = await lab.display({ width: 1920, height: 1080 });
      await display.showScene('reference');
      return { lab, display };
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
    await keepScreenshot(rig.page, name);
    return { image, problems: [...rig.kiosk.problems] };
  } finally {
    await rig.close();
  }
}

test('shadow TLS, GFX with only the lossless planar codec: exact', async (t) => {
  const { lab, display } = await sharedLab();
  // In GFX mode the shadow server picks the codec from its own switches (RemoteFX
  // over GFX, then progressive, then planar), whatever the client advertises:
  // turning the lossy two off on the server leaves planar.
  const shadow = await lab.shadowServer({ display, auth: 'tls', gfx: true, extraArgs: ['-gfx-progressive', '-gfx-rfx'] });
  t.after(() => shadow.stop());
  const { image, problems } = await projectAndCapture(shadow, 'codecs=planar', equalsReference, 'shadow-tls-gfx-planar');
  assert.deepEqual(problems, []);
  assert.equal(describeDifference(compareImages(reference, image)), 'images are equal');
});

test('shadow NLA, GFX progressive: PSNR ≥ 40 dB', async (t) => {
  const { lab, display } = await sharedLab();
  const shadow = await lab.shadowServer({ display, auth: 'nla', gfx: true });
  t.after(() => shadow.stop());
  const { image, problems } = await projectAndCapture(shadow, 'codecs=progressive', (i) => psnr(reference, i) >= 40, 'shadow-nla-gfx-progressive');
  assert.deepEqual(problems, []);
  const db = psnr(reference, image);
  console.log(`# shadow NLA GFX progressive: PSNR ${db.toFixed(2)} dB`);
  assert.ok(db >= 40, `PSNR ${db.toFixed(2)} dB`);
});

test('shadow TLS without GFX (RemoteFX surface bits): PSNR ≥ 40 dB', async (t) => {
  const { lab, display } = await sharedLab();
  const shadow = await lab.shadowServer({ display, auth: 'tls', gfx: false });
  t.after(() => shadow.stop());
  const { image, problems } = await projectAndCapture(shadow, undefined, (i) => psnr(reference, i) >= 40, 'shadow-tls-remotefx');
  assert.deepEqual(problems, []);
  const db = psnr(reference, image);
  console.log(`# shadow TLS RemoteFX: PSNR ${db.toFixed(2)} dB`);
  assert.ok(db >= 40, `PSNR ${db.toFixed(2)} dB`);
});

test('xrdp (xorgxrdp, TLS, bitmap updates): exact', async () => {
  const { lab } = await sharedLab();
  const xrdp = await lab.xrdp({ scene: 'reference', width: 1920, height: 1080 });
  const { image, problems } = await projectAndCapture(xrdp, undefined, equalsReference, 'xrdp');
  assert.deepEqual(problems, []);
  assert.equal(describeDifference(compareImages(reference, image)), 'images are equal');
});
