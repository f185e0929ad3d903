// Waits for the kiosk page to say something (idle screen or session screen), with a deadline.
import type { Page } from 'playwright-core';

/** The visible text of the page's status, problem and session lines. */
export async function pageWords(page: Page): Promise<string> {
  return page.evaluate(() => ['status-text', 'problem', 'session-title', 'session-problem']
    .map((id) => document.getElementById(id))
    .filter((element): element is HTMLElement => element !== null && !element.hidden && element.closest('[hidden]') === null)
    .map((element) => element.textContent)
    .join(' | '));
}

export async function waitForWords(page: Page, pattern: RegExp, deadlineMs: number): Promise<string> {
  const end = Date.now() + deadlineMs;
  let words = '';
  while (Date.now() < end) {
    words = await pageWords(page);
    if (pattern.test(words)) return words;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the page never said ${String(pattern)} within ${deadlineMs} ms; last: ${words}`);
}
