// The default broker store, needing nothing: the memory store plus a state
// file in stateDir (`broker-state.json`) holding what must survive a restart —
// displays made through the API, what each display was showing (for a resume),
// the audit log and changed certificate pins. Sessions and claims stay in
// memory: a session token lives a minute, and a token minted before a restart
// opens nothing after it (its session is unknown here, so its claim is refused).
//
// Every write replaces the file atomically (../persist/atomicFile.ts). Writes
// are coalesced: changes made while one is being written go out together in
// the next. Display changes wait for the disk before they are answered; the
// audit log and intents are written behind, at most once per writeBehindMs (a
// crash loses at most that last moment of them). Each write is the whole
// state, so a write per change made a ramp of thousands of sessions
// quadratic: at 1,600 sessions started together the gateway's Node process
// spent 40 s rewriting the file, on the core its sessions needed.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { desktopPreferenceSchema, panelSchema } from '@lanterna/protocol';
import { writeFileAtomically } from '../persist/atomicFile.js';
import { MemoryBrokerStore, DEFAULT_MEMORY_STORE_LIMITS, type DurableBrokerState, type MemoryStoreLimits } from './memoryBrokerStore.js';
import { MAX_ROOM_SLOTS, ROOM_LAYOUTS, ROOM_MODES } from '@lanterna/protocol';
import type { AuditInput, DisplayRecord, PinConflict, ProjectionIntent, RoomSettings } from './brokerStore.js';

export function brokerStateFile(stateDir: string): string {
  return join(stateDir, 'broker-state.json');
}

/** The state file cannot be used: the gateway refuses to start rather than forget displays. */
export class BrokerStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BrokerStateError';
  }
}

const requester = z.object({ kind: z.enum(['admin', 'presenter', 'signage', 'resume', 'wsd', 'host']), address: z.string().optional(), name: z.string().optional() });
const stateSchema = z.object({
  version: z.literal(1),
  displays: z.array(z.object({
    id: z.string(), name: z.string(), location: z.string().optional(), tokenDigest: z.string().regex(/^[0-9a-f]{64}$/),
    desktop: z.optional(desktopPreferenceSchema), panel: z.optional(z.object({ ...panelSchema.shape, at: z.number() })),
    managedBy: z.enum(['config', 'api']), createdAt: z.number(), updatedAt: z.number(),
    sound: z.object({ volume: z.number().int().min(0).max(100), muted: z.boolean() }).optional(),
  })),
  intents: z.array(z.object({
    displayId: z.string(), sessionId: z.string(), target: z.object({ host: z.string(), port: z.number(), name: z.string().optional() }),
    sealed: z.string(), requestedBy: requester.optional(), since: z.number(),
    slot: z.number().int().min(0).max(MAX_ROOM_SLOTS - 1).optional(), requestId: z.string().optional(),
  })),
  audit: z.array(z.object({
    seq: z.number(), at: z.number(), actor: z.string(), action: z.string(), displayId: z.string().optional(), sessionId: z.string().optional(),
    detail: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  })),
  pinConflicts: z.array(z.object({ key: z.string(), pinned: z.string(), seen: z.string(), at: z.number(), displayId: z.string().optional() })),
  // Written since rooms have settings (issue 29); older files have none.
  rooms: z.array(z.object({
    displayId: z.string(),
    settings: z.object({
      mode: z.enum(ROOM_MODES), layout: z.enum(ROOM_LAYOUTS), large: z.number().int().min(0).max(MAX_ROOM_SLOTS - 1),
      hostRequestId: z.string().optional(), updatedAt: z.number(),
    }),
  })).optional(),
});

/** How long written-behind changes wait for others to join them in one write. */
export const DEFAULT_WRITE_BEHIND_MS = 1000;

export class EmbeddedBrokerStore extends MemoryBrokerStore {
  private writing: Promise<void> | undefined;
  private dirty = false;
  private behind: NodeJS.Timeout | undefined;
  private writes = 0;
  /** The last write-behind failure, for the gateway's log and /readyz. */
  lastWriteError: Error | undefined;

  private constructor(private readonly path: string, clock: () => number, limits: MemoryStoreLimits, private readonly writeBehindMs: number) {
    super(clock, limits);
  }

  /** Opens the store on its file; a missing file is an empty store, anything unreadable a BrokerStateError. */
  static async open(
    path: string, clock: () => number = Date.now, limits: MemoryStoreLimits = DEFAULT_MEMORY_STORE_LIMITS, writeBehindMs = DEFAULT_WRITE_BEHIND_MS,
  ): Promise<EmbeddedBrokerStore> {
    const store = new EmbeddedBrokerStore(path, clock, limits, writeBehindMs);
    let text: string | undefined;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new BrokerStateError(`cannot read the broker state in ${path}: ${(error as Error).message}`);
    }
    if (text !== undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch (error) {
        throw new BrokerStateError(`the broker state in ${path} is not valid JSON: ${(error as Error).message}`);
      }
      const result = stateSchema.safeParse(parsed);
      if (!result.success) throw new BrokerStateError(`the broker state in ${path} is malformed: ${z.prettifyError(result.error)}`);
      store.restoreDurableState(result.data as DurableBrokerState);
    }
    return store;
  }

  /** Resolves once everything changed so far is on disk (what waits to be written behind goes now). */
  flush(): Promise<void> {
    if (this.behind) return this.save();
    return this.writing ?? Promise.resolve();
  }

  /** Whole-state writes begun so far. */
  get stateWrites(): number {
    return this.writes;
  }

  override claimSession(sessionId: string, until: number, leg?: 'presenter'): Promise<boolean> {
    // Sessions are not kept across a restart, so neither are claims: a token
    // minted before it names a session this store never saw, and opens nothing.
    if (!this.hasSession(sessionId)) return Promise.resolve(false);
    return super.claimSession(sessionId, until, leg);
  }

  override async putDisplay(record: DisplayRecord, mode: 'create' | 'replace' | 'upsert'): Promise<boolean> {
    const changed = await super.putDisplay(record, mode);
    if (changed) await this.save();
    return changed;
  }

  override async deleteDisplay(displayId: string): Promise<boolean> {
    const deleted = await super.deleteDisplay(displayId);
    if (deleted) await this.save();
    return deleted;
  }

  override async setIntent(intent: ProjectionIntent): Promise<void> {
    await super.setIntent(intent);
    this.saveBehind();
  }

  override async clearIntent(displayId: string, sessionId: string): Promise<void> {
    await super.clearIntent(displayId, sessionId);
    this.saveBehind();
  }

  override async putRoomSettings(displayId: string, settings: RoomSettings): Promise<void> {
    await super.putRoomSettings(displayId, settings);
    // An admin's setting waits for the disk, like a display's change.
    await this.save();
  }

  override async appendAudit(entry: AuditInput): Promise<number> {
    const seq = await super.appendAudit(entry);
    this.saveBehind();
    return seq;
  }

  override async recordPinConflicts(conflicts: PinConflict[]): Promise<void> {
    await super.recordPinConflicts(conflicts);
    await this.save();
  }

  override async clearPinConflicts(keys: string[]): Promise<void> {
    await super.clearPinConflicts(keys);
    await this.save();
  }

  private saveBehind(): void {
    this.behind ??= setTimeout(() => {
      this.save().then(() => { this.lastWriteError = undefined; }, (error: unknown) => { this.lastWriteError = error as Error; });
    }, this.writeBehindMs);
  }

  /** Resolves after a write that began after this call (so it holds every change made before it). */
  private save(): Promise<void> {
    // the whole state goes out: whatever waited to be written behind with it
    clearTimeout(this.behind);
    this.behind = undefined;
    this.dirty = true;
    this.writing ??= this.writeWhileDirty().finally(() => { this.writing = undefined; });
    return this.writing;
  }

  private async writeWhileDirty(): Promise<void> {
    while (this.dirty) {
      this.dirty = false;
      this.writes += 1;
      await writeFileAtomically(this.path, `${JSON.stringify({ version: 1, ...this.durableState() }, null, 1)}\n`);
    }
  }
}
