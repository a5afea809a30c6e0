// Shared helpers for the page tests (node --test tests/e2e/): a static server for www/,
// headless Debian Chromium through playwright-core, console-error capture, screenshots.
//
//   import { startSite, screenshot } from './harness.mjs';
//   const site = await startSite();            // in before()
//   const { page, errors } = await site.open('/?embed=1');
//   ... assertions ...; assert.deepEqual(errors, []);
//   await screenshot(page, 'embed');           // test-results/embed.png
//   await site.close();                        // in after()

import { execFileSync, spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const WWW = join(ROOT, 'www');
export const RESULTS = join(ROOT, 'test-results');
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

let nativeBinPath = null;

/**
 * The native CLI (`target/debug/kvfleet`), which several page tests hold the page's numbers
 * against. It is built here first (`cargo build --bin kvfleet`, a no-op when it is fresh),
 * once per test file, so a page test never compares the page with a binary older than the
 * sources (one left by a hand mutation, say). A failed build throws with cargo's message.
 */
export function nativeBin() {
  if (nativeBinPath === null) {
    execFileSync('cargo', ['build', '-q', '--locked', '--bin', 'kvfleet'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    nativeBinPath = join(ROOT, 'target', 'debug', 'kvfleet');
  }
  return nativeBinPath;
}

/** A free TCP port on 127.0.0.1, chosen by the OS. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Starts `python3 -m http.server` for www/ on 127.0.0.1 and waits until it answers. */
export async function startServer({ dir = WWW, timeoutMs = 10_000 } = {}) {
  const port = await freePort();
  const proc = spawn(
    'python3',
    ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', dir],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  proc.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null) {
      throw new Error(`http.server exited (${proc.exitCode}): ${stderr}`);
    }
    try {
      await fetch(`${url}/`, { signal: AbortSignal.timeout(1000) });
      break;
    } catch (e) {
      if (Date.now() > deadline) {
        proc.kill();
        throw new Error(`http.server on ${url} not ready after ${timeoutMs} ms: ${e}\n${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    port,
    log: () => stderr,
    close: () =>
      new Promise((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}

/** Launches headless Debian Chromium (never a downloaded browser). */
export function launchBrowser() {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/**
 * Records what a page reports as an error: console.error messages, uncaught exceptions,
 * failed requests and HTTP responses >= 400 (a missing favicon counts: pitfall 4).
 * Returns the live array.
 */
export function collectErrors(page) {
  const errors = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') {
      const loc = msg.location();
      errors.push(`console.error: ${msg.text()}${loc?.url ? ` (${loc.url}:${loc.lineNumber})` : ''}`);
    }
  });
  page.on('pageerror', (err) => errors.push(`uncaught: ${err.stack || err.message || err}`));
  page.on('requestfailed', (req) => {
    errors.push(`request failed: ${req.url()} (${req.failure()?.errorText})`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400) errors.push(`HTTP ${res.status()}: ${res.url()}`);
  });
  return errors;
}

/**
 * The page's address once it has caught up with the settings: the page writes it when the settings
 * have been still for a moment (www/js/url-state.js), not within a slider step.
 */
export async function settledUrl(page) {
  await page.waitForFunction(() => !window.kvfleet?.urlPending?.(), null, { timeout: 10000 });
  return page.url();
}

/** Writes a full-page PNG to test-results/NAME.png and returns its path. */
export async function screenshot(page, name, opts = {}) {
  await mkdir(RESULTS, { recursive: true });
  // The page draws a chart when it comes near the screen (or when idle); a full-page image shows
  // them all at once, so have them drawn first.
  await page.evaluate(() => window.kvfleet?.drawAllCharts?.()).catch(() => {});
  const path = join(RESULTS, `${name.replace(/[^\w.-]+/g, '_')}.png`);
  await page.screenshot({ path, fullPage: true, ...opts });
  return path;
}

/**
 * The server, the browser, and `open(path, options)`: a fresh context and page at
 * `url + path`, with errors collected. `options`: viewport, colorScheme, waitUntil.
 * `close()` tears everything down (call it in after()).
 */
export async function startSite() {
  const server = await startServer();
  let browser;
  try {
    browser = await launchBrowser();
  } catch (e) {
    await server.close();
    throw e;
  }
  const contexts = [];
  return {
    url: server.url,
    server,
    browser,
    async open(path = '/', { viewport = { width: 1280, height: 900 }, colorScheme = 'light', waitUntil = 'load' } = {}) {
      const context = await browser.newContext({ viewport, colorScheme });
      contexts.push(context);
      const page = await context.newPage();
      const errors = collectErrors(page);
      await page.goto(server.url + path, { waitUntil });
      return { page, errors, context };
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => {});
      await browser.close().catch(() => {});
      await server.close();
    },
  };
}
