export interface ReceiveRing {
  push(ptr: number, length: number): number;
  closeInput(): void;
  running(): boolean;
  mayCloseInput?(): boolean;
}
export class RingFeeder {
  constructor(module: object, ring: ReceiveRing);
  pending: Uint8Array[];
  inputEnded: boolean;
  push(bytes: Uint8Array | ArrayBuffer): void;
  end(): void;
  feed(): void;
  cancel(): void;
}
