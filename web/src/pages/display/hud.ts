// The heads-up display of live figures (toggled with "h" or ?hud=1). Counters
// accumulate between one-second ticks; the HUD shows rates and averages.
// With two or more sources in a room it adds a line per source (its own
// frames per second, decode and upload ms, bytes per second).
// Latency, and the HUD says which kind it shows:
// - "strip": measured glass-to-glass, when the presenter's screen carries the
//   timestamp strip (the lab's scenes with it on): presenter screen → the end
//   of the present that shows the stamp, the mean over the last second; beside
//   it the distinct stamps drawn per second (frames shown).
// - "estimate" otherwise: what the display can know — half the round trip to
//   the gateway (ping/pong on the data socket) plus the time from a frame's
//   first bytes reaching the session worker to the draw that shows it. The
//   server's own capture and encode and the server-to-gateway leg are not
//   visible from here, so it is a lower bound.
import type { RenderStats } from '../../render/renderStats.js';

export interface TrafficSource {
  readonly bytesIn: number;
  readonly pdusIn: number;
}

/** One source of a room (several presenters side by side), as the HUD names it. */
export interface HudSource {
  readonly slot: number;
  readonly label: string;
  readonly traffic: TrafficSource;
}

/** Per source, between ticks: its presents, its decodes, and the bytes its data socket had brought at the last tick. */
interface SlotCounters { frames: number; decodeMs: number; decodes: number; uploadMs: number; lastBytes: number }

function noSlotCounters(lastBytes: number): SlotCounters {
  return { frames: 0, decodeMs: 0, decodes: 0, uploadMs: 0, lastBytes };
}

/** The whole page's figures between two ticks (the HUD shows them, then starts again from none). */
interface TickCounts {
  frames: number; uploadMs: number; drawMs: number; decodeMs: number; decodes: number;
  /** Frames whose receive-to-draw time is known, and its sum. */
  timedFrames: number; receiveToDrawMs: number;
  /** Presents that showed a new timestamp strip, and their glass-to-glass sum. */
  stripFrames: number; stripLatencyMs: number;
}

function noTickCounts(): TickCounts {
  return { frames: 0, uploadMs: 0, drawMs: 0, decodeMs: 0, decodes: 0, timedFrames: 0, receiveToDrawMs: 0, stripFrames: 0, stripLatencyMs: 0 };
}

/** A mean with one decimal, or a dash when nothing was counted. */
function meanText(sum: number, count: number): string {
  return count > 0 ? (sum / count).toFixed(1) : '—';
}

export class Hud {
  private readonly element: HTMLElement;
  /** The per-source lines (a room showing two or more sources): `data-hud-slot` = the slot. */
  private readonly perSource: HTMLElement;
  private sources: readonly HudSource[] = [];
  private readonly slotCounters = new Map<number, SlotCounters>();
  private readonly rows = new Map<string, HTMLElement>();
  private counts = noTickCounts();
  private latencyMs: number | null = null;
  private roundTripMs: number | null = null;
  private lastBytes = 0;
  private lastPdus = 0;
  private traffic: TrafficSource | null = null;
  private rendererKind = '—';

  constructor(container: HTMLElement, visible: boolean) {
    this.element = document.createElement('aside');
    this.element.className = 'hud';
    this.element.hidden = !visible;
    this.element.setAttribute('aria-label', 'live figures');
    for (const [key, label] of [
      ['fps', 'frames/s'],
      ['decode', 'decode ms'],
      ['upload', 'upload ms'],
      ['draw', 'draw ms'],
      ['bytes', 'bytes/s'],
      ['pdus', 'PDUs/s'],
      ['latency', 'latency'],
      ['shown', 'frames shown/s'],
      ['rtt', 'gateway RTT'],
      ['renderer', 'renderer'],
    ] as const) {
      const row = document.createElement('div');
      const name = document.createElement('span');
      name.textContent = label;
      const value = document.createElement('b');
      value.dataset.hud = key;
      value.textContent = '—';
      row.append(name, value);
      this.element.append(row);
      this.rows.set(key, value);
    }
    this.perSource = document.createElement('section');
    this.perSource.className = 'hud-sources';
    this.perSource.hidden = true;
    this.element.append(this.perSource);
    container.append(this.element);
    setInterval(() => this.tick(), 1000);
  }

  toggle(): void {
    this.element.hidden = !this.element.hidden;
  }

  setRenderer(kind: string): void {
    this.rendererKind = kind;
    this.set('renderer', kind);
  }

  setTraffic(source: TrafficSource | null): void {
    this.traffic = source;
    this.roundTripMs = null; // a new session, perhaps another gateway path
    this.lastBytes = source?.bytesIn ?? 0;
    this.lastPdus = source?.pdusIn ?? 0;
  }

  /**
   * The room's sources: with two or more the HUD adds a line per source —
   * its frames per second, decode and upload ms, bytes per second — so a
   * slow source is told from a slow page.
   */
  setSources(sources: readonly HudSource[]): void {
    this.sources = [...sources].sort((a, b) => a.slot - b.slot);
    const slots = new Set(sources.map((source) => source.slot));
    for (const slot of this.slotCounters.keys()) if (!slots.has(slot)) this.slotCounters.delete(slot);
    for (const source of sources) {
      if (!this.slotCounters.has(source.slot)) this.slotCounters.set(source.slot, noSlotCounters(source.traffic.bytesIn));
    }
  }

  onRender(stats: RenderStats, slot?: number): void {
    const counters = slot === undefined ? undefined : this.slotCounters.get(slot);
    if (counters) {
      counters.frames += 1;
      counters.uploadMs += stats.uploadMs;
    }
    this.counts.frames += 1;
    if (stats.receiveToDrawMs !== undefined) {
      this.counts.receiveToDrawMs += stats.receiveToDrawMs;
      this.counts.timedFrames += 1;
    }
    if (stats.strip) {
      this.counts.stripLatencyMs += stats.strip.latencyMs;
      this.counts.stripFrames += 1;
    }
    this.counts.uploadMs += stats.uploadMs;
    this.counts.drawMs += stats.drawMs;
  }

  onRoundTrip(ms: number): void {
    this.roundTripMs = ms;
  }

  onDecode(decodeMs: number, latencyMs?: number, slot?: number): void {
    const counters = slot === undefined ? undefined : this.slotCounters.get(slot);
    if (counters) {
      counters.decodeMs += decodeMs;
      counters.decodes += 1;
    }
    this.counts.decodeMs += decodeMs;
    this.counts.decodes += 1;
    if (latencyMs !== undefined) this.latencyMs = latencyMs;
  }

  private tick(): void {
    this.set('fps', String(this.counts.frames));
    this.set('upload', meanText(this.counts.uploadMs, this.counts.frames));
    this.set('draw', meanText(this.counts.drawMs, this.counts.frames));
    this.set('decode', meanText(this.counts.decodeMs, this.counts.decodes));
    this.set('latency', this.latencyText());
    this.set('shown', this.counts.stripFrames > 0 ? `${this.counts.stripFrames} (strip)` : '—');
    this.set('rtt', this.roundTripMs === null ? '—' : `${this.roundTripMs.toFixed(1)} ms`);
    if (this.traffic) {
      this.set('bytes', formatBytes(this.traffic.bytesIn - this.lastBytes));
      this.set('pdus', String(this.traffic.pdusIn - this.lastPdus));
      this.lastBytes = this.traffic.bytesIn;
      this.lastPdus = this.traffic.pdusIn;
    } else {
      this.set('bytes', '—');
      this.set('pdus', '—');
    }
    this.set('renderer', this.rendererKind);
    this.tickSources();
    this.counts = noTickCounts();
  }

  private tickSources(): void {
    const lines = this.sources.length >= 2 ? this.sources.map((source) => {
      const counters = this.slotCounters.get(source.slot) ?? noSlotCounters(source.traffic.bytesIn);
      const line = document.createElement('div');
      line.dataset.hudSlot = String(source.slot);
      const name = document.createElement('span');
      name.textContent = `place ${String(source.slot + 1)} · ${source.label}`;
      const value = document.createElement('b');
      const decode = meanText(counters.decodeMs, counters.decodes);
      const upload = meanText(counters.uploadMs, counters.frames);
      value.textContent = `${String(counters.frames)} frames/s · decode ${decode} ms · upload ${upload} ms · ${formatBytes(source.traffic.bytesIn - counters.lastBytes)}/s`;
      line.append(name, value);
      this.slotCounters.set(source.slot, noSlotCounters(source.traffic.bytesIn));
      return line;
    }) : [];
    this.perSource.hidden = lines.length === 0;
    this.perSource.replaceChildren(...lines);
  }

  /** The strip's measurement wins; then an engine's own figure; otherwise gateway→screen as estimated here, once both halves are known. */
  private latencyText(): string {
    if (this.counts.stripFrames > 0) return `${(this.counts.stripLatencyMs / this.counts.stripFrames).toFixed(0)} ms (strip)`;
    if (this.latencyMs !== null) return `${this.latencyMs.toFixed(0)} ms (engine)`;
    if (this.counts.timedFrames === 0 || this.roundTripMs === null) return '—';
    return `≈${(this.roundTripMs / 2 + this.counts.receiveToDrawMs / this.counts.timedFrames).toFixed(0)} ms (estimate)`;
  }

  private set(key: string, text: string): void {
    const row = this.rows.get(key);
    if (row) row.textContent = text;
  }
}

function formatBytes(bytes: number): string {
  if (bytes >= 1 << 20) return `${(bytes / (1 << 20)).toFixed(1)} MiB`;
  if (bytes >= 1 << 10) return `${(bytes / (1 << 10)).toFixed(1)} KiB`;
  return `${bytes} B`;
}
