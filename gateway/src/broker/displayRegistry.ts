// The displays the broker knows: the configuration's (seeds the file owns)
// and the admin API's (made, renamed, moved, resized, deleted and given new
// tokens there), each with its token digest, the admin's sound, the desktop
// an admin fixed and the panel the display last reported. Kept in the store,
// so every worker and gateway of a farm lists and authenticates the same.
// Presence (which are online) is onlineDisplays.ts's.
import { randomBytes } from 'node:crypto';
import { desktopForPanel, type Desktop, type DesktopPreference, type Panel } from '@lanterna/protocol';
import { newDisplayToken, tokenDigest, tokenMatches, type DisplayDirectory } from './displayDirectory.js';
import { DEFAULT_DISPLAY_SOUND, type BrokerStore, type DisplayRecord, type DisplaySound, type Requester } from './brokerStore.js';
import type { PublishEvent } from './brokerEvents.js';
import type { AuditLog } from './auditLog.js';

export interface DisplayView {
  id: string;
  name: string;
  location?: string | undefined;
  managedBy: 'config' | 'api';
  online: boolean;
  /** The session the display is booked for (showing, or about to). */
  sessionId?: string | undefined;
  /** The admin's volume and mute for it. */
  sound: DisplaySound;
  /** What an admin fixed of its desktop (size, scale). */
  desktop?: DesktopPreference | undefined;
  /** The panel the display last reported, and the desktop its sessions ask for on it. */
  panel?: (Panel & { at: number }) | undefined;
  sessionDesktop?: Desktop | undefined;
}

export type DisplayChangeRefusal = 'unknown-display' | 'display-exists' | 'config-managed';

export type DisplayChange<T> = { ok: true; value: T } | { ok: false; code: DisplayChangeRefusal; reason: string };

export interface DisplayRegistryDeps {
  directory: DisplayDirectory;
  store: BrokerStore;
  publish: PublishEvent;
  auditLog: AuditLog;
  /** Ms since the epoch; composeBroker gives every part the same one. */
  clock: () => number;
}

export class DisplayRegistry {
  private seeded: Promise<void> | undefined;

  constructor(private readonly deps: DisplayRegistryDeps) {}

  /**
   * Writes the configuration's displays into the store (they win over what
   * the store had under their ids) and drops config displays that left the
   * file. Runs once, before the first display operation.
   */
  seedDisplays(): Promise<void> {
    this.seeded ??= (async () => {
      const { store, directory } = this.deps;
      const now = this.deps.clock();
      const existing = new Map((await store.listDisplays()).map((display) => [display.id, display]));
      // an admin's volume and mute, and the panel (the display's own report), outlive a restart: the file sets neither
      await Promise.all(directory.seeds(now).map((seed) => {
        const before = existing.get(seed.id);
        return store.putDisplay({ ...seed, createdAt: before?.createdAt ?? now, ...(before?.sound ? { sound: before.sound } : {}), ...(before?.panel ? { panel: before.panel } : {}) }, 'upsert');
      }));
      await Promise.all([...existing.values()]
        .filter((display) => display.managedBy === 'config' && !directory.get(display.id))
        .map((display) => store.deleteDisplay(display.id)));
    })();
    // A failed seed (store down at start) is tried again next time.
    this.seeded.catch(() => { this.seeded = undefined; });
    return this.seeded;
  }

  /** The display's record, the seeds written first (a configured display exists from the start). */
  async getDisplay(displayId: string): Promise<DisplayRecord | undefined> {
    await this.seedDisplays();
    return this.deps.store.getDisplay(displayId);
  }

  async authenticateDisplay(displayId: string, token: unknown): Promise<DisplayRecord | undefined> {
    const record = await this.getDisplay(displayId);
    return record && tokenMatches(record, token) ? record : undefined;
  }

  async listDisplays(): Promise<DisplayView[]> {
    await this.seedDisplays();
    const { store } = this.deps;
    const [displays, presence] = await Promise.all([store.listDisplays(), store.listPresence()]);
    const online = new Set(presence.map((entry) => entry.displayId));
    const bookings = await Promise.all(displays.map((display) => store.getBooking(display.id, 0)));
    return displays
      .map((display, index) => ({
        id: display.id, name: display.name, location: display.location, managedBy: display.managedBy,
        online: online.has(display.id), sessionId: bookings[index]?.sessionId, sound: display.sound ?? DEFAULT_DISPLAY_SOUND,
        desktop: display.desktop, panel: display.panel,
        sessionDesktop: display.panel ? desktopForPanel(display.panel, display.desktop) : undefined,
      }))
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  /** A display made through the admin API; its token is returned once and only its digest is kept. */
  async createDisplay(input: { id?: string | undefined; name: string; location?: string | undefined; desktop?: DesktopPreference | undefined }, by?: Requester): Promise<DisplayChange<{ display: DisplayRecord; token: string }>> {
    await this.seedDisplays();
    const now = this.deps.clock();
    const id = input.id ?? displayIdFromName(input.name);
    const token = newDisplayToken();
    const display: DisplayRecord = { id, name: input.name, location: input.location, ...(input.desktop ? { desktop: input.desktop } : {}), tokenDigest: tokenDigest(token), managedBy: 'api', createdAt: now, updatedAt: now };
    if (!await this.deps.store.putDisplay(display, 'create')) return { ok: false, code: 'display-exists', reason: `a display "${id}" exists already` };
    await this.deps.auditLog.record(by, 'display-created', { displayId: id, detail: { name: input.name, ...(input.location ? { location: input.location } : {}) } });
    return { ok: true, value: { display, token } };
  }

  /** Renames, moves and/or fixes the desktop of a display made through the API (`desktop: null` gives it back to the panel). */
  async updateDisplay(displayId: string, change: { name?: string | undefined; location?: string | undefined; desktop?: DesktopPreference | null | undefined }, by?: Requester): Promise<DisplayChange<DisplayRecord>> {
    const found = await this.apiDisplay(displayId);
    if (!found.ok) return found;
    const before = found.value;
    const { desktop: _dropped, ...rest } = before;
    const desktop = change.desktop === undefined ? before.desktop : change.desktop ?? undefined;
    const after: DisplayRecord = { ...rest, ...(desktop ? { desktop } : {}), name: change.name ?? before.name, location: change.location ?? before.location, updatedAt: this.deps.clock() };
    if (!await this.deps.store.putDisplay(after, 'replace')) return unknownDisplay(displayId);
    const desktopChanged = JSON.stringify(after.desktop ?? {}) !== JSON.stringify(before.desktop ?? {});
    if (after.name !== before.name || after.location !== before.location || desktopChanged) {
      this.deps.publish({ kind: 'display-changed', displayId, name: after.name, location: after.location, desktop: after.desktop });
    }
    const { auditLog } = this.deps;
    if (desktopChanged) await auditLog.record(by, 'display-resized', { displayId, detail: { from: desktopWords(before.desktop), to: desktopWords(after.desktop) } });
    if (after.name !== before.name) await auditLog.record(by, 'display-renamed', { displayId, detail: { from: before.name, to: after.name } });
    if (after.location !== before.location) await auditLog.record(by, 'display-moved', { displayId, detail: { from: before.location ?? '', to: after.location ?? '' } });
    return { ok: true, value: after };
  }

  /**
   * An admin's volume and/or mute for any display (configured ones too: the
   * file does not set sound). Kept in the store, so every gateway of a farm
   * reads the same; the worker holding the display's control socket sends it
   * to the page (`sound-changed`).
   */
  async setDisplaySound(displayId: string, change: { volume?: number | undefined; muted?: boolean | undefined }, by?: Requester): Promise<DisplayChange<DisplaySound>> {
    const before = await this.getDisplay(displayId);
    if (!before) return unknownDisplay(displayId);
    const was = before.sound ?? DEFAULT_DISPLAY_SOUND;
    const sound: DisplaySound = { volume: change.volume ?? was.volume, muted: change.muted ?? was.muted };
    if (!await this.deps.store.putDisplay({ ...before, sound, updatedAt: this.deps.clock() }, 'replace')) return unknownDisplay(displayId);
    this.deps.publish({ kind: 'sound-changed', displayId, volume: sound.volume, muted: sound.muted });
    if (sound.volume !== was.volume || sound.muted !== was.muted) await this.deps.auditLog.record(by, 'sound-changed', { displayId, detail: { volume: sound.volume, muted: sound.muted } });
    return { ok: true, value: sound };
  }

  /** The display's volume and mute now (what its page is sent on welcome). */
  async displaySound(displayId: string): Promise<DisplaySound> {
    return (await this.deps.store.getDisplay(displayId))?.sound ?? DEFAULT_DISPLAY_SOUND;
  }

  /**
   * A display's `panel` report: kept on its record (both stores) when it
   * differs from the last one, so the admin sees it and what its sessions ask
   * for. Config and API displays alike: the panel is the display's own word.
   */
  async recordPanel(displayId: string, panel: Panel): Promise<boolean> {
    const before = await this.deps.store.getDisplay(displayId);
    if (!before) return false;
    if (before.panel) {
      const { at: _at, ...last } = before.panel;
      if (JSON.stringify(last) === JSON.stringify(panel)) return false;
    }
    return this.deps.store.putDisplay({ ...before, panel: { ...panel, at: this.deps.clock() } }, 'replace');
  }

  /** Deletes a display made through the API; its control socket is closed and its session stopped. */
  async deleteDisplay(displayId: string, by?: Requester): Promise<DisplayChange<null>> {
    const found = await this.apiDisplay(displayId);
    if (!found.ok) return found;
    const bookings = await this.deps.store.listBookings(displayId);
    if (!await this.deps.store.deleteDisplay(displayId)) return unknownDisplay(displayId);
    this.deps.publish({ kind: 'display-revoked', displayId });
    for (const booking of bookings) this.deps.publish({ kind: 'stop-session', displayId, sessionId: booking.sessionId, reason: 'the display was deleted' });
    await this.deps.auditLog.record(by, 'display-deleted', { displayId, detail: { name: found.value.name } });
    return { ok: true, value: null };
  }

  /** A new token for a display made through the API: shown once; the display's socket with the old one is closed. */
  async rotateDisplayToken(displayId: string, by?: Requester): Promise<DisplayChange<{ token: string }>> {
    const found = await this.apiDisplay(displayId);
    if (!found.ok) return found;
    const token = newDisplayToken();
    if (!await this.deps.store.putDisplay({ ...found.value, tokenDigest: tokenDigest(token), updatedAt: this.deps.clock() }, 'replace')) return unknownDisplay(displayId);
    this.deps.publish({ kind: 'display-revoked', displayId });
    await this.deps.auditLog.record(by, 'display-token-rotated', { displayId });
    return { ok: true, value: { token } };
  }

  /** A display the API may change: the file would undo a change to a configured one at the next start. */
  private async apiDisplay(displayId: string): Promise<DisplayChange<DisplayRecord>> {
    const record = await this.getDisplay(displayId);
    if (!record) return unknownDisplay(displayId);
    if (record.managedBy === 'config') {
      return { ok: false, code: 'config-managed', reason: `display "${displayId}" is defined in the configuration file: change it there` };
    }
    return { ok: true, value: record };
  }
}

export function unknownDisplay(displayId: string): { ok: false; code: 'unknown-display'; reason: string } {
  return { ok: false, code: 'unknown-display', reason: `no display "${displayId}"` };
}

/** An id for a display the admin named but gave no id: the name's letters and a short random tail. */
function displayIdFromName(name: string): string {
  const slug = name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 48);
  return `${slug || 'display'}-${randomBytes(3).toString('hex')}`;
}

/** A display's desktop preference in the audit log's words ("3840×2160, 200 %", "the panel's size, scale by size"). */
function desktopWords(desktop: DesktopPreference | undefined): string {
  const size = desktop?.width !== undefined && desktop.height !== undefined ? `${desktop.width}×${desktop.height}` : "the panel's size";
  return `${size}, ${desktop?.scale === undefined ? 'scale by size' : `${desktop.scale} %`}`;
}
