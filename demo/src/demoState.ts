// What the demo keeps between runs (a display token, so a kiosk bookmarked once
// keeps working) and the gateway configuration it writes for each run.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { RdpEndpoint } from '@lanterna/lab';

export const DEMO_DISPLAY_ID = 'demo';

/** $XDG_STATE_HOME/lanterna-demo (else ~/.local/state/lanterna-demo). */
export function demoStateDir(): string {
  return join(process.env.XDG_STATE_HOME ?? join(homedir(), '.local', 'state'), 'lanterna-demo');
}

/** The demo display's token, made on the first run. */
export function demoDisplayToken(stateDir: string): string {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const path = join(stateDir, 'display-token');
  if (!existsSync(path)) writeFileSync(path, randomBytes(18).toString('base64url'), { mode: 0o600 });
  return readFileSync(path, 'utf8').trim();
}

export interface DemoGatewaySettings {
  host: string;
  port: number;
  token: string;
  presenter: RdpEndpoint;
  /** WS-Discovery: off, or the interfaces to announce the display on ([] = every one but loopback). */
  discovery: false | readonly string[];
  /** A finger on the display page controls the demo presenter. */
  touch?: boolean | undefined;
}

/** A certificate's SHA-256 fingerprint as the gateway writes pins: `sha256:AA:BB:…`. */
export function certificateFingerprint(der: Buffer): string {
  return `sha256:${createHash('sha256').update(der).digest('hex').toUpperCase().match(/../g)?.join(':') ?? ''}`;
}

/** Writes the gateway's configuration: one display pinned to the demo presenter; returns its path. */
export function writeDemoGatewayConfig(stateDir: string, settings: DemoGatewaySettings): string {
  const { presenter } = settings;
  const path = join(stateDir, 'gateway.json');
  writeFileSync(path, JSON.stringify({
    listen: { host: settings.host, port: settings.port, tls: true },
    stateDir: join(stateDir, 'gateway'),
    workers: 1,
    // Presenters on the LAN find "Demo display" (lanterna-present list) and may present to it;
    // the demo presenter comes back when they stop.
    wsd: settings.discovery === false ? { enabled: false } : { enabled: true, interfaces: settings.discovery, ipv6: settings.host === '::' },
    displays: [{
      id: DEMO_DISPLAY_ID, name: 'Demo display', location: 'Demo room', token: settings.token,
      autoProject: {
        host: presenter.host, port: presenter.port, name: 'Demo presenter', credentials: { username: presenter.username, password: presenter.password },
        ...(settings.touch === true ? { touch: true } : {}),
      },
    }],
    // The default private ranges and loopback: the demo presenter here, presenters on the LAN.
    policy: { allowPorts: ['1024-65535'] },
    // The demo presenter listens on a new port with a new certificate each run:
    // pinned here, in this run's configuration, it is never pinned on first use,
    // so no run leaves a pin in the admin's table (not even one killed with SIGKILL).
    // Presenters from the LAN are still pinned on first use.
    certificates: {
      mode: 'first-use',
      ...(presenter.certificateDer ? { pins: { [`${presenter.host}:${presenter.port}`]: [certificateFingerprint(presenter.certificateDer)] } } : {}),
    },
  }, null, 2), { mode: 0o600 });
  return path;
}
