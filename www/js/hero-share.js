// www/js/hero-share.js: the hero's small multiple under the main figure, on the same log x axis:
// the busiest replica's share of requests for each drawn policy, over an even share (a blue band).

import { cacheReplicas } from './layout.js';
import { policyLine, pct, themeInk } from './format.js';
import { hexAlpha } from './charts.js';
import { lazyDraw } from './lazy-draw.js';
import { alignY, replicaAxis, unswept } from './hero.js';
import { hereLine, PAD_RIGHT } from './hero-labels.js';

const SHARE_TITLE = ['Busiest replica\'s share of requests', 'blue band: an even share (1 / replicas)'];
/** The mini chart's even-share series, as the tests find it. */
export const EVEN_LABEL = 'even share (1 / replicas)';
const SHARE_FONT = { size: 11, weight: '600' };

/**
 * The mini chart's title for a chart `width` px wide: one line when it fits, else two (Chart.js
 * squeezes a line wider than the chart instead of wrapping it).
 */
function shareTitle(chart, width) {
  const one = SHARE_TITLE.join(' · ');
  const ctx = chart.ctx;
  ctx.save();
  ctx.font = window.Chart.helpers.toFont({ ...SHARE_FONT, family: window.Chart.defaults.font.family }).string;
  const fits = ctx.measureText(one).width <= width - 24; // the layout's side padding, and a margin
  ctx.restore();
  return fits ? one : SHARE_TITLE;
}

/**
 * The hero's small multiple, on the same x axis: the busiest replica's share of requests for each
 * swept policy, beside an even share (1 / replicas, a blue band). Round robin sits in the band;
 * a policy that piles a popular prefix onto one replica sits far above it.
 */
export class HeroShare {
  constructor(canvas) {
    this.canvas = canvas;
    this.create();
  }

  create() {
    this.chart = new window.Chart(this.canvas, {
      type: 'line',
      data: { datasets: [] },
      plugins: [unswept, hereLine],
      options: {
        parsing: false,
        layout: { padding: { left: 4, right: PAD_RIGHT } },
        interaction: { mode: 'nearest', axis: 'x', intersect: false },
        onResize: (chart, size) => { chart.options.plugins.title.text = shareTitle(chart, size.width); },
        plugins: {
          legend: { display: false },
          title: { display: true, align: 'start', text: SHARE_TITLE.join(' · '), font: SHARE_FONT, padding: { top: 0, bottom: 4 } },
          hereLine: {},
          tooltip: { callbacks: {
            title: (items) => (items.length ? `${items[0].parsed.x} replica${items[0].parsed.x === 1 ? '' : 's'}` : ''),
            label: (c) => (c.dataset.label === EVEN_LABEL ? ` an even share: ${c.parsed.y.toFixed(0)}% of requests each`
              : ` ${c.dataset.label}: the busiest replica took ${c.parsed.y.toFixed(0)}% of requests`),
          } },
        },
        scales: {
          x: replicaAxis(256),
          y: { min: 0, max: 100, afterFit: alignY, ticks: { maxTicksLimit: 3, font: { size: 10 }, callback: (v) => `${v}%` } },
        },
      },
    });
    lazyDraw.watch(this.chart);
  }

  destroy() { if (this.chart) lazyDraw.forget(this.chart); this.chart?.destroy(); this.chart = null; }

  /** padRight: the main chart's right padding (HeroChart.padRight), so the two x axes line up. */
  update({ sweeps, policies, xs, max = Math.max(...xs), config, padRight = PAD_RIGHT }) {
    const t = themeInk();
    const sets = policies.map((p) => {
      const pts = (sweeps[p] || []).filter((q) => Number.isFinite(q.busiest_share)).map((q) => ({ x: q.instances, y: 100 * q.busiest_share }));
      // The chosen policy over the others where they coincide (kv on round robin's even share).
      return { label: p, data: pts, ...policyLine(p),
        borderWidth: p === config.routing ? 2.5 : 1.75, pointRadius: 2.5, order: p === config.routing ? -1 : 0 };
    });
    // A wide pale band drawn first, under the policies: round robin's line sits exactly on it, and a
    // thin line there would be hidden by it (or hide it); a line in a band stays visible, and reads "even".
    sets.push({ label: EVEN_LABEL, data: xs.map((x) => ({ x, y: 100 / x })), borderColor: hexAlpha(t.accent, 0.16),
      borderWidth: 9, borderCapStyle: 'round', pointRadius: 0, order: 10 });
    const c = this.chart;
    c.data.datasets = sets;
    c.options.layout = { padding: { left: 4, right: padRight } };
    const axis = replicaAxis(max);
    c.options.scales.x = { ...axis, ticks: { ...axis.ticks, display: false }, grid: { drawTicks: false } };
    for (const d of c.data.datasets) d.clip = 8;
    c.options.plugins.hereLine = { x: cacheReplicas(config), color: t.ink, panel: 'transparent', label: false };
    c.options.plugins.unswept = { from: Math.max(...xs), fill: hexAlpha(t.muted, 0.07) };
    c.options.plugins.title.text = shareTitle(c, c.width);
    lazyDraw.draw(c); // now if it is in view, else when it comes into view or the page is idle
    const words = policies.map((p) => {
      const q = (sweeps[p] || []).find((d) => d.instances === cacheReplicas(config));
      return `${p} ${q ? pct(q.busiest_share, 0) : 'pending'}`;
    });
    this.canvas.setAttribute('aria-label', `The busiest replica's share of requests against replicas. At ${cacheReplicas(config)}: ${words.join(', ')}; an even share is ${pct(1 / cacheReplicas(config), 0)}.`);
  }
}
