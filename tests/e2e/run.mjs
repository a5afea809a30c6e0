// The page tests' runner (`cargo xtask test` calls it): ONE static server for www/ and ONE headless
// Chromium for every test file, then node:test's run() over the files, JOBS at a time, each file a
// process of its own that opens its pages as contexts of the shared browser (harness.mjs reads
// KVFLEET_E2E_SITE and KVFLEET_E2E_BROWSER). The slowest files start first (run() keeps the order
// given, where `node --test` sorts by name), so the parallel run ends when they do; at the end it
// prints each file's wall time (file-times.mjs). Exits 0 when every test passed, else 1.
//
//   node tests/e2e/run.mjs                         every tests/e2e/*.test.mjs, JOBS at a time
//   node tests/e2e/run.mjs --jobs 1 page sweep     those two files, one after the other
//   KVFLEET_E2E_JOBS=3 node tests/e2e/run.mjs      (default: 3)
// One file by hand needs no runner: node --test tests/e2e/page.test.mjs (it starts its own).

import { run } from 'node:test';
import { spec as Spec, tap } from 'node:test/reporters';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, ROOT, WWW } from './harness.mjs';
import fileTimes from './file-times.mjs';
import { serveDir } from './serve.mjs';
import { ensureBundle } from '../../scripts/bundle.mjs';

const E2E = join(ROOT, 'tests', 'e2e');
const DEFAULT_JOBS = 3;
// The files that take longest, longest first (the wall times the runner prints at the end): started
// first so that no long file begins when the others are done.
const SLOW_FIRST = ['course', 'hero-polish', 'page', 'hero-words', 'capacity', 'lesson-embed', 'book', 'explainer',
  'first-screen', 'links', 'lesson-figure', 'embed', 'story-headline', 'lesson-stops', 'sweep', 'story', 'phone',
  'router-view', 'terms', 'hero-kept', 'rejections', 'sessions', 'hero-rejected', 'zoo', 'lesson-bench'];

function parseArgs(argv) {
  let jobs = Number(process.env.KVFLEET_E2E_JOBS || DEFAULT_JOBS);
  const names = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--jobs') jobs = Number(argv[++i]);
    else if (argv[i].startsWith('--jobs=')) jobs = Number(argv[i].slice(7));
    else names.push(argv[i]);
  }
  if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`--jobs (or KVFLEET_E2E_JOBS) must be a whole number >= 1, got ${jobs}`);
  return { jobs, names };
}

/** The test files to run: the named ones (`page`, `page.test.mjs` or a path), else all, slow ones first. */
function testFiles(names) {
  const all = readdirSync(E2E).filter((f) => f.endsWith('.test.mjs')).sort();
  const picked = names.length === 0 ? all : names.map((n) => {
    const f = n.replace(/^.*\//, '').replace(/(\.test)?\.mjs$/, '') + '.test.mjs';
    if (!all.includes(f)) throw new Error(`no page test file ${f} in tests/e2e/`);
    return f;
  });
  const rank = (f) => {
    const i = SLOW_FIRST.indexOf(f.replace('.test.mjs', ''));
    return i < 0 ? SLOW_FIRST.length : i;
  };
  return [...picked].sort((a, b) => rank(a) - rank(b)).map((f) => join(E2E, f));
}

/**
 * node:test's run() over `files` in the order given, `jobs` at a time, each file a process of its own
 * (`node --test` on the command line sorts the files by name, so the slowest could start last). It
 * prints the usual reporter's output (spec on a terminal, TAP otherwise), then each file's wall
 * time (file-times.mjs), and resolves to 0 when every test passed, else 1.
 */
async function runFiles(files, jobs) {
  const stream = run({ files, concurrency: jobs });
  let failed = 0;
  const ends = [];
  stream.on('test:fail', () => { failed += 1; });
  stream.on('test:complete', (data) => ends.push({ type: 'test:complete', data }));
  const stop = () => stream.destroy();
  process.once('SIGINT', stop).once('SIGTERM', stop);
  for await (const out of stream.compose(process.stdout.isTTY ? new Spec() : tap)) process.stdout.write(out);
  for await (const out of fileTimes(ends)) process.stdout.write(out);
  return failed === 0 ? 0 : 1;
}

async function main() {
  const { jobs, names } = parseArgs(process.argv.slice(2));
  const files = testFiles(names);
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM} (set CHROMIUM_PATH)`);
  const t0 = Date.now();
  await ensureBundle(); // the page runs bundle/, made from www/js/ (scripts/bundle.mjs)
  const site = await serveDir(WWW);
  let browser;
  try {
    browser = await chromium.launchServer({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    console.log(`run.mjs: ${files.length} page test file(s), ${jobs} at a time, one Chromium and one server (${site.url}) shared`);
    // Each file's process inherits this environment: harness.mjs then uses the shared server and browser.
    process.env.KVFLEET_E2E_SITE = site.url;
    process.env.KVFLEET_E2E_BROWSER = browser.wsEndpoint();
    const code = await runFiles(files, jobs);
    console.log(`run.mjs: ${code === 0 ? 'all passed' : `FAILED`} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return code;
  } finally {
    await browser?.close().catch(() => {});
    await site.close();
  }
}

main().then((code) => process.exit(code), (e) => {
  console.error(`run.mjs: ${e.message}`);
  process.exit(1);
});
