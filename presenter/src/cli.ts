#!/usr/bin/env node
// lanterna-present: the presenter's side of Lanterna on the LAN.
//   list                 displays that answer WS-Discovery here (name, room, state)
//   present DISPLAY      ask DISPLAY to show this computer: starts FreeRDP's shadow
//                        server with a one-time password (or --target another RDP
//                        server), sends the projector service's Connect, and stays
//                        until Ctrl-C or `stop`
//   stop                 ends the presentation started by `present`
// Every display asks for its room PIN (shown on its screen): --pin, or asked
// for on a terminal; without either `present` stops before it starts anything.
// Exit codes: 0 done, 1 failed, 2 usage (a PIN missing too), 3 no such display,
// 4 refused by the display (a wrong PIN too), 5 display unreachable. --json
// prints one JSON document instead of text.
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { hostname } from 'node:os';
import { createInterface } from 'node:readline/promises';
import { Command, CommanderError } from 'commander';
import { ANONYMOUS, projectorFaultOf, type ConnectRequest, type DisconnectRequest, type WsdMessage } from '@lanterna/protocol/wsd';
import { findDisplays, type FoundDisplay } from './displayFinder.js';
import { EXIT, PresenterError } from './presenterError.js';
import { clearCurrent, presenterStateDir, readCurrent, writeCurrent } from './presenterState.js';
import { postSoap, type SoapTarget } from './soapClient.js';
import { startShadowServer, type ShadowServer } from './shadowServer.js';

interface Common { json?: boolean; timeout: string; interface?: string }

let json = false;

function out(text: string, value: unknown): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

function newId(): string {
  return `urn:uuid:${randomUUID()}`;
}

async function list(options: Common): Promise<void> {
  const displays = await findDisplays({ timeoutMs: Number(options.timeout), interfaceName: options.interface, stateDir: presenterStateDir() });
  const rows = displays.map((display) => `${display.name.padEnd(24)} ${(display.location ?? '').padEnd(24)} ${display.state.padEnd(10)} ${display.id}`);
  out(displays.length === 0 ? 'no Lanterna display answered on this network' : [`${'NAME'.padEnd(24)} ${'LOCATION'.padEnd(24)} ${'STATE'.padEnd(10)} ID`, ...rows].join('\n'),
    { displays: displays.map(({ projector, ...display }) => ({ ...display, projector: projector.url.href })) });
}

function choose(displays: readonly FoundDisplay[], wanted: string): FoundDisplay {
  const lower = wanted.toLowerCase();
  const found = displays.find((display) => display.id === wanted || display.endpoint === wanted)
    ?? displays.find((display) => display.name.toLowerCase() === lower);
  if (found) return found;
  const names = displays.map((display) => `"${display.name}"`).join(', ');
  throw new PresenterError(EXIT.notFound, `no display called "${wanted}" answered on this network${names ? ` (found: ${names})` : ''}`, 'not-found');
}

/** The address this computer has on the way to `target` (what the display's gateway connects back to). */
function localAddressToward(target: SoapTarget): Promise<string> {
  const host = target.url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const socket = connect({ host: target.zone && host.startsWith('fe80:') ? `${host}%${target.zone}` : host, port: Number(target.url.port || (target.url.protocol === 'https:' ? 443 : 80)), timeout: 5000 }, () => {
      const address = socket.localAddress ?? '';
      socket.destroy();
      resolve(address.replace(/^::ffff:/, ''));
    });
    socket.once('error', (error) => reject(new PresenterError(EXIT.unreachable, `cannot reach ${target.url.host}: ${error.message}`)));
    socket.once('timeout', () => { socket.destroy(); reject(new PresenterError(EXIT.unreachable, `cannot reach ${target.url.host}: no answer`)); });
  });
}

/** A person at a terminal who can be asked (not a script, not --json). */
function canAsk(): boolean {
  return !json && process.stdin.isTTY && process.stderr.isTTY;
}

async function askPin(display: FoundDisplay, why: string): Promise<string> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await prompt.question(`${why}Room PIN shown on "${display.name}": `)).trim();
  } finally {
    prompt.close();
  }
}

/** The PIN from --pin, or asked for; without either, a usage error that says where the PIN is. */
async function roomPin(display: FoundDisplay, given: string | undefined): Promise<string> {
  if (given !== undefined && given.trim() !== '') return given.trim();
  if (canAsk()) {
    const typed = await askPin(display, '');
    if (typed !== '') return typed;
  }
  throw new PresenterError(EXIT.usage, `"${display.name}" asks for its room PIN: read it off the display and run again with --pin <PIN>`, 'pin-required');
}

function refused(answer: WsdMessage): never {
  if (answer.kind === 'fault') {
    throw new PresenterError(EXIT.refused, `the display refused: ${answer.fault.reason}`, projectorFaultOf(answer.fault) ?? 'refused');
  }
  throw new PresenterError(EXIT.failed, `unexpected answer: ${answer.kind}`);
}

interface PresentOptions extends Common { target?: string; user?: string; password?: string; domain?: string; pin?: string; rdpPort: string }

async function present(wanted: string, options: PresentOptions): Promise<void> {
  const stateDir = presenterStateDir();
  const running = readCurrent(stateDir);
  if (running && isAlive(running.pid)) throw new PresenterError(EXIT.usage, `already presenting on "${running.display}" (run lanterna-present stop first)`, 'already-presenting');
  const display = choose(await findDisplays({ timeoutMs: Number(options.timeout), interfaceName: options.interface, stateDir }), wanted);
  // Asked before anything starts: nothing to undo when it is missing.
  const pin = await roomPin(display, options.pin);
  let shadow: ShadowServer | undefined;
  let request: ConnectRequest;
  if (options.target) {
    const [host = '', port = '3389'] = options.target.startsWith('[') ? [options.target.slice(1, options.target.indexOf(']')), options.target.split(']:')[1]] : options.target.split(':');
    request = {
      target: { host, port: Number(port), name: host },
      credentials: options.user ? { username: options.user, password: options.password ?? '', domain: options.domain } : undefined,
      pin, presenter: hostName(),
    };
  } else {
    const host = await localAddressToward(display.projector);
    shadow = await startShadowServer({ host, port: Number(options.rdpPort), stateDir });
    request = { target: { host, port: shadow.port, name: hostName() }, credentials: { username: shadow.username, password: shadow.password }, pin, presenter: hostName() };
  }
  const stopShadow = (): void => shadow?.stop();
  let answer: WsdMessage;
  try {
    for (let asked = 0; ; asked++) {
      answer = await postSoap(display.projector, { kind: 'connect', header: { messageId: newId(), to: display.endpoint, replyTo: ANONYMOUS }, request }, stateDir);
      if (answer.kind === 'connect-response') break;
      // A mistyped PIN at a terminal: ask again (the gateway counts every try against its limits).
      if (answer.kind === 'fault' && projectorFaultOf(answer.fault) === 'PinWrong' && canAsk() && asked < 2) {
        const pin = await askPin(display, `${answer.fault.reason}\n`);
        if (pin !== '') {
          request = { ...request, pin };
          continue;
        }
      }
      refused(answer);
    }
  } catch (error) {
    stopShadow();
    throw error;
  }
  const { sessionId, target, stopToken } = answer.response;
  writeCurrent(stateDir, { pid: process.pid, shadowPid: shadow?.child.pid, projector: display.projector.url.href, zone: display.projector.zone, sessionId, stopToken, display: display.name });
  out(`presenting on "${display.name}"${display.location ? ` (${display.location})` : ''}: ${target.host}:${target.port}, session ${sessionId}\nCtrl-C or "lanterna-present stop" ends it`,
    { event: 'presenting', display: display.name, id: display.id, sessionId, target });
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
    shadow?.child.once('exit', () => resolve());
  });
  stopShadow();
  await disconnect(display.projector, { sessionId, stopToken }, stateDir).catch(() => { /* the display may already be gone */ });
  clearCurrent(stateDir, process.pid);
  out(`stopped presenting on "${display.name}"`, { event: 'stopped', display: display.name, sessionId });
}

/** Ends the projection: the gateway wants the stop token its ConnectResponse gave (the session id alone is no proof). */
async function disconnect(projector: SoapTarget, request: DisconnectRequest, stateDir: string): Promise<void> {
  const answer = await postSoap(projector, { kind: 'disconnect', header: { messageId: newId(), replyTo: ANONYMOUS }, request }, stateDir);
  if (answer.kind !== 'disconnect-response') refused(answer);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function stop(): Promise<void> {
  const stateDir = presenterStateDir();
  const current = readCurrent(stateDir);
  if (!current) throw new PresenterError(EXIT.notFound, 'nothing is being presented from this computer', 'not-presenting');
  await disconnect({ url: new URL(current.projector), zone: current.zone }, { sessionId: current.sessionId, stopToken: current.stopToken }, stateDir).catch((error: unknown) => {
    if (!(error instanceof PresenterError && error.exitCode === EXIT.refused)) throw error;
  });
  if (current.shadowPid && isAlive(current.shadowPid)) process.kill(current.shadowPid, 'SIGTERM');
  if (isAlive(current.pid)) process.kill(current.pid, 'SIGTERM');
  else clearCurrent(stateDir, current.pid);
  out(`stopped presenting on "${current.display}"`, { event: 'stopped', display: current.display, sessionId: current.sessionId });
}

function hostName(): string {
  return hostname();
}

const program = new Command()
  .name('lanterna-present')
  .description('find Lanterna displays on this network and present this computer on one')
  .option('--json', 'print JSON instead of text')
  .exitOverride();
const common = (command: Command): Command => command
  .option('--timeout <ms>', 'how long to wait for displays to answer', '2000')
  .option('--interface <name>', 'look on this network interface only');
common(program.command('list').description('list the displays that answer here (name, location, state)'))
  .action((_options: Common, command: Command) => list(command.optsWithGlobals<Common>()));
common(program.command('present').argument('<display>', 'display name, id or endpoint').description('show this computer (or --target) on DISPLAY until Ctrl-C or stop'))
  .option('--target <host:port>', 'an RDP server to show instead of this screen')
  .option('--user <name>', 'user name for --target')
  .option('--password <password>', 'password for --target')
  .option('--domain <domain>', 'domain for --target')
  .option('--pin <pin>', 'the room PIN shown on the display (asked for on a terminal when missing)')
  .option('--rdp-port <port>', 'port for this screen\'s RDP server', '3389')
  .action((wanted: string, _options: PresentOptions, command: Command) => present(wanted, command.optsWithGlobals<PresentOptions>()));
program.command('stop').description('end the presentation started by present').action(() => stop());

json = process.argv.includes('--json');
program.parseAsync().catch((error: unknown) => {
  if (error instanceof CommanderError) {
    process.exit(error.exitCode === 0 ? EXIT.ok : EXIT.usage);
  }
  const known = error instanceof PresenterError;
  const message = error instanceof Error ? error.message : String(error);
  if (json) process.stdout.write(`${JSON.stringify({ error: known ? error.code ?? 'failed' : 'failed', message })}\n`);
  else process.stderr.write(`lanterna-present: ${message}\n`);
  process.exit(known ? error.exitCode : EXIT.failed);
});
