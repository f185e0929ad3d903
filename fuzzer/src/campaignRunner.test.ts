import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCampaign } from './campaignRunner.js';
import { readCorpus } from './corpusStore.js';

const testTargets = new URL('./testTargets/', import.meta.url).href;

function scratch(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-fuzzer-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

void test('coverage leads the campaign to a bug that outcome labels alone do not show, and new inputs are saved', async (t) => {
  const dir = scratch(t);
  const corpusDir = join(dir, 'corpus');
  const spec = { name: 'nested-branches', module: `${testTargets}nestedBranchesTarget.js`, corpusDir, instrument: [testTargets] };
  const options = { executions: 400_000, seed: 11, saveCorpus: true, deadlineMs: 5000, crashDir: join(dir, 'crashes') };
  const report = await runCampaign(spec, { ...options, coverage: true });
  assert.equal(report.distinctCrashes.length, 1, `no crash in ${report.executions} executions (${report.probesHit}/${report.probes} probes)`);
  assert.equal(report.distinctCrashes[0]?.key, 'RangeError: reached the planted bug');
  assert.ok(report.probes > 0 && report.probesHit >= 4);
  assert.ok(readCorpus(corpusDir).length >= 3, 'the inputs that opened each branch were not saved');
  const [crashFile] = readdirSync(join(dir, 'crashes', 'nested-branches')).filter((name) => name.endsWith('.bin'));
  assert.deepEqual([...readFileSync(join(dir, 'crashes', 'nested-branches', crashFile ?? '')).subarray(0, 4)], [0x4c, 0x61, 0x6e, 0x74]);

  const blind = await runCampaign({ ...spec, corpusDir: join(dir, 'blind') }, { ...options, executions: 50_000, saveCorpus: false, coverage: false });
  assert.equal(blind.distinctCrashes.length, 0, 'the bug is found without coverage too: the test target proves nothing');
  assert.equal(blind.probes, 0);
});

void test('an input that runs past the deadline is a hang: kept, counted, and the campaign goes on after it', async (t) => {
  const dir = scratch(t);
  const corpusDir = join(dir, 'corpus');
  const spec = { name: 'hanging', module: `${testTargets}hangingTarget.js`, corpusDir, instrument: [] };
  mkdirSync(corpusDir);
  writeFileSync(join(corpusDir, 'seed-short'), 'ab');
  writeFileSync(join(corpusDir, 'seed-hang'), 'HANG');
  const report = await runCampaign(spec, { executions: 2000, seed: 1, coverage: false, saveCorpus: false, deadlineMs: 300, crashDir: join(dir, 'crashes') });
  assert.ok(report.distinctCrashes.some((crash) => crash.kind === 'hang'), 'no hang reported');
  assert.ok(report.crashes >= 1);
  assert.ok(report.executions >= 2000, `the campaign stopped at ${report.executions}`);
  const hang = report.distinctCrashes.find((crash) => crash.kind === 'hang');
  assert.equal(readFileSync(hang?.file ?? '', 'latin1').slice(0, 4), 'HANG');
});
