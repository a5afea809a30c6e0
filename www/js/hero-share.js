// www/js/hero-share.js: the hero's small multiples under the main figure, on the same log x axis:
// the busiest replica's share of requests (over an even share, a blue band) and the p99 time to
// first token, for each drawn policy: the load a policy piles up, and what the reader waits for it.

import { cacheReplicas } from './layout.js';
import { policyLine, pct, themeInk } from './format.js';
import { hexAlpha } from './charts.js';
import { lazyDraw } from './lazy-draw.js';
import { alignY, replicaAxis, unswept } from './hero.js';
import { hereLine, PAD_RIGHT } from './hero-labels.js';
import { durationText } from './story-words.js';

/** The mini chart's even-share series, as the tests find it. */
export const EVEN_LABEL = 'even share (1 / replicas)';
const MINI_FONT = { size: 11, weight: '600' };

const plural = (n) => `${n} replica${n === 1 ? '' : 's'}`;

/** The busiest replica's share of requests, in percent, beside an even share (1 / replicas). */
export const SHARE_METRIC = {
  title: ['Busiest replica\'s share of requests', 'blue band: an even share (1 / replicas)'],
  value: (q) => (Number.isFinite(q.busiest_share) ? 100 * q.busiest_share : NaN),
  y: () => ({ min: 0, max: 100, ticks: { maxTicksLimit: 3, font: { size: 10 }, callback: (v) => `${v}%` } }),
  tip: (label, y) => (label === EVEN_LABEL ? ` an even share: ${y.toFixed(0)}% of requests each`
    : ` ${label}: the busiest replica took ${y.toFixed(0)}% of requests`),
  // A wide pale band drawn first, under the policies: round robin's line sits exactly on it, and a
  // thin line there would be hidden by it (or hide it); a line in a band stays visible, and reads "even".
  extra: (xs, t) => [{ label: EVEN_LABEL, data: xs.map((x) => ({ x, y: 100 / x })), borderColor: hexAlpha(t.accent, 0.16),
    borderWidth: 9, borderCapStyle: 'round', pointRadius: 0, order: 10 }],
  words: (q) => pct(q.busiest_share, 0),
  aria: (here, words) => `The busiest replica's share of requests against replicas. At ${here}: ${words}; an even share is ${pct(1 / here, 0)}.`,
  // Under an autoscaler a point's replicas are only where it started: the fleet grows and shrinks, so
  // neither the share nor 1 / replicas has one fleet to be of.
  off: (config) => ((config?.autoscale ?? 'off') !== 'off' ? OFF_AUTOSCALED : ''),
};

/** Why the share chart is not drawn under an autoscaler (in its place, one line). */
export const OFF_AUTOSCALED = 'Busiest replica\'s share of requests: not drawn under an autoscaler, where the replicas come and go and no share is even.';

/** The y axis ticks of the time chart: 1, 2, 5 of each power of ten in ms, then minutes and hours. */
const TIME_STEPS_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 6e4, 12e4, 3e5, 6e5, 12e5, 18e5, 36e5, 72e5, 18e6, 36e6];

/** A tick's words: "20 ms", "5 s", "10 min", "2 h". */
export function tickTime(ms) {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${ms / 1000} s`;
  if (ms < 3_600_000) return `${ms / 60_000} min`;
  return `${ms / 3_600_000} h`;
}

/** At most `most` of TIME_STEPS_MS inside [lo, hi], each the nearest to an even spread along the log axis. */
export function timeTicks(lo, hi, most = 4) {
  const inside = TIME_STEPS_MS.filter((v) => v >= lo && v <= hi);
  if (inside.length <= most) return inside;
  const [a, b] = [Math.log(inside[0]), Math.log(inside[inside.length - 1])];
  const nearest = (target) => inside.reduce((best, v) => (Math.abs(Math.log(v) - target) < Math.abs(Math.log(best) - target) ? v : best));
  return [...new Set(Array.from({ length: most }, (_, i) => nearest(a + ((b - a) * i) / (most - 1))))];
}

/** The p99 time to first token, on a log axis: minutes under a pile-up, milliseconds spread out. */
export const TTFT_METRIC = {
  title: ['p99 time to first token', 'log scale; lower is faster'],
  value: (q) => (Number.isFinite(q.ttft_ms_p99) && q.ttft_ms_p99 > 0 ? q.ttft_ms_p99 : NaN),
  y: (values) => {
    // A decade's room at least, so a flat curve lies flat and does not fill the panel.
    const lo = values.length ? Math.min(...values) : 10;
    const hi = values.length ? Math.max(...values) : 1000;
    const mid = Math.sqrt(lo * hi);
    const min = Math.min(lo / 1.25, mid / 3.2);
    const max = Math.max(hi * 1.25, mid * 3.2);
    return {
      type: 'logarithmic', min, max,
      afterBuildTicks: (axis) => { axis.ticks = timeTicks(min, max).map((value) => ({ value })); },
      ticks: { autoSkip: false, font: { size: 10 }, callback: (v) => tickTime(v) },
    };
  },
  tip: (label, y) => ` ${label}: ${durationText(y)} p99`,
  extra: () => [],
  off: () => '',
  words: (q) => durationText(q.ttft_ms_p99),
  aria: (here, words) => `The p99 time to first token against replicas, on a log scale. At ${here}: ${words}.`,
};

/**
 * The mini chart's title for a chart `width` px wide: one line when it fits, else two (Chart.js
 * squeezes a line wider than the chart instead of wrapping it).
 */
function miniTitle(chart, width, title) {
  const one = title.join(' · ');
  const ctx = chart.ctx;
  ctx.save();
  ctx.font = window.Chart.helpers.toFont({ ...MINI_FONT, family: window.Chart.defaults.font.family }).string;
  const fits = ctx.measureText(one).width <= width - 24; // the layout's side padding, and a margin
  ctx.restore();
  return fits ? one : title;
}

/**
 * One of the hero's small multiples, on the main chart's x axis: `metric` (SHARE_METRIC or
 * TTFT_METRIC) of each swept policy against replicas. Round robin sits in the even-share band; a
 * policy that piles a popular prefix onto one replica sits far above it, and its p99 with it.
 */
export class HeroMini {
  constructor(canvas, metric = SHARE_METRIC) {
    this.canvas = canvas;
    this.metric = metric;
    this.create();
  }

  create() {
    const m = this.metric;
    this.chart = new window.Chart(this.canvas, {
      type: 'line',
      data: { datasets: [] },
      plugins: [unswept, hereLine],
      options: {
        parsing: false,
        layout: { padding: { left: 4, right: PAD_RIGHT } },
        interaction: { mode: 'nearest', axis: 'x', intersect: false },
        onResize: (chart, size) => { chart.options.plugins.title.text = miniTitle(chart, size.width, m.title); },
        plugins: {
          legend: { display: false },
          title: { display: true, align: 'start', text: m.title.join(' · '), font: MINI_FONT, padding: { top: 0, bottom: 4 } },
          hereLine: {},
          tooltip: { callbacks: {
            title: (items) => (items.length ? plural(items[0].parsed.x) : ''),
            label: (c) => m.tip(c.dataset.label, c.parsed.y),
          } },
        },
        scales: { x: replicaAxis(256), y: { ...m.y([]), afterFit: alignY } },
      },
    });
    lazyDraw.watch(this.chart);
  }

  destroy() { if (this.chart) lazyDraw.forget(this.chart); this.chart?.destroy(); this.chart = null; }

  /** padRight: the main chart's right padding (HeroChart.padRight), so the x axes line up. */
  /** The chart in place of a line saying why it is not drawn (`why`), or back ('' ). */
  showOff(why) {
    const box = this.canvas.parentElement;
    if (why && !this.offNote) {
      this.offNote = Object.assign(document.createElement('p'), { className: 'hero-mini-off' });
      this.offNote.dataset.testid = `${this.canvas.dataset.testid}-off`;
      box.append(this.offNote);
    }
    if (this.offNote) { this.offNote.textContent = why; this.offNote.hidden = !why; }
    this.canvas.hidden = !!why;
    box.classList.toggle('off', !!why);
  }

  update({ sweeps, policies, xs, max = Math.max(...xs), config, padRight = PAD_RIGHT }) {
    const m = this.metric;
    const off = m.off(config);
    this.showOff(off);
    if (off) return;
    const t = themeInk();
    const sets = policies.map((p) => {
      const pts = (sweeps[p] || []).map((q) => ({ x: q.instances, y: m.value(q) })).filter((q) => Number.isFinite(q.y));
      // The chosen policy over the others where they coincide (kv on round robin's even share).
      return { label: p, data: pts, ...policyLine(p),
        borderWidth: p === config.routing ? 2.5 : 1.75, pointRadius: 2.5, order: p === config.routing ? -1 : 0 };
    });
    sets.push(...m.extra(xs, t));
    const c = this.chart;
    c.data.datasets = sets;
    c.options.layout = { padding: { left: 4, right: padRight } };
    const axis = replicaAxis(max);
    c.options.scales.x = { ...axis, ticks: { ...axis.ticks, display: false }, grid: { drawTicks: false } };
    c.options.scales.y = { ...m.y(sets.slice(0, policies.length).flatMap((s) => s.data.map((q) => q.y))), afterFit: alignY };
    for (const d of c.data.datasets) d.clip = 8;
    const here = cacheReplicas(config);
    c.options.plugins.hereLine = { x: here, color: t.ink, panel: 'transparent', label: false };
    c.options.plugins.unswept = { from: Math.max(...xs), fill: hexAlpha(t.muted, 0.07) };
    c.options.plugins.title.text = miniTitle(c, c.width, m.title);
    lazyDraw.draw(c); // now if it is in view, else when it comes into view or the page is idle
    const words = policies.map((p) => {
      const q = (sweeps[p] || []).find((d) => d.instances === here);
      return `${p} ${q && Number.isFinite(m.value(q)) ? m.words(q) : 'pending'}`;
    });
    this.canvas.setAttribute('aria-label', m.aria(here, words.join(', ')));
  }
}
