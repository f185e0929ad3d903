// The coordinator's side of the fleet processes: spreads displays over them,
// waits until the fleet relays, and merges their windows.
import { fileURLToPath } from 'node:url';
import { IpcChild, poolWhenReady } from './ipcChild.js';
import type { CoordinatorToFleet, FleetDisplay, FleetStatus, FleetToCoordinator, FleetWindow } from './fleetProtocol.js';
import type { DisplayEndpoints } from './pageLikeDisplay.js';

const FLEET_MAIN = fileURLToPath(new URL('./fleetMain.js', import.meta.url));

type FleetHandle = IpcChild<FleetToCoordinator, CoordinatorToFleet>;

export interface FleetTotals { displays: number; relaying: number; stoppedForGood: number }

export class FleetPool {
  /** Which fleet process holds each display. */
  private readonly owner = new Map<string, FleetHandle>();

  /**
   * `probe`: one more fleet process, last in `fleets`, that runs only a few
   * displays (those `start` names in `probeIds`). Its event loop stays nearly idle
   * while the other fleets reconnect hundreds of displays at once, so what its
   * displays see is the gateway's share of a stall, not the load side's.
   */
  private constructor(private readonly fleets: FleetHandle[], private readonly probe: boolean) {}

  /** `niceness`: the regular fleets' (unset: the run's); the probe fleet keeps the run's. */
  static async start(count: number, cpus: string | undefined, probe = false, niceness?: string): Promise<FleetPool> {
    const fleets: FleetHandle[] = Array.from({ length: Math.max(1, count) }, (_unused, index) => new IpcChild(`fleet-${index}`, FLEET_MAIN, cpus, niceness));
    if (probe) fleets.push(new IpcChild('fleet-probe', FLEET_MAIN, cpus));
    return poolWhenReady(new FleetPool(fleets, probe), fleets);
  }

  /** Whether `endWindow`'s last window is the probe fleet's. */
  get hasProbe(): boolean { return this.probe; }

  /** The probe fleet's process (undefined: no probe fleet). */
  get probePid(): number | undefined { return this.probe ? this.fleets.at(-1)?.process.pid : undefined; }

  pids(): number[] { return this.fleets.map((fleet) => fleet.process.pid); }

  configure(baseUrl: string, distinctSourceAddresses: boolean, timeoutMs: number): void {
    for (const fleet of this.fleets) fleet.post({ type: 'configure', baseUrl, distinctSourceAddresses, timeoutMs });
  }

  /**
   * Hands the displays out round-robin and starts them over `spreadMs`; with a
   * probe fleet, the displays named in `probeIds` go to it instead.
   */
  async start(displays: FleetDisplay[], spreadMs: number, probeIds: ReadonlySet<string> = new Set()): Promise<void> {
    const shares: FleetDisplay[][] = this.fleets.map(() => []);
    const regular = this.probe ? this.fleets.length - 1 : this.fleets.length;
    let regularIndex = 0;
    displays.forEach((display) => {
      const toProbe = this.probe && probeIds.has(display.id);
      const slot = toProbe ? this.fleets.length - 1 : regularIndex++ % regular;
      shares[slot]?.push(display);
      const fleet = this.fleets[slot];
      if (fleet) this.owner.set(display.id, fleet);
    });
    this.fleets.forEach((fleet, index) => fleet.post({ type: 'start', displays: shares[index] ?? [], spreadMs }));
    await Promise.all(this.fleets.map((fleet) => fleet.next('started', 15_000)));
  }

  async status(): Promise<FleetTotals> {
    for (const fleet of this.fleets) fleet.post({ type: 'status' });
    const replies: FleetStatus[] = await Promise.all(this.fleets.map((fleet) => fleet.next('status', 15_000)));
    return {
      displays: replies.reduce((sum, reply) => sum + reply.displays, 0),
      relaying: replies.reduce((sum, reply) => sum + reply.relaying, 0),
      stoppedForGood: replies.reduce((sum, reply) => sum + reply.stoppedForGood, 0),
    };
  }

  /** Polls until `want` displays relay; rejects at the deadline saying how many did. */
  async untilRelaying(want: number, timeoutMs: number, pollMs = 250): Promise<FleetTotals> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const totals = await this.status();
      if (totals.relaying >= want) return totals;
      if (Date.now() > deadline) throw new Error(`only ${totals.relaying} of ${want} displays relaying after ${Math.round(timeoutMs / 1000)} s`);
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  async endpoints(): Promise<DisplayEndpoints[]> {
    for (const fleet of this.fleets) fleet.post({ type: 'endpoints' });
    const replies = await Promise.all(this.fleets.map((fleet) => fleet.next('endpoints', 15_000)));
    return replies.flatMap((reply) => reply.endpoints);
  }

  beginWindow(): void { for (const fleet of this.fleets) fleet.post({ type: 'begin-window' }); }

  async endWindow(perDisplay: boolean): Promise<FleetWindow[]> {
    for (const fleet of this.fleets) fleet.post({ type: 'end-window', perDisplay });
    return Promise.all(this.fleets.map((fleet) => fleet.next('window', 30_000)));
  }

  async churn(ids: readonly string[], pauseMs: number): Promise<number> {
    const byFleet = new Map<FleetHandle, string[]>();
    for (const id of ids) {
      const fleet = this.owner.get(id);
      if (fleet) byFleet.set(fleet, [...(byFleet.get(fleet) ?? []), id]);
    }
    for (const [fleet, list] of byFleet) fleet.post({ type: 'churn', ids: list, pauseMs });
    const replies = await Promise.all([...byFleet.keys()].map((fleet) => fleet.next('churned', 15_000)));
    return replies.reduce((sum, reply) => sum + reply.count, 0);
  }

  async closeAll(): Promise<void> {
    for (const fleet of this.fleets) fleet.post({ type: 'close-all' });
    await Promise.all(this.fleets.map((fleet) => fleet.next('closed', 30_000).catch(() => undefined)));
  }

  async stop(): Promise<void> {
    await Promise.all(this.fleets.map((fleet) => fleet.process.stop(3000)));
  }
}
