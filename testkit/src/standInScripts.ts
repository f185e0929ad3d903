// What the gateway stand-in does on a data socket, beyond recording it. Each
// function returns the stand-in's `dataScript` option (a fresh script per data
// socket). Every byte format comes from the protocol package.
import { buildConnectionConfirm, parseConnectionRequest, PROTOCOL, X224Error } from '@lanterna/protocol';
import type { DataScript, DataSocketPlay } from './gatewayStandIn.js';

/** 270 bytes is an RSA-2048 SubjectPublicKey's size; without NLA nothing binds to it, so any bytes do. */
const PLACEHOLDER_PUBLIC_KEY = Buffer.alloc(270, 7).toString('base64');

/** `secured` for a session whose server leg is not real TLS (a replay, a script): no certificate, a placeholder key. */
export function securedWithoutServer(): Record<string, unknown> {
  return {
    type: 'secured', protocol: 'ssl', tlsVersion: 'none', cipher: 'none',
    certificates: [], publicKey: PLACEHOLDER_PUBLIC_KEY, fingerprint: '', trust: 'insecure',
  };
}

/** An X.224 Connection Confirm that selects TLS, as a server that accepts the request sends. */
export function tlsConnectionConfirm(): Uint8Array {
  return buildConnectionConfirm({ kind: 'response', selectedProtocol: PROTOCOL.SSL, flags: 0 });
}

/** True when bytes are a whole X.224 Connection Request. */
export function isConnectionRequest(bytes: Uint8Array): boolean {
  try {
    parseConnectionRequest(bytes);
    return true;
  } catch (error) {
    if (error instanceof X224Error) return false;
    throw error;
  }
}

export interface RecordingReplay {
  readonly dataScript: () => DataScript;
  /** Resolves when the last recorded frame has gone out. */
  readonly sent: Promise<void>;
}

/**
 * Plays the gateway's part of a recorded session: the kiosk's first binary
 * frame (its Connection Request) gets `secured` and a Confirm selecting TLS,
 * then every recorded server frame at once (so a bench times decoding, not the
 * recording's pauses). What the kiosk sends later is recorded, not answered: a
 * recorded server answers what it answered.
 */
export function replayRecording(frames: readonly { readonly data: Uint8Array }[]): RecordingReplay {
  let resolveSent!: () => void;
  const sent = new Promise<void>((resolve) => { resolveSent = resolve; });
  return {
    sent,
    dataScript: () => ({
      onBinary(_frame: Buffer, socket: DataSocketPlay): void {
        if (socket.record.binaryFrames.length !== 1) return;
        socket.sendText(securedWithoutServer());
        socket.sendBinary(tlsConnectionConfirm());
        for (const frame of frames) socket.sendBinary(frame.data);
        resolveSent();
      },
    }),
  };
}

export interface HandshakeScript {
  /** The answer to every Connection Request (`secured` comes before the first one only). */
  readonly confirm: Uint8Array;
  /** Frames sent in answer to the kiosk's second binary frame (MCS Connect-Initial). */
  readonly reply?: readonly Uint8Array[];
  /** Drop the socket right after the reply. */
  readonly dropAfterReply?: boolean;
}

/**
 * A misbehaving server behind the data socket, from a script: it answers the
 * Connection Request as told (success with TLS, or a negotiation failure),
 * then answers the next PDU with whatever bytes the script gives (garbage, a
 * PDU cut short), and may drop the socket. Real servers never do this on
 * purpose; this is how a client's handling of it gets tested.
 */
export function scriptedHandshake(script: HandshakeScript): () => DataScript {
  return () => ({
    onBinary(frame: Buffer, socket: DataSocketPlay): void {
      const count = socket.record.binaryFrames.length;
      if (isConnectionRequest(frame)) {
        if (count === 1) socket.sendText(securedWithoutServer());
        socket.sendBinary(script.confirm);
        return;
      }
      if (count === 2) {
        for (const reply of script.reply ?? []) socket.sendBinary(reply);
        if (script.dropAfterReply) socket.drop();
      }
    },
  });
}

/** Drops the data socket at the kiosk's first binary frame: a gateway that dies mid-connect. */
export function dropOnFirstBinary(): () => DataScript {
  return () => ({
    onBinary(_frame: Buffer, socket: DataSocketPlay): void {
      socket.drop();
    },
  });
}
