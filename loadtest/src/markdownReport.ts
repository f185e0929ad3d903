// The Markdown report: the whitepaper's tables (by scenario, packet size,
// frequency, processors, farm) with its published figures alongside, then
// throughput, the long-fat-network case, and every step of every ramp.
import type { RunReport } from './runReport.js';
import { deriveFigures } from './runReport.js';
import type { CaseResult, KioskScheme } from './capacityCaseRunner.js';
import { describePattern } from './trafficPattern.js';
import { table } from './markdownTable.js';
import { chaosMarkdown } from './chaosMarkdown.js';
import { soakMarkdown } from './soakMarkdown.js';
import { WHITEPAPER_CAPACITY, WHITEPAPER_FARM_SCALING, WHITEPAPER_TITLE } from './whitepaperFigures.js';


export function capacityLabel(result: CaseResult, which: 'byP99' | 'byMean' = 'byP99'): string {
  if (result.error !== undefined) return 'error';
  const value = result.capacity[which];
  return result.capacity.lowerBoundOnly ? `≥ ${value}` : String(value);
}

function stepAtCapacity(result: CaseResult): CaseResult['steps'][number] | undefined {
  return result.steps.filter((step) => step.connections <= result.capacity.byP99).pop();
}

function fixed(value: number | undefined, digits = 2): string {
  return value === undefined || Number.isNaN(value) ? 'n/a' : value.toFixed(digits);
}

function sweepTable(report: RunReport, scenario: string, label: string): string | undefined {
  const cases = report.capacity.filter((result) => result.case.scenario === scenario);
  if (cases.length === 0) return undefined;
  return table([label, 'capacity (p99 < budget)', 'capacity (mean < budget)', 'gateway CPU at capacity (cores)', 'gateway memory at capacity (MB)', 'note'],
    cases.map((result) => {
      const step = stepAtCapacity(result);
      return [result.case.variable?.value ?? '', capacityLabel(result), capacityLabel(result, 'byMean'), fixed(step?.relayCpuCores), fixed(step?.relayMemoryMb, 0), result.error ?? result.capacity.note ?? ''];
    }));
}

function kioskLegs(schemes: Partial<Record<string, KioskScheme | undefined>>): string {
  return Object.entries(schemes).flatMap(([relay, scheme]) => scheme === undefined ? [] : [`${relay} ${scheme}://`]).join(', ') || 'n/a';
}

export function markdownReport(report: RunReport): string {
  const derived = deriveFigures(report);
  const out: string[] = [];
  const benchmarks = report.capacity.length + report.throughput.length + report.longFatNetwork.length > 0;
  out.push(`# Lanterna gateway ${benchmarks ? 'capacity' : [report.chaos.length > 0 ? 'chaos' : '', report.soak.length > 0 ? 'soak' : ''].filter(Boolean).join(' and ')} (${report.startedAt})`);
  out.push('');
  if (report.capacity.length > 0) {
    out.push(`Method after *${WHITEPAPER_TITLE}*: connections added in steps, each step held, capacity = the largest count whose`);
    out.push(`99th-percentile response time stays under ${report.budgetMs} ms (the mean-based figure, the whitepaper's criterion, beside it).`);
  }
  out.push(`Machine: ${report.machine.cpus} × ${report.machine.cpuModel}, ${report.machine.memoryGiB} GiB, Linux ${report.machine.kernel}, Node ${report.machine.node}, fd limit ${report.machine.fdLimit}.`);
  out.push(`Load average at start/end: ${report.loadAverage.start} / ${report.loadAverage.end} (other work on the machine inflates response times).`);
  out.push(`Command: \`${report.command}\``);
  out.push('');

  const perCoreRows = Object.entries(derived.perCore).map(([scenario, figures]) => {
    const published = WHITEPAPER_CAPACITY[scenario];
    return [scenario, figures.lanterna === undefined ? 'n/a' : `${figures.lowerBound ? '≥ ' : ''}${Math.round(figures.lanterna)}`,
      figures.websockify ?? 'n/a', figures.ratio === undefined ? 'n/a' : `${figures.ratio.toFixed(1)}×`,
      figures.pipe ?? 'n/a', figures.pipeRatio === undefined ? 'n/a' : `${figures.pipeRatio.toFixed(2)}×`,
      figures.pipeGo ?? 'n/a', figures.pipeGoRatio === undefined ? 'n/a' : `${figures.pipeGoRatio.toFixed(2)}×`,
      figures.native === undefined ? 'n/a' : Math.round(figures.native), figures.nativeToPipeGo === undefined ? 'n/a' : `${figures.nativeToPipeGo.toFixed(2)}×`,
      figures.cpuPerRoundTrip ? `${fixed(figures.cpuPerRoundTrip.lanternaUs, 1)} / ${fixed(figures.cpuPerRoundTrip.nativeUs, 1)} / ${fixed(figures.cpuPerRoundTrip.pipeUs, 1)} / ${fixed(figures.cpuPerRoundTrip.pipeGoUs, 1)} µs at ${figures.cpuPerRoundTrip.connections}` : 'n/a',
      kioskLegs(figures.kioskSchemes),
      published ? `${published.connections} on ${published.cores} cores (${Math.round(published.connections / published.cores)}/core)` : 'n/a'];
  });
  if (perCoreRows.length > 0) {
    out.push('## Capacity per core (p99 < budget)');
    out.push('');
    out.push(table(['workload', 'Lanterna per gateway core', 'websockify (one relay core)', 'Lanterna / websockify', 'pipe (minimal Node relay, one core)', 'Lanterna / pipe', 'pipe-go (minimal Go relay, one core)', 'Lanterna / pipe-go', 'Lanterna native per core', 'native / pipe-go', 'relay CPU per round trip, Lanterna / native / pipe / pipe-go', 'kiosk leg', 'RD Gateway (whitepaper)'], perCoreRows));
    out.push('');
  }

  const kw = report.capacity.filter((result) => result.case.scenario === 'kw-v1' || result.case.scenario === 'kw-v2.2');
  if (kw.length > 0) {
    out.push('## Capacity by workload');
    out.push('');
    out.push(table(['case', 'traffic', 'capacity (p99)', 'capacity (mean)', 'relay CPU at capacity', 'relay memory at capacity (MB)', 'whitepaper', 'note'],
      kw.map((result) => {
        const step = stepAtCapacity(result);
        const published = WHITEPAPER_CAPACITY[result.case.scenario];
        return [result.case.id, describePattern(result.case.pattern), capacityLabel(result), capacityLabel(result, 'byMean'), fixed(step?.relayCpuCores), fixed(step?.relayMemoryMb, 0),
          published && result.case.relay === 'lanterna' ? `${published.connections} (${published.cores} cores)` : '', result.error ?? result.capacity.note ?? ''];
      })));
    out.push('');
  }

  const sweeps: [string, string, string][] = [
    ['packet-size', 'Capacity by packet size (100 ms)', 'packet bytes'],
    ['frequency', 'Capacity by frequency (90 B)', 'interval ms'],
    ['processors', 'Capacity by processor count (gateway workers)', 'workers'],
    ['farm', `Capacity by farm size (HAProxy, balance source; whitepaper: +${WHITEPAPER_FARM_SCALING} of one server per added server)`, 'instances'],
  ];
  for (const [scenario, title, label] of sweeps) {
    const rendered = sweepTable(report, scenario, label);
    if (rendered === undefined) continue;
    out.push(`## ${title}`);
    out.push('');
    out.push(rendered);
    out.push('');
  }
  if (derived.processorScaling.length > 1) {
    out.push(`Processor scaling: ${derived.processorScaling.map((row) => `${row.workers} → ${row.speedup.toFixed(2)}×`).join(', ')}.`);
    out.push('');
  }
  if (derived.farmScaling !== undefined) {
    out.push(`Farm scaling: each added instance adds ${derived.farmScaling.toFixed(2)} of one instance's capacity (whitepaper: ${WHITEPAPER_FARM_SCALING}).`);
    out.push('');
  }

  if (report.throughput.length > 0) {
    out.push('## Single-session throughput (loopback)');
    out.push('');
    out.push(table(['path', 'PDU bytes', 'MB/s', 'relay CPU (cores)', 'note'],
      report.throughput.map((row) => [row.path, row.pduBytes, fixed(row.megabytesPerSecond, 1), fixed(row.relayCpuCores), row.error ?? ''])));
    out.push('');
  }
  if (report.longFatNetwork.length > 0) {
    out.push('## Long fat network (250 ms RTT delay line between namespaces)');
    out.push('');
    out.push(table(['RTT ms', 'tcp_rmem/tcp_wmem max', 'path', 'MB/s', 'window limit MB/s (buffer / RTT)', 'note'],
      report.longFatNetwork.map((row) => [row.rttMs, `${Math.round(row.bufferBytes / 1024)} KiB`, row.path, fixed(row.megabytesPerSecond, 2), fixed(row.windowLimitMegabytesPerSecond, 2), row.error ?? ''])));
    out.push('');
  }

  if (report.chaos.length > 0) out.push(chaosMarkdown(report.chaos, report.budgetMs), '');
  for (const soak of report.soak) out.push(soakMarkdown(soak), '');

  if (report.capacity.length > 0) out.push('## Steps');
  for (const result of report.capacity) {
    out.push('');
    out.push(`### ${result.case.id} — ${describePattern(result.case.pattern)}, ${result.case.workers} worker(s), ${result.case.instances} instance(s)`);
    out.push(`CPU layout: relay on ${result.layout.relayCpus}, load side on ${result.layout.loadCpus}${result.layout.shared ? ' (shared)' : ''}; ${result.generator} generator, ${result.echoHost} echo host; ${result.kioskScheme === undefined ? 'no kiosk leg' : `kiosk leg ${result.kioskScheme}://`}; ${result.durationSeconds} s.${result.error === undefined ? '' : ` Error: ${result.error}`}`);
    out.push('');
    out.push(table(['connections', 'established', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'mean ms', 'p99 of each hold', 'responses', 'relay CPU', 'relay CPU µs per round trip', 'generator CPU µs per round trip', 'relay MB', 'balancer CPU', 'echo CPU', 'generator CPU', 'generator lag p99 ms', 'CPU busy per core (machine)', 'flags'],
      result.steps.map((step) => [step.connections, step.established, step.latency.p50Ms, step.latency.p95Ms, step.latency.p99Ms, step.latency.maxMs, step.latency.meanMs, step.holdP99Ms.join(' / '),
        step.received, step.relayCpuCores, fixed(step.relayCpuUsPerRoundTrip, 1), fixed(step.generatorCpuUsPerRoundTrip, 1), step.relayMemoryMb, step.balancerCpuCores ?? '', step.echoCpuCores, step.generatorCpuCores, step.generatorLoopDelayP99Ms, step.cpuUse.map((use) => `${Math.round(use.busy * 100)}% (nice ${Math.round(use.nice * 100)}, softirq ${Math.round(use.softirq * 100)}, steal ${Math.round(use.steal * 100)})`).join(' / '),
        [step.generatorSaturated ? `generator-saturated${step.loadCpusBusy ? ' (load CPUs busy)' : ''}` : '', step.lostSessions > 0 ? `lost ${step.lostSessions}` : '', step.connectFailures > 0 ? `connect failed ${step.connectFailures}` : ''].filter(Boolean).join(', ')])));
  }
  out.push('');
  return out.join('\n');
}
