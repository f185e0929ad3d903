import { execFile } from 'node:child_process';

/** A WinPR SAM file line for user/password ("user:::LM:NT:::"), made by winpr-hash3. */
export function makeSamEntry(username: string, password: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('winpr-hash3', ['-u', username, '-p', password, '-f', 'sam'], { timeout: 5000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`winpr-hash3 failed: ${error.message} ${stderr.trim()}`));
      else if (!stdout.startsWith(`${username}:`)) reject(new Error(`winpr-hash3 printed no sam entry: ${stdout.trim()}`));
      else resolve(`${stdout.trim()}\n`);
    });
  });
}
