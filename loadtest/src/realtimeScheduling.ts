// The chaos scenario's instruments stand for machines of their own: the
// probe displays, the presenter's computer that serves them, the site's load
// balancer. Here they share two cores with the gateway under test, and each
// of their wake-ups waits for a CPU behind the gateway's recovery: measured
// (session 20, instance phase), the probe's bystanders stalled 144 ms with
// them at the gateway's niceness, 127 ms with the probe and its echo host
// under SCHED_RR, 67 ms with HAProxy too. SCHED_RR gives a waking instrument
// a CPU at once, so what remains is the gateway's share. They use little CPU
// (the probe's 50 displays: 0.06 of a core), so nothing else starves.
import { execFileSync } from 'node:child_process';

/** Real-time priority for the instruments: above every normal task, far below the kernel's own threads (50). */
export const INSTRUMENT_RT_PRIORITY = 10;

/** Every thread of `pid` under SCHED_RR (`chrt -a -r -p`); throws when the system refuses (not root). */
export function runInRealTime(pid: number, priority = INSTRUMENT_RT_PRIORITY): void {
  execFileSync('chrt', ['-a', '-r', '-p', String(priority), String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
}
