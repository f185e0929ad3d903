// A file that passes stat but fails to open must cost one response, not the worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, symlinkSync, openSync, statSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveStatic } from './staticFiles.js';

/** A regular file by stat that nobody, root included, may read (the kernel's sysctl checks its own modes). */
const UNREADABLE = '/proc/sys/vm/drop_caches';

function get(port: number, path: string): Promise<{ status: number; body: string } | { aborted: string }> {
  return new Promise((resolve) => {
    httpRequest({ host: '127.0.0.1', port, path }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => { body += chunk.toString(); });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      response.on('error', (error) => resolve({ aborted: error.message }));
    }).on('error', (error) => resolve({ aborted: error.message })).end();
  });
}

test('a file that fails to open after stat cuts its own response short and the server goes on', async (t) => {
  assert.ok(statSync(UNREADABLE).isFile(), 'premise: stat says regular file');
  assert.throws(() => openSync(UNREADABLE, 'r'), /EACCES/, 'premise: open fails even as root');
  const root = mkdtempSync(join(tmpdir(), 'lanterna-static-'));
  writeFileSync(join(root, 'index.html'), '<p>ok</p>');
  symlinkSync(UNREADABLE, join(root, 'unreadable.js'));
  const server = createServer((req, res) => {
    void serveStatic(root, new URL(req.url ?? '/', 'http://x').pathname, req, res).then((served) => {
      if (!served) res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const port = (server.address() as { port: number }).port;

  const broken = await get(port, '/unreadable.js');
  assert.ok('aborted' in broken || broken.body === '', `the unreadable file is not served (got ${JSON.stringify(broken)})`);
  assert.deepEqual(await get(port, '/'), { status: 200, body: '<p>ok</p>' });
});
