// A BrokerStore that says when presence changed, whichever worker changed it:
// the one WS-Discovery responder per gateway sits beside the store (in the
// cluster primary, or the one process) and announces displays from this.
import type { BrokerStore } from './brokerStore.js';

export function withPresenceFeed(store: BrokerStore, onChange: () => void): BrokerStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      const call = value as (...args: unknown[]) => unknown;
      if (property !== 'setPresence' && property !== 'clearPresence') return call.bind(target);
      return async (...args: unknown[]) => {
        const result = await (call.apply(target, args) as Promise<unknown>);
        onChange();
        return result;
      };
    },
  });
}
