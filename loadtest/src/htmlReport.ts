// The HTML report: the Markdown tables' content with SVG plots generated here
// (response time vs connections, capacity vs packet size and frequency, farm scaling).
import type { RunReport } from './runReport.js';
import { lineChartSvg, escapeXml, type ChartSeries } from './svgLineChart.js';
import { markdownReport } from './markdownReport.js';

function capacitySeries(report: RunReport, scenario: string): ChartSeries[] {
  const cases = report.capacity.filter((result) => result.case.scenario === scenario && result.case.variable && result.error === undefined);
  if (cases.length === 0) return [];
  return [
    { name: 'p99 < budget', points: cases.map((result) => [result.case.variable?.value ?? 0, result.capacity.byP99] as const) },
    { name: 'mean < budget', points: cases.map((result) => [result.case.variable?.value ?? 0, result.capacity.byMean] as const) },
  ];
}

export function htmlReport(report: RunReport): string {
  const charts: string[] = [];
  const byScenario = new Map<string, RunReport['capacity']>();
  for (const result of report.capacity) byScenario.set(result.case.scenario, [...(byScenario.get(result.case.scenario) ?? []), result]);
  for (const [scenario, results] of byScenario) {
    const series: ChartSeries[] = results.flatMap((result) => [
      { name: `${result.case.id.replace(`${scenario}/`, '')} p99`, points: result.steps.map((step) => [step.connections, step.latency.p99Ms] as const) },
      { name: `${result.case.id.replace(`${scenario}/`, '')} mean`, points: result.steps.map((step) => [step.connections, step.latency.meanMs] as const) },
    ]);
    charts.push(lineChartSvg({ title: `${scenario}: response time vs connections`, xLabel: 'connections', yLabel: 'response time (ms)', series,
      horizontalLine: { value: report.budgetMs, label: `${report.budgetMs} ms budget` }, width: 760 }));
  }
  const sweeps: [string, string, boolean][] = [['packet-size', 'packet size (bytes)', true], ['frequency', 'interval (ms)', true], ['processors', 'gateway workers', false], ['farm', 'gateway instances', false]];
  for (const [scenario, xLabel, logX] of sweeps) {
    const series = capacitySeries(report, scenario);
    if (series.length > 0) charts.push(lineChartSvg({ title: `capacity vs ${xLabel}`, xLabel, yLabel: 'connections', series, logX }));
  }
  if (report.longFatNetwork.length > 0) {
    const paths = [...new Set(report.longFatNetwork.map((row) => row.path))];
    const series: ChartSeries[] = paths.map((path) => ({ name: path, points: report.longFatNetwork.filter((row) => row.path === path && row.error === undefined).map((row) => [row.bufferBytes / 1024, row.megabytesPerSecond] as const) }));
    series.push({ name: 'buffer / RTT', points: report.longFatNetwork.filter((row) => row.path === 'raw-tls').map((row) => [row.bufferBytes / 1024, row.windowLimitMegabytesPerSecond] as const) });
    charts.push(lineChartSvg({ title: 'throughput at 250 ms RTT vs socket buffer', xLabel: 'tcp_rmem/wmem max (KiB)', yLabel: 'MB/s', series, logX: true }));
  }
  for (const soak of report.soak) {
    const minutes = soak.minutes;
    charts.push(lineChartSvg({ title: `soak: gateway memory and descriptors over ${soak.durationMinutes} minutes`, xLabel: 'minute', yLabel: 'MB / count', series: [
      { name: 'RSS MB', points: minutes.map((minute) => [minute.minute, minute.gateway.rssBytes / 2 ** 20] as const) },
      { name: 'open fds', points: minutes.map((minute) => [minute.minute, minute.gateway.openFds] as const) },
      { name: 'active timers', points: minutes.map((minute) => [minute.minute, minute.gateway.timers ?? minute.gateway.resources.Timeout ?? 0] as const) },
    ], width: 760 }));
    charts.push(lineChartSvg({ title: 'soak: round trip per minute', xLabel: 'minute', yLabel: 'ms', series: [
      { name: 'p99', points: minutes.map((minute) => [minute.minute, minute.latency.p99Ms] as const) },
      { name: 'p50', points: minutes.map((minute) => [minute.minute, minute.latency.p50Ms] as const) },
    ], horizontalLine: { value: report.budgetMs, label: `${report.budgetMs} ms budget` }, width: 760 }));
  }
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><title>Lanterna load test</title>',
    '<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}svg{display:block;margin:1em 0;border:1px solid #ddd}pre{white-space:pre-wrap;font-size:12px;background:#f7f7f7;padding:1em}</style>',
    '</head><body>',
    `<h1>Lanterna load test — ${escapeXml(report.startedAt)}</h1>`,
    ...charts,
    '<h2>Tables</h2>',
    `<pre>${escapeXml(markdownReport(report))}</pre>`,
    '</body></html>',
  ].join('\n');
}
