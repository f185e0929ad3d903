#!/usr/bin/env node
// The README's first command: the product on its embedded defaults. A demo
// presenter (FreeRDP shadow server on a virtual screen with a live scene),
// the gateway (self-signed TLS made on first start, no database), and a
// display that projects the presenter — in Chromium kiosk mode when a screen
// exists, otherwise as a URL to open in any browser.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { Lab, KIOSK_CHROMIUM_FLAGS, type SceneName } from '@lanterna/lab';

const options = new Command()
  .name('lanterna-demo')
  .option('--port <n>', 'gateway port', '8443')
  .option('--host <address>', 'gateway listen address', '0.0.0.0')
  .option('--scene <name>', 'what the demo presenter shows: terminal | animation | reference', 'terminal')
  .option('--auth <mode>', 'demo presenter security: nla | tls', 'nla')
  .option('--no-kiosk', 'never open a kiosk window, only print the URL')
  .parse()
  .opts<{ port: string; host: string; scene: string; auth: string; kiosk: boolean }>();

const stateDir = join(process.env.XDG_STATE_HOME ?? join(homedir(), '.local', 'state'), 'lanterna-demo');
const children: ChildProcess[] = [];

function demoToken(): string {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const path = join(stateDir, 'display-token');
  if (!existsSync(path)) writeFileSync(path, randomBytes(18).toString('base64url'), { mode: 0o600 });
  return readFileSync(path, 'utf8').trim();
}

async function startGateway(configPath: string): Promise<void> {
  const cli = fileURLToPath(new URL('../../../gateway/dist/cli.js', import.meta.url));
  const child = spawn(process.execPath, [cli, '--config', configPath], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const recent: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the gateway did not start within 30 s:\n${recent.join('\n')}`)), 30_000);
    child.once('exit', (code) => reject(new Error(`the gateway exited (${String(code)}):\n${recent.join('\n')}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      recent.push(line);
      if (recent.length > 5) recent.shift();
      if (process.env.LANTERNA_DEMO_LOGS === '1') process.stdout.write(`${line}\n`);
      if (line.includes('"msg":"listening"')) { clearTimeout(timer); resolve(); }
    });
  });
}

function screenAvailable(): boolean {
  return Boolean(process.env.DISPLAY) && options.kiosk;
}

async function main(): Promise<void> {
  if (!['terminal', 'animation', 'reference'].includes(options.scene)) throw new Error(`unknown scene "${options.scene}"`);
  const lab = await Lab.create({ name: 'demo' });
  const stop = async (): Promise<void> => {
    for (const child of children) child.kill('SIGTERM');
    await lab.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());

  console.log('starting the demo presenter (FreeRDP shadow server on a virtual 1920×1080 screen)…');
  const screen = await lab.display({ width: 1920, height: 1080 });
  await screen.showScene(options.scene as SceneName);
  const presenter = await lab.shadowServer({ display: screen, auth: options.auth === 'tls' ? 'tls' : 'nla' });

  const token = demoToken();
  const configPath = join(stateDir, 'gateway.json');
  writeFileSync(configPath, JSON.stringify({
    listen: { host: options.host, port: Number(options.port), tls: true },
    stateDir: join(stateDir, 'gateway'),
    workers: 1,
    displays: [{
      id: 'demo', name: 'Demo display', token,
      autoProject: { host: presenter.host, port: presenter.port, name: 'Demo presenter', credentials: { username: presenter.username, password: presenter.password } },
    }],
    policy: { allowNetworks: ['127.0.0.0/8'], allowPorts: ['1024-65535'] },
    certificates: { mode: 'first-use' },
  }, null, 2), { mode: 0o600 });
  console.log('starting the gateway…');
  await startGateway(configPath);

  const local = `https://127.0.0.1:${options.port}/display/demo#token=${token}`;
  console.log(`\nLanterna is running.\n  display page:  ${local}\n  on the LAN:    https://${hostname()}:${options.port}/display/demo#token=${token}`);
  console.log(`  presenter:     RDP ${presenter.host}:${presenter.port} (user ${presenter.username}), showing the "${options.scene}" scene`);
  console.log('  (the gateway certificate is self-signed: accept it once in the browser)\nPress Ctrl-C to stop.');
  if (screenAvailable()) {
    const kiosk = spawn('/usr/bin/chromium', [
      ...KIOSK_CHROMIUM_FLAGS, '--kiosk', '--ignore-certificate-errors', `--user-data-dir=${join(lab.dir, 'kiosk-profile')}`, `--app=${local}`,
    ], { stdio: 'ignore' });
    children.push(kiosk);
    console.log(`  kiosk:         Chromium on ${process.env.DISPLAY ?? ''}`);
  }
}

main().catch((error: unknown) => {
  console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
  for (const child of children) child.kill('SIGTERM');
  process.exit(1);
});
