// The broker store in Redis, shared by every gateway (and every worker) of a
// deployment. The checks that must be atomic across gateways run inside
// Redis: a session's first claim (`SET … NX PXAT`, the claim lives as long
// as its token), a display's booking (a Lua compare-and-set), state moves
// that never go back from ended, owner-checked presence and intent clears.
//
// Keys (all under the configured prefix P):
//   P session:<id>     hash: the record's fields; 24 h, 10 min once ended
//   P sessions         zset: session ids by mint time (listing; trimmed)
//   P claim:<id>       the first claim, until the token's expiry
//   P booking:<disp>   slot 0's booking: "<sessionId> <until>", expires at until
//   P booking:<disp>:<n>   slot n's (1..3), the same
//   P room-settings    hash: id → RoomSettings JSON
//   P room-request:<id>    a presenter's request (RoomRequest JSON): 24 h while it waits or shows, an hour once decided
//   P room-requests:<disp>, P room-waiting:<disp>   zsets of a display's request ids by time: all, and those waiting
//   P displays         hash: id → DisplayRecord JSON
//   P presence         hash: id → "<owner> <since> <slots>"
//   P reproject        hash: id → ReprojectionState JSON
//   P intents, P intent-session   hashes: id (slot 0) or id:<n> → ProjectionIntent JSON, → its session id
//   P audit, P audit-seq          zset of entries by seq (last AUDIT_CAPACITY), the counter
//   P pin-conflicts    hash: pin key → PinConflict JSON
//   P room-pins        hash: id → {"mac","sealed"} (a Lua compare-and-set on mac)
//   P attempts:<key>   hash: a wrong-PIN counter's window id (w), attempts (a), given back (s); expires when its window ends
//   P ink:<key>        a display's saved ink PNG (base64), expires after ink.keepMs (issue 30)
//
// Nothing secret is kept in clear (docs/scale-out.md, "Securing the Redis"): a room PIN is sealed with
// the session secret (the display page must be shown it, so it cannot be a
// hash alone) beside its keyed digest, which is what the compare-and-set
// compares inside Redis; the sealed record names its display, so it cannot be
// moved to another. A deleted or rewritten counter is noticed by the
// processes that saw it (counterWatch.ts), which put the lost attempts back.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { MAX_ROOM_SLOTS } from '@lanterna/protocol';
import {
  ROOM_REQUEST_RETENTION_MS, slotKey,
  type AuditEntry, type AuditInput, type AuditPage, type BookingResult, type BrokerStore, type CounterState, type DisplayBooking, type DisplayPresence,
  type DisplayRecord, type DisplayFigures, type PinConflict, type ProjectionIntent, type ReprojectionState, type RoomPinRecord, type RoomRequest,
  type RoomRequestState, type RoomSettings, type SessionRecord, type SessionSample, type SessionUpdate, type SlotBookingResult,
} from '../broker/brokerStore.js';
import { AUDIT_CAPACITY, DEFAULT_MEMORY_STORE_LIMITS } from '../broker/memoryBrokerStore.js';
import { SealedBox } from '../session/sealedBox.js';
import { CounterWatch } from './counterWatch.js';
import type { RedisConnection } from './redisConnection.js';

const SESSION_TTL_MS = 24 * 3600_000;
const MAX_LISTED_SESSIONS = DEFAULT_MEMORY_STORE_LIMITS.maxSessions;

const SCRIPTS = {
  // KEYS: claim, session. ARGV: until, now. The claim decides; the record follows if it is still minted.
  claim: `
    if not redis.call('SET', KEYS[1], '1', 'NX', 'PXAT', ARGV[1]) then return 0 end
    if redis.call('HGET', KEYS[2], 'state') == 'minted' then redis.call('HSET', KEYS[2], 'state', 'claimed', 'claimedAt', ARGV[2]) end
    return 1`,
  // KEYS: session. ARGV: ttl ms, then field/value pairs. Never back from ended.
  update: `
    local state = redis.call('HGET', KEYS[1], 'state')
    if not state then return nil end
    if state ~= 'ended' then
      redis.call('HSET', KEYS[1], unpack(ARGV, 2))
      redis.call('PEXPIRE', KEYS[1], ARGV[1])
    end
    return redis.call('HGETALL', KEYS[1])`,
  // KEYS: booking. ARGV: sessionId, until, replacing ('' for none), force ('1'/'0'). Returns the holder when refused.
  book: `
    local current = redis.call('GET', KEYS[1])
    if current then
      local holder = string.match(current, '^(%S+)')
      if holder ~= ARGV[1] and holder ~= ARGV[3] and ARGV[4] ~= '1' then return current end
    end
    redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. ARGV[2], 'PXAT', ARGV[2])
    return false`,
  // KEYS: the slots' bookings in slot order (as many as the display's capacity). ARGV: sessionId, until, replacing ('' for none).
  // Returns the slot taken (0-based), or the holders (one string each) when every slot is held.
  bookFree: `
    local holders = {}
    for index, key in ipairs(KEYS) do
      local current = redis.call('GET', key)
      if (not current) or string.match(current, '^(%S+)') == ARGV[3] then
        redis.call('SET', key, ARGV[1] .. ' ' .. ARGV[2], 'PXAT', ARGV[2])
        return index - 1
      end
      holders[#holders + 1] = current
    end
    return holders`,
  // KEYS: every slot's booking. ARGV: sessionId.
  release: `
    for _, key in ipairs(KEYS) do
      local current = redis.call('GET', key)
      if current and string.match(current, '^(%S+)') == ARGV[1] then redis.call('DEL', key) end
    end
    return 1`,
  // KEYS: session, then every slot's booking. ARGV: sessionId, stats JSON, lease until, ttl ms.
  sample: `
    local state = redis.call('HGET', KEYS[1], 'state')
    if state and state ~= 'ended' then
      redis.call('HSET', KEYS[1], 'stats', ARGV[2])
      redis.call('PEXPIRE', KEYS[1], ARGV[4])
    end
    -- The session's own slot; a lapsed booking (Redis was away) is taken back: the session still shows there.
    local slot = tonumber(redis.call('HGET', KEYS[1], 'slot') or '0') or 0
    local key = KEYS[2 + slot] or KEYS[2]
    local current = redis.call('GET', key)
    if (not current) or string.match(current, '^(%S+)') == ARGV[1] then redis.call('SET', key, ARGV[1] .. ' ' .. ARGV[3], 'PXAT', ARGV[3]) end
    return 1`,
  // KEYS: request, the display's requests zset, its waiting zset. ARGV: id, JSON, state, at, max waiting, ttl ms, most listed.
  createRequest: `
    if ARGV[3] == 'waiting' and redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[5]) then return 0 end
    if not redis.call('SET', KEYS[1], ARGV[2], 'NX', 'PX', ARGV[6]) then return 0 end
    redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
    redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(tonumber(ARGV[7]) + 1))
    if ARGV[3] == 'waiting' then redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1]) end
    return 1`,
  // KEYS: request, the display's waiting zset. ARGV: id, states it may be in (comma-separated), next JSON, next state, ttl ms, its time.
  updateRequest: `
    local current = redis.call('GET', KEYS[1])
    if not current then return 0 end
    local ok, decoded = pcall(cjson.decode, current)
    if not ok or type(decoded) ~= 'table' then return 0 end
    local allowed = false
    for state in string.gmatch(ARGV[2], '[^,]+') do if state == decoded.state then allowed = true end end
    if not allowed then return 0 end
    redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[5])
    -- A request put back to waiting (its accept found no slot) counts in the queue again.
    if ARGV[4] == 'waiting' then redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1]) else redis.call('ZREM', KEYS[2], ARGV[1]) end
    return 1`,
  // KEYS: session. ARGV: displayId, figures JSON. Only the display's own session, while it lives.
  shown: `
    local fields = redis.call('HMGET', KEYS[1], 'state', 'displayId')
    if (not fields[1]) or fields[1] == 'ended' or fields[2] ~= ARGV[1] then return 0 end
    redis.call('HSET', KEYS[1], 'shown', ARGV[2])
    return 1`,
  // KEYS: session. ARGV: 'true' or 'false'. Only while the session lives; the record after it.
  touch: `
    local state = redis.call('HGET', KEYS[1], 'state')
    if (not state) or state == 'ended' then return false end
    redis.call('HSET', KEYS[1], 'touch', ARGV[1])
    return redis.call('HGETALL', KEYS[1])`,
  // KEYS: presence hash. ARGV: displayId, owner.
  clearPresence: `
    local current = redis.call('HGET', KEYS[1], ARGV[1])
    if current and string.match(current, '^(%S+)') == ARGV[2] then redis.call('HDEL', KEYS[1], ARGV[1]) return 1 end
    return 0`,
  // KEYS: displays hash. ARGV: id, JSON. Replace only an existing display.
  replaceDisplay: `
    if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
    redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
    return 1`,
  // KEYS: intents, intent-session. ARGV: sessionId, then every slot's field.
  clearIntent: `
    for index = 2, #ARGV do
      if redis.call('HGET', KEYS[2], ARGV[index]) == ARGV[1] then redis.call('HDEL', KEYS[1], ARGV[index]) redis.call('HDEL', KEYS[2], ARGV[index]) end
    end
    return 1`,
  // KEYS: room-pins hash. ARGV: displayId, the expected PIN's digest ('' for none yet), next stored record JSON, its digest.
  // Returns {1, next} when swapped, else {0, the record now (or next when there is none)}. A record that is not
  // JSON or has no digest counts as none (a PIN kept in clear by an older gateway is replaced).
  swapRoomPin: `
    local current = redis.call('HGET', KEYS[1], ARGV[1])
    local mac = ''
    if current then
      local ok, decoded = pcall(cjson.decode, current)
      if ok and type(decoded) == 'table' and type(decoded.mac) == 'string' then mac = decoded.mac end
    end
    if mac ~= ARGV[2] then return {0, current or ARGV[3]} end
    redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
    return {1, ARGV[3]}`,
  // KEYS: room-pins hash. ARGV: displayId, the record as read. Drops a record no gateway of this deployment can open.
  dropRoomPin: `
    if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('HDEL', KEYS[1], ARGV[1]) return 1 end
    return 0`,
  // KEYS: counter hash. ARGV: delta, window ms, the id of a window started now.
  // Returns {attempts, given back, ms left in the window, window id}; never more given back than counted.
  // A delta of 0 reads and makes no key (window id '' when there is none).
  addToCounter: `
    local window = redis.call('HGET', KEYS[1], 'w')
    if not window then
      if tonumber(ARGV[1]) == 0 then return {0, 0, tonumber(ARGV[2]), ''} end
      window = ARGV[3]
      redis.call('HSET', KEYS[1], 'w', window, 'a', 0, 's', 0)
      redis.call('PEXPIRE', KEYS[1], ARGV[2])
    end
    local delta = tonumber(ARGV[1])
    if delta > 0 then redis.call('HINCRBY', KEYS[1], 'a', delta) elseif delta < 0 then redis.call('HINCRBY', KEYS[1], 's', -delta) end
    local attempts = tonumber(redis.call('HGET', KEYS[1], 'a') or '0')
    local back = tonumber(redis.call('HGET', KEYS[1], 's') or '0')
    if back > attempts then
      back = attempts
      redis.call('HSET', KEYS[1], 's', back)
    end
    local ttl = redis.call('PTTL', KEYS[1])
    if ttl < 0 then
      redis.call('PEXPIRE', KEYS[1], ARGV[2])
      ttl = tonumber(ARGV[2])
    end
    return {attempts, back, ttl, window}`,
} as const;

type ScriptName = keyof typeof SCRIPTS;
type ScriptRunner = (...args: (string | number)[]) => Promise<unknown>;

const NUMBER_FIELDS = ['mintedAt', 'expiresAt', 'claimedAt', 'securedAt', 'endedAt', 'slot'] as const;
const JSON_FIELDS = ['target', 'requestedBy', 'stats', 'shown', 'touch'] as const;

function recordFields(record: Partial<SessionRecord>): string[] {
  const fields: string[] = [];
  for (const [name, value] of Object.entries(record) as [string, unknown][]) {
    if (value === undefined) continue;
    const plain = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
    fields.push(name, plain && !(JSON_FIELDS as readonly string[]).includes(name) ? String(value) : JSON.stringify(value));
  }
  return fields;
}

function parseRecord(hash: Record<string, string>): SessionRecord | undefined {
  if (!hash.sessionId || !hash.state) return undefined;
  const record: Record<string, unknown> = { ...hash };
  for (const name of NUMBER_FIELDS) if (hash[name] !== undefined) record[name] = Number(hash[name]);
  for (const name of JSON_FIELDS) if (hash[name] !== undefined) record[name] = JSON.parse(hash[name]) as unknown;
  return record as unknown as SessionRecord;
}

/** HGETALL as Lua returns it: a flat array of field, value. */
function pairsToHash(pairs: unknown): Record<string, string> {
  const hash: Record<string, string> = {};
  if (!Array.isArray(pairs)) return hash;
  for (let i = 0; i + 1 < pairs.length; i += 2) hash[String(pairs[i])] = String(pairs[i + 1]);
  return hash;
}

function parseBooking(displayId: string, value: string | null | undefined, slot = 0): DisplayBooking | undefined {
  if (!value) return undefined;
  const [sessionId, until] = value.split(' ');
  return sessionId ? { displayId, sessionId, until: Number(until), ...(slot === 0 ? {} : { slot }) } : undefined;
}

/** Every slot's field (intents) of a display. */
function slotKeys(displayId: string, count = MAX_ROOM_SLOTS): string[] {
  return Array.from({ length: count }, (_, slot) => slotKey(displayId, slot));
}

/** A waiting or showing request lives as long as a session record; a decided one as long as its presenter may still ask. */
function requestTtl(state: RoomRequestState): number {
  return state === 'waiting' || state === 'on-screen' ? SESSION_TTL_MS : ROOM_REQUEST_RETENTION_MS;
}

/** Most requests a display's listing keeps (the rest expire on their own). */
const MAX_LISTED_REQUESTS = 200;

/** A room PIN as Redis keeps it: the record sealed, and the PIN's keyed digest for the compare-and-set. */
interface StoredRoomPin {
  readonly mac: string;
  readonly sealed: string;
}

/** What a room PIN's seal holds: the record, and the display it was sealed for. */
function isSealedRoomPin(value: unknown): value is RoomPinRecord & { displayId: string } {
  if (typeof value !== 'object' || value === null) return false;
  const { displayId, pin, issuedAt, expiresAt, previous } = value as Record<string, unknown>;
  const previousOk = previous === undefined || (typeof previous === 'object' && previous !== null
    && typeof (previous as Record<string, unknown>).pin === 'string' && typeof (previous as Record<string, unknown>).until === 'number');
  return typeof displayId === 'string' && typeof pin === 'string' && typeof issuedAt === 'number' && typeof expiresAt === 'number' && previousOk;
}

export interface RedisBrokerStoreOptions {
  /** The deployment's session secret: room PINs are sealed and digested under keys derived from it. */
  readonly sessionSecret: Buffer;
  /** Prefix of every key. */
  readonly prefix?: string | undefined;
  readonly clock?: (() => number) | undefined;
  readonly endedRetentionMs?: number | undefined;
  /** Where a counter that lost attempts, or a PIN no gateway can open, is told. */
  readonly logger?: Logger | undefined;
}

export class RedisBrokerStore implements BrokerStore {
  private readonly scripts = new Map<ScriptName, ScriptRunner>();
  private readonly prefix: string;
  private readonly clock: () => number;
  private readonly endedRetentionMs: number;
  private readonly pins: SealedBox;
  private readonly counters = new CounterWatch();
  private readonly logger: Logger | undefined;

  constructor(private readonly connection: RedisConnection, options: RedisBrokerStoreOptions) {
    this.prefix = options.prefix ?? 'lanterna:';
    this.clock = options.clock ?? Date.now;
    this.endedRetentionMs = options.endedRetentionMs ?? DEFAULT_MEMORY_STORE_LIMITS.endedRetentionMs;
    this.pins = new SealedBox(options.sessionSecret, 'room pin');
    this.logger = options.logger;
    const client = connection.client as unknown as Record<string, ScriptRunner> & Redis;
    for (const [name, lua] of Object.entries(SCRIPTS) as [ScriptName, string][]) {
      const command = `lanterna_${name}`;
      client.defineCommand(command, { lua });
      this.scripts.set(name, (...args) => client[command]?.(...args) ?? Promise.reject(new Error(`script ${name} missing`)));
    }
  }

  private key(...parts: string[]): string {
    return this.prefix + parts.join(':');
  }

  private script(name: ScriptName, keys: string[], ...args: (string | number)[]): Promise<unknown> {
    const run = this.scripts.get(name);
    if (!run) throw new Error(`script ${name} missing`);
    return this.connection.run(() => run(keys.length, ...keys, ...args));
  }

  // Sessions

  async putSession(record: SessionRecord): Promise<void> {
    const key = this.key('session', record.sessionId);
    await this.connection.run((redis) => redis.multi()
      .del(key)
      .hset(key, ...recordFields(record))
      .pexpire(key, SESSION_TTL_MS)
      .zadd(this.key('sessions'), record.mintedAt, record.sessionId)
      .zremrangebyrank(this.key('sessions'), 0, -(MAX_LISTED_SESSIONS + 1))
      .exec());
  }

  async claimSession(sessionId: string, until: number, leg?: 'presenter'): Promise<boolean> {
    // A leg's claim has its own key, and a record key that never exists: the session's state stays as it is.
    const key = leg === undefined ? sessionId : `${sessionId}:${leg}`;
    return (await this.script('claim', [this.key('claim', key), this.key('session', key)], Math.max(until, this.clock() + 1), this.clock())) === 1;
  }

  async updateSession(sessionId: string, update: SessionUpdate): Promise<SessionRecord | undefined> {
    const ttl = update.state === 'ended' ? this.endedRetentionMs : SESSION_TTL_MS;
    const pairs = await this.script('update', [this.key('session', sessionId)], ttl, ...recordFields(update));
    return pairs ? parseRecord(pairsToHash(pairs)) : undefined;
  }

  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    return parseRecord(await this.connection.run((redis) => redis.hgetall(this.key('session', sessionId))));
  }

  async listSessions(): Promise<SessionRecord[]> {
    return this.connection.run(async (redis) => {
      const ids = await redis.zrange(this.key('sessions'), 0, -1);
      if (ids.length === 0) return [];
      const pipeline = redis.pipeline();
      for (const id of ids) pipeline.hgetall(this.key('session', id));
      const hashes = (await pipeline.exec()) ?? [];
      const records: SessionRecord[] = [];
      const gone: string[] = [];
      hashes.forEach(([, hash], index) => {
        const record = parseRecord(hash as Record<string, string>);
        if (record) records.push(record);
        else gone.push(ids[index] ?? '');
      });
      if (gone.length > 0) await redis.zrem(this.key('sessions'), ...gone);
      return records;
    });
  }

  // Presence and signage backoff

  async setPresence(presence: DisplayPresence): Promise<void> {
    await this.connection.run((redis) => redis.hset(this.key('presence'), presence.displayId, `${presence.owner} ${presence.since} ${presence.slots ?? 1}`));
  }

  async clearPresence(displayId: string, owner: string): Promise<boolean> {
    return (await this.script('clearPresence', [this.key('presence')], displayId, owner)) === 1;
  }

  async listPresence(): Promise<DisplayPresence[]> {
    const all = await this.connection.run((redis) => redis.hgetall(this.key('presence')));
    return Object.entries(all).map(([displayId, value]) => {
      const [owner = '', since = '0', slots = '1'] = value.split(' ');
      // One slot is what a presence without the field means (as the memory store keeps it).
      const count = Number(slots);
      return { displayId, owner, since: Number(since), ...(count > 1 ? { slots: count } : {}) };
    });
  }

  async getReprojection(displayId: string): Promise<ReprojectionState | undefined> {
    const value = await this.connection.run((redis) => redis.hget(this.key('reproject'), displayId));
    return value ? JSON.parse(value) as ReprojectionState : undefined;
  }

  async setReprojection(displayId: string, state: ReprojectionState | undefined): Promise<void> {
    await this.connection.run((redis) => (state ? redis.hset(this.key('reproject'), displayId, JSON.stringify(state)) : redis.hdel(this.key('reproject'), displayId)));
  }

  // Displays

  async listDisplays(): Promise<DisplayRecord[]> {
    const all = await this.connection.run((redis) => redis.hvals(this.key('displays')));
    return all.map((value) => JSON.parse(value) as DisplayRecord);
  }

  async getDisplay(displayId: string): Promise<DisplayRecord | undefined> {
    const value = await this.connection.run((redis) => redis.hget(this.key('displays'), displayId));
    return value ? JSON.parse(value) as DisplayRecord : undefined;
  }

  async putDisplay(record: DisplayRecord, mode: 'create' | 'replace' | 'upsert'): Promise<boolean> {
    const key = this.key('displays');
    const value = JSON.stringify(record);
    switch (mode) {
      case 'create': return (await this.connection.run((redis) => redis.hsetnx(key, record.id, value))) === 1;
      case 'replace': return (await this.script('replaceDisplay', [key], record.id, value)) === 1;
      case 'upsert': await this.connection.run((redis) => redis.hset(key, record.id, value)); return true;
    }
  }

  async deleteDisplay(displayId: string): Promise<boolean> {
    const results = await this.connection.run((redis) => redis.multi()
      .hdel(this.key('displays'), displayId)
      .hdel(this.key('intents'), ...slotKeys(displayId))
      .hdel(this.key('intent-session'), ...slotKeys(displayId))
      .hdel(this.key('presence'), displayId)
      .hdel(this.key('room-pins'), displayId)
      .hdel(this.key('room-settings'), displayId)
      .exec());
    return results?.[0]?.[1] === 1;
  }

  // Bookings

  async bookDisplay(booking: DisplayBooking, options: { replacing?: string | undefined; force?: boolean | undefined } = {}): Promise<BookingResult> {
    const until = Math.max(booking.until, this.clock() + 1);
    const holder = await this.script('book', [this.bookingKey(booking.displayId, booking.slot)], booking.sessionId, until, options.replacing ?? '', options.force ? '1' : '0');
    if (typeof holder !== 'string') return { ok: true };
    return { ok: false, holder: parseBooking(booking.displayId, holder, booking.slot) ?? { displayId: booking.displayId, sessionId: '', until: 0 } };
  }

  async bookFreeSlot(booking: Omit<DisplayBooking, 'slot'>, capacity: number, replacing?: string): Promise<SlotBookingResult> {
    const count = Math.max(1, Math.min(capacity, MAX_ROOM_SLOTS));
    const keys = slotKeys(booking.displayId, count).map((_, slot) => this.bookingKey(booking.displayId, slot));
    const reply = await this.script('bookFree', keys, booking.sessionId, Math.max(booking.until, this.clock() + 1), replacing ?? '');
    if (typeof reply === 'number') return { ok: true, slot: reply };
    const holders = (Array.isArray(reply) ? reply : []).map((value, slot) => parseBooking(booking.displayId, String(value), slot)).filter((held) => held !== undefined);
    return { ok: false, holders };
  }

  async getBooking(displayId: string, slot = 0): Promise<DisplayBooking | undefined> {
    return parseBooking(displayId, await this.connection.run((redis) => redis.get(this.bookingKey(displayId, slot))), slot);
  }

  async listBookings(displayId: string): Promise<DisplayBooking[]> {
    const values = await this.connection.run((redis) => redis.mget(...this.bookingKeys(displayId)));
    return values.map((value, slot) => parseBooking(displayId, value, slot)).filter((booking) => booking !== undefined);
  }

  async releaseDisplay(displayId: string, sessionId: string): Promise<void> {
    await this.script('release', this.bookingKeys(displayId), sessionId);
  }

  async sampleSessions(samples: SessionSample[], leaseUntil: number): Promise<void> {
    if (samples.length === 0) return;
    const run = this.scripts.get('sample');
    if (!run) throw new Error('script sample missing');
    await this.connection.run(async (redis) => {
      const pipeline = redis.pipeline() as unknown as Record<string, ((...args: (string | number)[]) => unknown) | undefined> & { exec(): Promise<unknown> };
      for (const { sessionId, displayId, ...stats } of samples) {
        const keys = [this.key('session', sessionId), ...this.bookingKeys(displayId)];
        pipeline.lanterna_sample?.(keys.length, ...keys, sessionId, JSON.stringify(stats), leaseUntil, SESSION_TTL_MS);
      }
      await pipeline.exec();
    });
  }

  /** Slot 0's key is the display's booking key from before slots: a gateway of the farm still running the older code agrees on it. */
  private bookingKey(displayId: string, slot: number | undefined): string {
    return this.key('booking', slotKey(displayId, slot));
  }

  private bookingKeys(displayId: string): string[] {
    return Array.from({ length: MAX_ROOM_SLOTS }, (_, slot) => this.bookingKey(displayId, slot));
  }

  async setTouch(sessionId: string, allowed: boolean): Promise<SessionRecord | undefined> {
    const pairs = await this.script('touch', [this.key('session', sessionId)], allowed ? 'true' : 'false');
    return pairs ? parseRecord(pairsToHash(pairs)) : undefined;
  }

  async recordShown(sessionId: string, displayId: string, figures: DisplayFigures): Promise<boolean> {
    return (await this.script('shown', [this.key('session', sessionId)], displayId, JSON.stringify(figures))) === 1;
  }

  // Intents

  async getIntent(displayId: string, slot?: number): Promise<ProjectionIntent | undefined> {
    const value = await this.connection.run((redis) => redis.hget(this.key('intents'), slotKey(displayId, slot)));
    return value ? JSON.parse(value) as ProjectionIntent : undefined;
  }

  async setIntent(intent: ProjectionIntent): Promise<void> {
    const field = slotKey(intent.displayId, intent.slot);
    await this.connection.run((redis) => redis.multi()
      .hset(this.key('intents'), field, JSON.stringify(intent))
      .hset(this.key('intent-session'), field, intent.sessionId)
      .exec());
  }

  async clearIntent(displayId: string, sessionId: string): Promise<void> {
    await this.script('clearIntent', [this.key('intents'), this.key('intent-session')], sessionId, ...slotKeys(displayId));
  }

  // Rooms

  async getRoomSettings(displayId: string): Promise<RoomSettings | undefined> {
    const value = await this.connection.run((redis) => redis.hget(this.key('room-settings'), displayId));
    return value ? JSON.parse(value) as RoomSettings : undefined;
  }

  async putRoomSettings(displayId: string, settings: RoomSettings): Promise<void> {
    await this.connection.run((redis) => redis.hset(this.key('room-settings'), displayId, JSON.stringify(settings)));
  }

  async createRoomRequest(request: RoomRequest, maxWaiting: number): Promise<boolean> {
    const keys = [this.key('room-request', request.requestId), this.key('room-requests', request.displayId), this.key('room-waiting', request.displayId)];
    const reply = await this.script('createRequest', keys, request.requestId, JSON.stringify(request), request.state, request.at, maxWaiting, requestTtl(request.state), MAX_LISTED_REQUESTS);
    return reply === 1;
  }

  async updateRoomRequest(requestId: string, from: readonly RoomRequestState[], next: RoomRequest): Promise<RoomRequest | undefined> {
    const keys = [this.key('room-request', requestId), this.key('room-waiting', next.displayId)];
    const reply = await this.script('updateRequest', keys, requestId, from.join(','), JSON.stringify(next), next.state, requestTtl(next.state), next.at);
    return reply === 1 ? next : undefined;
  }

  async getRoomRequest(requestId: string): Promise<RoomRequest | undefined> {
    const value = await this.connection.run((redis) => redis.get(this.key('room-request', requestId)));
    return value ? JSON.parse(value) as RoomRequest : undefined;
  }

  async listRoomRequests(displayId: string): Promise<RoomRequest[]> {
    return this.connection.run(async (redis) => {
      const ids = await redis.zrange(this.key('room-requests', displayId), 0, -1);
      if (ids.length === 0) return [];
      const values = await redis.mget(...ids.map((id) => this.key('room-request', id)));
      const gone = ids.filter((_, index) => !values[index]);
      if (gone.length > 0) await redis.zrem(this.key('room-requests', displayId), ...gone);
      return values.filter((value): value is string => typeof value === 'string').map((value) => JSON.parse(value) as RoomRequest);
    });
  }

  // Audit and pin conflicts

  async appendAudit(entry: AuditInput): Promise<number> {
    return this.connection.run(async (redis) => {
      const seq = await redis.incr(this.key('audit-seq'));
      await redis.multi()
        .zadd(this.key('audit'), seq, JSON.stringify({ seq, ...entry } satisfies AuditEntry))
        .zremrangebyrank(this.key('audit'), 0, -(AUDIT_CAPACITY + 1))
        .exec();
      return seq;
    });
  }

  async listAudit({ before, limit }: { before?: number | undefined; limit: number }): Promise<AuditPage> {
    const max = before === undefined ? '+inf' : `(${before}`;
    const values = await this.connection.run((redis) => redis.zrevrangebyscore(this.key('audit'), max, '-inf', 'LIMIT', 0, limit + 1));
    const entries = values.slice(0, limit).map((value) => JSON.parse(value) as AuditEntry);
    const last = entries.at(-1);
    return values.length > limit && last ? { entries, next: last.seq } : { entries };
  }

  async recordPinConflicts(conflicts: PinConflict[]): Promise<void> {
    if (conflicts.length === 0) return;
    await this.connection.run((redis) => redis.hset(this.key('pin-conflicts'), ...conflicts.flatMap((conflict) => [conflict.key, JSON.stringify(conflict)])));
  }

  async listPinConflicts(): Promise<PinConflict[]> {
    const values = await this.connection.run((redis) => redis.hvals(this.key('pin-conflicts')));
    return values.map((value) => JSON.parse(value) as PinConflict);
  }

  async clearPinConflicts(keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.connection.run((redis) => redis.hdel(this.key('pin-conflicts'), ...keys));
  }

  // Room PINs and rate-limit counters

  async getRoomPin(displayId: string): Promise<RoomPinRecord | undefined> {
    const value = await this.connection.run((redis) => redis.hget(this.key('room-pins'), displayId));
    if (!value) return undefined;
    const record = this.openRoomPin(displayId, value);
    if (record) return record;
    // Sealed with another secret, kept in clear by an older gateway, or changed: a new PIN is drawn in its place.
    this.logger?.warn({ event: 'room-pin-unreadable', displayId }, 'a room PIN in redis could not be opened with this gateway\'s session secret: a new one is drawn (do all gateways share sessionSecret?)');
    await this.script('dropRoomPin', [this.key('room-pins')], displayId, value);
    return undefined;
  }

  async swapRoomPin(displayId: string, expectedPin: string | null, next: RoomPinRecord): Promise<{ swapped: boolean; record: RoomPinRecord }> {
    const expected = expectedPin === null ? '' : this.pins.digest(displayId, expectedPin);
    const stored = JSON.stringify({ mac: this.pins.digest(displayId, next.pin), sealed: this.pins.seal({ displayId, ...next }) } satisfies StoredRoomPin);
    const reply = await this.script('swapRoomPin', [this.key('room-pins')], displayId, expected, stored);
    const [swapped, now]: unknown[] = Array.isArray(reply) ? (reply as unknown[]) : [0, undefined];
    if (Number(swapped) === 1) return { swapped: true, record: next };
    const record = typeof now === 'string' ? this.openRoomPin(displayId, now) : undefined;
    if (!record) throw new Error(`room pin of ${displayId}: the record in redis cannot be opened`);
    return { swapped: false, record };
  }

  /** The record, or undefined unless it was sealed for this display under this secret and its digest agrees. */
  private openRoomPin(displayId: string, value: string): RoomPinRecord | undefined {
    let stored: Partial<StoredRoomPin>;
    try {
      stored = JSON.parse(value) as Partial<StoredRoomPin>;
    } catch {
      return undefined;
    }
    if (typeof stored.sealed !== 'string' || typeof stored.mac !== 'string') return undefined;
    const opened = this.pins.open(stored.sealed);
    if (!isSealedRoomPin(opened) || opened.displayId !== displayId || this.pins.digest(displayId, opened.pin) !== stored.mac) return undefined;
    const { pin, issuedAt, expiresAt, previous } = opened;
    return { pin, issuedAt, expiresAt, ...(previous ? { previous } : {}) };
  }

  async addToCounter(key: string, delta: number, windowMs: number): Promise<CounterState> {
    const counter = this.key('attempts', key);
    const reply = await this.script('addToCounter', [counter], Math.trunc(delta), Math.max(1, Math.trunc(windowMs)), randomBytes(8).toString('hex'));
    const [attempts, givenBack, ttl] = Array.isArray(reply) ? reply.slice(0, 3).map(Number) : [];
    const window = Array.isArray(reply) ? String(reply[3]) : '';
    if (attempts === undefined || givenBack === undefined || ttl === undefined || ![attempts, givenBack, ttl].every(Number.isFinite)) throw new Error('counter reply malformed');
    // A read of a counter that is not there (a network's count, read before an address is counted) makes none.
    if (window === '') return { count: 0, resetAt: this.clock() + ttl };
    const lost = this.counters.observe(key, { window, attempts, givenBack, ttlMs: ttl }, Math.max(0, Math.trunc(delta)));
    if (lost > 0) {
      // Fail closed: the attempts this process saw counted are counted again, for every gateway.
      this.logger?.warn({ event: 'pin-counter-tampered', counter: key, lost }, 'a wrong-PIN counter in redis lost attempts before its window ended (deleted or rewritten, or redis lost its data): they are counted again');
      await this.connection.run((redis) => redis.hincrby(counter, 'a', lost));
    }
    return { count: Math.max(0, attempts + lost - givenBack), resetAt: this.clock() + ttl };
  }

  async putInkPicture(key: string, pngBase64: string, ttlMs: number): Promise<void> {
    // Redis bounds it by time: every picture expires (PX), and the gateway caps each one's size.
    await this.connection.run((redis) => redis.set(this.key('ink', key), pngBase64, 'PX', Math.max(1, Math.trunc(ttlMs))));
  }

  async getInkPicture(key: string): Promise<string | undefined> {
    return (await this.connection.run((redis) => redis.get(this.key('ink', key)))) ?? undefined;
  }
}
