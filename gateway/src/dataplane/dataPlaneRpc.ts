// Node's end of the data plane's RPC (docs/native-data-plane.md, "RPC"):
// newline-delimited JSON, one object a line, at most MAX_RPC_LINE_BYTES.
// A message with `id` and `op` is a request, with `id` and `ok` or `error` an
// answer, with `op` and no `id` a notification. Sans-I/O: bytes come in by
// receive(), lines go out through `write`; the process adapter owns the pipe.
import type { Logger } from 'pino';
import { ERROR_CODES } from '@lanterna/protocol';

/** The contract's cap on one line; a longer one is dropped whole and logged. */
export const MAX_RPC_LINE_BYTES = 1024 * 1024;

/** A request's answer: a result, or a refused session decision (the kiosk protocol's error, as the display gets it). */
export type RpcAnswer = { ok: Record<string, unknown> } | { error: RpcError };

export interface RpcError {
  phase: string;
  code: string;
  message: string;
  detail: Record<string, unknown>;
}

/** A request of ours that the data plane refused, or did not answer in time. */
export class RpcRequestError extends Error {
  constructor(readonly op: string, message: string, readonly refusal?: RpcError) {
    super(message);
    this.name = 'RpcRequestError';
  }
}

export interface RpcPeer {
  /** Writes one line (newline included) toward the data plane. */
  write(line: string): void;
  /** A request from the data plane; its answer goes back under its id. */
  onRequest(op: string, message: Record<string, unknown>): Promise<RpcAnswer>;
  /** A notification from the data plane. */
  onNotification(op: string, message: Record<string, unknown>): void;
  logger: Logger;
}

interface Pending {
  op: string;
  resolve: (ok: Record<string, unknown>) => void;
  reject: (error: RpcRequestError) => void;
  timer: NodeJS.Timeout;
}

/** Where a line over the cap was dropped. */
export const OVERSIZE: unique symbol = Symbol('oversize');

/** Splits a byte stream into lines, refusing (and skipping to the next newline) any longer than the cap. */
export class RpcLineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  /** Inside a line already too long: everything up to its newline is dropped. */
  private skipping = false;

  constructor(private readonly maxBytes = MAX_RPC_LINE_BYTES) {}

  /** The whole lines this chunk completes, and OVERSIZE once for each line dropped for its length. */
  push(chunk: Buffer): (string | typeof OVERSIZE)[] {
    const out: (string | typeof OVERSIZE)[] = [];
    let start = 0;
    for (let newline = chunk.indexOf(10, start); newline !== -1; newline = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, newline);
      start = newline + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      if (this.size + piece.length > this.maxBytes) {
        this.reset();
        out.push(OVERSIZE);
        continue;
      }
      out.push(this.size === 0 ? piece.toString('utf8') : Buffer.concat([...this.parts, piece]).toString('utf8'));
      this.reset();
    }
    const rest = chunk.subarray(start);
    if (this.skipping || rest.length === 0) return out;
    if (this.size + rest.length > this.maxBytes) {
      this.reset();
      this.skipping = true;
      out.push(OVERSIZE);
      return out;
    }
    // Copied: the chunk's buffer may be reused by the stream.
    this.parts.push(Buffer.from(rest));
    this.size += rest.length;
    return out;
  }

  private reset(): void {
    this.parts = [];
    this.size = 0;
  }
}

/** Requests with ids and deadlines both ways, over one line stream. */
export class DataPlaneRpc {
  private readonly lines: RpcLineSplitter;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed: string | undefined;

  constructor(private readonly peer: RpcPeer, maxLineBytes = MAX_RPC_LINE_BYTES) {
    this.lines = new RpcLineSplitter(maxLineBytes);
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Bytes from the data plane. A bad line is logged and dropped; it never ends the gateway. */
  receive(chunk: Buffer): void {
    for (const line of this.lines.push(chunk)) {
      if (line === OVERSIZE) this.peer.logger.error({ event: 'dataplane-rpc-oversize', maxBytes: MAX_RPC_LINE_BYTES }, 'a data plane message over the size limit was dropped');
      else if (line.trim() !== '') this.receiveLine(line);
    }
  }

  /** Asks the data plane; rejects when it refuses, does not answer within deadlineMs, or the channel closes. */
  request(op: string, body: Record<string, unknown>, deadlineMs: number): Promise<Record<string, unknown>> {
    if (this.closed !== undefined) return Promise.reject(new RpcRequestError(op, `the data plane channel is closed: ${this.closed}`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RpcRequestError(op, `the data plane did not answer ${op} within ${deadlineMs} ms`));
      }, deadlineMs);
      this.pending.set(id, { op, resolve, reject, timer });
      this.send({ ...body, id, op });
    });
  }

  notify(op: string, body: Record<string, unknown> = {}): void {
    if (this.closed === undefined) this.send({ ...body, op });
  }

  /** Ends every request of ours still waiting; nothing more is sent. */
  close(reason: string): void {
    if (this.closed !== undefined) return;
    this.closed = reason;
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.pending.delete(id);
      pending.reject(new RpcRequestError(pending.op, `the data plane channel closed before answering ${pending.op}: ${reason}`));
    }
  }

  private send(message: Record<string, unknown>): void {
    this.peer.write(`${JSON.stringify(message)}\n`);
  }

  private receiveLine(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.peer.logger.error({ event: 'dataplane-rpc-garbage', line: line.slice(0, 200) }, 'a data plane message is not JSON: dropped');
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      this.peer.logger.error({ event: 'dataplane-rpc-garbage', line: line.slice(0, 200) }, 'a data plane message is not an object: dropped');
      return;
    }
    const fields = message as Record<string, unknown>;
    // a message's own fields sit beside op and id (docs/native-data-plane.md): the contract's schemas read them alone
    const { id, op, ...params } = fields;
    if (id !== undefined && (typeof id !== 'number' || !Number.isSafeInteger(id))) {
      this.peer.logger.error({ event: 'dataplane-rpc-garbage', line: line.slice(0, 200) }, 'a data plane message has an id that is not an integer: dropped');
      return;
    }
    if (typeof op === 'string') {
      if (id === undefined) this.dispatchNotification(op, params);
      else this.answer(id, op, params);
      return;
    }
    if (id !== undefined) {
      this.settle(id, fields);
      return;
    }
    this.peer.logger.error({ event: 'dataplane-rpc-garbage', line: line.slice(0, 200) }, 'a data plane message has neither op nor id: dropped');
  }

  private dispatchNotification(op: string, message: Record<string, unknown>): void {
    try {
      this.peer.onNotification(op, message);
    } catch (error) {
      this.peer.logger.error({ err: error, event: 'dataplane-rpc-failed', op }, 'a data plane notification could not be handled');
    }
  }

  private answer(id: number, op: string, message: Record<string, unknown>): void {
    let answered: Promise<RpcAnswer>;
    try {
      answered = this.peer.onRequest(op, message);
    } catch (error) {
      answered = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    answered.then(
      (answer) => { if (this.closed === undefined) this.send({ id, ...answer }); },
      (error: unknown) => {
        this.peer.logger.error({ err: error, event: 'dataplane-rpc-failed', op }, 'a data plane request could not be answered');
        if (this.closed === undefined) this.send({ id, error: { phase: 'relay', code: 'internal', message: ERROR_CODES.internal.message, detail: {} } });
      },
    );
  }

  private settle(id: number, message: Record<string, unknown>): void {
    const pending = this.pending.get(id);
    if (!pending) {
      this.peer.logger.warn({ event: 'dataplane-rpc-unknown-id', id }, 'an answer from the data plane to no request of ours (late, or not ours): dropped');
      return;
    }
    this.pending.delete(id);
    clearTimeout(pending.timer);
    const { ok, error } = message;
    if (typeof ok === 'object' && ok !== null && !Array.isArray(ok)) pending.resolve(ok as Record<string, unknown>);
    else if (typeof error === 'object' && error !== null) {
      const refusal = error as RpcError;
      pending.reject(new RpcRequestError(pending.op, `the data plane refused ${pending.op}: ${refusal.message}`, refusal));
    } else pending.reject(new RpcRequestError(pending.op, `the data plane's answer to ${pending.op} has neither ok nor error`));
  }
}
