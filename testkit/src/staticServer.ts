// A tiny stand-in for the gateway's static file serving: the built pages with
// the cross-origin isolation headers (COOP/COEP/CORP) that SharedArrayBuffer
// needs, and /display/<id> mapped to display.html as the gateway does.
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { AddressInfo } from 'node:net';

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
} as const;

export interface StaticServer {
  readonly server: Server;
  readonly origin: string;
  close(): Promise<void>;
}

/** Serves `publicDir` at `/` and, when given, `labDir` at `/lab/`. */
export async function startStaticServer(publicDir: string, labDir?: string): Promise<StaticServer> {
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    let root = publicDir;
    let relative = path;
    if (labDir !== undefined && path.startsWith('/lab/')) {
      root = labDir;
      relative = path.slice('/lab'.length);
    } else if (/^\/display\/[^/]+$/.test(path)) {
      relative = '/display.html';
    } else if (path === '/') {
      relative = '/index.html';
    }
    const file = normalize(join(root, relative));
    if (!file.startsWith(resolve(root) + sep)) {
      response.writeHead(403, isolationHeaders).end();
      return;
    }
    readFile(file).then(
      (body) => {
        response.writeHead(200, { ...isolationHeaders, 'Content-Type': contentTypes[extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' });
        response.end(body);
      },
      () => {
        response.writeHead(404, { ...isolationHeaders, 'Content-Type': 'text/plain' });
        response.end('not found');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
