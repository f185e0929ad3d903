export declare class EmscriptenHost {
  static load<T extends EmscriptenHost>(
    this: new (module: any) => T,
    factory: (options: object) => Promise<any>,
    moduleOptions?: object,
    options?: { logLevel?: string },
  ): Promise<T>;
  constructor(module: any, ownedKinds: Set<number>);
  ownedKinds: Set<number>;
  dispatch(handle: number, kind: number, a: number, b: number, c: number, d: number): void;
  hostEvent(kind: number, a: number): boolean;
  module: any;
  sessions: Map<number, any>;
  terminated?: boolean;
  close(deadlineMs?: number): Promise<void>;
}
export function codedErrorClass(name: string): new (code: string, message: string) => Error & { code: string };
export function takePosted(module: any, ptr: number, length: number): Uint8Array;
export declare class HostedSession {
  constructor(
    host: EmscriptenHost,
    handle: number,
    ring: Omit<import('./ringFeeder.js').ReceiveRing, 'running'>,
    callbacks: string[],
  );
  module: any;
  handle: number;
  state: string;
  input: import('./ringFeeder.js').RingFeeder;
  threadStarted(state: string): void;
  stop(): void;
  abandon(): void;
  /** The subclass's: asks its running thread to stop. */
  stopThread(): void;
  /** The subclass's: the session's end. */
  finish(end: { reason: string; code: number }, options?: { touchWasm?: boolean }): void;
  release(host: EmscriptenHost, free: (() => void) | null): void;
}
