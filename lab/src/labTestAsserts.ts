// Assertions the lab's own tests share (not exported by the package): a
// component start that fails fast and says why, and a lab of the test's own
// whose processes all end when it closes.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { Lab } from './lab.js';
import { ComponentStartError } from './process/componentStartError.js';
import { isAlive } from './process/procTable.js';

/** `start()` must fail with a ComponentStartError whose message matches every pattern, within `withinMs`; the error, for more checks. */
export async function assertStartFails(start: () => Promise<unknown>, withinMs: number, patterns: readonly RegExp[]): Promise<ComponentStartError> {
  const started = Date.now();
  const failure = await start().then(() => assert.fail('the start succeeded'), (error: unknown) => error);
  assert.ok(failure instanceof ComponentStartError, `not a ComponentStartError: ${String(failure)}`);
  for (const pattern of patterns) assert.match(failure.message, pattern);
  assert.ok(Date.now() - started < withinMs, `failed only after ${Date.now() - started} ms`);
  return failure;
}

/**
 * Runs `use` on a lab of its own named `name`, closes the lab, and checks that
 * every pid `use` returned ended with it, that the lab sees none left and
 * that its directory is gone.
 */
export async function assertOwnLabEndsAll(name: string, use: (own: Lab) => Promise<number[]>): Promise<void> {
  const own = await Lab.create({ name });
  let pids: number[] = [];
  try {
    pids = await use(own);
  } finally {
    await own.close();
  }
  for (const pid of pids) assert.equal(isAlive(pid), false, `pid ${pid} outlived its lab`);
  assert.deepEqual(own.livePids(), []);
  assert.equal(existsSync(own.dir), false);
}
