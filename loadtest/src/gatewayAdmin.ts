// What the chaos and soak runs ask a gateway over HTTP with its admin token:
// the displays it holds (admin API) and its Prometheus metrics.
import http from 'node:http';

function get(url: string, token: string, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { authorization: `Bearer ${token}` }, timeout: timeoutMs }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => { body += chunk; });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`no answer from ${url} within ${timeoutMs} ms`)));
    request.on('error', reject);
  });
}

async function getOk(url: string, token: string, timeoutMs: number): Promise<string> {
  const { status, body } = await get(url, token, timeoutMs);
  if (status !== 200) throw new Error(`${url} answered ${status}: ${body.slice(0, 200)}`);
  return body;
}

/** Ids of the displays whose control socket this gateway (instance) holds now. */
export async function onlineDisplays(httpUrl: string, adminToken: string, timeoutMs = 10_000): Promise<Set<string>> {
  const body = JSON.parse(await getOk(`${httpUrl}/v1/admin/displays`, adminToken, timeoutMs)) as { displays?: { id: string; online: boolean }[] };
  return new Set((body.displays ?? []).filter((display) => display.online).map((display) => display.id));
}

export function metricsText(httpUrl: string, token: string, timeoutMs = 10_000): Promise<string> {
  return getOk(`${httpUrl}/metrics`, token, timeoutMs);
}
