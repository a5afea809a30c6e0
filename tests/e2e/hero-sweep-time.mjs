// tests/e2e/hero-sweep-time.mjs: how long after the page is opened the hero's sweep is whole (every
// drawn policy at every count to 256), per setup, the median of `--runs` cold loads; then, on the same
// page, how long after a setting's change (the hero's cache slider one step down: a new sweep of every
// point) the run on screen is drawn and the new sweep is whole, and whether the sweep's first point was
// handed out only after that run was drawn. With `--www=DIR,DIR` it serves each directory (e.g. a copy
// of www/ from another commit, and www) and interleaves them, run by run. Not a test: prints one line
// per directory, setup and case (median, min and max ms, the points each policy got). With `--cpu`
// (Linux), also the CPU time of this process and its children (Chromium, the servers) over each case,
// which other work on a shared machine inflates far less than the wall time.
// With `--json=FILE` (one directory, every setup), also writes the medians as JSON: per setup
// (defaults, kv, sglang, trace) open_ms and change_ms (their ranges as open_min_s ... in seconds),
// cpu_open_ms and cpu_change_ms; drawn_min_ms and drawn_max_ms over every setup, runs, and whether
// the sweep started after the run was drawn (sweep_after_run), the machine's one-minute load
// average over the run (load_avg_min, load_avg_max), what `cargo xtask perf record
// hero-sweep` reads.
//   node tests/e2e/hero-sweep-time.mjs [--runs=5] [--only=trace] [--www=/tmp/www-before,www] [--cpu] [--json=FILE]
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { startServer, launchBrowser } from './harness.mjs';
const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const runs = +(arg('runs') ?? 5);
const only = arg('only');
const dirs = arg('www')?.split(',') ?? [null];
const ALL = ['/', '/?routing=kv', '/?routing=sglang', '/?trace=conversation_trace.jsonl&routing=kv'];
const SETUPS = only ? ALL.filter((p) => p.includes(only)) : ALL;
const servers = await Promise.all(dirs.map((dir) => (dir ? startServer({ dir }) : startServer())));
const browser = await launchBrowser();
const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const span = (xs) => `median of ${xs.length}; ${Math.min(...xs)}-${Math.max(...xs)}`;
const cpu = process.argv.includes('--cpu');
const jsonFile = arg('json');
if (jsonFile !== undefined && (jsonFile === '' || dirs.length > 1 || only)) {
  console.error(`hero-sweep-time: --json needs a FILE, one directory and every setup, got --json=${jsonFile}`);
  process.exit(2);
}
/** The setups' names in the JSON figures. */
const NAMES = { '/': 'defaults', '/?routing=kv': 'kv', '/?routing=sglang': 'sglang', '/?trace=conversation_trace.jsonl&routing=kv': 'trace' };

/**
 * User + system CPU ms of this process and its descendants, from /proc (10 ms ticks), the children
 * they have reaped included (so a renderer that exits between two readings still counts).
 */
function cpuMs() {
  const stat = (pid) => { const t = readFileSync(`/proc/${pid}/stat`, 'utf8'); return t.slice(t.lastIndexOf(')') + 2).split(' '); };
  const kids = {};
  for (const pid of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try { (kids[stat(pid)[1]] ||= []).push(pid); } catch { /* gone */ }
  }
  let ms = 0;
  for (const todo = [String(process.pid)]; todo.length;) {
    const pid = todo.pop();
    todo.push(...(kids[pid] || []));
    try { const f = stat(pid); ms += (+f[11] + +f[12] + +f[13] + +f[14]) * 10; } catch { /* gone */ }
  }
  return ms;
}

const whole = (page, n) => page.waitForFunction((k) => (window.kvfleet?.heroDone || 0) >= k && !window.kvfleet.hero.pending, n, { timeout: 120000 });

/** The hero's cache slider one step down (a real key press); ms from it to the run drawn, to the sweep whole. */
async function changeSetting(page) {
  const before = await page.evaluate(() => ({ runs: window.kvfleet.runCount, done: window.kvfleet.heroDone }));
  const slider = '[data-testid="hero-input-kv_blocks"]';
  await page.focus(slider);
  await page.evaluate((sel) => {
    window.__changeAt = 0;
    document.querySelector(sel).addEventListener('input', (e) => { window.__changeAt = e.timeStamp; }, { once: true });
    document.addEventListener('kvfleet:hero-done', () => { window.__wholeAt = performance.now(); }, { once: true });
  }, slider);
  const c0 = cpu ? cpuMs() : 0;
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction((n) => window.kvfleet.runCount > n, before.runs, { timeout: 120000 });
  await whole(page, before.done + 1);
  const cpuChange = cpu ? cpuMs() - c0 : 0;
  return page.evaluate((c) => {
    const t = window.kvfleet.hero.timing, at = window.__changeAt;
    // (a page without the sweep's timing record cannot say when its sweep started)
    return { cpu: c, drawn: window.kvfleet.lastRenderAt - at, whole: window.__wholeAt - at, runFirst: t ? t.started >= window.kvfleet.lastRenderAt : null };
  }, cpuChange);
}

// The machine's one-minute load average, sampled every second over the measurement (for --json).
const loads = [loadavg()[0]];
const loadTimer = setInterval(() => loads.push(loadavg()[0]), 1000).unref();
const results = dirs.map(() => SETUPS.map(() => ({ ms: [], drawn: [], changed: [], points: null, runFirst: [], cpuOpen: [], cpuChange: [] })));
for (let i = 0; i < runs; i++) {
  for (const [s, path] of SETUPS.entries()) {
    for (const [d, server] of servers.entries()) {
      const r = results[d][s];
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const t0 = Date.now(), c0 = cpu ? cpuMs() : 0;
      await page.goto(server.url + path);
      await whole(page, 1);
      r.ms.push(Date.now() - t0);
      r.cpuOpen.push(cpu ? cpuMs() - c0 : 0);
      r.points = await page.evaluate(() => Object.fromEntries(Object.entries(window.kvfleet.hero.sweeps).map(([k, v]) => [k, v.length])));
      const c = await changeSetting(page);
      r.drawn.push(Math.round(c.drawn));
      r.changed.push(Math.round(c.whole));
      r.runFirst.push(c.runFirst);
      r.cpuChange.push(c.cpu);
      await context.close();
    }
  }
}
for (const [d, dir] of dirs.entries()) {
  for (const [s, path] of SETUPS.entries()) {
    const r = results[d][s], at = dir ? `${dir} ${path}` : path;
    const first = r.runFirst.includes(null) ? 'not recorded' : r.runFirst.every(Boolean) ? 'every time' : 'NOT every time';
    console.log(`${at}: sweep whole ${med(r.ms)} ms after opening (${span(r.ms)}), points ${JSON.stringify(r.points)}`);
    console.log(`${at}: a setting's change: its run drawn after ${med(r.drawn)} ms (${span(r.drawn)}), the new sweep whole after ${med(r.changed)} ms (${span(r.changed)}); ` +
      `the sweep started after the run was drawn: ${first}`);
    if (cpu) console.log(`${at}: CPU time, opening to the sweep whole ${med(r.cpuOpen)} ms (${span(r.cpuOpen)}), the change to the new sweep whole ${med(r.cpuChange)} ms (${span(r.cpuChange)})`);
  }
}
await browser.close();
await Promise.all(servers.map((s) => s.close()));
if (jsonFile) writeJson(jsonFile, results[0]);

/** The medians of the one directory's setups as JSON (see the head). */
function writeJson(file, rs) {
  const secs = (ms) => Math.round(ms / 10) / 100;
  const figures = { runs, ...loadRange() };
  const first = rs.flatMap((r) => r.runFirst);
  Object.assign(figures, {
    drawn_min_ms: Math.min(...rs.map((r) => med(r.drawn))), drawn_max_ms: Math.max(...rs.map((r) => med(r.drawn))),
    sweep_after_run: first.includes(null) ? 'not recorded' : first.every(Boolean) ? 'every time' : 'not every time',
  });
  for (const [s, path] of SETUPS.entries()) {
    const r = rs[s];
    figures[NAMES[path]] = {
      open_ms: med(r.ms), open_min_s: secs(Math.min(...r.ms)), open_max_s: secs(Math.max(...r.ms)),
      change_ms: med(r.changed), change_min_s: secs(Math.min(...r.changed)), change_max_s: secs(Math.max(...r.changed)),
      ...(cpu ? { cpu_open_ms: med(r.cpuOpen), cpu_change_ms: med(r.cpuChange) } : {}),
    };
  }
  mkdirSync(dirname(resolve(file)), { recursive: true });
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`written to ${file}`);
}

/** The load average's range over the measurement, two decimals (it stops the sampling). */
function loadRange() {
  clearInterval(loadTimer);
  const r = (x) => Math.round(x * 100) / 100;
  return { load_avg_min: r(Math.min(...loads)), load_avg_max: r(Math.max(...loads)) };
}
