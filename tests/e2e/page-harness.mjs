// tests/e2e/page-harness.mjs: helpers for the page tests: a static server for www/ on 127.0.0.1
// (python3's http.server, which sends application/wasm), Chromium via playwright-core, pages that
// record console errors, and screenshots into test-results/.

import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const RESULTS = path.join(ROOT, 'test-results');

/** Serves www/ on a free loopback port; resolves to {url, close}. */
export function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', path.join(ROOT, 'www')],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => { child.kill(); reject(new Error(`http.server did not start: ${out}`)); }, 10000);
    const onData = (d) => {
      out += d;
      const m = /port (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stdout.resume();
        child.stderr.resume();
        resolve({
          url: `http://127.0.0.1:${m[1]}/`,
          close: () => new Promise((r) => { child.once('exit', r); child.kill(); }),
        });
      }
    };
    child.stdout.on('data', onData);
    child.on('error', reject);
  });
}

export function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--disable-quic', '--no-first-run'],
  });
}

/**
 * Opens a page in a fresh context; collects console errors and page errors. Waits for the first
 * rendered run unless `waitForRun` is false. Returns {page, errors, close}.
 */
export async function openPage(browser, url, { width = 1280, height = 900, colorScheme = 'light', waitForRun = true } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(url);
  if (waitForRun) {
    await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0, null, { timeout: 30000 });
  }
  return { page, errors, close: () => context.close() };
}

/** Saves a PNG into test-results/NAME.png (full page unless told otherwise). */
export async function shot(page, name, { fullPage = true } = {}) {
  mkdirSync(RESULTS, { recursive: true });
  const file = path.join(RESULTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  return file;
}
