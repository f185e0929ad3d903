import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PacedConnection, type WindowCounters } from './pacedConnection.js';
import { LatencyRecorder } from './latencyHistogram.js';
import type { EchoChannel } from './echoChannel.js';

function recordingChannel(sends: number[]): EchoChannel {
  return { send: () => { sends.push(performance.now()); }, onResponses: () => undefined, onFailure: () => undefined, close: () => undefined };
}

const busy = (ms: number): void => { const end = performance.now() + ms; while (performance.now() < end) { /* stall the loop */ } };

void test('phases survive event-loop stalls: connections stay spread over the interval instead of collapsing into lockstep', { timeout: 20_000 }, async () => {
  const intervalMs = 100;
  const counters: WindowCounters = { sent: 0, received: 0, failures: 0, lastFailure: undefined };
  const recorder = new LatencyRecorder();
  const sends = Array.from({ length: 50 }, () => [] as number[]);
  const connections = sends.map((list) => new PacedConnection(recordingChannel(list), Buffer.alloc(9), intervalMs, recorder, counters));
  const origin = performance.now();
  connections.forEach((connection, index) => connection.start(index * 2));
  // 30 ms stalls every 200 ms for 2 s: with setInterval every timer late in a stall is re-armed from the same instant
  const staller = setInterval(() => busy(30), 200);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  clearInterval(staller);
  // Where each connection's timeline now sits within the interval. Actual send
  // times would also measure this machine's other load (a descheduled process
  // fires every due timer at once, whatever the pacing), so the schedule is read.
  const phases = new Set(connections.map((connection) => Math.floor((((connection.nextSendAt() - origin) % intervalMs) + 0.5) / 2)));
  for (const connection of connections) connection.close();
  assert.ok(phases.size >= 45, `distinct 2 ms phases among 50 connections after stalls: ${phases.size}`);
  assert.ok(counters.sent > 50 * 15, `sends kept going: ${counters.sent}`);
});

void test('a send missed in a long stall is skipped, not caught up in a burst', async () => {
  const counters: WindowCounters = { sent: 0, received: 0, failures: 0, lastFailure: undefined };
  const times: number[] = [];
  const connection = new PacedConnection(recordingChannel(times), Buffer.alloc(9), 20, new LatencyRecorder(), counters);
  connection.start(0);
  await new Promise((resolve) => setTimeout(resolve, 30));
  busy(200);
  await new Promise((resolve) => setTimeout(resolve, 50));
  connection.close();
  // A tick that fires late may legitimately be followed by its on-time
  // successor a few ms later, so two sends can sit close together on a busy
  // machine; catching up the ten missed sends would put ten in one window.
  const mostInFiveMs = Math.max(...times.map((at) => times.filter((other) => other >= at && other < at + 5).length));
  assert.ok(mostInFiveMs <= 2, `no catch-up burst: ${mostInFiveMs} sends within 5 ms (${times.map((at) => at.toFixed(1)).join(', ')})`);
  assert.ok(times.length < 12, `${times.length} sends in ~280 ms at 20 ms, 10 of them missed in the stall`);
});
