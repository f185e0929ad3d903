import { execFile, execFileSync } from 'node:child_process';
import { onEmergencyExit } from '../process/childSupervisor.js';
import { pidsOfUser } from '../process/procTable.js';
import { randomBytes } from 'node:crypto';

function run(command: string, args: readonly string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { timeout: 15_000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`${command} ${args.join(' ')} failed: ${stderr.trim() || error.message}`));
      else resolve(stdout);
    });
    // a command that exits without reading its stdin must not fail us with EPIPE
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input ?? '');
  });
}

/** A local account for RDP logins (xrdp authenticates through PAM, so it must be real). */
export interface TestUser {
  username: string;
  password: string;
  home: string;
  uid: number;
  gid: number;
  /** Deletes the account and its home; call once nothing runs as it. */
  remove(): Promise<void>;
}

/**
 * Creates a throwaway user with a random name and password. Per lab, so two
 * labs never reset each other's password; removed again at close.
 */
export async function createTestUser(password: string): Promise<TestUser> {
  const username = `lanlab${randomBytes(4).toString('hex')}`;
  const home = `/home/${username}`;
  // useradd locks /etc/passwd; another worker's useradd can hold the lock for a moment
  for (let attempt = 1; ; attempt += 1) {
    try {
      await run('useradd', ['--create-home', '--home-dir', home, '--shell', '/bin/sh', '--comment', 'lanterna lab test user', username]);
      break;
    } catch (error) {
      if (attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 300 * attempt));
    }
  }
  await run('chpasswd', [], `${username}:${password}\n`);
  const uid = Number((await run('id', ['-u', username])).trim());
  const gid = Number((await run('id', ['-g', username])).trim());
  const unregister = onEmergencyExit(() => {
    for (const pid of pidsOfUser(uid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch { /* gone */ }
    }
    execFileSync('userdel', ['--remove', '--force', username], { stdio: 'ignore', timeout: 10_000 });
  });
  return {
    username,
    password,
    home,
    uid,
    gid,
    remove: async () => {
      unregister();
      await run('userdel', ['--remove', '--force', username]).catch(async () => {
        await new Promise((resolve) => setTimeout(resolve, 500));
        await run('userdel', ['--remove', '--force', username]);
      });
    },
  };
}
