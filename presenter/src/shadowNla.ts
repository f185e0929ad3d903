// What FreeRDP's shadow server needs for NLA against a one-time account: the
// account's WinPR SAM line, and an openssl.cnf that loads OpenSSL 3's legacy
// provider beside the default one (NTLM inside CredSSP needs MD4, which
// OpenSSL 3 keeps only there). lanterna-present writes them before it shares
// the screen; the test lab's shadow server imports this module (subpath
// export), so both start the server alike.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const OPENSSL_LEGACY_CONFIG = `openssl_conf = openssl_init
[openssl_init]
providers = provider_sect
[provider_sect]
default = default_sect
legacy = legacy_sect
[default_sect]
activate = 1
[legacy_sect]
activate = 1
`;

/** A WinPR SAM file line for user/password ("user:::LM:NT:::"), made by winpr-hash3 (Debian's winpr3-utils). */
export function samEntry(username: string, password: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('winpr-hash3', ['-u', username, '-p', password, '-f', 'sam'], { timeout: 5000 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`winpr-hash3 failed: ${error.message} ${stderr.trim()}`));
      else if (!stdout.startsWith(`${username}:`)) reject(new Error(`winpr-hash3 printed no sam entry: ${stdout.trim()}`));
      else resolve(`${stdout.trim()}\n`);
    });
  });
}

/**
 * Writes the SAM file (0600) and the openssl.cnf into `dir`: the server's
 * `/sam-file:` argument and its OPENSSL_CONF (for that process only).
 */
export async function writeShadowNlaFiles(dir: string, username: string, password: string): Promise<{ samPath: string; opensslConf: string }> {
  const samPath = join(dir, 'one-time-sam');
  const opensslConf = join(dir, 'openssl.cnf');
  await writeFile(samPath, await samEntry(username, password), { mode: 0o600 });
  await writeFile(opensslConf, OPENSSL_LEGACY_CONFIG);
  return { samPath, opensslConf };
}
