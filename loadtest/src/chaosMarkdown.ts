// The chaos section of the report: per phase, who was on the victim, how
// fast they came back, and what everyone else saw.
import type { ChaosPhaseResult, StepTimes } from './chaosRun.js';
import { table } from './markdownTable.js';

const yes = (value: boolean): string => (value ? 'yes' : '**no**');
const orDash = (value: number | undefined): string | number => value ?? '–';

export function chaosMarkdown(results: readonly ChaosPhaseResult[], budgetMs: number): string {
  const out: string[] = [];
  out.push('## Chaos: kill -9 under load');
  out.push('');
  out.push('Displays reconnect as the page does (web/src/session: backoff 0.5–1 s, doubling to 30 s, reset on welcome). Reconnect time = from the kill to the first response on a new session. Bystanders = displays with no socket in the victim (read from /proc for a worker, from each instance\'s admin API for an instance, before the kill). Stall = longest gap between two responses of a session, less the request interval.');
  out.push('');
  out.push(table(['phase', 'displays', 'victim', 'on the victim', 'back', 'back ≤ budget', 'reconnect p50 ms', 'p95 ms', 'max ms', 'bystanders', 'bystander errors', 'bystander max stall ms (before the kill)', 'bystander max round trip ms (before)', 'all responses p99 / max ms', 'load avg', 'error'],
    results.map((result) => [
      result.phase, result.sessions, result.victim, result.reconnect.displays, result.reconnect.back, result.reconnect.backWithinBudget,
      orDash(result.reconnect.p50Ms), orDash(result.reconnect.p95Ms), orDash(result.reconnect.maxMs),
      result.bystanders.displays, result.bystanders.errors, `${result.bystanders.maxStallMs} (${result.baseline.maxStallMs})`,
      `${result.bystanders.maxRoundTripMs} (${result.baseline.maxRoundTripMs})`, `${result.windowLatency.p99Ms} / ${result.windowLatency.maxMs}`,
      `${result.loadAverage.start} → ${result.loadAverage.end}`, result.error ?? '',
    ])));
  out.push('');
  out.push(table(['phase', 'every display back in budget', 'bystanders undisturbed (0 errors)', `bystander stall ≤ ${budgetMs} ms`, `bystander stall ≤ before + ${budgetMs} ms`, 'split control/data', 'unplaced', 'noticed nothing', 'youngest session at the kill s', 'worker replaced after s', 'fleet CPU / loop delay p99 / max ms'],
    results.map((result) => [
      result.phase, yes(result.verdict.everyDisplayBackInBudget), yes(result.verdict.bystandersUndisturbed), yes(result.verdict.bystanderStallWithinBudget),
      yes(result.verdict.bystanderStallWithinBaselinePlusBudget), orDash(result.split), result.unplaced, result.reconnect.noticedNothing,
      result.youngestSessionSeconds, orDash(result.replacementSeconds), `${result.fleetCpuCores} / ${result.fleetLoopDelayP99Ms} / ${result.fleetLoopDelayMaxMs}`,
    ])));
  out.push('');
  const probed = results.flatMap((result) => (result.probe ? [{ result, probe: result.probe }] : []));
  if (probed.length > 0) {
    out.push('The probe fleet: a few displays in a process of their own, with an echo host of their own (a presenter\'s computer serves one session), which reconnect only their share of the victims, so their loops stay free and their bystanders\' stall is the gateway\'s share (the other fleets\' figures above include their own loop\'s).');
    out.push('');
    out.push(table(['phase', 'probe displays', 'on the victim', 'back ≤ budget', 'reconnect p50 / p95 / max ms', 'its bystanders', 'errors', 'max stall ms (before the kill)', 'max round trip ms (before)', 'its loop held up max ms', 'its CPU', 'every one back in budget', 'stall within the bystander budget'],
      probed.map(({ result, probe }) => [
          result.phase, probe.displays, probe.reconnect.displays, probe.reconnect.backWithinBudget,
          `${orDash(probe.reconnect.p50Ms)} / ${orDash(probe.reconnect.p95Ms)} / ${orDash(probe.reconnect.maxMs)}`, probe.bystanders.displays, probe.bystanders.errors, `${probe.bystanders.maxStallMs} (${probe.baseline.maxStallMs})`,
          `${probe.bystanders.maxRoundTripMs} (${probe.baseline.maxRoundTripMs})`, probe.loopDelayMaxMs, probe.cpuCores,
          result.verdict.probeBackInBudget === undefined ? '–' : yes(result.verdict.probeBackInBudget),
          result.verdict.probeStallWithinBystanderBudget === undefined ? '–' : yes(result.verdict.probeStallWithinBystanderBudget),
        ])));
    out.push('');
  }
  out.push('Where the victims\' time went (ms from the kill; p50 / p95 over the displays that reached each step):');
  out.push('');
  out.push(table(['phase', 'first loss (displays)', 'control sockets opened p50 / max', 'welcome again', 'projected again', 'relaying again'],
    results.map((result) => {
      const { recovery } = result.reconnect;
      const step = (times: StepTimes): string => `${orDash(times.p50Ms)} / ${orDash(times.p95Ms)} (${times.displays})`;
      return [
        result.phase, Object.entries(recovery.firstLosses).map(([loss, count]) => `${loss}: ${count}`).join('; ') || '–',
        `${orDash(recovery.attemptsP50)} / ${recovery.attemptsMax}`, step(recovery.welcome), step(recovery.project),
        `${orDash(result.reconnect.p50Ms)} / ${orDash(result.reconnect.p95Ms)} (${result.reconnect.back})`,
      ];
    })));
  for (const result of results) {
    if (result.bystanders.firstError !== undefined) out.push('', `${result.phase}: first bystander error: ${result.bystanders.firstError}`);
  }
  const traffic = results[0]?.shape;
  if (traffic) out.push('', `Traffic per display: ${traffic.upBytes} B up, ${traffic.downBytes} B down every ${traffic.intervalMs} ms; ${results[0]?.workersPerInstance ?? ''} workers per gateway instance; the load side at nice ${results[0]?.loadSideNiceness ?? 'of the run'}, the gateway and the probe at the run's (\`--nice\`); under SCHED_RR once every display relayed: ${results[0]?.realtime.join(', ') || 'nothing'} (\`--realtime-instruments\`).`);
  return out.join('\n');
}
