import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IoStoreError } from '../../errors.js';
import type { Command } from '../command.js';
import { ExitCode } from '../io.js';

interface WebArgs {
  port: number;
  open?: boolean;
}

/** The built page: dist/web beside dist/cli. */
export const WEB_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

/**
 * Serves the page's own files on 127.0.0.1 only. The files are read once at start into a table keyed by name, so a
 * request can name nothing else (no path is ever joined from the URL); only GET and HEAD are answered.
 */
export async function startWebServer(o: { port: number; root?: string }): Promise<{ server: Server; url: string }> {
  const root = o.root ?? WEB_ROOT;
  if (!existsSync(join(root, 'index.html'))) throw new IoStoreError('NOT_FOUND', 'the web page is not built: run `npm run build:web`', { file: root });
  const assets = new Map<string, { body: Buffer; type: string }>();
  for (const name of readdirSync(root)) {
    const type = TYPES[extname(name).toLowerCase()];
    if (type) assets.set(`/${name}`, { body: readFileSync(join(root, name)), type });
  }
  const server = createServer((req, res) => {
    const headers = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache', 'Referrer-Policy': 'no-referrer' };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...headers, Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    const path = (req.url ?? '/').split('?')[0]!;
    const asset = assets.get(path === '/' ? '/index.html' : path);
    if (!asset) {
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Type': asset.type, 'Content-Length': asset.body.length });
    res.end(req.method === 'HEAD' ? undefined : asset.body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(e.code === 'EADDRINUSE' ? new IoStoreError('USAGE', `port ${o.port} is in use: pick another with --port`) : e));
    server.listen(o.port, '127.0.0.1', resolve);
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : o.port;
  return { server, url: `http://127.0.0.1:${port}/` };
}

function openBrowser(url: string): void {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'cmd' : 'xdg-open';
  const args = process.platform === 'win32' ? ['/c', 'start', '', url] : [url];
  spawn(cmd, args, { stdio: 'ignore', detached: true }).on('error', () => {}).unref();
}

export const webCommand: Command<WebArgs> = {
  command: 'web',
  describe: 'Serve the browser page on localhost: drop a Paks folder in it to browse, inspect and extract',
  builder: (y) =>
    y
      .option('port', { type: 'number', default: 8080, describe: 'port on 127.0.0.1 (0: any free port)' })
      .option('open', { type: 'boolean', describe: 'open the page in the default browser' })
      .example('$0 web --open', 'serve the page and open it')
      .example('open dist/web/index.html', 'the page also works straight from the file, no server') as never,
  async run(args, io) {
    if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) throw new IoStoreError('USAGE', `--port must be 0-65535 (got ${args.port})`);
    const { server, url } = await startWebServer({ port: args.port });
    io.out(`Serving the iostore page at ${url} (localhost only; files you open stay in the browser). Ctrl+C to stop.\n`);
    if (args.open) openBrowser(url);
    // Serves until Ctrl+C, which the executable's signal handler turns into the usual exit (130).
    await new Promise<void>((resolve) => server.on('close', resolve));
    return ExitCode.Ok;
  },
};
