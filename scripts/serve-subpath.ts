// A tiny static server (node:http, no dependency) that serves dist/ under a sub-path, the way a
// static host does (GitHub Pages project sites, a folder on nginx or S3). Used by
// e2e/hosting.spec.ts; also handy by hand:
//
//   npx vite build && npx tsx scripts/serve-subpath.ts --prefix /some/sub/path/ --port 4318
//
// With --fixtures DIR it also serves DIR at /fixtures/ (no CORS header, like most servers) and at
// /fixtures-cors/ (Access-Control-Allow-Origin: *), for #profileURL= tests from another origin.

import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

export interface ServeOptions {
  /** The built app (default dist/). */
  dir: string;
  /** Where the app lives, with leading and trailing slash, e.g. /some/sub/path/. */
  prefix: string;
  port?: number;
  host?: string;
  /** Also serve this folder at /fixtures/ and /fixtures-cors/. */
  fixtures?: string;
}

export interface RunningServer {
  server: Server;
  /** e.g. http://127.0.0.1:43121 (no trailing slash). */
  origin: string;
  /** origin + prefix: the app's URL. */
  url: string;
  close(): Promise<void>;
}

/** The file under `root` for a URL path below a mount point, or null when it escapes the root. */
function fileUnder(root: string, rest: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const abs = resolve(root, `.${sep}${decoded}`);
  return abs === root || abs.startsWith(root + sep) ? abs : null;
}

export function startServer(opts: ServeOptions): Promise<RunningServer> {
  const prefix = `/${opts.prefix.replace(/^\/+|\/+$/g, '')}/`.replace('//', '/');
  const mounts: { at: string; root: string; cors: boolean }[] = [
    { at: prefix, root: resolve(opts.dir), cors: false },
  ];
  if (opts.fixtures) {
    mounts.push({ at: '/fixtures/', root: resolve(opts.fixtures), cors: false });
    mounts.push({ at: '/fixtures-cors/', root: resolve(opts.fixtures), cors: true });
  }
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    // Like static hosts: /sub/path → /sub/path/ (relative URLs in index.html need the slash).
    const bare = mounts.find((m) => `${path}/` === m.at);
    if (bare) {
      res.writeHead(301, { Location: bare.at }).end();
      return;
    }
    const mount = mounts.filter((m) => path.startsWith(m.at)).sort((a, b) => b.at.length - a.at.length)[0];
    let file = mount ? fileUnder(mount.root, path.slice(mount.at.length)) : null;
    let stat = file ? statSync(file, { throwIfNoEntry: false }) : undefined;
    if (file && stat?.isDirectory()) {
      file = join(file, 'index.html');
      stat = statSync(file, { throwIfNoEntry: false });
    }
    const headers: Record<string, string> = { 'Cache-Control': 'no-cache' };
    if (mount?.cors) headers['Access-Control-Allow-Origin'] = '*';
    if (!file || !stat?.isFile()) {
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    headers['Content-Type'] = TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
    headers['Content-Length'] = String(stat.size);
    res.writeHead(200, headers);
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      const { port, address } = server.address() as AddressInfo;
      const origin = `http://${address}:${port}`;
      resolvePromise({
        server,
        origin,
        url: origin + prefix,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const running = await startServer({
    dir: arg('dir') ?? process.env.FLAMELENS_DIST ?? 'dist',
    prefix: arg('prefix') ?? '/some/sub/path/',
    port: Number(arg('port') ?? 4318),
    host: arg('host') ?? '127.0.0.1',
    fixtures: arg('fixtures'),
  });
  console.log(`Flamelens at ${running.url}`);
}
