// The display side of the demo when a screen exists: the product's kiosk
// launcher (kiosk/: Chromium full screen, watchdog, waiting screen while the
// gateway is away), as a display device runs it.
import { pino } from 'pino';
import { KioskSupervisor, loadKioskConfig, readGatewayCertificatePins } from '@lanterna/kiosk';

export interface KioskWindow {
  readonly stop: () => Promise<void>;
}

export interface KioskWindowOptions {
  gatewayUrl: string;
  displayId: string;
  token: string;
  /** The gateway's self-signed certificate, pinned by the launcher (read after the gateway made it). */
  gatewayCertificate: string;
  xDisplay: string;
}

/** Starts the kiosk launcher on the X display for the demo's display. */
export function openKioskWindow(options: KioskWindowOptions): KioskWindow {
  const config = loadKioskConfig({
    env: {},
    flags: {
      gateway: options.gatewayUrl, displayId: options.displayId, displayToken: options.token,
      display: options.xDisplay, gatewayCertificate: options.gatewayCertificate,
    },
  });
  const logger = pino({ level: process.env.LANTERNA_DEMO_LOGS === '1' ? 'info' : 'warn', base: { component: 'kiosk' } });
  const kiosk = new KioskSupervisor({ config, pins: readGatewayCertificatePins(options.gatewayCertificate), logger });
  kiosk.start();
  return { stop: () => kiosk.stop() };
}
