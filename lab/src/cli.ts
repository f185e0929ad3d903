#!/usr/bin/env node
// lanterna-lab: start a display, a scene and an RDP server for demos and
// manual tests; print how to connect as JSON; stop it all on SIGINT/SIGTERM.
import { createHash } from 'node:crypto';
import { CLI_USAGE, parseCliArguments, type CliCommand } from './cliArguments.js';
import { Lab } from './lab.js';
import type { RdpEndpoint } from './servers/rdpEndpoint.js';

async function startAll(lab: Lab, command: Exclude<CliCommand, { kind: 'help' }>): Promise<Record<string, unknown>> {
  const details: Record<string, unknown> = { labId: lab.id, logDir: lab.logDir, scene: command.scene };
  const describe = (server: RdpEndpoint): Record<string, unknown> => ({
    host: server.host,
    port: server.port,
    username: server.username,
    password: server.password,
    certificateSha256: server.certificateDer === undefined ? undefined : createHash('sha256').update(server.certificateDer).digest('hex'),
    serverLog: server.logPath,
  });
  if (command.kind === 'xrdp') {
    const server = await lab.xrdp({ backend: 'xorgxrdp', scene: command.scene, width: command.width, height: command.height });
    return { ...details, server: 'xrdp', ...describe(server), size: `${command.width}x${command.height}` };
  }
  const display = await lab.display({ width: command.width, height: command.height });
  await display.showScene(command.scene, { timestampStrip: command.timestampStrip });
  details.display = display.name;
  details.timestampStrip = command.timestampStrip;
  if (command.kind === 'display') return details;
  const server = await lab.shadowServer({ display, auth: command.auth, gfx: command.gfx });
  return { ...details, server: 'freerdp-shadow', auth: command.auth, gfx: command.gfx, ...describe(server) };
}

async function main(): Promise<number> {
  let command: CliCommand;
  try {
    command = parseCliArguments(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`lanterna-lab: ${error instanceof Error ? error.message : String(error)}\n${CLI_USAGE}\n`);
    return 2;
  }
  if (command.kind === 'help') {
    process.stdout.write(`${CLI_USAGE}\n`);
    return 0;
  }
  const lab = await Lab.create({ name: `cli-${command.kind}` });
  let stopRequested: () => void = () => undefined;
  // Handlers stay installed while closing: a second signal (a double Ctrl-C,
  // `timeout` signalling the whole group) must not cut the cleanup short.
  const stopSignal = new Promise<NodeJS.Signals>((resolve) => {
    stopRequested = () => resolve('SIGTERM');
    process.on('SIGINT', () => resolve('SIGINT'));
    process.on('SIGTERM', () => resolve('SIGTERM'));
  });
  try {
    const starting = startAll(lab, command);
    const started = await Promise.race([starting, stopSignal.then(() => undefined)]);
    if (started === undefined) {
      // stopped while starting: let the start finish or fail (it has deadlines), then close it all
      await starting.catch(() => undefined);
      return 130;
    }
    process.stdout.write(`${JSON.stringify(started)}\n`);
    const signal = await stopSignal;
    process.stderr.write(`lanterna-lab: ${signal}, stopping\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`lanterna-lab: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    stopRequested();
    await lab.close();
  }
}

// exit at once once everything is closed: a natural exit tears down the signal
// handlers first, and a second SIGTERM landing in that window (a group-wide
// `timeout`, a double Ctrl-C) would kill the process after a clean stop.
process.exit(await main());
