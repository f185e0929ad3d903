// Where the gateway's HTTP server listens when the native data plane owns
// the port: a Unix socket in a fresh directory only this user can enter,
// the socket itself 0600, so only the data plane (our child, same user)
// reaches it. `exclusive`: each cluster worker listens on its own socket.
import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:net';

export interface PrivateSocket {
  path: string;
  /** Removes the directory (after the server closed). */
  remove(): void;
}

export async function listenOnPrivateSocket(server: Server): Promise<PrivateSocket> {
  // mkdtemp makes the directory 0700.
  const dir = mkdtempSync(join(tmpdir(), 'lanterna-gw-'));
  const path = join(dir, 'gateway.sock');
  const remove = (): void => rmSync(dir, { recursive: true, force: true });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ path, exclusive: true }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    chmodSync(path, 0o600);
  } catch (error) {
    remove();
    throw error;
  }
  return { path, remove };
}
