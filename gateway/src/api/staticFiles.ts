import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream';
import { stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png',
  '.svg': 'image/svg+xml', '.ico': 'image/x-icon', '.map': 'application/json', '.woff2': 'font/woff2',
};

/**
 * Serves the built web pages. Isolation headers go on every response (set by
 * the caller) because the wasm client needs SharedArrayBuffer.
 */
export async function serveStatic(root: string, urlPath: string, request: IncomingMessage, response: ServerResponse): Promise<boolean> {
  let relative: string;
  try {
    relative = decodeURIComponent(urlPath);
  } catch {
    return false;
  }
  if (relative.endsWith('/')) relative += 'index.html';
  const path = normalize(join(root, relative));
  if (!path.startsWith(root.endsWith(sep) ? root : root + sep)) return false;
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) return false;
    size = info.size;
  } catch {
    return false;
  }
  response.writeHead(200, {
    'content-type': types[extname(path)] ?? 'application/octet-stream',
    'content-length': size,
    'cache-control': extname(path) === '.html' ? 'no-cache' : 'public, max-age=300',
  });
  if (request.method === 'HEAD') {
    response.end();
    return true;
  }
  // The file can still fail to open or read after stat said yes (removed, no
  // permission): the headers are gone by then, so the response is cut short;
  // an unhandled stream error would end the worker instead.
  pipeline(createReadStream(path), response, (error) => {
    if (error) response.destroy();
  });
  return true;
}
