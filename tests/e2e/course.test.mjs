// tests/e2e/course.test.mjs: a lesson's teaching material in real Chromium. Opening a lesson by
// link measures its interview answers and short check in a worker; they equal the native
// `kvfleet lesson ID --material --material-json` (numbers measured by runs, answers verified by
// runs); each model answer sits behind a disclosure; a pick in the check says at once whether it is
// right and why, and the score counts; the hint button says what its next click shows, and is
// withdrawn while the goal is met; no lesson shows its rule of thumb twice. Screenshots: the
// lesson's material, a met goal without its hint button.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startSite, screenshot, ROOT, nativeBin, nextFrames } from './harness.mjs';
import { goalMet } from './goal-checks.mjs';

const BIN = nativeBin();
let site;

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'www/pkg/kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  site = await startSite({ heroSweep: false }); // (no test here looks at the first screen's figure)
});
after(async () => { await site?.close(); });

for (const id of ['reuse-at-all', 'cache-too-small', 'hot-prefix', 'more-replicas-slower', 'timeout-below-p99', 'retune-the-weight', 'won-on-an-infinite-cache', 'routers-that-herd', 'router-bottleneck', 'smallest-tree-pile-up', 'when-disaggregation-pays', 'spike-cold-replicas']) {
  test(`${id}: interview answers and the short check equal the CLI's, and the check answers`, async () => {
    const want = JSON.parse(execFileSync(BIN, ['lesson', id, '--material', '--material-json'], { cwd: ROOT, encoding: 'utf8' }));
    const want0 = want;
    const { page, errors, context } = await site.open(`/?lesson=${id}`, { viewport: { width: 1280, height: 900 } });
    try {
      await page.waitForFunction((i) => window.kvfleet?.lessonMaterial?.id === i, id, { timeout: 60000 });
      const got = await page.evaluate(() => window.kvfleet.lessonMaterial.material);
      assert.deepEqual(got, want);
      for (const q of want.quiz) if (q.verify.kind !== 'concept') assert.equal(q.verified, true, q.question);
      // How it works: the figure draws the measured points; its settings are listed with their rules.
      await page.waitForSelector('[data-testid=lesson-diagram] canvas');
      const drawn = await page.evaluate(() => {
        const ch = Object.values(window.Chart.instances).find((c) => c.canvas.closest('[data-testid=lesson-diagram]'));
        return ch.data.datasets.filter((d) => !d.goal && !d.run).map((d) => d.data.map((p) => p.y));
      });
      assert.deepEqual(drawn, want.diagram.points);
      // The broken setup on screen is one of the figure's runs: ringed, on its series' point.
      await page.waitForFunction(() => window.kvfleet.lessonRunSeries >= 0, null, { timeout: 30000 });
      const ring = await page.evaluate(() => {
        const ch = Object.values(window.Chart.instances).find((c) => c.canvas.closest('[data-testid=lesson-diagram]'));
        return { at: ch.data.datasets.find((d) => d.run)?.data[0], series: window.kvfleet.lessonRunSeries };
      });
      const j = want.diagram.values.indexOf(ring.at?.x);
      assert.ok(j >= 0, `${id}: the broken setup's ${want.diagram.x_key} is one of the figure's values (${ring.at?.x})`);
      assert.equal(ring.at.y, want.diagram.points[ring.series][j], `${id}: the ring sits on its series' point`);
      // The goal's threshold on the figure's metric is drawn across it.
      const lesson = await page.evaluate((i) => window.kvfleet.lessonsList?.find((l) => l.id === i), id);
      const goalLines = await page.evaluate(() => {
        const ch = Object.values(window.Chart.instances).find((c) => c.canvas.closest('[data-testid=lesson-diagram]'));
        return ch.data.datasets.filter((d) => d.goal).map((d) => d.data.map((p) => p.y));
      });
      assert.ok(lesson, `${id} is in the page's lessons`);
      assert.deepEqual(goalLines, lesson.checks.filter((c) => c.metric === want0.diagram.metric).map((c) => [c.value, c.value]));
      // A second panel (more-replicas-slower: the p99 first-token time) draws its own measured points
      // and the goal's threshold on its metric; a lesson without one draws one chart.
      if (want.diagram.second) {
        const second = await page.evaluate(() => {
          const ch = window.Chart.getChart(document.querySelector('[data-testid=lesson-diagram-second]'));
          const ys = (keep) => ch.data.datasets.filter(keep).map((d) => d.data.map((p) => p.y));
          const first = Object.values(window.Chart.instances).find((c) => c.canvas.closest('[data-testid=lesson-diagram]'));
          const px = (c) => c.data.datasets[0].data.map((q) => Math.round(c.scales.x.getPixelForValue(q.x)));
          return { points: ys((d) => !d.goal && !d.run), goals: ys((d) => d.goal), log: ch.scales.y.type, px: px(ch), firstPx: px(first) };
        });
        assert.deepEqual(second.px, second.firstPx, `${id}: the two panels' swept values line up`);
        assert.deepEqual(second.points, want.diagram.second_points);
        assert.deepEqual(second.goals, lesson.checks.filter((c) => c.metric === want.diagram.second.metric).map((c) => [c.value, c.value]));
        assert.ok(second.goals.length > 0, `${id}: the goal's line on the second panel`);
        assert.equal(second.log, want.diagram.second.log_y ? 'logarithmic' : 'linear');
        // A panel of GPU-hours (fixed2) writes its numbers with two decimals, not rounded to 0 or 1.
        if (want.diagram.second.format === 'fixed2') {
          const words = await page.getAttribute('[data-testid=lesson-diagram-second]', 'aria-label');
          for (const y of want.diagram.second_points.flat()) assert.ok(words.includes(`→ ${y.toFixed(2)}`), `${words} lacks ${y.toFixed(2)}`);
        }
      } else {
        assert.equal(await page.locator('[data-testid=lesson-diagram-second]').count(), 0);
      }
      assert.equal(await page.textContent('[data-testid=lesson-diagram] figcaption'), want.diagram.caption);
      const settings = await page.$$eval('[data-testid=lesson-settings] dt', (dts) => dts.length);
      assert.ok(settings >= 2, `${id}: its settings are listed`);
      // The card's rules checked on the run on screen (the broken setup): both fail there.
      const live = { 'timeout-below-p99': 'timeout_ms', 'hot-prefix': 'queue_capacity', 'router-bottleneck': 'router_vcpu' }[id];
      if (live) {
        await page.waitForSelector(`[data-testid=lesson-live-${live}]`);
        const r = await page.evaluate(() => window.kvfleet.lastReport);
        const text = await page.textContent(`[data-testid=lesson-live-${live}]`);
        assert.match(text, /the rule fails/, text);
        if (id === 'timeout-below-p99') {
          const share = (100 * r.summary.timed_out / r.summary.requests).toFixed(1);
          assert.ok(text.includes(`${share}% of calls timed out`), `${text} lacks ${share}%`);
        } else if (id === 'router-bottleneck') {
          // The card's rule from the run: calls/s × CPU ms (busy core time over routed) ÷ 1000.
          const rc = r.router_cpu;
          const cpuMs = 1000 * rc.busy_share[0] * rc.vcpu * r.summary.makespan_s / rc.routed;
          const needed = (r.summary.offered_rate * cpuMs / 1000).toFixed(2);
          assert.ok(text.includes(`≈ ${needed} cores needed`) && text.includes('against 1 vCPU'), `${text} lacks ${needed}`);
        } else {
          const top = r.per_instance.reduce((b, x) => (x.requests > b.requests ? x : b));
          const needed = Math.round(top.requests / r.summary.makespan_s * (r.summary.e2e_ms_mean - r.summary.queue_ms_mean) / 1000);
          assert.ok(text.includes(`R${top.index}`) && text.includes(`≈ ${needed.toLocaleString('en-US')} calls in flight`), text);
        }
      }
      // The model answers are hidden until opened.
      const details = page.locator('[data-testid=lesson-interview] details');
      assert.equal(await details.count(), 3);
      assert.equal(await details.first().locator('p').isVisible(), false);
      await details.first().locator('summary').click();
      assert.equal(await details.first().locator('p').textContent(), want.interview[0].answer);
      // A wrong pick (it counts: the question locks), then the right one for every other question.
      const wrong = (want.quiz[0].correct + 1) % want.quiz[0].choices.length;
      await page.check(`[data-testid=quiz-0-${wrong}]`);
      assert.match(await page.textContent('[data-testid=quiz-0] .quiz-feedback'), /^✗ Not quite\./);
      assert.equal(await page.textContent('[data-testid=quiz-score]'), '0 of 4 on the first try; 1 to answer again (3 to go).');
      for (const [i, q] of want.quiz.entries()) if (i > 0) await page.check(`[data-testid=quiz-${i}-${q.correct}]`);
      assert.match(await page.textContent('[data-testid=quiz-1] .quiz-feedback'), /^✓ Right\./);
      assert.equal(await page.textContent('[data-testid=quiz-score]'), '3 of 4 on the first try; 1 to answer again.');
      await screenshot(page, `course-${id}`);
      assert.deepEqual(errors, []);
    } finally { await context.close(); }
  });
}

test('a new lesson completed end to end through the controls and the check; the index keeps it after a reload', async () => {
  const id = 'routers-that-herd';
  const want = JSON.parse(execFileSync(BIN, ['lesson', id, '--material', '--material-json'], { cwd: ROOT, encoding: 'utf8' }));
  const { page, errors, context } = await site.open('/', { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
    // The index lists every lesson with its difficulty and time; none is done yet.
    await page.click('#course > summary');
    const items = page.locator('[data-testid=course-index] li');
    assert.equal(await items.count(), 12);
    assert.match(await page.textContent(`[data-testid=course-${id}]`), /Routers that herd · advanced · about 15 min/);
    assert.doesNotMatch(await page.textContent(`[data-testid=course-${id}]`), /completed/);
    let n = await page.evaluate(() => window.kvfleet.runCount);
    await page.locator(`[data-testid=course-${id}] button`).click();
    await page.waitForFunction((k) => window.kvfleet.runCount > k, n, { timeout: 60000 });
    assert.ok(await page.locator('[data-testid="lesson-checks"] li.unmet').count() > 0, 'the broken setup misses the goal');
    // "Change it" takes the reader to the control in the lesson's workbench, beside the checks.
    await page.click('[data-testid=lesson-go-router_refresh_ms]');
    await page.waitForFunction(() => document.activeElement?.closest('[data-testid=lesson-controls] [data-testid=lesson-field-router_refresh_ms]'), null, { timeout: 5000 });
    // The fix through the settings: round robin, dealt by each router.
    n = await page.evaluate(() => window.kvfleet.runCount);
    await page.click('[data-testid=input-routing-round_robin]');
    await page.waitForFunction((k) => window.kvfleet.runCount > k, n, { timeout: 60000 });
    await page.waitForSelector('[data-testid=lesson-done]:visible');
    assert.equal(await page.locator('[data-testid="lesson-checks"] li.unmet').count(), 0);
    // The broken setup's p99 (1.284 s; 1.287 s while kv's ties went to the lowest index).
    assert.match(await page.textContent('[data-testid="lesson-checks"]'), /was 1\.28 s → now 523 ms/);
    // The short check, all right.
    await page.waitForFunction((i) => window.kvfleet?.lessonMaterial?.id === i, id, { timeout: 60000 });
    for (const [i, q] of want.quiz.entries()) await page.check(`[data-testid=quiz-${i}-${q.correct}]`);
    assert.match(await page.textContent('[data-testid=quiz-score]'), /^4 of 4 on the first try\. Lesson complete/);
    await page.reload();
    await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
    assert.match(await page.textContent(`[data-testid=course-${id}]`), /✓ completed/);
    assert.match(await page.textContent('#course-summary'), /12 lessons, 1 completed in this browser/);
    await page.click('#course > summary');
    await screenshot(page, 'course-index');
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('the hint button says what its next click shows: another hint of three, then the last one with the fixes', async () => {
  const { page, errors, context } = await site.open('/?lesson=hot-prefix', { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForSelector('[data-testid=lesson-hint]');
    const lesson = await page.evaluate(() => window.kvfleet.lessonsList.find((l) => l.id === 'hot-prefix'));
    assert.equal(lesson.hints.length, 3, 'the labels below are for three hints');
    const labels = ['Show a hint (1 of 3)', 'Show another hint (2 of 3)', 'Show the last hint (3 of 3) and the fixes'];
    const fixes = page.locator('.fixes');
    const shown = page.locator('ol.hints li');
    for (const [i, label] of labels.entries()) {
      assert.equal(await page.textContent('[data-testid=lesson-hint]'), label, `before click ${i + 1}`);
      assert.equal(await shown.count(), i);
      assert.equal(await fixes.isVisible(), false, `no fixes before click ${i + 1}`);
      await page.click('[data-testid=lesson-hint]');
    }
    assert.deepEqual(await shown.allTextContents(), lesson.hints);
    assert.equal(await page.isVisible('[data-testid=lesson-hint]'), false, 'nothing left to show');
    assert.equal(await fixes.isVisible(), true);
    assert.deepEqual(await fixes.locator('button').allTextContents(), lesson.fixes.map((f) => `Try: ${f.name}`));
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('?embed=1&lesson=ID renders the exercise alone within 600x500, and it can be solved there', async () => {
  const { page, errors, context } = await site.open('/?embed=1&lesson=routers-that-herd', { viewport: { width: 600, height: 500 } });
  try {
    await page.waitForFunction(() => window.kvfleet && window.kvfleet.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 30000 });
    const [w, h] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]);
    assert.ok(w <= 600 && h <= 500, `fits 600x500 without scrolling (${w}x${h})`);
    assert.equal(await page.locator('[data-testid=embed-lesson] [data-testid=lesson-checks] li.unmet').count(), 1);
    assert.equal(await page.locator('[data-testid=lesson-interview]').count(), 0, 'the exercise alone');
    assert.match(await page.getAttribute('.embed-open', 'href'), /lesson=routers-that-herd/);
    // Solve it with the embed's own control: the snapshot refresh to 0 (live).
    const n = await page.evaluate(() => window.kvfleet.runCount);
    await page.focus('[data-testid=embed-input-router_refresh_ms]');
    await page.keyboard.press('Home');
    await page.waitForFunction((k) => window.kvfleet.runCount > k, n, { timeout: 30000 });
    assert.equal(await page.evaluate(() => window.kvfleet.lastReport.config.router_refresh_ms), 0);
    await page.waitForSelector('[data-testid=embed-lesson] [data-testid=lesson-done]:visible');
    await screenshot(page, 'course-embed-lesson', { fullPage: false });
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('a lesson on a built-in trace replays it: the link, its goal on the trace, another source refused, a fix', async () => {
  const { page, errors, context } = await site.open('/?lesson=reuse-at-all', { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForFunction(() => window.kvfleet?.lastReport?.source === 'conversation_trace.jsonl', null, { timeout: 60000 });
    assert.match(await page.textContent('#source-name'), /trace: conversation trace/);
    assert.match(await page.textContent('.lesson-story'), /Every run of this lesson replays the conversation trace\./);
    // The broken setup on the trace: one engine, 833 blocks, 4.5% of tokens hit (as natively).
    const native = JSON.parse(execFileSync(BIN, ['--preset', 'reuse-at-all', '-q', '--des-report-json', '-'], { cwd: ROOT, encoding: 'utf8' }));
    const r = await page.evaluate(() => window.kvfleet.lastReport);
    assert.equal(r.summary.hit_rate_tokens, native.summary.hit_rate_tokens);
    assert.equal(r.config.kv_blocks, 833);
    assert.match(await page.textContent('[data-testid=lesson-checks]'), /token hit rate at least 33\.6%: now 4\.5%/);
    // Another source says so instead of judging the goal on it.
    let n = await page.evaluate(() => window.kvfleet.runCount);
    await page.click('#source-reset');
    await page.waitForFunction((k) => window.kvfleet.runCount > k, n, { timeout: 60000 });
    await page.waitForSelector('[data-testid=lesson-wrong-source]');
    assert.match(await page.textContent('[data-testid=lesson-checks]'), /not of the lesson’s workload \(the conversation trace\)/);
    // Back to it, then a documented fix through the hints: the goal is met on the trace.
    n = await page.evaluate(() => window.kvfleet.runCount);
    await page.click('[data-testid=lesson-reset]');
    await page.waitForFunction((k) => window.kvfleet.runCount > k && window.kvfleet.lastReport.source === 'conversation_trace.jsonl', n, { timeout: 60000 });
    for (let i = 0; i < 3; i += 1) await page.click('[data-testid=lesson-hint]');
    n = await page.evaluate(() => window.kvfleet.runCount);
    await page.click('[data-testid=lesson-fix-30-000-blocks]');
    await page.waitForFunction((k) => window.kvfleet.runCount > k, n, { timeout: 60000 });
    await page.waitForSelector('[data-testid=lesson-done]:visible');
    assert.match(await page.textContent('[data-testid=lesson-checks]'), /was 4\.5% → now 33\.8%/);
    await screenshot(page, 'course-reuse-at-all');
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('a run that changes the lesson\'s calls or its GPU is not judged, and one that cuts calls off or buys GPUs does not meet the goal', async () => {
  const { page, errors, context } = await site.open('/?lesson=timeout-below-p99', { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForFunction(() => window.kvfleet?.lastReport?.config?.timeout_ms === 100, null, { timeout: 60000 });
    await page.waitForSelector('[data-testid=lesson-checks] li');
    const lesson = await page.evaluate(() => window.kvfleet.lessonsList.find((l) => l.id === 'timeout-below-p99'));
    assert.equal(lesson.workload.burstiness, 0.3, 'the lesson pins its bursty arrivals');
    assert.equal(lesson.workload.num_requests, 1000);
    // Smoother arrivals through the lesson's own burstiness control: other calls, not judged.
    await page.click('[data-testid=lesson-go-burstiness]');
    await page.waitForFunction(() => document.activeElement?.closest('[data-testid=lesson-controls] [data-testid=lesson-field-burstiness]'), null, { timeout: 5000 });
    let n = await page.evaluate(() => window.kvfleet.runCount);
    await page.keyboard.press('End');
    await page.waitForFunction((k) => window.kvfleet.runCount > k, n, { timeout: 60000 });
    await page.waitForSelector('[data-testid=lesson-wrong-workload]');
    const b = await page.evaluate(() => window.kvfleet.lastReport.config.burstiness);
    assert.notEqual(b, 0.3);
    const text = await page.textContent('[data-testid=lesson-checks]');
    assert.match(text, /Not judged: this run changes the calls the lesson is about \(burstiness [^,]+, the lesson’s 0\.3 shape\)/);
    assert.equal(await page.locator('[data-testid=lesson-checks] li').count(), 1, 'no check is judged');
    assert.equal(await page.isVisible('[data-testid=lesson-done]'), false);
    // Back to the lesson's calls: judged again.
    n = await page.evaluate(() => window.kvfleet.runCount);
    await page.click('[data-testid=lesson-reset]');
    await page.waitForFunction((k) => window.kvfleet.runCount > k, n, { timeout: 60000 });
    await page.waitForFunction((c) => document.querySelectorAll('[data-testid=lesson-checks] li').length === c, lesson.checks.length, { timeout: 10000 });
    assert.equal(await page.locator('[data-testid=lesson-wrong-workload]').count(), 0);
    await screenshot(page, 'course-not-judged');
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
  // On the hot prefix (a link's own values win over the lesson's), a timeout just under the goal's
  // p99 cuts most calls off: the calls left are fast, and the served check says the goal is not met.
  const hot = await site.open('/?lesson=hot-prefix&timeout_ms=990', { viewport: { width: 1280, height: 900 } });
  try {
    await hot.page.waitForFunction(() => window.kvfleet?.lastReport?.config?.timeout_ms === 990, null, { timeout: 60000 });
    await hot.page.waitForSelector('[data-testid=lesson-checks] li');
    const r = await hot.page.evaluate(() => window.kvfleet.lastReport);
    assert.equal(r.config.routing, 'prefix_aware');
    assert.ok(r.summary.timed_out > r.summary.requests / 2, `${r.summary.timed_out} timed out`);
    assert.ok(r.summary.ttft_ms_p99 <= 1000, 'the served calls are fast');
    assert.match(await hot.page.textContent('[data-testid=lesson-checks]'), /✗ all 3,000 calls served, none rejected or timed out: now \d/);
    assert.equal(await hot.page.isVisible('[data-testid=lesson-done]'), false);
    assert.deepEqual(hot.errors, []);
  } finally { await hot.context.close(); }
  // Brute force on the cache lesson: 16 replicas behind kv that an autoscaler may grow to 64 meet
  // the hit rate, but the fleet bound reads the autoscaler's ceiling (a static fleet's size else).
  const gpus = await site.open('/?lesson=cache-too-small&instances=16&routing=kv&autoscale=slo&min_instances=16&max_instances=64&slo_ttft_ms=200', { viewport: { width: 1280, height: 900 } });
  try {
    await gpus.page.waitForFunction(() => window.kvfleet?.lastReport?.autoscale?.max_instances === 64, null, { timeout: 60000 });
    await gpus.page.waitForSelector('[data-testid=lesson-checks] li');
    const text = await gpus.page.textContent('[data-testid=lesson-checks]');
    // The run's own token hit rate, to one decimal (about 30%: the autoscaled run decides it).
    const hit = await gpus.page.evaluate(() => window.kvfleet.lastReport.summary.hit_rate_tokens);
    assert.ok(hit > 0.25 && hit < 0.35, `${hit}`);
    assert.ok(text.includes(`✓ token hit rate at least 15%: now ${(100 * hit).toFixed(1)}%`), text);
    assert.match(text, /✗ at most 16 GPUs \(16 replicas, an autoscaler's ceiling included\): now 64/);
    assert.equal(await gpus.page.isVisible('[data-testid=lesson-done]'), false);
    await screenshot(gpus.page, 'course-gpu-bound');
    assert.deepEqual(gpus.errors, []);
  } finally { await gpus.context.close(); }
  // A faster GPU is not a fix of the fleet: the hot prefix on B200s (which meet its latency) is
  // not judged, and says which engine the lesson runs.
  const b200 = await site.open('/?lesson=hot-prefix&engine=llama3-8b-b200', { viewport: { width: 1280, height: 900 } });
  try {
    await b200.page.waitForFunction(() => window.kvfleet?.lastReport?.config?.engine === 'llama3-8b-b200', null, { timeout: 60000 });
    await b200.page.waitForSelector('[data-testid=lesson-wrong-gpu]');
    const lesson = await b200.page.evaluate(() => window.kvfleet.lessonsList.find((l) => l.id === 'hot-prefix'));
    assert.equal(lesson.hardware.engine, 'llama3-8b-h100', 'the lesson pins its GPU');
    assert.match(await b200.page.textContent('[data-testid=lesson-checks]'),
      /Not judged: this run changes the GPU the lesson is about \(engine llama3-8b-b200; the lesson’s llama3-8b-h100 on every replica\)/);
    assert.equal(await b200.page.locator('[data-testid=lesson-checks] li').count(), 1, 'no check is judged');
    assert.deepEqual(b200.errors, []);
  } finally { await b200.context.close(); }
});

test('a lesson whose material worker cannot load the simulator says so instead of measuring forever', async () => {
  // Only the first fetch of the wasm (the page's simulator) goes through.
  const context = await site.browser.newContext({ viewport: { width: 1280, height: 900 } });
  let wasmFetches = 0;
  await context.route('**/kvfleet_bg.wasm', (route) => (++wasmFetches === 1 ? route.continue() : route.abort()));
  try {
    const page = await context.newPage();
    await page.goto(`${site.url}/?lesson=hot-prefix`);
    await page.waitForFunction(() => /could not be measured: their worker could not start/.test(
      document.querySelector('.lesson-material')?.textContent ?? ''), null, { timeout: 60000 });
    assert.match(await page.textContent('.lesson-material'), /WebAssembly module/);
    assert.equal(await page.evaluate(() => window.kvfleet.lessonMaterial ?? null), null, 'nothing was measured');
  } finally { await context.close(); }
});

/** Opens a lesson by link and waits until its settings list shows the run of `ready(config)`. */
async function openLesson(id, ready) {
  const opened = await site.open(`/?lesson=${id}`, { viewport: { width: 1280, height: 900 } });
  await opened.page.waitForFunction(ready, null, { timeout: 60000 });
  await opened.page.waitForSelector('[data-testid=lesson-settings] .setting-now');
  return opened;
}

/** The "now ..." words of one setting in the lesson's settings list. */
const settingNow = (page, key) => page.locator('[data-testid=lesson-settings] dt', { has: page.locator(`[data-testid=lesson-go-${key}]`) })
  .locator('.setting-now').textContent().then((t) => t.trim());

/** Shows every hint, clicks the fix button named `fix`, and waits for its run (`ready(config)`). */
async function tryFix(page, fix, ready) {
  while (await page.isVisible('[data-testid=lesson-hint]')) await page.click('[data-testid=lesson-hint]');
  await page.click(`[data-testid=lesson-fix-${fix}]`);
  await page.waitForFunction(ready, null, { timeout: 60000 });
  await nextFrames(page); // the lesson panel follows the report (written with it; drawn by the next frame)
}

test('lesson settings read as the sidebar: "now 1 replica", "now 0.25×", then "now 4×" after the fix', async () => {
  const one = await openLesson('reuse-at-all', () => window.kvfleet?.lastReport?.config?.kv_blocks === 833);
  try {
    const cfg = await one.page.evaluate(() => window.kvfleet.lastReport.config);
    assert.equal(cfg.instances, 1);
    assert.equal(await settingNow(one.page, 'instances'), 'now 1 replica');
    assert.deepEqual(one.errors, []);
  } finally { await one.context.close(); }
  const { page, errors, context } = await openLesson('retune-the-weight', () => window.kvfleet?.lastReport?.config?.overlap_weight === 0.25);
  try {
    const was = await page.evaluate(() => window.kvfleet.lastReport.config.overlap_weight);
    assert.equal(await settingNow(page, 'overlap_weight'), `now ${was}×`);
    await tryFix(page, 'weight-4', () => window.kvfleet.lastReport.config.overlap_weight === 4);
    const now = await page.evaluate(() => window.kvfleet.lastReport.config.overlap_weight);
    assert.equal(await settingNow(page, 'overlap_weight'), `now ${now}×`);
    for (const t of await page.locator('[data-testid=lesson-settings] .setting-now').allTextContents()) assert.doesNotMatch(t, / x$/);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('a duration in a lesson\'s checks reads as the page writes it: the 1 s timeout fix says "now 1 s", not "1.00 s"', async () => {
  const { page, errors, context } = await openLesson('timeout-below-p99', () => window.kvfleet?.lastReport?.config?.timeout_ms === 100);
  try {
    await tryFix(page, 'timeout-1-s', () => window.kvfleet.lastReport.config.timeout_ms === 1000);
    const r = await page.evaluate(() => window.kvfleet.lastReport);
    const checks = await page.textContent('[data-testid=lesson-checks]');
    assert.ok(checks.includes(`a caller timeout of at most 1 s is set: was 100 ms → now ${r.config.timeout_ms / 1000} s`), checks);
    assert.doesNotMatch(checks, /\d\.00 s/);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('the lesson figure\'s legend shows the goal as the dotted line drawn across the figure, not a circle', async () => {
  const { page, errors, context } = await site.open('/?lesson=more-replicas-slower', { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForSelector('[data-testid=lesson-diagram] canvas', { timeout: 60000 });
    const { goals, items, dashes } = await page.evaluate(() => {
      const ch = Object.values(window.Chart.instances).find((c) => c.canvas.closest('[data-testid=lesson-diagram]'));
      return { goals: ch.data.datasets.filter((d) => d.goal).map((d) => ({ label: d.label, dash: d.borderDash })),
        dashes: ch.data.datasets.filter((d) => !d.goal).map((d) => d.borderDash || []),
        items: ch.legend.legendItems.map((i) => ({ text: i.text, pointStyle: i.pointStyle, lineDash: i.lineDash })) };
    });
    assert.ok(goals.length > 0, 'the figure has a goal line');
    for (const g of goals) {
      assert.ok(g.dash.length > 0, `${g.label} is dotted on the figure`);
      // Dots, not dashes: each mark at most 2 px and the gaps wider, unlike any policy's dashes.
      assert.ok(g.dash[0] <= 2 && g.dash[1] > g.dash[0], `${g.label}: dots ${JSON.stringify(g.dash)}`);
      for (const d of dashes) assert.notDeepEqual(d, g.dash, `${g.label}: a pattern no series uses`);
      const item = items.find((i) => i.text === g.label);
      assert.ok(item, `${g.label} is in the legend`);
      assert.equal(item.pointStyle, 'line', `${g.label}: a line in the legend`);
      assert.deepEqual(item.lineDash, g.dash, `${g.label}: dotted as on the figure`);
    }
    for (const i of items.filter((x) => !goals.some((g) => g.label === x.text))) assert.notEqual(i.pointStyle, 'line', `${i.text} keeps its marker`);
    await page.locator('[data-testid=lesson-diagram]').screenshot({ path: path.join(ROOT, 'test-results', 'course-goal-legend.png') });
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('a lesson figure\'s log axis prints its numbers as the lesson\'s words do, with thousands separators', async () => {
  const { page, errors, context } = await site.open('/?lesson=reuse-at-all', { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForSelector('[data-testid=lesson-diagram] canvas', { timeout: 60000 });
    const { type, labels, values } = await page.evaluate(() => {
      const ch = Object.values(window.Chart.instances).find((c) => c.canvas.closest('[data-testid=lesson-diagram]'));
      return { type: ch.scales.x.type, labels: ch.scales.x.ticks.map((t) => t.label).filter(Boolean), values: ch.data.datasets[0].data.map((p) => p.x) };
    });
    assert.equal(type, 'logarithmic', 'this lesson sweeps values spanning more than 20x');
    assert.ok(Math.max(...values) >= 10000, `the sweep reaches five digits: ${values}`);
    assert.ok(labels.some((l) => Number(l.replace(/,/g, '')) >= 10000), `a five-digit tick is labelled: ${labels}`);
    // Expected form, written out: groups of three digits joined by commas ("100,000", never "100000").
    for (const l of labels) assert.match(l, /^\d{1,3}(,\d{3})*$/, `tick "${l}" of ${labels}`);
    const aria = await page.getAttribute('[data-testid=lesson-diagram] canvas', 'aria-label');
    assert.doesNotMatch(aria, /\d{5}/, aria);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});


/** Whether a report ran with every setting of `set` (a lesson's broken setup, a fix). */
const ranWith = (set) => window.kvfleet?.lastReport
  && Object.entries(set).every(([k, v]) => JSON.stringify(window.kvfleet.lastReport.config[k]) === JSON.stringify(v));

/**
 * Two rules of thumb say the same thing when nearly all (3/4) of the distinct words of the shorter
 * are in the longer: "Rank policies under the cache you will run." in "Rank routing policies under
 * the cache size you will run, not on an unbounded one.".
 */
function sayTheSame(a, b) {
  const set = (t) => new Set(t.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean));
  const [x, y] = [set(a), set(b)].sort((p, q) => p.size - q.size);
  return [...x].filter((w) => y.has(w)).length >= 0.75 * x.size;
}

test('no lesson shows its rule of thumb twice: once the goal is met, each rule is on screen at most once, the lesson\'s exactly once', async () => {
  const { page, errors, context } = await site.open('/', { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForFunction(() => window.kvfleet?.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 60000 });
    const lessons = await page.evaluate(() => window.kvfleet.lessonsList);
    assert.equal(lessons.length, 12);
    for (const l of lessons) {
      await page.click(`[data-testid=lesson-${l.id}]`);
      await page.waitForFunction(ranWith, l.broken, { timeout: 60000 });
      while (await page.isVisible('[data-testid=lesson-hint]')) await page.click('[data-testid=lesson-hint]');
      const fix = l.fixes[0];
      await page.click(`[data-testid=lesson-fix-${fix.name.replace(/\W+/g, '-')}]`);
      await page.waitForFunction(ranWith, fix.config, { timeout: 120000 });
      await page.waitForSelector('[data-testid=lesson-done]:visible', { timeout: 10000 });
      const shown = await page.innerText('[data-testid=lesson]'); // what is on screen (hidden parts left out)
      const count = (t) => shown.split(t).length - 1;
      const rules = [...new Set([l.rule_of_thumb, ...l.settings.map((s) => s.rule).filter(Boolean)])];
      for (const r of rules) assert.ok(count(r) <= 1, `${l.id}: "${r}" is shown ${count(r)} times`);
      assert.equal(count(l.rule_of_thumb), 1, `${l.id}: the lesson's rule of thumb is shown once`);
      const onScreen = rules.filter((r) => shown.includes(r));
      for (const [i, a] of onScreen.entries()) {
        for (const b of onScreen.slice(i + 1)) assert.ok(!sayTheSame(a, b), `${l.id}: "${a}" and "${b}" say the same thing`);
      }
      // A rule checked live on the run ("the rule holds") keeps its rule beside it.
      for (const s of l.settings.filter((x) => x.live && x.rule)) {
        const dd = await page.locator(`[data-testid=lesson-live-${s.key}]`).evaluate((e) => e.closest('dd').textContent);
        assert.ok(dd.includes(s.rule) && /the rule holds/.test(dd), `${l.id}: ${s.key} keeps its rule beside its check: ${dd}`);
      }
    }
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('the hint button is withdrawn once the goal is met, and offered again (where it was) when the goal is broken again', async () => {
  const id = 'routers-that-herd';
  const { page, errors, context } = await site.open(`/?lesson=${id}`, { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForFunction(() => window.kvfleet?.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 60000 });
    await page.waitForSelector('[data-testid=lesson-checks] li');
    const lesson = await page.evaluate((i) => window.kvfleet.lessonsList.find((l) => l.id === i), id);
    const report = () => page.evaluate(() => window.kvfleet.lastReport);
    const hint = '[data-testid=lesson-hint]';
    assert.equal(goalMet(lesson, await report()), false, 'the broken setup misses the goal');
    assert.equal(await page.isVisible(hint), true);
    await page.click(hint);
    assert.equal(await page.textContent(hint), 'Show another hint (2 of 3)');
    // Met through the settings (round robin, dealt by each router): no hint is offered any more.
    let n = await page.evaluate(() => window.kvfleet.runCount);
    await page.click('[data-testid=input-routing-round_robin]');
    await page.waitForFunction((k) => window.kvfleet.runCount > k, n, { timeout: 60000 });
    await page.waitForSelector('[data-testid=lesson-done]:visible');
    assert.equal(goalMet(lesson, await report()), true, 'this run meets every check');
    assert.equal(await page.isVisible(hint), false, 'no hint once the goal is met');
    await page.locator('[data-testid=lesson]').screenshot({ path: path.join(ROOT, 'test-results', 'course-goal-met-no-hint.png') });
    // Broken again: the button is back, where the reader left it.
    n = await page.evaluate(() => window.kvfleet.runCount);
    await page.click('[data-testid=lesson-reset]');
    await page.waitForFunction((k) => window.kvfleet.runCount > k, n, { timeout: 60000 });
    assert.equal(goalMet(lesson, await report()), false, 'the broken setup misses the goal again');
    assert.equal(await page.isVisible('[data-testid=lesson-done]'), false);
    assert.equal(await page.isVisible(hint), true, 'the hint is offered again');
    assert.equal(await page.textContent(hint), 'Show another hint (2 of 3)');
    assert.equal(await page.locator('ol.hints li').count(), 1);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});
