// tests/e2e/load-time.mjs: what readers wait for. The cold load of the page and of one embed to
// their first chart (window.kvfleet.firstRenderAt, ms since the navigation's start), each in a fresh
// browser context (an empty cache), on the local machine and over an emulated link of 10 Mbit/s
// each way with 40 ms round trips (Chromium's network emulation, through the DevTools protocol).
// Medians of RUNS loads; the requests made and the bytes transferred before the first chart beside
// them. The files are served gzipped, as a static host serves them. Not a test: it prints figures
// against the targets and never fails on them (`cargo xtask test` runs it after the page tests); it
// exits non-zero only if a load shows no chart at all.
//
//   node tests/e2e/load-time.mjs [DIR ...] [--runs=5] [--only=page|embed] [--verbose] [--json=FILE]
// --json=FILE also writes the medians as JSON (one folder only): {page|embed: {local|emulated:
// {median_ms, runs, requests, kib, load_avg_min, load_avg_max}}} (the machine's one-minute load
// average over the run), what `cargo xtask perf record cold-load-page` reads.
// Several folders (say a copy of www/ from another commit, and www) are measured in turns, load by
// load, so that a busy machine slows each of them alike.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { launchBrowser, WWW } from './harness.mjs';
import { serveDir } from './serve.mjs';
import { ensureBundle } from '../../scripts/bundle.mjs';

const die = (msg) => { console.error(`load-time: ${msg}`); process.exit(2); };
const arg = (k, d) => process.argv.find((a) => a.startsWith(`--${k}=`))?.slice(k.length + 3) ?? d;
const dirs = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (dirs.length === 0) dirs.push(WWW);
const runs = Number(arg('runs', '5'));
if (!Number.isInteger(runs) || runs < 1) die(`--runs must be a whole number >= 1, got ${arg('runs')}`);
const verbose = process.argv.includes('--verbose');
for (const dir of dirs) if (!existsSync(join(dir, 'index.html'))) die(`${dir} has no index.html: name a built www/ folder (cargo xtask build)`);
if (arg('only') && !['page', 'embed'].includes(arg('only'))) die(`--only must be page or embed, got ${arg('only')}`);
const jsonFile = arg('json');
if (jsonFile !== undefined && (jsonFile === '' || dirs.length > 1)) die(`--json needs a FILE and one folder, got --json=${jsonFile} and ${dirs.length} folders`);
const TIMEOUT_MS = 15_000; // a cold load takes a second or two, even on a busy machine

/** The link Chromium emulates: 10 Mbit/s down and up (in bytes/s), 40 ms from request to response. */
const LINK = { offline: false, latency: 40, downloadThroughput: 10e6 / 8, uploadThroughput: 10e6 / 8 };

/** What is loaded, and its targets (ms: local, emulated). */
const LOADS = [
  { name: 'page', path: '/', targets: [600, 1500] },
  { name: 'embed', path: '/?embed=1&show=hitrate', targets: [400, 1000] },
].filter((l) => !arg('only') || l.name === arg('only'));
const NETS = [{ name: 'local', link: null }, { name: 'emulated', link: LINK }];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n === 0 ? NaN : n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};

/**
 * One cold load of `url` in a fresh context, with the link emulated if `link` is given: the first
 * chart's time, and the requests (count, bytes on the wire) that started before it.
 */
async function coldLoad(browser, url, link) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  try {
    const page = await context.newPage();
    if (link) {
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', link);
    }
    const done = [];
    context.on('requestfinished', (r) => done.push(r));
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(url, { waitUntil: 'commit' });
    await page.waitForFunction(() => window.kvfleet?.firstRenderAt > 0 || document.body?.classList.contains('failed'), null, { timeout: TIMEOUT_MS });
    const { first, origin, failed } = await page.evaluate(() => ({
      first: window.kvfleet.firstRenderAt, origin: performance.timeOrigin, failed: document.body.classList.contains('failed'),
    }));
    if (failed || !(first > 0)) throw new Error(`${url}: no chart ${errors.join('; ')}`);
    const before = [];
    for (const r of done) {
      const t = r.timing();
      if (t.startTime - origin > first) continue;
      const sizes = await r.sizes().catch(() => ({ responseBodySize: 0, responseHeadersSize: 0 }));
      before.push({ url: r.url().replace(/^https?:\/\/[^/]+/, ''), start: t.startTime - origin, end: t.startTime - origin + t.responseEnd, bytes: sizes.responseBodySize + sizes.responseHeadersSize });
    }
    return { first, requests: before.length, bytes: before.reduce((a, r) => a + r.bytes, 0), detail: before };
  } finally {
    await context.close();
  }
}

if (dirs.some((d) => resolve(d) === WWW)) await ensureBundle();
const servers = await Promise.all(dirs.map((dir) => serveDir(dir, { gzip: true })));
const browser = await launchBrowser();
// The machine's one-minute load average, sampled every second over the measurement (for --json).
const loads = [loadavg()[0]];
const loadTimer = setInterval(() => loads.push(loadavg()[0]), 1000).unref();
const t0 = performance.now();
const results = new Map(); // `${dir}|${load}|${net}` -> [coldLoad result]
let failure = null;
const repeated = []; // the loads that showed no chart in time, measured again
try {
  for (let r = 0; r < runs; r++) {
    for (const load of LOADS) {
      for (const net of NETS) {
        for (let d = 0; d < dirs.length; d++) {
          const what = `${dirs[d]} ${load.path} (${net.name}), load ${r + 1}`;
          // A load with no chart in time is measured again, once, and said so: now and then (on a busy
          // machine, with or without this page's changes) a worker under network emulation never starts.
          const res = await coldLoad(browser, servers[d].url + load.path, net.link).catch((e) => {
            repeated.push(`${what}: ${e.message.split('\n')[0]}`);
            return coldLoad(browser, servers[d].url + load.path, net.link);
          }).catch((e) => { throw new Error(`${what}, twice: ${e.message}`); });
          const key = `${dirs[d]}|${load.name}|${net.name}`;
          (results.get(key) || results.set(key, []).get(key)).push(res);
          if (verbose) {
            console.log(`${key} #${r + 1}: first chart ${res.first.toFixed(0)} ms, ${res.requests} requests, ${(res.bytes / 1024).toFixed(0)} KiB`);
            for (const q of res.detail.sort((a, b) => a.start - b.start)) console.log(`    ${q.start.toFixed(0).padStart(5)} -> ${q.end.toFixed(0).padStart(5)}  ${(q.bytes / 1024).toFixed(1).padStart(6)} KiB  ${q.url}`);
          }
        }
      }
    }
  }
} catch (e) {
  failure = e;
} finally {
  await browser.close().catch(() => {});
  for (const s of servers) await s.close();
}
if (failure) {
  console.error(`load-time: ${failure.message}`);
  process.exit(1);
}

const fmt = (ms) => `${ms.toFixed(0)} ms`;
console.log(`\nCold load to the first chart, median of ${runs} (each a fresh browser context; served gzipped; ms from the navigation's start)`);
console.log('  the emulated link: 10 Mbit/s down and up, 40 ms round trips (Chromium network emulation)');
const labelOf = (load, dir) => `${load.name} ${load.path}${dirs.length > 1 ? ` [${dir}]` : ''}`;
const width = Math.max(...LOADS.flatMap((load) => dirs.map((dir) => labelOf(load, dir).length))) + 2;
console.log(`  ${'load'.padEnd(width)}${'local'.padStart(10)}${'(target)'.padStart(10)}${'emulated'.padStart(11)}${'(target)'.padStart(10)}${'requests'.padStart(10)}${'KiB'.padStart(7)}`);
for (const load of LOADS) {
  for (const dir of dirs) {
    const local = results.get(`${dir}|${load.name}|local`);
    const emu = results.get(`${dir}|${load.name}|emulated`);
    const mark = (ms, target) => `${ms <= target ? '' : '>'}${target}`;
    const [l, e] = [median(local.map((x) => x.first)), median(emu.map((x) => x.first))];
    console.log(`  ${labelOf(load, dir).padEnd(width)}${fmt(l).padStart(10)}${mark(l, load.targets[0]).padStart(10)}${fmt(e).padStart(11)}${mark(e, load.targets[1]).padStart(10)}` +
      `${String(median(emu.map((x) => x.requests))).padStart(10)}${(median(emu.map((x) => x.bytes)) / 1024).toFixed(0).padStart(7)}`);
  }
}
console.log(`  (requests and KiB: those started before the first chart, over the emulated link; a target shown as >N is missed)`);
for (const r of repeated) console.log(`  measured again: ${r}`);
console.log(`  ${LOADS.length * NETS.length * dirs.length * runs} loads in ${((performance.now() - t0) / 1000).toFixed(1)} s; the machine's other work counts too, so compare folders within one run`);

if (jsonFile) {
  // Per load and link: the median first chart, and the requests and KiB started before it.
  const figures = {}, loadAvg = loadRange();
  for (const load of LOADS) {
    figures[load.name] = {};
    for (const net of NETS) {
      const rs = results.get(`${dirs[0]}|${load.name}|${net.name}`);
      figures[load.name][net.name] = {
        median_ms: Math.round(median(rs.map((x) => x.first))), runs,
        requests: median(rs.map((x) => x.requests)), kib: Math.round(median(rs.map((x) => x.bytes)) / 1024), ...loadAvg,
      };
    }
  }
  mkdirSync(dirname(resolve(jsonFile)), { recursive: true });
  writeFileSync(jsonFile, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`  written to ${jsonFile}`);
}

/** The load average's range over the measurement, two decimals (it stops the sampling). */
function loadRange() {
  clearInterval(loadTimer);
  const r = (x) => Math.round(x * 100) / 100;
  return { load_avg_min: r(Math.min(...loads)), load_avg_max: r(Math.max(...loads)) };
}
