// The launcher's one typed configuration: defaults, then a JSON file, then
// environment variables, then command-line flags; every bad value is reported
// with where it came from.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { parseConfigObject, setConfigField } from '@lanterna/protocol';

const displayIdPattern = /^[A-Za-z0-9._-]{1,64}$/;
const ms = (min: number) => z.number().int().min(min);

export const kioskConfigSchema = z.object({
  /** Base URL of the gateway (https://gateway.example:8443); the page is <gateway>/display/<displayId>. */
  gateway: z.url({ protocol: /^https?$/, error: 'gateway must be an http:// or https:// URL' }),
  displayId: z.string().regex(displayIdPattern, 'display id: 1-64 of A-Z a-z 0-9 . _ -'),
  displayToken: z.string().min(16, 'display token must be at least 16 characters'),
  /** X display Chromium shows on (":0"). */
  xDisplay: z.string().regex(/^[A-Za-z0-9.-]*:\d+(\.\d+)?$/, 'X display like ":0" or ":0.0"').default(':0'),
  /**
   * PEM file with the gateway's certificate (or one of its chain): pinned by
   * its public key, for gateways whose certificate no system CA signed (the
   * gateway's own self-signed one).
   */
  gatewayCertificate: z.string().min(1).optional(),
  chromium: z.string().min(1).default('/usr/bin/chromium'),
  /** 'auto' uses the GPU when a DRM render node exists, SwiftShader otherwise. */
  webgl: z.enum(['auto', 'gpu', 'swiftshader']).default('auto'),
  /** Start `openbox --sm-disable` when no window manager runs on the display (kiosk windows need one to cover the screen). */
  windowManager: z.boolean().default(true),
  /** Extra Chromium flags, appended last. */
  chromiumFlags: z.array(z.string().regex(/^--[a-z0-9-]+(=.*)?$/, 'chromium flag like --name or --name=value')).default([]),
  watchdog: z.object({
    /** Longest gap between two page heartbeats (the page beats every 2 s). */
    heartbeatTimeoutMs: ms(3000).default(10_000),
    /** From navigation until the first heartbeat. */
    firstHeartbeatTimeoutMs: ms(3000).default(30_000),
    /** How often the browser is asked whether it still answers, and how long it may take. */
    browserProbeIntervalMs: ms(500).default(5000),
    browserProbeTimeoutMs: ms(500).default(5000),
    /** Reloads in a row without a heartbeat between them before the whole browser is relaunched. */
    reloadsBeforeRelaunch: z.number().int().min(1).max(20).default(3),
    /** Relaunch backoff: initial, doubling up to max; reset after the browser ran this long. */
    relaunchInitialMs: ms(100).default(1000),
    relaunchMaxMs: ms(100).default(60_000),
    relaunchResetAfterMs: ms(1000).default(60_000),
    /** Gateway probe while it does not answer: initial, doubling up to max. */
    gatewayRetryInitialMs: ms(100).default(1000),
    gatewayRetryMaxMs: ms(100).default(15_000),
    gatewayProbeTimeoutMs: ms(100).default(5000),
    launchTimeoutMs: ms(1000).default(30_000),
  }).prefault({})
    .refine((w) => w.relaunchInitialMs <= w.relaunchMaxMs, 'watchdog.relaunchInitialMs must not exceed watchdog.relaunchMaxMs')
    .refine((w) => w.gatewayRetryInitialMs <= w.gatewayRetryMaxMs, 'watchdog.gatewayRetryInitialMs must not exceed watchdog.gatewayRetryMaxMs'),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type KioskConfig = z.infer<typeof kioskConfigSchema>;
export type WatchdogConfig = KioskConfig['watchdog'];

export class KioskConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'KioskConfigError';
  }
}

/** Environment variables that set single fields; all are strings except the boolean LANTERNA_KIOSK_WINDOW_MANAGER. */
export const kioskEnvFields: Readonly<Record<string, readonly string[]>> = {
  LANTERNA_KIOSK_GATEWAY: ['gateway'],
  LANTERNA_KIOSK_DISPLAY_ID: ['displayId'],
  LANTERNA_KIOSK_DISPLAY_TOKEN: ['displayToken'],
  LANTERNA_KIOSK_X_DISPLAY: ['xDisplay'],
  LANTERNA_KIOSK_GATEWAY_CERTIFICATE: ['gatewayCertificate'],
  LANTERNA_KIOSK_CHROMIUM: ['chromium'],
  LANTERNA_KIOSK_WEBGL: ['webgl'],
  LANTERNA_KIOSK_WINDOW_MANAGER: ['windowManager'],
  LANTERNA_KIOSK_LOG_LEVEL: ['logLevel'],
};

/** Flags as commander gives them (camelCase), and the field each sets. */
export interface KioskFlags {
  gateway?: string;
  displayId?: string;
  displayToken?: string;
  display?: string;
  gatewayCertificate?: string;
  chromium?: string;
  webgl?: string;
  windowManager?: boolean;
  logLevel?: string;
}

const flagFields: Readonly<Record<keyof KioskFlags, readonly string[]>> = {
  gateway: ['gateway'],
  displayId: ['displayId'],
  displayToken: ['displayToken'],
  display: ['xDisplay'],
  gatewayCertificate: ['gatewayCertificate'],
  chromium: ['chromium'],
  webgl: ['webgl'],
  windowManager: ['windowManager'],
  logLevel: ['logLevel'],
};

const flagNames: Readonly<Record<keyof KioskFlags, string>> = {
  gateway: '--gateway',
  displayId: '--display-id',
  displayToken: '--display-token',
  display: '--display',
  gatewayCertificate: '--gateway-certificate',
  chromium: '--chromium',
  webgl: '--webgl',
  windowManager: '--no-window-manager',
  logLevel: '--log-level',
};

export interface KioskConfigSources {
  /** JSON file; LANTERNA_KIOSK_CONFIG when absent. */
  file?: string | undefined;
  env?: NodeJS.ProcessEnv;
  flags?: KioskFlags;
}

const howToSet: Readonly<Record<string, string>> = {
  gateway: 'give --gateway, LANTERNA_KIOSK_GATEWAY or "gateway" in the config file',
  displayId: 'give --display-id, LANTERNA_KIOSK_DISPLAY_ID or "displayId" in the config file',
  displayToken: 'give LANTERNA_KIOSK_DISPLAY_TOKEN (an EnvironmentFile), "displayToken" in the config file or --display-token',
};

function getPath(source: Record<string, unknown>, path: readonly PropertyKey[]): unknown {
  let node: unknown = source;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

// Only booleans are parsed: a token or a display id of digits stays a string.
function envValue(raw: string, fieldPath: readonly string[]): unknown {
  if (fieldPath[0] === 'windowManager' && /^(true|false|0|1)$/.test(raw)) return raw === 'true' || raw === '1';
  return raw;
}

function readFileConfig(path: string): Record<string, unknown> {
  try {
    return parseConfigObject(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new KioskConfigError([`${path}: ${(error as Error).message}`]);
  }
}

/** Defaults, then the file, then env, then flags. Throws KioskConfigError listing every bad value. */
export function loadKioskConfig({ file, env = process.env, flags = {} }: KioskConfigSources = {}): KioskConfig {
  const path = file ?? env.LANTERNA_KIOSK_CONFIG;
  const raw = path ? readFileConfig(path) : {};
  const origin = new Map<string, string>();
  // DISPLAY is what every X program reads; the kiosk's own variable and flag override it.
  if (env.DISPLAY && raw.xDisplay === undefined) {
    raw.xDisplay = env.DISPLAY;
    origin.set('xDisplay', 'DISPLAY');
  }
  for (const [name, fieldPath] of Object.entries(kioskEnvFields)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    setConfigField(raw, fieldPath, envValue(value, fieldPath));
    origin.set(fieldPath.join('.'), name);
  }
  for (const [key, fieldPath] of Object.entries(flagFields) as [keyof KioskFlags, readonly string[]][]) {
    const value = flags[key];
    if (value === undefined) continue;
    // commander's --no-window-manager gives windowManager: true unless the flag is given
    if (key === 'windowManager' && value === true) continue;
    setConfigField(raw, fieldPath, value);
    origin.set(fieldPath.join('.'), flagNames[key]);
  }
  const result = kioskConfigSchema.safeParse(raw);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const at = issue.path.join('.') || '(top level)';
      const missing = issue.code === 'invalid_type' && getPath(raw, issue.path) === undefined;
      if (missing && at in howToSet) return `${at}: missing (${howToSet[at] ?? ''})`;
      const from = origin.get(at) ?? (path ?? 'defaults');
      // zod's messages name the rule, never the value, so a bad token is not echoed
      return `${at}: ${issue.message} (from ${from})`;
    });
    throw new KioskConfigError(problems);
  }
  return result.data;
}

/** <gateway>/display/<id>: the page the kiosk shows (the token never goes into it). */
export function displayPageUrl(config: Pick<KioskConfig, 'gateway' | 'displayId'>): URL {
  const base = new URL(config.gateway);
  if (!base.pathname.endsWith('/')) base.pathname = `${base.pathname}/`;
  base.search = '';
  base.hash = '';
  return new URL(`display/${encodeURIComponent(config.displayId)}`, base);
}
