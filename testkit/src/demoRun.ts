// The README's demo (`demo/`'s CLI) as its tests run it: headless (no kiosk
// window, no $DISPLAY), on a free loopback port, with a state home of its own,
// started once it has printed all it says at start ("Press Ctrl-C to stop."),
// and stopped the way a person stops it (Ctrl-C) when the test ends.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { allocateFreePort } from '@lanterna/lab';

/** demo/'s CLI, found by the repository's layout (the demo is a workspace with no exports). */
const demoCli = fileURLToPath(new URL('../../demo/dist/cli.js', import.meta.url));
/** What is kept of the demo's output for a test's messages: its last lines. */
const OUTPUT_LINES_KEPT = 2000;
/** A demo that Ctrl-C did not end within this is killed. */
const STOP_DEADLINE_MS = 30_000;

export interface DemoRun {
  readonly child: ChildProcess;
  readonly port: number;
  /** The run's XDG_STATE_HOME (removed when the test ends). */
  readonly stateHome: string;
  /** Where the demo keeps its gateway's state: the certificate, the admin token, the pin file. */
  readonly gatewayDir: string;
  /** The display page's URL on loopback, the display token in its hash. */
  readonly displayUrl: string;
  /** The demo's output so far, stdout and stderr as they came (the last lines only). */
  readonly output: string[];
  /** The exit code once the demo has exited. */
  readonly exited: Promise<number | null>;
  /** The base64 SHA-256 of the gateway certificate's key, for Chromium's --ignore-certificate-errors-spki-list. */
  gatewaySpki(): string;
}

/** Anything with node:test's `after`: the test context the demo is stopped in. */
interface TestCleanup { after: (fn: () => void | Promise<void>) => void }

/**
 * Starts the demo with `flags` after `--no-kiosk --host 127.0.0.1 --port N`
 * and resolves once it has said it runs; rejects with its output when it
 * exits or stays silent past `startDeadlineMs`.
 */
export async function startDemo(t: TestCleanup, flags: string[], { startDeadlineMs = 120_000 } = {}): Promise<DemoRun> {
  const stateHome = mkdtempSync(join(tmpdir(), 'lanterna-demo-run-'));
  const port = await allocateFreePort();
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_STATE_HOME: stateHome };
  delete env.DISPLAY; // headless: the demo prints the URL instead of opening a kiosk
  const child = spawn(process.execPath, [demoCli, '--no-kiosk', '--host', '127.0.0.1', '--port', String(port), ...flags], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Ctrl-C lets the demo stop its lab (its servers, a session's user); SIGKILL only if it does not end
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_DEADLINE_MS);
      await exited;
      clearTimeout(timer);
    }
    rmSync(stateHome, { recursive: true, force: true });
  });
  const output: string[] = [];
  const keep = (line: string): void => {
    output.push(line);
    if (output.length > OUTPUT_LINES_KEPT) output.shift();
  };
  createInterface({ input: child.stderr }).on('line', keep);
  const displayUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the demo did not start within ${startDeadlineMs} ms:\n${output.join('\n')}`)), startDeadlineMs);
    void exited.then((code) => { clearTimeout(timer); reject(new Error(`the demo exited ${String(code)}:\n${output.join('\n')}`)); });
    let url: string | undefined;
    createInterface({ input: child.stdout }).on('line', (line) => {
      keep(line);
      url ??= /display page:\s+(\S+)/.exec(line)?.[1];
      // the demo's last line at start, after every line that describes the run
      if (url !== undefined && /^Press Ctrl-C/.test(line)) { clearTimeout(timer); resolve(url); }
    });
  });
  const gatewayDir = join(stateHome, 'lanterna-demo', 'gateway');
  return {
    child, port, stateHome, gatewayDir, displayUrl, output, exited,
    gatewaySpki: () => {
      const certificate = readFileSync(join(gatewayDir, 'gateway-cert.pem'), 'utf8');
      return createHash('sha256').update(createPublicKey(certificate).export({ type: 'spki', format: 'der' })).digest('base64');
    },
  };
}
