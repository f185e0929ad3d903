import { createServer } from 'node:net';

// Ports this process handed out recently: a second caller in the same process
// must not get a port the first has not bound yet.
const recentlyHandedOut = new Set<number>();
const RECENT_LIMIT = 512;

function bindEphemeral(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      server.close(() => {
        if (address === null || typeof address === 'string') reject(new Error('listener has no tcp address'));
        else resolve(address.port);
      });
    });
  });
}

/**
 * A TCP port on `host` that was free a moment ago (bind port 0, read, close).
 * Another process can still take it before the caller binds it: callers that
 * start servers retry with a fresh port when the bind clashes.
 */
export async function allocateFreePort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const port = await bindEphemeral(host);
    if (recentlyHandedOut.has(port)) continue;
    recentlyHandedOut.add(port);
    if (recentlyHandedOut.size > RECENT_LIMIT) {
      const oldest = recentlyHandedOut.values().next().value;
      if (oldest !== undefined) recentlyHandedOut.delete(oldest);
    }
    return port;
  }
  throw new Error(`no free port found on ${host}`);
}
