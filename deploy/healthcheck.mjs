// The image's HEALTHCHECK: GET /healthz on the gateway's own listener inside
// the container; exit 0 when it answers 200. The certificate is usually the
// gateway's self-signed one, so it is not verified: this asks "is the gateway
// serving", not "is its certificate trusted". Plain node (the image has no curl).
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

const listenHost = process.env.LANTERNA_LISTEN_HOST ?? '0.0.0.0';
// a wildcard listener answers on loopback; a specific address only on itself
const host = ['0.0.0.0', '::', ''].includes(listenHost) ? '127.0.0.1' : listenHost;
const port = Number(process.env.LANTERNA_LISTEN_PORT ?? 8443);
const tls = process.env.LANTERNA_LISTEN_TLS !== 'false';

const request = (tls ? httpsRequest : httpRequest)(
  { host, port, path: '/healthz', timeout: 4000, rejectUnauthorized: false },
  (response) => {
    response.resume();
    if (response.statusCode !== 200) process.stderr.write(`healthcheck: /healthz answered ${response.statusCode}\n`);
    process.exit(response.statusCode === 200 ? 0 : 1);
  },
);
request.on('timeout', () => request.destroy(new Error('no answer within 4 s')));
request.on('error', (error) => {
  process.stderr.write(`healthcheck: ${error.message}\n`);
  process.exit(1);
});
request.end();
