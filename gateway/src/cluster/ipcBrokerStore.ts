// The broker store of a cluster worker: every operation is a message to the
// primary, which keeps the one MemoryBrokerStore all workers share and so
// arbitrates, for instance, which worker's claim of a session token wins.
// Each request has a deadline: a primary that does not answer fails the
// operation (and a claim fails closed) instead of hanging the socket.
import { BROKER_STORE_OPERATIONS, StoreUnavailableError, type BrokerStore, type BrokerStoreOperation } from '../broker/brokerStore.js';

/** A message channel to the other side (process.send / process.on('message') in a worker). */
export interface IpcChannel {
  send(message: unknown): void;
  onMessage(handler: (message: unknown) => void): void;
}

export interface StoreRequest { lanternaStore: { id: number; op: BrokerStoreOperation; args: unknown[] } }
export type StoreReply = { lanternaStoreReply: { id: number; ok: true; value?: unknown } | { id: number; ok: false; error: string } };

export const STORE_REQUEST_DEADLINE_MS = 5000;

export function isStoreRequest(message: unknown): message is StoreRequest {
  if (typeof message !== 'object' || message === null || !('lanternaStore' in message)) return false;
  const request = (message as StoreRequest).lanternaStore as Partial<StoreRequest['lanternaStore']> | null;
  return typeof request === 'object' && request !== null && typeof request.id === 'number'
    && (BROKER_STORE_OPERATIONS as readonly unknown[]).includes(request.op) && Array.isArray(request.args);
}

function isStoreReply(message: unknown): message is StoreReply {
  return typeof message === 'object' && message !== null && 'lanternaStoreReply' in message;
}

interface Pending { resolve(value: unknown): void; reject(error: Error): void; timer: NodeJS.Timeout }

export class IpcBrokerStore implements BrokerStore {
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  constructor(
    private readonly channel: IpcChannel,
    private readonly deadlineMs = STORE_REQUEST_DEADLINE_MS,
  ) {
    channel.onMessage((message) => {
      if (!isStoreReply(message)) return;
      const reply = message.lanternaStoreReply;
      const pending = this.pending.get(reply.id);
      if (!pending) return;
      this.pending.delete(reply.id);
      clearTimeout(pending.timer);
      if (reply.ok) pending.resolve(reply.value);
      else pending.reject(new Error(reply.error));
    });
  }

  /** The worker's side of the process channel to the cluster primary. */
  static forWorker(deadlineMs?: number): IpcBrokerStore {
    return new IpcBrokerStore({
      send: (message) => process.send?.(message),
      onMessage: (handler) => process.on('message', handler),
    }, deadlineMs);
  }

  putSession: BrokerStore['putSession'] = (...args) => this.call('putSession', args);
  claimSession: BrokerStore['claimSession'] = (...args) => this.call('claimSession', args);
  updateSession: BrokerStore['updateSession'] = (...args) => this.call('updateSession', args);
  getSession: BrokerStore['getSession'] = (...args) => this.call('getSession', args);
  listSessions: BrokerStore['listSessions'] = (...args) => this.call('listSessions', args);
  setPresence: BrokerStore['setPresence'] = (...args) => this.call('setPresence', args);
  clearPresence: BrokerStore['clearPresence'] = (...args) => this.call('clearPresence', args);
  listPresence: BrokerStore['listPresence'] = (...args) => this.call('listPresence', args);
  getReprojection: BrokerStore['getReprojection'] = (...args) => this.call('getReprojection', args);
  setReprojection: BrokerStore['setReprojection'] = (...args) => this.call('setReprojection', args);
  listDisplays: BrokerStore['listDisplays'] = (...args) => this.call('listDisplays', args);
  getDisplay: BrokerStore['getDisplay'] = (...args) => this.call('getDisplay', args);
  putDisplay: BrokerStore['putDisplay'] = (...args) => this.call('putDisplay', args);
  deleteDisplay: BrokerStore['deleteDisplay'] = (...args) => this.call('deleteDisplay', args);
  bookDisplay: BrokerStore['bookDisplay'] = (...args) => this.call('bookDisplay', args);
  bookFreeSlot: BrokerStore['bookFreeSlot'] = (...args) => this.call('bookFreeSlot', args);
  getBooking: BrokerStore['getBooking'] = (...args) => this.call('getBooking', args);
  listBookings: BrokerStore['listBookings'] = (...args) => this.call('listBookings', args);
  releaseDisplay: BrokerStore['releaseDisplay'] = (...args) => this.call('releaseDisplay', args);
  sampleSessions: BrokerStore['sampleSessions'] = (...args) => this.call('sampleSessions', args);
  recordShown: BrokerStore['recordShown'] = (...args) => this.call('recordShown', args);
  setTouch: BrokerStore['setTouch'] = (...args) => this.call('setTouch', args);
  getIntent: BrokerStore['getIntent'] = (...args) => this.call('getIntent', args);
  setIntent: BrokerStore['setIntent'] = (...args) => this.call('setIntent', args);
  clearIntent: BrokerStore['clearIntent'] = (...args) => this.call('clearIntent', args);
  getRoomSettings: BrokerStore['getRoomSettings'] = (...args) => this.call('getRoomSettings', args);
  putRoomSettings: BrokerStore['putRoomSettings'] = (...args) => this.call('putRoomSettings', args);
  createRoomRequest: BrokerStore['createRoomRequest'] = (...args) => this.call('createRoomRequest', args);
  updateRoomRequest: BrokerStore['updateRoomRequest'] = (...args) => this.call('updateRoomRequest', args);
  getRoomRequest: BrokerStore['getRoomRequest'] = (...args) => this.call('getRoomRequest', args);
  listRoomRequests: BrokerStore['listRoomRequests'] = (...args) => this.call('listRoomRequests', args);
  appendAudit: BrokerStore['appendAudit'] = (...args) => this.call('appendAudit', args);
  listAudit: BrokerStore['listAudit'] = (...args) => this.call('listAudit', args);
  recordPinConflicts: BrokerStore['recordPinConflicts'] = (...args) => this.call('recordPinConflicts', args);
  listPinConflicts: BrokerStore['listPinConflicts'] = (...args) => this.call('listPinConflicts', args);
  clearPinConflicts: BrokerStore['clearPinConflicts'] = (...args) => this.call('clearPinConflicts', args);
  getRoomPin: BrokerStore['getRoomPin'] = (...args) => this.call('getRoomPin', args);
  swapRoomPin: BrokerStore['swapRoomPin'] = (...args) => this.call('swapRoomPin', args);
  addToCounter: BrokerStore['addToCounter'] = (...args) => this.call('addToCounter', args);
  putInkPicture: BrokerStore['putInkPicture'] = (...args) => this.call('putInkPicture', args);
  getInkPicture: BrokerStore['getInkPicture'] = (...args) => this.call('getInkPicture', args);

  private call<T>(op: BrokerStoreOperation, args: unknown[]): Promise<T> {
    return new Promise((resolve, reject) => {
      const id = ++this.nextId;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new StoreUnavailableError(`the cluster primary did not answer ${op} within ${this.deadlineMs} ms`));
      }, this.deadlineMs);
      this.pending.set(id, { resolve, reject, timer });
      this.channel.send({ lanternaStore: { id, op, args } } satisfies StoreRequest);
    });
  }
}
