// What WS-Discovery needs to survive a restart, in the state directory:
// AppSequence's InstanceId, which must rise every time the responder starts
// (clients drop messages whose InstanceId went back), and the seed that makes
// each display's endpoint address (urn:uuid:…) stable across restarts and
// distinct between gateways. Written whole or not at all
// (../persist/atomicFileSync.ts).
import { readFileSync } from 'node:fs';
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { replaceFileSync } from '../persist/atomicFileSync.js';

export interface WsdIdentity {
  readonly instanceId: number;
  /** A UUID of this gateway's, the namespace of its displays' endpoint UUIDs. */
  readonly deviceSeed: string;
}

const FILE = 'wsd-state.json';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class WsdStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WsdStateError';
  }
}

export function wsdStateFile(stateDir: string): string {
  return join(stateDir, FILE);
}

function readState(stateDir: string): Partial<WsdIdentity> | undefined {
  let text: string;
  try {
    text = readFileSync(wsdStateFile(stateDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as { instanceId?: unknown; deviceSeed?: unknown };
    const instanceId = typeof parsed.instanceId === 'number' && Number.isInteger(parsed.instanceId) && parsed.instanceId >= 0 ? parsed.instanceId : undefined;
    const deviceSeed = typeof parsed.deviceSeed === 'string' && UUID.test(parsed.deviceSeed) ? parsed.deviceSeed : undefined;
    return { instanceId, deviceSeed };
  } catch {
    throw new WsdStateError(`${wsdStateFile(stateDir)} is not valid JSON: delete it to start a new discovery identity`);
  }
}

/**
 * The responder's start: the next InstanceId (above the last one and at least
 * the time in seconds, so a lost state file still moves forward), persisted
 * before any message carries it.
 */
export function startWsdInstance(stateDir: string, now = Date.now()): WsdIdentity {
  const previous = readState(stateDir);
  const instanceId = Math.min(0xffffffff, Math.max((previous?.instanceId ?? 0) + 1, Math.floor(now / 1000)));
  const deviceSeed = previous?.deviceSeed ?? randomUUID();
  replaceFileSync(wsdStateFile(stateDir), `${JSON.stringify({ instanceId, deviceSeed })}\n`);
  return { instanceId, deviceSeed };
}

/** The seed only, for workers answering metadata (the primary made the file before they started). */
export function readDeviceSeed(stateDir: string): string {
  const seed = readState(stateDir)?.deviceSeed;
  if (!seed) throw new WsdStateError(`${wsdStateFile(stateDir)} has no device seed: the WS-Discovery responder has not started`);
  return seed;
}

/**
 * The seed a farm of gateways sharing Redis uses, the same in every instance
 * without asking the store: derived from the session secret the farm must
 * share anyway (one-way, so the public endpoint UUIDs reveal nothing of it).
 * A display moving between instances keeps its endpoint, and a presenter's
 * computer sees one device, not one per gateway.
 */
export function farmDeviceSeed(sessionSecret: Buffer): string {
  const hex = createHmac('sha256', sessionSecret).update('lanterna ws-discovery endpoint namespace v1').digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Where a gateway's endpoint seed comes from: the farm's (broker.store redis) or its own state directory's. */
export function deviceSeedOf(shared: boolean, sessionSecret: Buffer, stateSeed: () => string): string {
  return shared ? farmDeviceSeed(sessionSecret) : stateSeed();
}

/** A display's endpoint address: a name-based (version 5) UUID of the display id in the gateway's namespace. */
export function displayEndpoint(deviceSeed: string, displayId: string): string {
  const namespace = Buffer.from(deviceSeed.replaceAll('-', ''), 'hex');
  const hash = createHash('sha1').update(namespace).update(displayId, 'utf8').digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
