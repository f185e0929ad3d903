// The Go generator (loadtest/generator-go/): where its binary is, and the
// wire details it is told rather than knowing them itself, so that the kiosk
// protocol's constants, the X.224 Connection Request and the request PDU are
// written once, in @lanterna/protocol and tpktPdu.ts. The scenarios stay
// TypeScript's too: the traffic pattern arrives in `configure`.
import { existsSync } from 'node:fs';
import { buildConnectionRequest, KIOSK_PROTOCOL_VERSION, KIOSK_SUBPROTOCOL, PROTOCOL } from '@lanterna/protocol';
import type { CoordinatorMessage, RelayTarget } from './generatorProtocol.js';
import { buildTpktPdu } from './tpktPdu.js';
import { sourceAddressFor } from './displayRoster.js';
import { goProgramPath, resolveImplementation, type Implementation } from './goPrograms.js';

export const GO_GENERATOR_BINARY = goProgramPath('lanterna-generator');

export type GeneratorKind = Implementation;

export function goGeneratorBuilt(): boolean { return existsSync(GO_GENERATOR_BINARY); }

/**
 * `auto` (the default) is the Go generator when it is built (scripts/build.sh
 * builds it when Go is installed): it offers the same traffic for less CPU per
 * round trip, falling with the session count (loadtest/README.md,
 * "Generators"), so a one-core load side measures the relay further up the
 * ramp; otherwise the Node one.
 */
export function resolveGeneratorKind(requested: GeneratorKind | 'auto'): GeneratorKind {
  return resolveImplementation('generator', GO_GENERATOR_BINARY, requested);
}

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
/** What the Node kiosk's Connection Request carries (simulatedKiosk.ts: the display id, cut as a user name would be). */
const kioskCookie = (displayId: string): string => displayId.slice(0, 9);

/** A coordinator message as the Go generator reads it: the same message with its wire details added. */
export function toGoMessage(message: CoordinatorMessage, target: RelayTarget | undefined): object {
  switch (message.type) {
    case 'configure':
      return {
        ...message,
        wire: {
          subprotocol: KIOSK_SUBPROTOCOL,
          protocolVersion: KIOSK_PROTOCOL_VERSION,
          client: 'lanterna-loadtest-go/0.1',
          requestPdu: base64(buildTpktPdu(message.pattern.upBytes)),
          connectionRequest: base64(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL, cookie: 'loadtest' })),
        },
      };
    case 'open':
      return {
        ...message,
        displays: message.displays.map((display) => ({
          ...display,
          connectionRequest: base64(buildConnectionRequest({ requestedProtocols: PROTOCOL.SSL, cookie: kioskCookie(display.id) })),
          ...(target?.distinctSourceAddresses === true ? { localAddress: sourceAddressFor(display.index) } : {}),
        })),
      };
    default:
      return message;
  }
}
