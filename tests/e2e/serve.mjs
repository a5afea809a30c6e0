// A small static file server for the page tests (node only, no python3): GET and HEAD of the
// files under one folder on 127.0.0.1, `index.html` for a folder (a folder named without its
// trailing slash is redirected to it, as browsers resolve relative links from there), the
// content types the page and the book use, Last-Modified and 304, no path outside the folder.
//
//   node tests/e2e/serve.mjs DIR     prints `http://127.0.0.1:PORT` once listening, serves until killed
//   import { serveDir } from './serve.mjs'; const s = await serveDir(dir); ... await s.close();

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.jsonl': 'text/plain; charset=utf-8',
  '.csv': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
};

/** The file path a request path names under `root`, or null when it would leave it. */
export function fileFor(root, urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  const file = resolve(root, `.${decoded}`);
  return file === root || file.startsWith(root + sep) ? file : null;
}

async function answer(root, req, res) {
  const send = (status, body, headers = {}) => {
    res.writeHead(status, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(body), ...headers });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'GET only\n');
  const urlPath = new URL(req.url, 'http://x').pathname;
  let file = fileFor(root, urlPath);
  if (file === null) return send(404, 'not found\n');
  let info = await stat(file).catch(() => null);
  if (info?.isDirectory()) {
    if (!urlPath.endsWith('/')) return send(301, 'moved\n', { Location: `${urlPath}/${new URL(req.url, 'http://x').search}` });
    file = join(file, 'index.html');
    info = await stat(file).catch(() => null);
  }
  if (!info?.isFile()) return send(404, 'not found\n');
  const modified = new Date(Math.floor(info.mtimeMs / 1000) * 1000);
  const since = Date.parse(req.headers['if-modified-since'] ?? '');
  if (Number.isFinite(since) && modified.getTime() <= since) {
    res.writeHead(304, { 'Last-Modified': modified.toUTCString() });
    return res.end();
  }
  res.writeHead(200, {
    'Content-Type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
    'Content-Length': info.size,
    'Last-Modified': modified.toUTCString(),
  });
  if (req.method === 'HEAD') return res.end();
  createReadStream(file).on('error', () => res.destroy()).pipe(res);
}

/** Serves `dir` on a free port of 127.0.0.1: `{ url, port, close() }`. */
export function serveDir(dir) {
  const root = resolve(dir);
  const server = createServer((req, res) => {
    answer(root, req, res).catch(() => res.destroy());
  });
  server.keepAliveTimeout = 1000;
  return new Promise((ready, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      ready({
        url: `http://127.0.0.1:${port}`,
        port,
        close: () => new Promise((done) => {
          server.closeAllConnections?.();
          server.close(() => done());
        }),
      });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node tests/e2e/serve.mjs DIR');
    process.exit(2);
  }
  const s = await serveDir(dir);
  console.log(s.url);
}
