import { request } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebServer } from '../../src/cli/commands/web.js';
import { cli } from '../cli-helper.js';
import { tempDir } from '../tmp.js';

/** Raw requests (no URL normalisation by a client), so traversal attempts reach the server as written. */
function get(port: number, path: string, method = 'GET'): Promise<{ status: number; body: string; type: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body, type: String(res.headers['content-type']) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('iostore web server', () => {
  const root = join(tempDir('iostore-web-srv-'), 'web');
  let port = 0;
  let close: () => void;
  beforeAll(async () => {
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, 'index.html'), '<!doctype html><p>page');
    writeFileSync(join(root, 'app.js'), 'void 0');
    writeFileSync(join(root, 'secret.key'), 'not an asset type');
    writeFileSync(join(root, '..', 'outside.html'), 'outside');
    const s = await startWebServer({ port: 0, root });
    port = Number(new URL(s.url).port);
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    close = () => s.server.close();
  });
  afterAll(() => close?.());

  it('serves the page and its assets with their types', async () => {
    expect(await get(port, '/')).toMatchObject({ status: 200, body: '<!doctype html><p>page', type: 'text/html; charset=utf-8' });
    expect(await get(port, '/app.js?v=1')).toMatchObject({ status: 200, type: 'text/javascript; charset=utf-8' });
  });

  it('serves nothing else: no traversal, no other files, no other methods', async () => {
    for (const p of ['/../outside.html', '/..%2foutside.html', '//etc/passwd', '/secret.key', '/%2e%2e/outside.html', '/nope.html']) {
      expect((await get(port, p)).status, p).toBe(404);
    }
    expect((await get(port, '/', 'POST')).status).toBe(405);
    expect((await get(port, '/index.html', 'PUT')).status).toBe(405);
  });

  it('says how to build the page when it is missing', async () => {
    await expect(startWebServer({ port: 0, root: join(root, 'missing') })).rejects.toThrow(/npm run build:web/);
  });

  it('the command: --help, and a bad port is a usage error (exit 2)', async () => {
    const help = await cli('web', '--help');
    expect(help.out).toMatch(/--port/);
    expect(help.out).toMatch(/--open/);
    const bad = await cli('web', '--port', '70000');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--port must be 0-65535/);
  });
});
