// Reads the kiosk page's HUD (?hud=1): the figures people see, by their keys.
import type { Page } from 'playwright-core';

export type HudFigures = Record<string, string>;

export async function readHud(page: Page): Promise<HudFigures> {
  return page.evaluate(() => {
    const figures: Record<string, string> = {};
    for (const element of document.querySelectorAll<HTMLElement>('[data-hud]')) {
      figures[element.dataset.hud ?? ''] = element.textContent;
    }
    return figures;
  });
}
