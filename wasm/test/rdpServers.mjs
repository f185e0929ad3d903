// Real RDP servers for the wasm tests: an Xvfb display with a FreeRDP shadow
// server on it. Every process is started in its own group and killed (group
// and all) by the returned stop(), which tests call from t.after().
import { spawn, execFileSync } from 'node:child_process';
import net from 'node:net';
import { existsSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function startProcess(command, args, env = {}) {
  const child = spawn(command, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr = (stderr + chunk).slice(-4000); });
  return {
    child,
    get stderr() { return stderr; },
    stop() {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
      return exited;
    },
  };
}

async function waitFor(check, what, deadlineMs) {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} not ready within ${deadlineMs} ms`);
}

function portOpen(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

async function freePort() {
  const srv = net.createServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

/**
 * Xvfb + freerdp-shadow-cli3 on loopback.
 * @param {{ width?: number, height?: number, auth?: false | { user: string, password: string } }} [options]
 */
export async function startShadowServer(options = {}) {
  const width = options.width ?? 1024;
  const height = options.height ?? 768;
  const started = [];
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-wasm-shadow-'));
  const stop = async () => {
    await Promise.all(started.reverse().map((p) => p.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    let display = 0;
    for (display = 90 + Math.floor(Math.random() * 400); existsSync(`/tmp/.X11-unix/X${display}`); display++);
    const xvfb = startProcess('Xvfb', [`:${display}`, '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp', '-noreset']);
    started.push(xvfb);
    await waitFor(() => existsSync(`/tmp/.X11-unix/X${display}`), 'Xvfb', 10000);
    // something to look at: a solid, known background colour
    const bg = startProcess('xsetroot', ['-solid', '#3366cc'], { DISPLAY: `:${display}` });
    await new Promise((r) => bg.child.once('exit', r));

    const port = await freePort();
    const args = ['/bind-address:127.0.0.1', `/port:${port}`];
    const env = { DISPLAY: `:${display}`, HOME: dir };
    if (options.auth) {
      const sam = join(dir, 'SAM');
      writeFileSync(sam, execFileSync('winpr-hash3', ['-u', options.auth.user, '-p', options.auth.password, '-f', 'sam']));
      // NTLM needs MD4, which OpenSSL 3 keeps in its legacy provider
      const conf = join(dir, 'openssl.cnf');
      writeFileSync(conf, [
        'openssl_conf = openssl_init', '[openssl_init]', 'providers = provider_sect',
        '[provider_sect]', 'default = default_sect', 'legacy = legacy_sect',
        '[default_sect]', 'activate = 1', '[legacy_sect]', 'activate = 1', '',
      ].join('\n'));
      env.OPENSSL_CONF = conf;
      args.push(`/sam-file:${sam}`, '/sec:nla');
    } else {
      args.push('-auth', '/sec:tls');
    }
    const shadow = startProcess('freerdp-shadow-cli3', args, env);
    started.push(shadow);
    await waitFor(() => portOpen(port), `freerdp-shadow-cli3 (${shadow.stderr})`, 30000);
    return { host: '127.0.0.1', port, display, width, height, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
