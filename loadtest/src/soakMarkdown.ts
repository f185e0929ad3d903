// The soak section of the report: the verdicts, the figures they rest on,
// p99 per block of minutes, and every minute's sample.
import type { SoakResult } from './soakRun.js';
import type { GatewaySample } from './gatewaySampler.js';
import { table } from './markdownTable.js';

const yes = (value: boolean): string => (value ? 'yes' : '**no**');
const mb = (bytes: number | undefined): string => (bytes === undefined ? '–' : (bytes / 1024 / 1024).toFixed(1));
/** What neither V8's heap nor its tracked external memory explains: code, stacks, OpenSSL's and other native allocations. */
const nativeMb = (sample: GatewaySample): string =>
  sample.heapTotalBytes === undefined || sample.externalBytes === undefined ? '–' : mb(sample.rssBytes - sample.heapTotalBytes - sample.externalBytes);

export function soakMarkdown(soak: SoakResult): string {
  const out: string[] = [];
  out.push(`## Soak: ${soak.sessions} displays for ${soak.durationMinutes} minutes`);
  out.push('');
  out.push(`Traffic mix (displays take these in turn): ${soak.mix.map((shape) => `${shape.name} (${shape.burst > 1 ? `${shape.burst} × ` : ''}${shape.upBytes} B up / ${shape.downBytes} B down every ${shape.intervalMs} ms)`).join(', ')}. Churn: ${soak.churnPercentPerMinute} % of the pages close and reopen each minute. ${soak.workers} gateway worker(s). Load average ${soak.loadAverage.start} → ${soak.loadAverage.end}.${soak.error === undefined ? '' : ` **Error: ${soak.error}**`}`);
  out.push('');
  const figures = soak.figures;
  if (figures) {
    out.push(table(['check', 'result', 'figures'], [
      [`RSS growth after the ${figures.warmupMinutes}-minute warm-up < 5 %`, yes(figures.verdict.rssGrowthUnder5Percent), `${figures.rss.startMb} MB at start, ${figures.rss.warmMb} MB after warm-up, ${figures.rss.endMb} MB at the end (${figures.rss.growthPercent} %), at most ${figures.rss.maxAfterWarmMb} MB; heap used ${figures.heapUsed.warmMb ?? '–'} → ${figures.heapUsed.endMb ?? '–'} MB`],
      ['no file-descriptor growth', yes(figures.verdict.noFdGrowth), `${figures.fds.start} at start, ${figures.fds.warm} after warm-up, ${figures.fds.end} at the end (${figures.fds.growth >= 0 ? '+' : ''}${figures.fds.growth}), at most ${figures.fds.maxAfterWarm}`],
      ['no timer growth (every timer, unref\'d too)', yes(figures.verdict.noTimerGrowth), `${figures.timers.start} at start, ${figures.timers.warm} after warm-up, ${figures.timers.end} at the end, at most ${figures.timers.maxAfterWarm}`],
      ['p99 flat (first vs last block, within 25 % or 5 ms)', yes(figures.verdict.p99Flat), `${figures.p99.firstBlockMs} ms → ${figures.p99.lastBlockMs} ms (${figures.p99.changePercent >= 0 ? '+' : ''}${figures.p99.changePercent} %)`],
      ['no session lost (churn aside)', yes(figures.verdict.noFailures), `${figures.failures} sessions broke, ${figures.losses} losses in all; ${figures.churned} pages closed and reopened`],
    ]));
    out.push('');
    out.push(`Active resources after warm-up: ${JSON.stringify(figures.resourcesWarm)}; at the end: ${JSON.stringify(figures.resourcesEnd)}.`);
    out.push('');
  }
  const shapes = soak.mix.map((shape) => shape.name);
  out.push(table(['minutes', 'p50 ms', 'p99 ms', 'max ms', ...shapes.map((shape) => `${shape} p99 ms`), 'responses', 'losses', 'load avg'],
    soak.blocks.map((block) => [`${block.fromMinute}–${block.toMinute}`, block.latency.p50Ms, block.latency.p99Ms, block.latency.maxMs,
      ...shapes.map((shape) => block.byShape[shape]?.p99Ms ?? '–'), block.latency.count, block.losses, block.loadAverage])));
  out.push('');
  out.push('<details><summary>every minute</summary>');
  out.push('');
  out.push(table(['minute', 'RSS MB', 'heap used MB', 'heap committed MB', 'new / old space MB', 'external MB', 'rest of RSS MB', 'fds', 'timers', 'TCP sockets', 'sessions', 'displays online', 'relaying', 'p99 ms', 'max ms', 'failures', 'losses', 'churned', 'fleet CPU', 'load avg'],
    soak.minutes.map((minute) => [minute.minute, mb(minute.gateway.rssBytes), mb(minute.gateway.heapUsedBytes), mb(minute.gateway.heapTotalBytes),
      `${mb(minute.gateway.heapSpaceTotalBytes.new)} / ${mb(minute.gateway.heapSpaceTotalBytes.old)}`, mb(minute.gateway.externalBytes), nativeMb(minute.gateway), minute.gateway.openFds, minute.gateway.timers ?? minute.gateway.resources.Timeout ?? 0,
      minute.gateway.resources.TCPSocketWrap ?? 0, minute.gateway.sessionsActive ?? '–', minute.gateway.displaysOnline ?? '–', minute.relaying,
      minute.latency.p99Ms, minute.latency.maxMs, minute.failures, minute.losses, minute.churned, minute.fleetCpuCores, minute.loadAverage])));
  out.push('');
  out.push('</details>');
  return out.join('\n');
}
