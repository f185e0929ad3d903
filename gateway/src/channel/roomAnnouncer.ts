// Sends each display that asked for it (hello.features has "room") its room
// PIN and the presenter page's address: after welcome, whenever the broker
// says the PIN changed (a use, on any worker), and when its timer runs out
// (this adapter holds that timer; the broker rotates lazily when asked).
import type { WebSocket } from 'ws';
import type { Logger } from 'pino';
import type { RoomMessage } from '@lanterna/protocol';
import type { RoomPins } from '../broker/roomPins.js';
import { sendJson } from './closeWithError.js';

/** A store that failed to answer is asked again after this long. */
const RETRY_MS = 5000;
/** Asked a little after the timer runs out, so the PIN is due when the broker looks. */
const TIMER_SLACK_MS = 50;

interface AnnouncedRoom {
  readonly socket: WebSocket;
  readonly presenterUrl: string;
  sent?: { pin: string; expiresAt: number } | undefined;
  timer?: NodeJS.Timeout | undefined;
}

export interface RoomAnnouncerDeps {
  pins: RoomPins;
  logger: Logger;
  clock?: () => number;
}

export class RoomAnnouncer {
  private readonly rooms = new Map<string, AnnouncedRoom>();
  private readonly clock: () => number;

  constructor(private readonly deps: RoomAnnouncerDeps) {
    this.clock = deps.clock ?? Date.now;
  }

  /** The display's control socket on this worker wants `room` messages. */
  attach(socket: WebSocket, displayId: string, presenterUrl: string): void {
    this.detach(displayId);
    const room: AnnouncedRoom = { socket, presenterUrl };
    this.rooms.set(displayId, room);
    socket.once('close', () => {
      if (this.rooms.get(displayId) === room) this.detach(displayId);
    });
    void this.refresh(displayId);
  }

  /** Sends the display's PIN if it changed since the last `room`, and sets the timer for the next rotation. */
  async refresh(displayId: string): Promise<void> {
    const room = this.rooms.get(displayId);
    if (!room) return;
    let delayMs: number;
    try {
      const record = await this.deps.pins.current(displayId);
      if (this.rooms.get(displayId) !== room) return;
      if (room.sent?.pin !== record.pin || room.sent.expiresAt !== record.expiresAt) {
        const message: RoomMessage = { type: 'room', pin: record.pin, expiresAt: record.expiresAt, presenterUrl: room.presenterUrl };
        sendJson(room.socket, message);
        room.sent = { pin: record.pin, expiresAt: record.expiresAt };
      }
      delayMs = Math.max(TIMER_SLACK_MS, record.expiresAt - this.clock() + TIMER_SLACK_MS);
    } catch (error) {
      this.deps.logger.error({ err: error, displayId, event: 'room-pin-failed' }, 'the room pin could not be read');
      if (this.rooms.get(displayId) !== room) return;
      delayMs = RETRY_MS;
    }
    clearTimeout(room.timer);
    room.timer = setTimeout(() => void this.refresh(displayId), delayMs);
    room.timer.unref();
  }

  private detach(displayId: string): void {
    clearTimeout(this.rooms.get(displayId)?.timer);
    this.rooms.delete(displayId);
  }
}
