// tests/e2e/lesson-figure-first.test.mjs: on a lesson that replays a trace ("The cache is too small",
// on the conversation trace), the "how it works" figure is drawn as soon as its own runs are done,
// before the interview's and the short check's runs: the figure is on the page while the material is
// still being measured, its points are the command line's (`kvfleet lesson ID --material`), and the
// material's arrival leaves the drawn chart in place.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { startSite, ROOT, nativeBin } from './harness.mjs';

let site;
before(async () => { site = await startSite({ heroSweep: false }); }); // (the first screen's figure is not looked at)
after(async () => { await site?.close(); });

const ID = 'cache-too-small';

test('the trace lesson\'s figure comes before the rest of its material, with the command line\'s points', async () => {
  const want = JSON.parse(execFileSync(nativeBin(), ['lesson', ID, '--material', '--material-json'], { cwd: ROOT, encoding: 'utf8' })).diagram;
  const { page, errors, context } = await site.open(`/?lesson=${ID}`, { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForFunction((id) => window.kvfleet?.lessonFigure?.id === id, ID, { timeout: 90000 });
    const first = await page.evaluate(() => {
      const c = document.querySelector('[data-testid=lesson-diagram] canvas');
      window.kvfleet.firstFigureChart = window.Chart.getChart(c);
      return { ...window.kvfleet.lessonFigure, material: window.kvfleet.lessonMaterial?.id ?? null };
    });
    assert.equal(first.beforeMaterial, true, 'the figure is drawn before the material has come');
    await page.waitForFunction((id) => window.kvfleet?.lessonMaterial?.id === id, ID, { timeout: 90000 });
    const after = await page.evaluate(() => {
      const c = document.querySelector('[data-testid=lesson-diagram] canvas');
      const chart = window.Chart.getChart(c);
      return {
        same: chart === window.kvfleet.firstFigureChart,
        lines: chart.data.datasets.filter((d) => !d.goal && !d.run).map((d) => d.data.map((p) => [p.x, p.y])),
        figureAt: window.kvfleet.lessonFigure.at_ms,
        materialAt: window.kvfleet.lessonMaterial.at_ms,
      };
    });
    assert.ok(after.figureAt < after.materialAt, `drawn at ${after.figureAt} ms, the material in at ${after.materialAt} ms`);
    assert.equal(after.same, true, 'the material\'s arrival keeps the chart drawn');
    // Each series' points, at the figure's swept values, as the command line measures them.
    const expected = want.points.map((line) => line.map((y, j) => [want.values[j], y]));
    assert.deepEqual(after.lines, expected);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});
