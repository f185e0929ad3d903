// compose.yaml, checked without a Docker engine (none runs on CI machines):
// it parses, its build targets are Dockerfile stages, every file it mounts
// exists, the gateway's configuration is valid for the real gateway as the
// container would see it (the Dockerfile's ENV, then compose's environment),
// the demo display projects the presenter service, Redis asks for the
// password the gateway reads from the same compose secret, and HAProxy's own
// check accepts its configuration, whose servers are the gateway services.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { parse } from 'yaml';
import { loadConfig } from '@lanterna/gateway';
import { envOf, instructionsOf, execForm, readDockerfile, stageNamed } from './dockerfileStages.js';
import { readRepositoryFile, repositoryFile } from './repository.js';

interface ComposeService {
  build?: { context?: string; target?: string };
  image?: string;
  environment?: Record<string, string>;
  command?: string[];
  secrets?: string[];
  volumes?: string[];
  expose?: string[];
  ports?: string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  stop_grace_period?: string;
}

interface ComposeFile {
  name?: string;
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  secrets?: Record<string, { file?: string }>;
}

const compose = parse(readRepositoryFile('compose.yaml')) as ComposeFile;
const dockerfile = readDockerfile(readRepositoryFile('Dockerfile'));
const gatewayStage = stageNamed(dockerfile, 'gateway');

function service(name: string): ComposeService {
  const found = compose.services[name];
  assert.ok(found, `compose.yaml has a ${name} service`);
  return found;
}

/** Short-syntax volumes "SOURCE:TARGET[:MODE]". */
function mounts(entry: ComposeService): { source: string; target: string }[] {
  return (entry.volumes ?? []).map((volume) => {
    const [source = '', target = ''] = volume.split(':');
    return { source, target };
  });
}

function dependencies(entry: ComposeService): Map<string, string> {
  const deps = entry.depends_on ?? [];
  return Array.isArray(deps)
    ? new Map(deps.map((name) => [name, 'service_started']))
    : new Map(Object.entries(deps).map(([name, { condition }]) => [name, condition ?? 'service_started']));
}

function durationMs(text: string): number {
  const match = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  assert.ok(match && text !== '', `a duration like 40s or 1m30s, got ${text}`);
  return (Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0)) * 1000;
}

test('compose.yaml names the demo: a presenter, a gateway, its Redis, HAProxy', () => {
  assert.equal(compose.name, 'lanterna-demo');
  assert.deepEqual(Object.keys(compose.services).sort(), ['gateway', 'haproxy', 'presenter', 'redis']);
});

test('Redis asks for a password, from a compose secret the gateway reads too; neither puts it on a command line', () => {
  const secret = compose.secrets?.['redis-password']?.file;
  assert.ok(secret && existsSync(repositoryFile(secret)), 'the redis-password secret is a file in the repository');
  const redis = service('redis');
  const gateway = service('gateway');
  for (const [name, entry] of [['redis', redis], ['gateway', gateway]] as const) assert.ok(entry.secrets?.includes('redis-password'), `${name} is given the secret`);
  const script = (redis.command ?? []).join(' ');
  assert.match(script, /requirepass/);
  assert.match(script, /\/run\/secrets\/redis-password/);
  assert.match(script, /redis-server \/tmp\/redis\.conf/, 'the password reaches Redis in a config file');
  assert.doesNotMatch(script, /--requirepass/);
  const environment = { ...envOf(gatewayStage), ...gateway.environment };
  assert.equal(environment.LANTERNA_REDIS_PASSWORD_FILE, '/run/secrets/redis-password');
  const mounted = mounts(gateway).find(({ target }) => target === environment.LANTERNA_CONFIG);
  const config = loadConfig({ env: { ...environment, LANTERNA_CONFIG: repositoryFile(mounted?.source ?? '') } });
  assert.equal(config.broker.store, 'redis');
  assert.equal(new URL(config.broker.redisUrl ?? '').hostname, 'redis', 'the redis service');
  assert.equal(new URL(config.broker.redisUrl ?? '').password, '', 'no password in the URL');
  assert.equal(config.broker.redisPasswordFile, '/run/secrets/redis-password');
  assert.ok(dependencies(gateway).has('redis'));
});

test('every build target is a Dockerfile stage, every dependency a service, every mounted file exists', () => {
  const stages = new Set(dockerfile.stages.map((stage) => stage.name));
  for (const [name, entry] of Object.entries(compose.services)) {
    if (entry.build) {
      assert.equal(entry.build.context, '.', `${name} builds from the repository`);
      assert.ok(stages.has(entry.build.target ?? ''), `${name}'s build target ${entry.build.target} is a stage`);
    } else {
      assert.match(entry.image ?? '', /:\d/, `${name} names an image with a version tag`);
    }
    for (const dependency of dependencies(entry).keys()) assert.ok(compose.services[dependency], `${name} depends on ${dependency}, a service`);
    for (const { source } of mounts(entry)) {
      if (source.startsWith('./')) assert.ok(existsSync(repositoryFile(source)), `${name} mounts ${source}, which exists`);
      else assert.ok(compose.volumes && source in compose.volumes, `${name} mounts volume ${source}, which is declared`);
    }
  }
});

test('the gateway keeps its state in a named volume at the image\'s VOLUME', () => {
  const [volume] = instructionsOf(gatewayStage, 'VOLUME').flatMap(({ args }) => execForm(args));
  const state = mounts(service('gateway')).find(({ target }) => target === volume);
  assert.ok(state, `a volume mounted at ${volume}`);
  assert.ok(!state.source.startsWith('.') && !state.source.startsWith('/'), 'a named volume (it gets the image\'s owner and mode)');
});

test('the demo gateway configuration is valid as the container sees it, and projects the presenter', () => {
  const gateway = service('gateway');
  const environment = { ...envOf(gatewayStage), ...gateway.environment };
  const configPath = environment.LANTERNA_CONFIG;
  assert.ok(configPath, 'LANTERNA_CONFIG is set');
  const mounted = mounts(gateway).find(({ target }) => target === configPath);
  assert.ok(mounted, `the configuration is mounted at ${configPath}`);
  // the real gateway's loader, with the container's environment and the file from the repository
  const config = loadConfig({ env: { ...environment, LANTERNA_CONFIG: repositoryFile(mounted.source) } });
  assert.equal(config.stateDir, envOf(gatewayStage).LANTERNA_STATE_DIR);
  assert.equal(config.listen.host, '0.0.0.0');
  const [display] = config.displays;
  assert.ok(display?.autoProject, 'the demo display projects by itself');
  assert.equal(display.autoProject.host, 'presenter');
  assert.ok(service('presenter').expose?.includes(String(display.autoProject.port)), 'on the port the presenter exposes');
  assert.ok(config.policy.allowPorts.includes(String(display.autoProject.port)), 'a port the policy allows');
  assert.ok(gateway.expose?.includes(String(config.listen.port)), 'the gateway exposes its listen port');
  assert.ok(durationMs(gateway.stop_grace_period ?? '10s') > config.timeouts.drainMs, 'docker stop waits longer than the drain');
});

test('HAProxy publishes the displays\' port, waits for a healthy gateway, and its configuration passes haproxy -c', () => {
  const haproxy = service('haproxy');
  assert.equal(dependencies(haproxy).get('gateway'), 'service_healthy');
  assert.ok(instructionsOf(gatewayStage, 'HEALTHCHECK').length === 1, 'service_healthy needs the image\'s HEALTHCHECK');
  const cfg = mounts(haproxy).find(({ target }) => target.endsWith('/haproxy.cfg'));
  assert.ok(cfg, 'haproxy.cfg is mounted');
  const text = readRepositoryFile(cfg.source);
  const bindPort = /^\s*bind\s+:(\d+)\s*$/m.exec(text)?.[1];
  assert.ok(haproxy.ports?.some((port) => port.endsWith(`:${bindPort}/tcp`) || port.endsWith(`:${bindPort}`)), `port ${bindPort} is published`);

  const listenPort = envOf(gatewayStage).LANTERNA_LISTEN_PORT;
  const servers = [...text.matchAll(/^\s*server\s+\S+\s+([^:\s]+):(\d+)/gm)].map(([, host = '', port = '']) => ({ host, port }));
  assert.ok(servers.length >= 1);
  for (const { host, port } of servers) {
    assert.ok(compose.services[host], `server ${host} is a compose service`);
    assert.equal(port, listenPort, `server ${host} is reached on the gateway's port`);
  }

  const check = spawnSync('haproxy', ['-c', '-f', repositoryFile(cfg.source)], { encoding: 'utf8' });
  assert.equal(check.error, undefined, 'haproxy is installed (scripts/apt-packages.txt)');
  const output = `${check.stdout}${check.stderr}`;
  assert.equal(check.status, 0, output);
  assert.match(output, /Configuration file is valid/);
  // compose's service names resolve only on compose's network
  const unexpected = output.split('\n').filter((line) => /\[(WARNING|ALERT)\]/.test(line))
    .filter((line) => !servers.some(({ host }) => line.includes(`could not resolve address '${host}'`)));
  assert.deepEqual(unexpected, []);
});
