// The product module (wasm/build/, what the page loads) carries no test hook:
// the hooks live only in the test build (wasm/build/test/, testBuild.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { loadLanternaRdp } from '../js/nodeLoader.js';
import { loadTestLanternaRdp } from './testBuild.mjs';

test('the product module exports no test hook; the test build does', async (t) => {
  const product = await loadLanternaRdp({ logLevel: 'OFF' });
  t.after(() => product.close());
  assert.equal(product.module._lt_probe_wait, undefined);
  assert.equal(product.module._lt_coalesce, undefined);
  assert.equal('probeWait' in product, false);
  assert.equal('coalesce' in product, false);
  assert.equal(typeof product.module._lt_session_new, 'function', 'the product module is loaded');

  const testBuild = await loadTestLanternaRdp({ logLevel: 'OFF' });
  t.after(() => testBuild.close());
  assert.equal(typeof testBuild.module._lt_probe_wait, 'function');
  assert.deepEqual(testBuild.coalesce([[0, 0, 4, 4], [4, 0, 4, 4]], 8, 4), [[0, 0, 8, 4]]);
});
