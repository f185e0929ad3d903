// The laser pointer over the presenter's preview (issue 30): a browser cannot
// move its own computer's pointer, so where a finger touches this
// presenter's picture at the display is drawn here, over "What you share",
// as a red dot and trail. The points come from the gateway's long-poll
// (GET …/projection/laser), asked again at most every PACE_MS so the page
// stays well inside the presenter API's request budget.
import type { LaserPoints } from '@lanterna/protocol';
import { LaserTrail } from '../../laser/laserTrail.js';
import type { ApiResult } from './presenterClient.js';

const PACE_MS = 300;
const WAIT_MS = 20_000;
/** After a failed ask (the gateway unreachable): wait this long before the next. */
const RETRY_MS = 2000;

export class LaserView {
  private readonly trail: LaserTrail;
  /** Each start() follows under a new generation; stop() ends the current one. */
  private generation = 0;
  private running = false;

  constructor(private readonly video: HTMLVideoElement, frame: HTMLElement) {
    this.trail = new LaserTrail(frame, 'laser-trail');
  }

  /** Follows the projection's laser until stop(). */
  start(ask: (after: number, waitMs: number) => Promise<ApiResult<LaserPoints>>): void {
    if (this.running) return;
    this.running = true;
    this.generation += 1;
    void this.follow(ask, this.generation);
  }

  stop(): void {
    this.running = false;
    this.generation += 1;
    this.trail.clear();
  }

  private async follow(ask: (after: number, waitMs: number) => Promise<ApiResult<LaserPoints>>, generation: number): Promise<void> {
    let after = 0;
    let first = true;
    const current = (): boolean => this.generation === generation;
    while (current()) {
      const started = performance.now();
      // the first ask only learns where the sequence stands: old points are not replayed
      const answer = await ask(after, first ? 0 : WAIT_MS);
      if (!current()) return;
      if (!answer.ok) {
        if (answer.refusal.code === 'no-projection' || answer.refusal.code === 'stop-token-wrong') return;
        await pause(RETRY_MS);
        continue;
      }
      if (!first) for (const point of answer.value.points) this.show(point.x, point.y, point.down);
      first = false;
      after = answer.value.seq;
      await pause(Math.max(0, PACE_MS - (performance.now() - started)));
    }
  }

  /** A point as fractions of the shared picture, on the preview (object-fit: contain) in CSS pixels of its box. */
  private show(x: number, y: number, down: boolean): void {
    const box = this.video.getBoundingClientRect();
    const width = this.video.videoWidth || box.width;
    const height = this.video.videoHeight || box.height;
    const scale = Math.min(box.width / width, box.height / height);
    const left = (box.width - width * scale) / 2;
    const top = (box.height - height * scale) / 2;
    this.trail.add(left + x * width * scale, top + y * height * scale, down);
    // Instrumentation hook: tests see the points the presenter page drew.
    window.dispatchEvent(new CustomEvent('lanterna:laser-shown', { detail: { x, y, down } }));
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
