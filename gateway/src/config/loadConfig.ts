import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseConfigObject, setConfigField } from '@lanterna/protocol';
import { configSchema, type GatewayConfig } from './configSchema.js';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/** Env vars that override single fields; the value is parsed as JSON when it looks like it. */
const envFields: Record<string, string[]> = {
  LANTERNA_LISTEN_HOST: ['listen', 'host'],
  LANTERNA_LISTEN_PORT: ['listen', 'port'],
  LANTERNA_LISTEN_TLS: ['listen', 'tls'],
  LANTERNA_TLS_CERT_FILE: ['tls', 'certFile'],
  LANTERNA_TLS_KEY_FILE: ['tls', 'keyFile'],
  LANTERNA_STATE_DIR: ['stateDir'],
  LANTERNA_WORKERS: ['workers'],
  LANTERNA_ADMIN_TOKEN: ['adminToken'],
  LANTERNA_SESSION_SECRET: ['sessionSecret'],
  LANTERNA_BROKER_STORE: ['broker', 'store'],
  LANTERNA_REDIS_URL: ['broker', 'redisUrl'],
  LANTERNA_REDIS_PASSWORD_FILE: ['broker', 'redisPasswordFile'],
  LANTERNA_REDIS_CA_FILE: ['broker', 'redisCaFile'],
  LANTERNA_METRICS_TOKEN: ['metricsToken'],
  LANTERNA_CERTIFICATE_MODE: ['certificates', 'mode'],
  LANTERNA_REQUIRE_NLA: ['policy', 'requireNla'],
  LANTERNA_LOG_LEVEL: ['logLevel'],
  LANTERNA_WEB_ROOT: ['webRoot'],
  LANTERNA_WSD: ['wsd', 'enabled'],
  LANTERNA_RELAY_ENGINE: ['relay', 'engine'],
  LANTERNA_INK_SAVING: ['ink', 'saving'],
};

function envValue(raw: string): unknown {
  if (/^(true|false|-?\d+(\.\d+)?)$/.test(raw)) return JSON.parse(raw) as unknown;
  return raw;
}

export interface ConfigSources {
  file?: string | undefined;
  env?: NodeJS.ProcessEnv;
}

/** Defaults, then the JSON file, then env vars; each bad value is reported with where it came from. */
export function loadConfig({ file, env = process.env }: ConfigSources = {}): GatewayConfig & { stateDir: string } {
  const problems: string[] = [];
  let raw: Record<string, unknown> = {};
  const path = file ?? env.LANTERNA_CONFIG;
  if (path) {
    try {
      raw = parseConfigObject(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new ConfigError([`${path}: ${(error as Error).message}`]);
    }
  }
  const origin = new Map<string, string>();
  for (const [name, fieldPath] of Object.entries(envFields)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    setConfigField(raw, fieldPath, envValue(value));
    origin.set(fieldPath.join('.'), name);
  }
  const result = configSchema.safeParse(raw);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const at = issue.path.join('.') || '(top level)';
      const from = origin.get(at) ?? (path ? path : 'defaults');
      problems.push(`${at}: ${issue.message} (from ${from})`);
    }
    throw new ConfigError(problems);
  }
  const config = result.data;
  const ids = new Set<string>();
  for (const display of config.displays) {
    if (ids.has(display.id)) problems.push(`displays: duplicate id "${display.id}"`);
    ids.add(display.id);
  }
  if (Boolean(config.tls.certFile) !== Boolean(config.tls.keyFile)) problems.push('tls: certFile and keyFile go together');
  if (problems.length > 0) throw new ConfigError(problems);
  const stateDir = config.stateDir ?? join(env.XDG_STATE_HOME ?? join(homedir(), '.local', 'state'), 'lanterna');
  return { ...config, stateDir };
}
