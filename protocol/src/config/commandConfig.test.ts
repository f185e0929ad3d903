import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONFIG_ERROR_EXIT, configForCommand, type CommandHost } from './commandConfig.js';

class BadConfig extends Error {}

/** A process for the start to write to: it keeps what is written, and exit throws (it never returns). */
function recordingHost(): CommandHost & { out: string; err: string; exitCode: number | undefined } {
  const host = {
    out: '', err: '', exitCode: undefined as number | undefined,
    stdout: { write: (text: string) => { host.out += text; } },
    stderr: { write: (text: string) => { host.err += text; } },
    exit: (code: number): never => { host.exitCode = code; throw new Error(`exit ${code}`); },
  };
  return host;
}

const isBadConfig = (error: unknown): error is BadConfig => error instanceof BadConfig;

test('a valid configuration is handed back and nothing is said', () => {
  const host = recordingHost();
  assert.deepEqual(configForCommand(host, { command: 'lanterna-x', load: () => ({ port: 1 }), isConfigError: isBadConfig }), { port: 1 });
  assert.deepEqual([host.out, host.err, host.exitCode], ['', '', undefined]);
});

test('a bad configuration is said on stderr after the command\'s name and ends with exit 2', () => {
  const host = recordingHost();
  assert.throws(() => configForCommand(host, { command: 'lanterna-x', check: true, load: () => { throw new BadConfig('invalid configuration:\n  port: too big'); }, isConfigError: isBadConfig }), /exit 2/);
  assert.equal(CONFIG_ERROR_EXIT, 2);
  assert.deepEqual([host.out, host.err, host.exitCode], ['', 'lanterna-x: invalid configuration:\n  port: too big\n', 2]);
});

test('--check says the configuration is valid and ends with exit 0', () => {
  const host = recordingHost();
  assert.throws(() => configForCommand(host, { command: 'lanterna-x', check: true, load: () => ({}), isConfigError: isBadConfig }), /exit 0/);
  assert.deepEqual([host.out, host.err, host.exitCode], ['configuration is valid\n', '', 0]);
});

test('an error that is not the configuration\'s is thrown on, not turned into exit 2', () => {
  const host = recordingHost();
  assert.throws(() => configForCommand(host, { command: 'lanterna-x', load: () => { throw new TypeError('a bug'); }, isConfigError: isBadConfig }), TypeError);
  assert.deepEqual([host.err, host.exitCode], ['', undefined]);
});
