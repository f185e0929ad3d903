import { ComponentStartError } from '../process/componentStartError.js';
import { allocateFreePort } from '../process/freePort.js';

const CLASH = /address already in use|eaddrinuse|error binding|failed to bind|bind\(\) failed|cannot bind|unable to bind|errno=98|port already used/i;

/** Whether a start failure looks like the port was taken between allocation and bind. */
export function isPortClash(error: unknown): boolean {
  return error instanceof ComponentStartError && CLASH.test(error.logTail);
}

/**
 * Starts a server on a fresh free port; if another process took the port
 * between allocation and bind, tries again with a new one.
 */
export async function startOnFreePort<T>(start: (port: number) => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await allocateFreePort();
    try {
      return await start(port);
    } catch (error) {
      if (attempt >= attempts || !isPortClash(error)) throw error;
    }
  }
}
