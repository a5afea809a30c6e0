// Shared helpers for the page tests (node tests/e2e/run.mjs, or node --test on one file): a static
// server for www/, headless Debian Chromium through playwright-core, console-error capture,
// screenshots. Under run.mjs the server and the browser are the runner's, shared by every file.
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
import { dirname, join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { ensureBundle } from '../../scripts/bundle.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const WWW = join(ROOT, 'www');
export const RESULTS = join(ROOT, 'test-results');
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
/**
 * Chromium 156 loads its address bar's popups (chrome://omnibox-popup.top-chrome/, as WebUI pages
 * in renderers of their own) for every browser window, headless too: about 0.5 s of CPU for each new
 * context, more than a test page's own. These features switch them off.
 */
const OMNIBOX_POPUPS = ['WebUIOmniboxAimPopup', 'WebUIOmniboxPopup', 'WebUIOmniboxFullPopup', 'WebUIOmniboxFullPopupV2'];
/**
 * Chromium reads only the last --disable-features on its command line, and playwright-core passes
 * its own list first: so ours repeats that list (playwright-core 1.65's `disabledFeatures`, in
 * lib/coreBundle.js). tests/e2e/chromium-args.test.mjs fails when the installed playwright-core's
 * list holds one that this one lacks.
 */
export const PLAYWRIGHT_DISABLED_FEATURES = ['AvoidUnnecessaryBeforeUnloadCheckSync', 'DestroyProfileOnBrowserClose', 'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable', 'LensOverlay', 'MediaRouter', 'PaintHolding', 'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect', 'TcpPortRandomizationWin', 'OptimizationHints', 'NetworkTimeServiceQuerying', 'AimEnabled',
  'PreconnectToSearch', 'msForceBrowserSignIn', 'msEdgeUpdateLaunchServicesPreferredVersion'];
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...OMNIBOX_POPUPS].join(',')}`,
];

let nativeBinPath = null;

/**
 * The native CLI (`target/debug/kvfleet`), which several page tests hold the page's numbers
 * against. It is built here first, once per test file, so a page test never compares the page
 * with a binary older than the sources (one left by a hand mutation, say). A failed build throws
 * with cargo's message. It is the build `cargo test --features schema` makes (the `test` profile,
 * the same features), so after the native tests it is a no-op instead of a third compile of the
 * crate (`cargo build`'s `dev` profile is a build of its own).
 */
export function nativeBin() {
  if (nativeBinPath === null) {
    execFileSync('cargo', ['build', '-q', '--locked', '--profile', 'test', '--features', 'schema', '--bin', 'kvfleet'],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
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

/**
 * A static server for `dir` (www/ by default, its bundle/ made again first if www/js/ changed since)
 * on 127.0.0.1: tests/e2e/serve.mjs in a process of its own (so a test blocked in a synchronous
 * child process never stalls the page's requests), started and answering. Under the parallel
 * runner (tests/e2e/run.mjs) www/ is already served once for every test file: its address comes in
 * KVFLEET_E2E_SITE and `close()` leaves it running.
 */
export async function startServer({ dir = WWW, timeoutMs = 10_000 } = {}) {
  if (resolvePath(dir) === WWW) await ensureBundle(); // the page runs bundle/, made from js/ (scripts/bundle.mjs)
  const shared = process.env.KVFLEET_E2E_SITE;
  if (shared && dir === WWW) {
    return { url: shared, port: Number(new URL(shared).port), log: () => '', close: async () => {} };
  }
  const proc = spawn(process.execPath, [join(ROOT, 'tests', 'e2e', 'serve.mjs'), dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      proc.kill();
      reject(new Error(`serve.mjs for ${dir} not ready after ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/^(http:\/\/127\.0\.0\.1:\d+)\n/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve.mjs exited (${code}): ${stderr}`));
    });
  });
  return {
    url,
    port: Number(new URL(url).port),
    log: () => stderr,
    close: () =>
      new Promise((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.kill('SIGTERM');
      }),
  };
}

/**
 * Headless Debian Chromium (never a downloaded browser). Under the parallel runner every test
 * file connects to the one browser it started (KVFLEET_E2E_BROWSER, a playwright endpoint), and
 * `close()` then disconnects, closing only this file's contexts; run by hand, a file launches its own.
 */
export function launchBrowser() {
  const shared = process.env.KVFLEET_E2E_BROWSER;
  if (shared) return chromium.connect(shared);
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

/**
 * Waits until the page has painted `n` more frames: what it queued for the next frame (a chart's
 * draw or resize, a panel that follows the run) is then done. A wait on the page, not on a clock.
 */
export async function nextFrames(page, n = 2) {
  await page.evaluate((k) => new Promise((resolve) => {
    const step = (left) => (left === 0 ? resolve() : requestAnimationFrame(() => step(left - 1)));
    step(k);
  }), n);
}

/**
 * Full-page images are for people to look at; nothing reads them. KVFLEET_E2E_SHOTS=0 (what
 * .ci/run sets: a fresh machine keeps no test-results/) skips capturing them, about a second of
 * CPU each on a page 9,000 px tall; every chart is still drawn, so a chart that fails to draw is
 * still an error the test sees.
 */
export const FULL_PAGE_SHOTS = process.env.KVFLEET_E2E_SHOTS !== '0';

/** Writes a full-page PNG to test-results/NAME.png and returns its path (null when FULL_PAGE_SHOTS is off). */
export async function screenshot(page, name, opts = {}) {
  // The page draws a chart when it comes near the screen (or when idle); a full-page image shows
  // them all at once, so have them drawn first.
  await page.evaluate(() => window.kvfleet?.drawAllCharts?.()).catch(() => {});
  if (!FULL_PAGE_SHOTS) return null;
  await mkdir(RESULTS, { recursive: true });
  const path = join(RESULTS, `${name.replace(/[^\w.-]+/g, '_')}.png`);
  await page.screenshot({ path, fullPage: true, ...opts });
  return path;
}

/**
 * The server, the browser, and `open(path, options)`: a fresh context and page at
 * `url + path`, with errors collected. `options`: viewport, colorScheme, waitUntil, heroSweep.
 * `close()` tears everything down (call it in after()).
 *
 * heroSweep (startSite's default for every open, or one open's): false keeps the full page's
 * first-screen sweep held (window.kvfleetHeroHeld, hero-panel.js), for a test file that never
 * looks at the first screen's figure or its sentences: the sweep's 60 points are most of a page
 * load's CPU. Embeds have no such sweep; the option changes nothing there.
 */
export async function startSite({ heroSweep: sweepDefault = true } = {}) {
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
    async open(path = '/', { viewport = { width: 1280, height: 900 }, colorScheme = 'light', waitUntil = 'load', heroSweep = sweepDefault } = {}) {
      const context = await browser.newContext({ viewport, colorScheme });
      contexts.push(context);
      if (!heroSweep) await context.addInitScript(() => { window.kvfleetHeroHeld = true; });
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
