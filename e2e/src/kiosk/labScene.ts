// The start most kiosk tests share: a lab of the test's own (closed after the
// test), one X display of the size asked showing one of the lab's scenes.
import type { TestContext } from 'node:test';
import { Lab, type DisplayOptions, type LabDisplay, type SceneName, type SceneOptions } from '@lanterna/lab';

export interface LabScene {
  readonly lab: Lab;
  readonly display: LabDisplay;
}

export async function labScene(t: TestContext, name: string, size: DisplayOptions, scene: SceneName, options?: SceneOptions): Promise<LabScene> {
  const lab = await Lab.create({ name });
  t.after(() => lab.close());
  const display = await lab.display(size);
  await display.showScene(scene, options);
  return { lab, display };
}
