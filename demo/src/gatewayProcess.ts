// The gateway as its own process, started through its CLI (the product's
// entry point, `lanterna-gateway`), as an operator would start it.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const START_DEADLINE_MS = 30_000;

/** Starts `lanterna-gateway --config configPath`; resolves once it logs that it listens. */
export async function startGatewayProcess(configPath: string, options: { showLogs: boolean }): Promise<ChildProcess> {
  const cli = fileURLToPath(import.meta.resolve('@lanterna/gateway/cli'));
  const child = spawn(process.execPath, [cli, '--config', configPath], { stdio: ['ignore', 'pipe', 'inherit'] });
  const recent: string[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the gateway did not start within ${START_DEADLINE_MS / 1000} s:\n${recent.join('\n')}`)), START_DEADLINE_MS);
      child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`the gateway exited (${String(code)}):\n${recent.join('\n')}`)); });
      createInterface({ input: child.stdout }).on('line', (line) => {
        recent.push(line);
        if (recent.length > 5) recent.shift();
        if (options.showLogs) process.stdout.write(`${line}\n`);
        if (line.includes('"msg":"listening"')) { clearTimeout(timer); resolve(); }
      });
    });
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
  return child;
}
