// tests/e2e/lesson-embed-layout.test.mjs: a lesson's embed in a frame taller than it needs (the
// book's course chapter: 660 px high, about 720 px wide) shows the controls right under the lesson's
// buttons, not after an empty gap, and each slider's stop labels right under its track.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startSite, screenshot, ROOT } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });

// The frame the course chapter gives its embedded lesson (its height from the chapter itself).
const chapter = readFileSync(path.join(ROOT, 'docs/src/course.md'), 'utf8');
const frame = chapter.match(/<iframe src="\.\.\/\?embed=1&lesson=([\w-]+)"[\s\S]*?height:(\d+)px/);

for (const width of [720, 900]) {
  test(`the course chapter's lesson frame at ${width} px: no gap above the controls, stop labels under their sliders`, async () => {
    assert.ok(frame, 'the course chapter embeds a lesson with a height');
    const [, id, heightPx] = frame;
    const { page, errors, context } = await site.open(`/?embed=1&lesson=${id}`, { viewport: { width, height: Number(heightPx) } });
    try {
      await page.waitForFunction(() => window.kvfleet?.runCount > 0, null, { timeout: 60000 });
      await page.waitForSelector('[data-testid=lesson-checks] li');
      const m = await page.evaluate(() => {
        const region = document.querySelector('.embed-lesson');
        const kids = [...region.children].filter((k) => k.getClientRects().length);
        const contentBottom = Math.max(...kids.map((k) => k.getBoundingClientRect().bottom));
        const controls = document.querySelector('.embed-controls').getBoundingClientRect();
        const sliders = [...document.querySelectorAll('.embed-controls input[type=range]')].filter((s) => s.getClientRects().length)
          .map((s) => {
            const marks = s.parentElement.querySelector(`[data-testid$="marks-${s.dataset.testid.replace(/^.*input-/, '')}"]`);
            return { name: s.dataset.testid, track: s.getBoundingClientRect().bottom, marks: marks?.getBoundingClientRect().top ?? null };
          });
        return { gap: controls.top - contentBottom, sliders };
      });
      await screenshot(page, `lesson-embed-layout-${width}`, { fullPage: false });
      assert.ok(m.gap < 40, `the controls start ${Math.round(m.gap)} px under the lesson's last line`);
      const marked = m.sliders.filter((s) => s.marks !== null);
      assert.ok(marked.length >= 1, 'a slider with stop labels');
      for (const s of marked) assert.ok(Math.abs(s.marks - s.track) < 12, `${s.name}: labels ${Math.round(s.marks - s.track)} px under the track`);
      assert.deepEqual(errors, []);
    } finally { await context.close(); }
  });
}
