// A rig that a test file's tests share: started by the first test that asks
// for it (so a file whose tests are all filtered out starts nothing) and
// closed once, after the file's last test, only if it was started.
import { test } from 'node:test';

export function sharedRig<T>(start: () => Promise<T>, close: (rig: T) => Promise<void>): () => Promise<T> {
  let started: Promise<T> | null = null;
  test.after(async () => {
    if (started) await close(await started);
  });
  return () => (started ??= start());
}
