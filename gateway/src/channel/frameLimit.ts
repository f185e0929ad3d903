import type { WebSocket } from 'ws';

interface ReceiverInternals { _receiver?: { _maxPayload?: unknown } | null }

/**
 * Raises the largest message a socket accepts, once it has authenticated.
 * Until then a data socket carries only JSON (at most 16 KiB by the protocol),
 * so it is opened with that cap; RDP frames up to relay.maxFrameBytes are for
 * authenticated sessions only. `ws` has no public setter: this touches its
 * receiver's one field, and throws (failing the session, and the test that
 * guards it) should a new `ws` move it, rather than silently keep 16 KiB.
 */
export function raiseMaxPayload(socket: WebSocket, bytes: number): void {
  const receiver = (socket as unknown as ReceiverInternals)._receiver;
  if (!receiver || typeof receiver._maxPayload !== 'number') throw new Error('ws receiver has no _maxPayload: the frame limit cannot be raised');
  receiver._maxPayload = bytes;
}
