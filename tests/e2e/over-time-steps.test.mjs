// tests/e2e/over-time-steps.test.mjs: the load-over-time card draws each interval's offered rate over
// that interval, not the interval after it. A schedule of 2 req/s, then 30 from 20 s, then 2 from 60 s,
// over 2,000 requests: at the middle of each interval the line drawn (read off the canvas, the
// offered line alone) is at the arrivals of that interval, worked out here from the report's series
// (offered rate × length, over the interval); and it is high inside 20–60 s and low outside.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite } from './harness.mjs';

let site;
before(async () => { site = await startSite({ heroSweep: false }); });
after(async () => { await site?.close(); });

test('each interval\'s offered rate is drawn over that interval: the step up at 20 s, the step down at 60 s', async () => {
  const { page, errors, context } = await site.open('/?request_rate_schedule=0s:2,20s:30,60s:2&num_requests=2000', { viewport: { width: 1280, height: 900 } });
  try {
    await page.waitForFunction(() => window.kvfleet?.lastReport?.series?.t_s?.length > 2, null, { timeout: 60000 });
    await page.locator('[data-testid=ts-rate]').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => {
      const c = window.Chart.getChart(document.querySelector('[data-testid=ts-rate]'));
      return c?.chartArea?.width > 0 && c.scales.x.max === window.kvfleet.lastReport.series.t_s.at(-1) && c.data.datasets.length >= 2;
    }, null, { timeout: 60000 });
    const got = await page.evaluate(() => {
      const s = window.kvfleet.lastReport.series;
      const c = window.Chart.getChart(document.querySelector('[data-testid=ts-rate]'));
      const i = c.data.datasets.findIndex((d) => d.label === 'offered');
      // Only the offered line drawn, then read off the canvas: the rows of its colour in a column.
      c.data.datasets.forEach((_, k) => c.setDatasetVisibility(k, k === i));
      c.update('none');
      const hex = c.data.datasets[i].borderColor;
      const want = hex.startsWith('#') ? [1, 3, 5].map((o) => parseInt(hex.slice(o, o + 2), 16)) : hex.match(/\d+/g).slice(0, 3).map(Number);
      const ratio = c.canvas.width / c.canvas.clientWidth;
      const ctx = c.canvas.getContext('2d');
      const lineAt = (x) => {
        const px = Math.round(c.scales.x.getPixelForValue(x) * ratio);
        const top = Math.floor(c.chartArea.top * ratio), bottom = Math.ceil(c.chartArea.bottom * ratio);
        const col = ctx.getImageData(px, top, 1, bottom - top).data;
        const rows = [];
        for (let r = 0; r < bottom - top; r++) {
          const d = Math.abs(col[4 * r] - want[0]) + Math.abs(col[4 * r + 1] - want[1]) + Math.abs(col[4 * r + 2] - want[2]);
          if (col[4 * r + 3] > 200 && d < 40) rows.push(r);
        }
        return rows.length ? c.scales.y.getValueForPixel((top + rows[Math.floor(rows.length / 2)]) / ratio) : null;
      };
      // The card's bins: runs of `per` sample windows, at most 48 of them (the last run shorter:
      // left out below). Each bin's arrivals: Σ offered rate × window length, over its length.
      const t = s.t_s, windows = t.length - 1, per = Math.ceil(windows / 48);
      const drawn = [];
      for (let first = 1; first + per - 1 <= windows; first += per) {
        const last = first + per - 1;
        let arrivals = 0;
        for (let k = first; k <= last; k++) arrivals += s.offered_rate[k] * (t[k] - t[k - 1]);
        const [start, end] = [t[first - 1], t[last]];
        drawn.push({ start, end, rate: lineAt((start + end) / 2), want: arrivals / (end - start) });
      }
      return { drawn, tick: (c.scales.y.max - c.scales.y.min) / c.chartArea.height };
    });
    // The last whole bin may take a short tail in (the card merges it): leave it out.
    const inner = got.drawn.slice(0, -1);
    for (const w of inner) {
      assert.ok(w.rate !== null && Math.abs(w.rate - w.want) <= 3 * got.tick + 0.02 * w.want,
        `bin ${w.start}–${w.end} s: drawn at ${w.rate?.toFixed(2)} req/s, its arrivals ${w.want.toFixed(2)} req/s`);
    }
    // By the schedule: inside 20–60 s high, before 20 s and after 60 s low (whole bins only).
    const high = inner.filter((w) => w.start >= 20 && w.end <= 60);
    const low = inner.filter((w) => w.end <= 20 || w.start >= 60);
    assert.ok(high.length >= 3 && low.length >= 3, `${high.length} bins inside the step, ${low.length} outside`);
    for (const w of high) assert.ok(w.rate > 15, `${w.start}–${w.end} s, inside 20–60 s: ${w.rate.toFixed(1)} req/s`);
    for (const w of low) assert.ok(w.rate < 10, `${w.start}–${w.end} s, outside 20–60 s: ${w.rate.toFixed(1)} req/s`);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
