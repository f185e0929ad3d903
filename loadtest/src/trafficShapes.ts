// What each display of a chaos or soak fleet offers. Unlike the capacity
// ramps (one pattern for every display), a fleet mixes shapes, so requests
// name their answer's size (sizedRequest.ts) and one echo host serves all.
import { buildSizedRequest } from './sizedRequest.js';
import type { TrafficPattern } from './trafficPattern.js';

export interface TrafficShape {
  name: string;
  upBytes: number;
  downBytes: number;
  intervalMs: number;
  /** Requests sent back to back each interval. */
  burst: number;
}

/** The whitepaper's KW v1: 90 B each way every 100 ms. */
export const KW_V1_SHAPE: TrafficShape = { name: 'kw-v1', upBytes: 90, downBytes: 90, intervalMs: 100, burst: 1 };
/** KW v2.2: 25 B up, 1669 B down every 200 ms. */
export const KW_V22_SHAPE: TrafficShape = { name: 'kw-v2.2', upBytes: 25, downBytes: 1669, intervalMs: 200, burst: 1 };
/** A slide change or an animation step: ten 8 KB answers at once every 2 s (80 KB in a burst). */
export const BURST_SHAPE: TrafficShape = { name: 'burst', upBytes: 200, downBytes: 8000, intervalMs: 2000, burst: 10 };

/** The soak's mix: displays take these in turn. */
export const SOAK_MIX: readonly TrafficShape[] = [KW_V1_SHAPE, KW_V22_SHAPE, BURST_SHAPE];

export function shapeFromPattern(pattern: TrafficPattern, name = 'custom'): TrafficShape {
  return { name, ...pattern, burst: 1 };
}

/** The request PDU of a shape: it names the answer's size (0 when the answer is the echo). */
export function requestFor(shape: TrafficShape): Buffer {
  return buildSizedRequest(shape.upBytes, shape.downBytes === shape.upBytes ? 0 : shape.downBytes);
}
