// tests/e2e/book.test.mjs: the book (docs/, mdBook) as built into www/book/ and served beside the
// playground at /book/ (issue #48).
//   1. Every chapter of docs/src/SUMMARY.md (and index.html, print.html) loads without console
//      errors, uncaught exceptions or failed requests, and shows its chapter.
//   2. Every internal link in the chapters (main content, the sidebar, the previous/next arrows)
//      resolves: HTTP 200, and a #fragment names an element of the target page.
//   3. Every live figure (an <iframe src="../?embed=1&..."> in a chapter), in the book page itself
//      with the content column 640 px and 360 px wide (each chapter opened at one, then resized): the embed finishes by its own signals,
//      draws a Chart.js chart with data (a lesson's exercise, which has no chart by design, shows
//      its live checks instead), shows no note about its address nor a run error, has no
//      scrollbars, nothing sticking out of the frame or its own box, and its parts (chart, caption,
//      controls, footer) stacked without overlapping. Frame errors count as the page's.
// Screenshots: test-results/book-PAGE-COLUMN.png (the page) and book-PAGE-figN-COLUMN.png (each figure).
// The book is built by `cargo xtask book` (`cargo xtask test` builds it before the page tests);
// this file fails, never skips, when it is missing.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startSite, screenshot, ROOT, RESULTS } from './harness.mjs';

const BOOK = path.join(ROOT, 'www/book');
const started = Date.now();
let site;

before(async () => {
  assert.ok(existsSync(path.join(BOOK, 'index.html')),
    'www/book/index.html is missing: build the book with `cargo xtask book` (`cargo xtask test` builds it before the page tests)');
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite();
});
after(async () => {
  await site?.close();
  console.log(`book.test: ${((Date.now() - started) / 1000).toFixed(1)} s in all`);
});

/** The chapters, in order, as the book's addresses (/book/x.html), from docs/src/SUMMARY.md. */
function chapters() {
  const summary = readFileSync(path.join(ROOT, 'docs/src/SUMMARY.md'), 'utf8');
  const files = [...summary.matchAll(/\]\(([^)\s]+\.md)\)/g)].map((m) => m[1]);
  assert.ok(files.length >= 10, `SUMMARY.md lists ${files.length} chapters`);
  return files.map((f) => `/book/${f.replace(/\.md$/, '.html')}`);
}

/** What a loaded book page holds: its ids, its links, its figures. */
function pageFacts() {
  const links = [...document.querySelectorAll('main a[href], a.nav-chapters[href], a.mobile-nav-chapters[href], #sidebar a[href], mdbook-sidebar-scrollbox a[href]')]
    .map((a) => ({ href: a.href, raw: a.getAttribute('href'), text: (a.textContent || a.getAttribute('aria-label') || '').trim().slice(0, 50) }));
  return {
    ids: [...document.querySelectorAll('[id]')].map((e) => e.id),
    links,
    h1: document.querySelector('main h1')?.textContent.trim() || '',
    title: document.title,
    iframes: [...document.querySelectorAll('main iframe')].map((f) => f.getAttribute('src')),
    brokenImages: [...document.querySelectorAll('main img')].filter((i) => !i.complete || i.naturalWidth === 0).map((i) => i.src),
  };
}

const facts = new Map(); // pathname -> pageFacts() of the book pages visited

test('every chapter loads without console errors or failed requests, and every internal link resolves', async () => {
  const list = chapters();
  // The built book holds every chapter SUMMARY.md names.
  for (const p of list) assert.ok(existsSync(path.join(ROOT, 'www', p)), `${p} was not built: rebuild the book (\`cargo xtask book\`)`);
  // ... and the built book's own chapter list (its sidebar, toc.html) is the same, in the same order.
  const toc = readFileSync(path.join(BOOK, 'toc.html'), 'utf8');
  const built = [...toc.matchAll(/<a href="([^"#]+\.html)"[^>]*>/g)].map((m) => `/book/${m[1]}`);
  assert.deepEqual(built, list, 'the book\'s sidebar (www/book/toc.html) lists the chapters of docs/src/SUMMARY.md: rebuild the book');
  const pages = ['/book/', ...list, '/book/print.html'];
  const { page, errors, context } = await site.open('/book/', { viewport: { width: 1280, height: 900 } });
  try {
    const problems = [];
    for (const p of pages) {
      errors.length = 0;
      const res = await page.goto(site.url + p, { waitUntil: 'load' });
      if (res.status() !== 200) problems.push(`${p}: HTTP ${res.status()}`);
      const f = await page.evaluate(pageFacts);
      if (!f.h1 || /not found/i.test(f.title)) problems.push(`${p}: no chapter shown (title “${f.title}”, h1 “${f.h1}”)`);
      for (const src of f.brokenImages) problems.push(`${p}: image did not load: ${src}`);
      facts.set(new URL(site.url + p).pathname.replace(/\/$/, '/index.html'), f);
      // The figures in view load with the page; their errors count too (the figure pass waits for each).
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      // Leaving a page aborts what it still had in flight (its favicon, a figure's wasm): net::ERR_ABORTED,
      // caused by this loop, not by the book. A missing file is an HTTP 404 and still counts.
      for (const e of errors) if (!/^request failed: .* \(net::ERR_ABORTED\)$/.test(e)) problems.push(`${p}: ${e}`);
    }
    assert.deepEqual(problems, [], 'every page loads cleanly');

    // Every same-origin link: the target answers 200 and its #fragment is an id there.
    const origin = new URL(site.url).origin;
    const targets = new Map(); // pathname -> {status, ids|null}
    const broken = [];
    for (const [from, f] of facts) {
      for (const l of f.links) {
        const u = new URL(l.href);
        if (u.origin !== origin) continue;
        const where = u.pathname.endsWith('/') ? `${u.pathname}index.html` : u.pathname;
        let t = targets.get(where);
        if (!t) {
          const known = facts.get(where);
          const status = known ? 200 : (await fetch(origin + u.pathname)).status;
          t = { status, ids: known ? new Set(known.ids) : null };
          targets.set(where, t);
        }
        const label = `${from}: “${l.text}” → ${l.raw}`;
        if (t.status !== 200) { broken.push(`${label}: HTTP ${t.status}`); continue; }
        if (!u.hash || u.hash === '#') continue;
        if (!t.ids) {
          // A page outside the book (the playground): its ids once it has loaded.
          const other = await context.newPage();
          await other.goto(origin + u.pathname + u.search, { waitUntil: 'load' });
          t.ids = new Set(await other.evaluate(() => [...document.querySelectorAll('[id]')].map((e) => e.id)));
          await other.close();
        }
        const id = decodeURIComponent(u.hash.slice(1));
        if (!t.ids.has(id)) broken.push(`${label}: no element with id “${id}” there`);
      }
    }
    const checked = [...facts.values()].reduce((n, f) => n + f.links.length, 0);
    assert.ok(checked > 100, `${checked} links checked`);
    assert.deepEqual(broken, [], 'every internal link resolves');
    console.log(`book.test: ${pages.length} pages, ${checked} links (${targets.size} targets) checked`);
  } finally { await context.close(); }
});

/** In the book page: the figure's own done signals (embed.js, hero-panel.js, lessons.js) and its charts' data. */
function figureDone(frame) {
  const w = frame.contentWindow, d = frame.contentDocument, k = w?.kvfleet;
  if (!k || !(k.runCount > 0) || !k.panelsBuilt || !d.querySelector('#embed')) return false;
  if (d.querySelector('[data-testid=embed-lesson]')) return d.querySelectorAll('[data-testid=lesson-checks] li').length > 0;
  const show = d.querySelector('#embed').dataset.show;
  if (show === 'replicas-sweep' && !(k.heroDone > 0)) return false;
  if (show === 'sweep' && !(k.lastSweep?.seq > 0)) return false; // the sweep's charts are drawn
  if (show === 'compare' && !d.querySelector('[data-testid=embed-sentence]').textContent.startsWith('Most tokens')) return false;
  return d.querySelector('[data-testid=embed-sentence]').textContent.trim().length > 0;
}

/** What the figure shows, read from its own document (same origin as the book). */
function figureState(frame) {
  const w = frame.contentWindow, d = frame.contentDocument, se = d.scrollingElement;
  const points = [...d.querySelectorAll('#embed canvas')].map((c) => {
    const ch = w.Chart?.getChart(c);
    if (!ch) return 0;
    const num = (v) => (typeof v === 'number' ? Number.isFinite(v) : !!v && typeof v === 'object' && Number.isFinite(v.y));
    return ch.data.datasets.reduce((n, ds) => n + ds.data.filter(num).length, 0);
  });
  // Every element whose content is wider or taller than its box, or that sticks out of the frame.
  const bad = [];
  const W = w.innerWidth, H = w.innerHeight;
  for (const el of d.querySelectorAll('#embed, #embed *')) {
    const cs = w.getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden') continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const name = `${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ')[0]}` : ''}`;
    if (r.right > W + 0.5 || r.bottom > H + 0.5 || r.left < -0.5 || r.top < -0.5) bad.push(`${name} outside the frame (${r.left.toFixed(0)},${r.top.toFixed(0)})-(${r.right.toFixed(0)},${r.bottom.toFixed(0)}) of ${W}x${H}`);
    if (cs.display !== 'inline' && el.tagName !== 'CANVAS' && el.clientWidth > 0) {
      if (el.scrollWidth > el.clientWidth + 1) bad.push(`${name} content ${el.scrollWidth}px wide in ${el.clientWidth}px`);
      if (el.scrollHeight > el.clientHeight + 1 && cs.overflowY !== 'visible') bad.push(`${name} content ${el.scrollHeight}px tall in ${el.clientHeight}px`);
    }
  }
  // The figure's parts stack without overlapping: the chart (at least 120 px tall) above its caption,
  // the figure or the lesson above the controls, the controls above the footer, which fits the frame.
  const box = (sel) => { const e = d.querySelector(sel); const r = e && !e.hidden ? e.getBoundingClientRect() : null; return r && r.height > 0 ? r : null; };
  const canvases = [...d.querySelectorAll('#embed canvas')].map((c) => c.getBoundingClientRect());
  const cap = box('[data-testid=embed-caption]'), top = box('.embed-fig') || box('[data-testid=embed-lesson]');
  const form = box('[data-testid=embed-controls]'), foot = box('.embed-foot');
  for (const [j, c] of canvases.entries()) {
    if (c.height < 120) bad.push(`chart ${j + 1} is ${c.height.toFixed(0)} px tall`);
    if (cap && c.bottom > cap.top + 1) bad.push(`chart ${j + 1} (to ${c.bottom.toFixed(0)}) runs into the caption (from ${cap.top.toFixed(0)})`);
  }
  if (cap && top && cap.bottom > top.bottom + 1) bad.push(`the caption (to ${cap.bottom.toFixed(0)}) runs out of the figure (to ${top.bottom.toFixed(0)})`);
  if (top && form && top.bottom > form.top + 1) bad.push(`the figure (to ${top.bottom.toFixed(0)}) runs into the controls (from ${form.top.toFixed(0)})`);
  if (form && foot && form.bottom > foot.top + 1) bad.push(`the controls (to ${form.bottom.toFixed(0)}) run into the footer (from ${foot.top.toFixed(0)})`);
  if (!foot) bad.push('no footer link to the playground');
  const notes = d.getElementById('url-notes');
  const err = d.querySelector('[data-testid=run-error]');
  return {
    show: d.querySelector('[data-testid=embed-lesson]') ? 'lesson' : d.querySelector('#embed').dataset.show,
    points,
    checks: [...d.querySelectorAll('[data-testid=lesson-checks] li')].map((li) => li.textContent.trim()),
    scroll: { sw: se.scrollWidth, cw: se.clientWidth, sh: se.scrollHeight, ch: se.clientHeight },
    bad,
    notes: notes && !notes.hidden ? notes.textContent.trim() : '',
    error: err && !err.hidden ? err.textContent.trim() : '',
  };
}

/** Sets the viewport so that the book's content column (main) is `column` px wide; returns its width. */
async function fitColumn(page, column, height) {
  let width = column + 40;
  for (let i = 0; i < 4; i++) {
    await page.setViewportSize({ width, height });
    const got = await page.evaluate(() => document.querySelector('main').clientWidth);
    if (got === column) return got;
    width += column - got;
  }
  return page.evaluate(() => document.querySelector('main').clientWidth);
}

/** Checks every figure of the open chapter `p` with its content column `column` px wide, into `problems`; returns how many. */
async function checkFigures(page, p, column, problems) {
  const got = await fitColumn(page, column, 900);
  assert.equal(got, column, `${p}: the content column is ${got} px, not ${column}`);
  const frames = await page.$$('main iframe');
  for (const [i, h] of frames.entries()) {
    const src = await h.getAttribute('src');
    const label = `${p} figure ${i + 1} (${src.replace(/^\.\.\/\?embed=1&/, '').slice(0, 70)}) at ${column} px`;
    if (!/^\.\.\/\?embed=1&/.test(src)) problems.push(`${label}: not a figure of the playground beside the book (\`../?embed=1&...\`)`);
    await h.scrollIntoViewIfNeeded();
    const box = await h.boundingBox();
    if (Math.abs(box.width - column) > 0.5) problems.push(`${label}: the frame is ${box.width} px wide`);
    try {
      await page.waitForFunction(figureDone, h, { timeout: 90_000 });
    } catch (e) {
      problems.push(`${label}: not done within 90 s (${e.message.split('\n')[0]})`);
      continue;
    }
    // Three frames more inside the figure for its charts to take their (new) size.
    await h.evaluate((f) => new Promise((r) => { const w = f.contentWindow; w.requestAnimationFrame(() => w.requestAnimationFrame(() => w.requestAnimationFrame(r))); }));
    const s = await h.evaluate(figureState);
    await h.screenshot({ path: path.join(RESULTS, `book-${path.basename(p, '.html')}-fig${i + 1}-${column}.png`) });
    if (s.show === 'lesson') {
      if (!s.checks.length || !s.checks.every((c) => /\d/.test(c))) problems.push(`${label}: the lesson's checks show no measured values: ${JSON.stringify(s.checks)}`);
    } else if (!s.points.length || !s.points.every((n) => n > 0)) {
      problems.push(`${label}: a chart without data (points per chart: ${JSON.stringify(s.points)})`);
    }
    if (s.scroll.sw > s.scroll.cw) problems.push(`${label}: scrolls sideways, ${s.scroll.sw} px in ${s.scroll.cw}`);
    if (s.scroll.sh > s.scroll.ch) problems.push(`${label}: scrolls down, ${s.scroll.sh} px in ${s.scroll.ch} (${s.scroll.sh - s.scroll.ch} px too short)`);
    for (const b of s.bad) problems.push(`${label}: ${b}`);
    if (s.notes) problems.push(`${label}: a note about its address: ${s.notes}`);
    if (s.error) problems.push(`${label}: an error: ${s.error}`);
  }
  await screenshot(page, `book-${path.basename(p, '.html')}-${column}`);
  return frames.length;
}

// Each chapter is opened once, its column at one of the two widths (in turn, so each width is also
// a figure's first size), checked, then narrowed or widened to the other and checked again: the
// embeds follow their frame's size (CSS and the charts' resize observers).
test('every live figure in a 640 px and a 360 px column: done, a chart with data, no scrollbars, nothing cut', async () => {
  // (Every page has an <iframe> for its sidebar, in <noscript>; the figures are those in <main>.)
  const withFigures = chapters().filter((p) => /<main>[\s\S]*<iframe\b[\s\S]*<\/main>/.test(readFileSync(path.join(ROOT, 'www', p), 'utf8')));
  assert.ok(withFigures.length >= 5, `chapters with figures: ${withFigures}`);
  const problems = [];
  const figures = { 640: 0, 360: 0 };
  for (const [k, p] of withFigures.entries()) {
    const t0 = Date.now();
    const columns = k % 2 === 0 ? [640, 360] : [360, 640];
    const { page, errors, context } = await site.open(p, { viewport: { width: columns[0] + 40, height: 900 } });
    try {
      for (const column of columns) figures[column] += await checkFigures(page, p, column, problems);
      for (const e of errors) problems.push(`${p}: ${e}`);
      console.log(`book.test: ${p} at ${columns.join(' then ')} px, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    } finally { await context.close(); }
  }
  assert.ok(figures[640] >= 10 && figures[360] === figures[640], `figures checked: ${JSON.stringify(figures)}`);
  assert.deepEqual(problems, [], 'every figure at 640 and 360 px');
});
