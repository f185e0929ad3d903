import type { RgbImage } from '../image/rgbImage.js';
import { planScene } from '../scenes/sceneCatalogue.js';
import type { SceneName } from '../scenes/scenePlan.js';
import { runScenePlan, type RunningScene, type SceneRunnerContext } from '../scenes/sceneRunner.js';
import { withTimestampStrip } from '../stripPainter/timestampStripStep.js';
import { captureScreen } from './screenshot.js';

/** An X display the lab runs, with the scene currently shown on it. */
export interface LabDisplay {
  /** ':N' */
  readonly name: string;
  readonly width: number;
  readonly height: number;
  /** DISPLAY (and XAUTHORITY where needed) for programs that should use it. */
  readonly env: Readonly<Record<string, string>>;
  /** The whole screen, RGBA 8-bit (see RgbImage). */
  screenshot(): Promise<RgbImage>;
  /** Stops the current scene and shows another; resolves once it is on screen. */
  showScene(scene: SceneName, options?: SceneOptions): Promise<void>;
}

export interface SceneOptions {
  /**
   * Paint the timestamp strip (@lanterna/protocol) over the scene's top-left
   * corner, every frame, for glass-to-glass latency. Off by default, so the
   * still scenes stay pixel-exact for the pixel-truth tests.
   */
  readonly timestampStrip?: boolean;
}

export class XDisplay implements LabDisplay {
  private current: RunningScene | undefined;

  constructor(
    readonly name: string,
    readonly width: number,
    readonly height: number,
    readonly env: Readonly<Record<string, string>>,
    private readonly sceneDir: string,
    private readonly logPathFor: SceneRunnerContext['logPathFor'],
  ) {}

  screenshot(): Promise<RgbImage> {
    return captureScreen(this.name, { ...this.env });
  }

  async showScene(scene: SceneName, options: SceneOptions = {}): Promise<void> {
    await this.stopScene();
    const target = { display: this.name, width: this.width, height: this.height, workDir: this.sceneDir };
    const plan = options.timestampStrip === true ? withTimestampStrip(planScene(scene, target), target) : planScene(scene, target);
    this.current = await runScenePlan(plan, { env: { ...this.env }, logPathFor: this.logPathFor });
  }

  async stopScene(): Promise<void> {
    const current = this.current;
    this.current = undefined;
    await current?.stop();
  }
}
