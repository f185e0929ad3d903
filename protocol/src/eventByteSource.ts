// A ByteSource over anything that emits its chunks as events: a Node socket
// or stream ('data', 'end', 'close', 'error'), a ws WebSocket ('message',
// 'close', 'error'). Typed structurally, so the package names no platform
// type and does no I/O itself: it only listens until detached.

/** The slice of an event emitter this needs (Node's EventEmitter and ws's WebSocket have it). */
export interface ChunkEmitter {
  on(event: string, listener: Listener): unknown;
  off(event: string, listener: Listener): unknown;
}

type Listener = (...args: unknown[]) => void;

export interface EventByteSource<Bytes extends Uint8Array> {
  /** The next chunk, or null after an end event; rejects with an 'error' event's error. */
  read(): Promise<Bytes | null>;
  /**
   * Stops listening and returns the chunks that arrived but were not read
   * (a Node stream can emit several in one go). A Node stream keeps flowing
   * without listeners: pause it in the same turn, or its next chunks are lost.
   */
  detach(): Bytes[];
}

export interface EventByteSourceOptions {
  /** The event that carries a chunk: `data` (the default, Node streams) or `message` (ws). */
  readonly dataEvent?: string;
  /** The events that end the stream (by default `end` and `close`). */
  readonly endEvents?: readonly string[];
}

export function eventByteSource<Bytes extends Uint8Array>(emitter: ChunkEmitter, options: EventByteSourceOptions = {}): EventByteSource<Bytes> {
  const dataEvent = options.dataEvent ?? 'data';
  const endEvents = options.endEvents ?? ['end', 'close'];
  const queued: Bytes[] = [];
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  const onData = (chunk: Bytes): void => {
    queued.push(chunk);
    notify();
  };
  const onEnd = (): void => {
    ended = true;
    notify();
  };
  const onError = (error: Error): void => {
    failure = error;
    notify();
  };
  // The emitter promises these arguments for these events; it cannot say so in a type.
  emitter.on(dataEvent, onData as Listener);
  for (const event of endEvents) emitter.on(event, onEnd);
  emitter.on('error', onError as Listener);
  return {
    async read(): Promise<Bytes | null> {
      for (;;) {
        const chunk = queued.shift();
        if (chunk !== undefined) return chunk;
        if (failure !== undefined) throw failure;
        if (ended) return null;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
    detach(): Bytes[] {
      emitter.off(dataEvent, onData as Listener);
      for (const event of endEvents) emitter.off(event, onEnd);
      emitter.off('error', onError as Listener);
      ended = true;
      notify();
      return queued.splice(0);
    },
  };
}
