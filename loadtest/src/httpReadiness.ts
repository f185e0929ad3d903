// Readiness polling with deadlines: an HTTP(S) endpoint answering 200, or any condition.
import http from 'node:http';
import https from 'node:https';

/** For https:// URLs: the certificate authority to trust (a relay's self-signed certificate). */
export interface ReadinessTrust { caPem?: string | undefined }

function statusOf(url: string, trust: ReadinessTrust): Promise<number | undefined> {
  return new Promise((resolve) => {
    const onResponse = (response: http.IncomingMessage): void => {
      response.resume();
      resolve(response.statusCode);
    };
    const request = url.startsWith('https:')
      ? https.get(url, { timeout: 2000, ...(trust.caPem === undefined ? {} : { ca: trust.caPem }) }, onResponse)
      : http.get(url, { timeout: 2000 }, onResponse);
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(undefined));
  });
}

export async function waitForHttpOk(url: string, timeoutMs: number, isAlive: () => boolean = () => true, trust: ReadinessTrust = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await statusOf(url, trust) === 200) return;
    if (!isAlive()) throw new Error(`process behind ${url} exited`);
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

export async function waitFor(condition: () => boolean, timeoutMs: number, isAlive: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (!isAlive()) throw new Error('process exited before it was ready');
    if (Date.now() > deadline) throw new Error(`not ready within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
