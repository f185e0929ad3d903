import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PageBackoff, PAGE_WELCOME_TIMEOUT_MS } from './pageBackoff.js';

interface BackoffLike { nextDelayMs(): number; reset(): void }
type BackoffClass = new (baseMs?: number, capMs?: number, random?: () => number) => BackoffLike;

const PAGE_BACKOFF = new URL('../../web/dist/src/session/backoff.js', import.meta.url);
const PAGE_CONTROL_CHANNEL = new URL('../../web/src/session/controlChannel.ts', import.meta.url);

/** A fixed sequence of "random" draws, the same for both implementations. */
function draws(): () => number {
  const values = [0, 1, 0.5, 0.25, 0.75, 0.1, 0.9, 0.33, 0.66, 0.01, 0.99, 0.5, 0.2];
  let next = 0;
  return () => values[next++ % values.length] ?? 0;
}

function sequence(backoff: BackoffLike): number[] {
  const delays = Array.from({ length: 8 }, () => backoff.nextDelayMs());
  backoff.reset();
  delays.push(...Array.from({ length: 4 }, () => backoff.nextDelayMs()));
  return delays;
}

void test('the simulated display waits exactly as the page does between attempts (defaults, cap, reset)', async () => {
  assert.ok(existsSync(fileURLToPath(PAGE_BACKOFF)), 'build the page first (npx tsc -b): the mirror is checked against web/dist/src/session/backoff.js');
  const page = (await import(PAGE_BACKOFF.href)) as { Backoff: BackoffClass };
  const expected = sequence(new page.Backoff(undefined, undefined, draws()));
  assert.deepEqual(sequence(new PageBackoff(undefined, undefined, draws())), expected);
  // first attempt between 0.5 and 1 s, the cap reached by the sixth
  assert.equal(expected[0], 500);
  assert.equal(expected[1], 2000);
  assert.ok(expected.slice(0, 8).every((delay) => delay <= 30_000));
});

void test('the welcome deadline is the page\'s', () => {
  const source = readFileSync(fileURLToPath(PAGE_CONTROL_CHANNEL), 'utf8');
  const match = /welcomeTimeoutMs \?\? ([\d_]+)/.exec(source);
  assert.ok(match?.[1], 'the page\'s welcome deadline is found in web/src/session/controlChannel.ts');
  assert.equal(Number(match[1].replace(/_/g, '')), PAGE_WELCOME_TIMEOUT_MS);
});
