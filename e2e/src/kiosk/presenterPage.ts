// Driving the presenter page (/present) the way a person does: the sign-in
// form, and the outcome line it answers in.
import type { Page } from 'playwright-core';

/** Unfolds "Other ways" (an RDP server on the presenter's computer, or an invitation) beneath "Share my screen". */
export async function openOtherWays(page: Page): Promise<void> {
  if (await page.locator('#other-ways').evaluate((details) => (details as HTMLDetailsElement).open)) return;
  await page.click('#other-ways > summary');
}

export async function fillAddress(page: Page, endpoint: string, username: string, password: string, pin: string): Promise<void> {
  await openOtherWays(page);
  await page.check('input[name="kind"][value="address"]');
  await page.fill('#endpoint', endpoint);
  await page.fill('#username', username);
  await page.fill('#password', password);
  await page.fill('#pin', pin);
}

/** Waits until the page's outcome line matches, and returns it. */
export async function outcome(page: Page, pattern: RegExp, deadlineMs = 20_000): Promise<string> {
  const end = Date.now() + deadlineMs;
  let last = '';
  while (Date.now() < end) {
    last = (await page.locator('#outcome').textContent()) ?? '';
    if (pattern.test(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the presenter page never said ${String(pattern)} within ${deadlineMs} ms; last: ${last}`);
}
