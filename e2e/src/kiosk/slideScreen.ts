// A screen of the test's own for a presenter to share: a lab display (Xvfb)
// showing the slide, with a headful browser started on it. Both end after
// the test's part, whatever happens.
import { Lab, type LabDisplay } from '@lanterna/lab';

export async function onSlideScreen<B extends { close(): Promise<void> }>(
  labName: string,
  size: { width: number; height: number },
  launch: (env: Readonly<Record<string, string>>) => Promise<B>,
  use: (screen: LabDisplay, browser: B) => Promise<void>,
): Promise<void> {
  const lab = await Lab.create({ name: labName });
  let browser: B | undefined;
  try {
    const screen = await lab.display(size);
    await screen.showScene('slide');
    browser = await launch(screen.env);
    await use(screen, browser);
  } finally {
    await browser?.close();
    await lab.close();
  }
}
