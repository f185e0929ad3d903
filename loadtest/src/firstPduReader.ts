// Reads exactly one TPKT PDU from a stream during a handshake, with a size cap
// and a deadline, and hands back whatever arrived after it.
import type { Duplex } from 'node:stream';

export interface FirstPdu { pdu: Buffer; rest: Buffer }

export function readFirstPdu(stream: Duplex, maxBytes: number, timeoutMs: number): Promise<FirstPdu> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const finish = (error: Error | undefined, value?: FirstPdu): void => {
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('error', onError);
      stream.off('close', onClose);
      if (error) reject(error);
      else if (value) resolve(value);
    };
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length >= 4) {
        if (buffered[0] !== 0x03) { finish(new Error('first pdu is not tpkt')); return; }
        const length = buffered.readUInt16BE(2);
        if (length > maxBytes) { finish(new Error(`first pdu of ${length} bytes exceeds ${maxBytes}`)); return; }
        if (buffered.length >= length) {
          stream.pause();
          finish(undefined, { pdu: buffered.subarray(0, length), rest: buffered.subarray(length) });
        }
      }
    };
    const onError = (error: Error): void => finish(error);
    const onClose = (): void => finish(new Error('stream closed before the first pdu'));
    const timer = setTimeout(() => finish(new Error(`no complete pdu within ${timeoutMs} ms`)), timeoutMs);
    stream.on('data', onData);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}
