import { EventEmitter } from 'node:events';
import cluster from 'node:cluster';
import type { BrokerEvent } from '../broker/brokerEvents.js';
import { sendToEveryWorker } from './sendToWorker.js';

/** Events one worker must tell all workers: the broker's (a display's control socket may live in any of them). */
export type BusEvent = BrokerEvent;

export interface GatewayBus {
  publish(event: BusEvent): void;
  subscribe(handler: (event: BusEvent) => void): void;
}

/** Single process: events go straight back to this process's handlers. */
export class LocalBus implements GatewayBus {
  private readonly emitter = new EventEmitter();
  publish(event: BusEvent): void {
    queueMicrotask(() => this.emitter.emit('event', event));
  }
  subscribe(handler: (event: BusEvent) => void): void {
    this.emitter.on('event', handler);
  }
}

interface Envelope { lanternaBus: BusEvent }

function isEnvelope(message: unknown): message is Envelope {
  return typeof message === 'object' && message !== null && 'lanternaBus' in message;
}

/** Cluster worker: publish goes to the primary, which echoes it to every worker (the sender included). */
export class WorkerBus implements GatewayBus {
  publish(event: BusEvent): void {
    process.send?.({ lanternaBus: event } satisfies Envelope);
  }
  subscribe(handler: (event: BusEvent) => void): void {
    process.on('message', (message: unknown) => {
      if (isEnvelope(message)) handler(message.lanternaBus);
    });
  }
}

/** Runs in the primary: fans every worker's bus event out to all workers. */
export function relayBusInPrimary(): void {
  cluster.on('message', (_worker, message: unknown) => {
    if (!isEnvelope(message)) return;
    sendToEveryWorker(cluster.workers, message);
  });
}

/** Runs in the primary: an event of the primary's own (a dead worker's session ended) to every live worker. */
export function publishFromPrimary(event: BusEvent): void {
  sendToEveryWorker(cluster.workers, { lanternaBus: event } satisfies Envelope);
}
