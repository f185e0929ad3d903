// The command line of a package's fuzz campaign: which targets, how many
// executions (or seconds) each, the seed; runs them one after another and
// prints the figures, then a Markdown table of them. Exit status 1 when
// anything crashed or hung.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { runCampaign, type CampaignReport } from './campaignRunner.js';
import type { CampaignTargetSpec, FuzzTarget } from './fuzzTarget.js';

export const CAMPAIGN_USAGE = `options:
  --executions N     inputs per target (default 1000000)
  --seconds S        or stop each target after S seconds
  --target NAME      only this target (repeatable)
  --seed N           replay a campaign (default: from the clock)
  --save-corpus      save new inputs (new coverage or a new outcome), trimmed, to the corpus
  --no-coverage      no coverage probes: outcome labels alone steer the search
  --deadline-ms MS   an input running longer is a hang (default 1000)
  --uncovered        list the blocks of the modules under test that no input reached
  --json             one JSON line per target instead of text
  --replay FILE      run one input (a crash, a corpus entry) of the one --target in process and print what it does`;

function positive(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value.replace(/_/g, ''));
  if (!Number.isFinite(number) || number <= 0) throw new RangeError(`--${name} must be a positive number, got ${value}`);
  return number;
}

function thousands(value: number): string {
  return Math.round(value).toLocaleString('en-US').replace(/,/g, ' ');
}

function duration(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes} min ${Math.round(seconds % 60)} s` : `${seconds.toFixed(1)} s`;
}

export function reportTable(reports: readonly CampaignReport[]): string {
  const lines = [
    '| target | executions | exec/s | crashes | corpus (files, bytes) | probes hit | outcomes | slowest input | time |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...reports.map((r) =>
      `| ${r.target} | ${thousands(r.executions)} | ${thousands(r.executionsPerSecond)} | ${r.crashes} | ${r.corpusFiles}, ${thousands(r.corpusBytes)} B | ${r.probes > 0 ? `${r.probesHit} / ${r.probes}` : 'off'} | ${r.outcomes} | ${r.slowestMs.toFixed(1)} ms | ${duration(r.seconds)} |`),
  ];
  return lines.join('\n');
}

async function replay(spec: CampaignTargetSpec, file: string): Promise<number> {
  const { fuzzTarget } = (await import(spec.module)) as { fuzzTarget: FuzzTarget };
  try {
    console.log(`${spec.name}: ${fuzzTarget.execute(new Uint8Array(readFileSync(file)))}`);
    return 0;
  } catch (error) {
    console.error(error);
    return 1;
  }
}

/** Parses `argv` (without node and script), runs the chosen targets in turn; returns the process exit status. */
export async function runCampaignCli(specs: readonly CampaignTargetSpec[], argv: readonly string[], crashDir: string): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        executions: { type: 'string' },
        seconds: { type: 'string' },
        target: { type: 'string', multiple: true },
        seed: { type: 'string' },
        'save-corpus': { type: 'boolean', default: false },
        'no-coverage': { type: 'boolean', default: false },
        'deadline-ms': { type: 'string' },
        uncovered: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        replay: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n${CAMPAIGN_USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(`targets: ${specs.map((spec) => spec.name).join(', ')}\n${CAMPAIGN_USAGE}`);
    return 0;
  }
  const names = values.target ?? specs.map((spec) => spec.name);
  const unknown = names.filter((name) => !specs.some((spec) => spec.name === name));
  if (unknown.length > 0) {
    console.error(`unknown target ${unknown.join(', ')}; targets: ${specs.map((spec) => spec.name).join(', ')}`);
    return 2;
  }
  if (values.replay !== undefined) {
    const [spec] = specs.filter((candidate) => names.includes(candidate.name));
    if (names.length !== 1 || spec === undefined) {
      console.error('--replay needs exactly one --target');
      return 2;
    }
    return replay(spec, values.replay);
  }
  const seconds = values.seconds === undefined ? undefined : positive(values.seconds, 'seconds', 60);
  const executions = positive(values.executions, 'executions', seconds === undefined ? 1_000_000 : Number.MAX_SAFE_INTEGER);
  const seed = values.seed === undefined ? Date.now() | 0 : Number(values.seed) | 0;
  const reports: CampaignReport[] = [];
  for (const spec of specs.filter((candidate) => names.includes(candidate.name))) {
    const report = await runCampaign(spec, {
      executions,
      ...(seconds === undefined ? {} : { timeLimitMs: seconds * 1000 }),
      seed,
      coverage: !values['no-coverage'],
      saveCorpus: values['save-corpus'],
      deadlineMs: positive(values['deadline-ms'], 'deadline-ms', 1000),
      crashDir,
      log: values.json ? undefined : (line) => console.log(line),
    });
    reports.push(report);
    if (values.json) {
      console.log(JSON.stringify(report));
    } else {
      console.log(`${report.target}: ${thousands(report.executions)} executions in ${duration(report.seconds)} (${thousands(report.executionsPerSecond)}/s), ${report.crashes} crashes, ${report.saved} inputs saved, seed ${seed}`);
      console.log(`  checks: ${report.checks}`);
      for (const crash of report.distinctCrashes) console.log(`  ${crash.kind}: ${crash.key} → ${crash.file}`);
      if (values.uncovered) console.log(`  not reached: ${report.uncovered.join(', ') || 'nothing'}`);
    }
  }
  if (!values.json) console.log(`\n${reportTable(reports)}`);
  return reports.some((report) => report.crashes > 0) ? 1 : 0;
}
