// A small static file server for the page tests (node only, no python3): GET and HEAD of the
// files under one folder on 127.0.0.1, `index.html` for a folder (a folder named without its
// trailing slash is redirected to it, as browsers resolve relative links from there), the
// content types the page and the book use, Last-Modified and 304, no path outside the folder.
// With `{ gzip: true }` it compresses text and wasm as a static host does (Content-Encoding: gzip),
// for measuring what a reader downloads (tests/e2e/load-time.mjs).
//
//   node tests/e2e/serve.mjs DIR     prints `http://127.0.0.1:PORT` once listening, serves until killed
//   import { serveDir } from './serve.mjs'; const s = await serveDir(dir, { gzip }); ... await s.close();

import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

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

// What a static host compresses: text and wasm, not images or fonts (already compressed).
const COMPRESSED = new Set(['.html', '.js', '.mjs', '.css', '.json', '.map', '.wasm', '.svg', '.txt', '.md', '.jsonl', '.csv', '.ts']);
const gzipCache = new Map(); // file -> { mtimeMs, body }: each file compressed once per change

async function gzipped(file, mtimeMs) {
  const hit = gzipCache.get(file);
  if (hit && hit.mtimeMs === mtimeMs) return hit.body;
  const body = gzipSync(await readFile(file), { level: 6 });
  gzipCache.set(file, { mtimeMs, body });
  return body;
}

async function answer(root, req, res, { gzip = false } = {}) {
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
  const type = TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
  if (gzip && COMPRESSED.has(extname(file).toLowerCase()) && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
    const body = await gzipped(file, info.mtimeMs);
    res.writeHead(200, { 'Content-Type': type, 'Content-Encoding': 'gzip', 'Vary': 'Accept-Encoding', 'Content-Length': body.length, 'Last-Modified': modified.toUTCString() });
    return res.end(req.method === 'HEAD' ? undefined : body);
  }
  res.writeHead(200, {
    'Content-Type': type,
    'Content-Length': info.size,
    'Last-Modified': modified.toUTCString(),
  });
  if (req.method === 'HEAD') return res.end();
  createReadStream(file).on('error', () => res.destroy()).pipe(res);
}

/** Serves `dir` on a free port of 127.0.0.1 (`gzip`: compressed as a static host does): `{ url, port, close() }`. */
export function serveDir(dir, { gzip = false } = {}) {
  const root = resolve(dir);
  const server = createServer((req, res) => {
    answer(root, req, res, { gzip }).catch(() => res.destroy());
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
