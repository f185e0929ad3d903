// A kiosk projecting a live server through the recording proxy (testkit's
// recordingTlsProxy: TLS security only), so the stream the kiosk decoded can be
// replayed into the native twin and the two pictures compared: the same input
// for both, which two live sessions of an H.264 encoder never are.
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeRecording, type RdpEndpoint, type RgbImage } from '@lanterna/lab';
import { startRecordingTlsProxy } from '@lanterna/testkit';
import { startKioskRig, waitForPicture, type ProjectedTarget } from './kioskRig.js';
import { keepImage } from './keepScreenshot.js';
import { nativeReplay, type TwinReplay } from './nativeTwin.js';

export interface RecordedProjection {
  /** The kiosk's picture once the proxy held the server's stream and the page had drawn all it got. */
  readonly image: RgbImage;
  readonly problems: readonly string[];
  /** What the native twin drew from the same PDUs. */
  readonly twin: TwinReplay;
  readonly serverPdus: number;
}

const FINAL_DEADLINE_MS = 30_000;

/**
 * Projects `server` (with its process, paused for captures) until `accept`
 * takes a picture, then holds the server's stream at the proxy, takes the
 * page's picture again until two captures in a row are equal (everything
 * received is drawn), and replays the recording into the native twin.
 */
export async function projectRecorded(
  server: RdpEndpoint & { readonly child: NonNullable<ProjectedTarget['child']> },
  options: { query?: string; accept: (image: RgbImage) => boolean; name: string; deadlineMs: number },
): Promise<RecordedProjection> {
  const proxy = await startRecordingTlsProxy(server);
  const dir = await mkdtemp(join(tmpdir(), 'lt-recorded-'));
  try {
    const target: ProjectedTarget = { host: proxy.host, port: proxy.port, username: server.username, password: server.password, child: server.child };
    const rig = await startKioskRig({ target, ...(options.query !== undefined ? { query: options.query } : {}) });
    let image: RgbImage;
    let problems: string[];
    try {
      await waitForPicture(rig, options.accept, options.deadlineMs);
      proxy.hold();
      let previous: RgbImage | null = null;
      image = await waitForPicture(rig, (i) => {
        const same = previous !== null && Buffer.compare(previous.data, i.data) === 0;
        previous = i;
        return same;
      }, FINAL_DEADLINE_MS);
      problems = [...rig.kiosk.problems];
    } finally {
      await rig.close();
    }
    if (proxy.failure !== undefined) throw new Error(`the recording proxy failed: ${proxy.failure}`);
    const records = proxy.records();
    const serverPdus = records.filter((r) => r.direction === 'server-to-client').length;
    if (serverPdus === 0) throw new Error('the recording proxy passed no server pdu');
    const path = join(dir, `${options.name}.dump`);
    await writeFile(path, encodeRecording(records));
    await keepRecording(path, options.name);
    const twin = await nativeReplay(path);
    await keepImage(image, options.name);
    await keepImage(twin.picture, `${options.name}-twin`);
    return { image, problems, twin, serverPdus };
  } finally {
    await proxy.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** With LANTERNA_E2E_SCREENSHOTS=<dir>, the recording is kept beside the pictures (to replay it again by hand). */
async function keepRecording(path: string, name: string): Promise<void> {
  const dir = process.env.LANTERNA_E2E_SCREENSHOTS;
  if (dir === undefined || dir === '') return;
  await mkdir(dir, { recursive: true });
  await copyFile(path, join(dir, `${name}.dump`));
}
