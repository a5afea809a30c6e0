// www/js/hero.js: the page's first screen, one experiment: token hit rate against the number of
// replicas for round robin, prefix_aware and the chosen policy on one log axis over the slider's whole
// range, the simple model's prediction drawn beside the simulated points, the controls that move it,
// and a takeaway computed from the run.

import { cacheReplicas, isDisagg } from './layout.js';
import { policyColor, policyLine, pct, themeInk, num, replicaColor } from './format.js';
import { hexAlpha, lineLegend } from './charts.js';
import { REPLICA_MARKS } from './controls.js';
import { predictionCurves } from './predict.js';
import { durationText, heroTakeaway, wasNow, whyRatesDiffer } from './story.js';
import { lazyDraw } from './lazy-draw.js';
import { patchChildren, setText } from './page-bits.js';

/** Replica counts the hero sweeps: 1 to 16, then doubling steps up to the current count. */
export function heroReplicaCounts(current, max = 256) {
  const xs = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16];
  for (let v = 24; v <= Math.min(current, max); v = v % 3 === 0 ? (v / 3) * 4 : (v / 2) * 3) xs.push(v);
  if (current <= max && !xs.includes(current)) xs.push(current);
  return xs.filter((x) => x <= max).sort((a, b) => a - b);
}

/** The policies the hero draws: the two the model describes, then the chosen one. */
export function heroPolicies(routing, choices) {
  const base = ['round_robin', 'prefix_aware'].filter((p) => choices.includes(p));
  return choices.includes(routing) && !base.includes(routing) ? [...base, routing] : base;
}

// "You are here": a vertical rule at the current replica count, labelled where no line or point is.
const hereLine = {
  id: 'hereLine',
  afterDatasetsDraw(chart, _args, o) {
    if (!o || !Number.isFinite(o.x)) return;
    const { ctx, chartArea: a, scales: { x } } = chart;
    const px = x.getPixelForValue(o.x);
    chart.hereLabelBox = null;
    if (px < a.left - 1 || px > a.right + 1) return;
    ctx.save();
    ctx.strokeStyle = o.color;
    ctx.lineWidth = 1.5;
    ctx.setLineDash([3, 3]);
    ctx.beginPath(); ctx.moveTo(px, a.top); ctx.lineTo(px, a.bottom); ctx.stroke();
    ctx.setLineDash([]);
    if (o.label === false) { ctx.restore(); return; }
    ctx.font = '600 12px system-ui, sans-serif';
    const label = `${o.x} ${o.unit || 'replica'}${o.x === 1 ? '' : 's'}`;
    const box = labelBox(chart, px, ctx.measureText(label).width + 8);
    chart.hereLabelBox = box; // (the page tests check it clears the points)
    // On a backing, so the rule never strikes through the words.
    ctx.fillStyle = o.panel;
    ctx.fillRect(box.x, box.y, box.w, box.h);
    ctx.fillStyle = o.color;
    ctx.textAlign = 'left';
    ctx.fillText(label, box.x + 4, box.y + 12);
    ctx.restore();
  },
};

/** The drawn points and line segments of a chart's visible datasets, in canvas pixels. */
function drawnMarks(chart) {
  const marks = [];
  chart.data.datasets.forEach((d, i) => {
    if (!chart.isDatasetVisible(i)) return;
    const pts = chart.getDatasetMeta(i).data.map((e) => ({ x: e.x, y: e.y, r: (e.options?.radius ?? 0) + (e.options?.borderWidth ?? 0) }));
    for (const p of pts) marks.push(p);
    if (d.showLine === false) return;
    // A segment, as points every few pixels along it.
    for (let k = 1; k < pts.length; k++) {
      const p = pts[k - 1], q = pts[k];
      const n = Math.ceil(Math.hypot(q.x - p.x, q.y - p.y) / 4);
      for (let j = 1; j < n; j++) marks.push({ x: p.x + ((q.x - p.x) * j) / n, y: p.y + ((q.y - p.y) * j) / n, r: 1 });
    }
  });
  return marks.filter((m) => Number.isFinite(m.x) && Number.isFinite(m.y));
}

/**
 * Where the "N replicas" label goes: beside the rule at px, just above the x axis or just below
 * the top, on whichever side fits; the first place no point or line crosses (else the least crossed).
 */
function labelBox(chart, px, w) {
  const a = chart.chartArea, h = 16;
  const rightFirst = px + 4 + w <= a.right + 12;
  const sides = rightFirst ? [px + 4, px - 4 - w] : [px - 4 - w, px + 4];
  const boxes = [a.bottom - 20, a.top + 4].flatMap((y) => sides.map((x) => ({ x, y, w, h })))
    .filter((b) => b.x >= 0 && b.x + b.w <= chart.width);
  const marks = drawnMarks(chart);
  const crossed = (b) => marks.filter((m) => m.x + m.r > b.x && m.x - m.r < b.x + b.w && m.y + m.r > b.y && m.y - m.r < b.y + b.h).length;
  let best = null, fewest = Infinity;
  for (const b of boxes) {
    const n = crossed(b);
    if (n < fewest) { best = b; fewest = n; }
    if (n === 0) break;
  }
  return best || { x: px + 4, y: a.bottom - 20, w, h };
}

const MODEL_LABEL = {
  round_robin: 'model (dotted): misses ≈ prefixes × replicas',
  prefix_aware: 'model (dotted): misses ≈ prefixes',
};
const MODEL_SHORT = { round_robin: 'model: prefixes×replicas misses', prefix_aware: 'model: prefixes misses' };
/** Both hero charts reserve this much for the y axis, so their x positions line up. */
const Y_AXIS_PX = 58;
const alignY = (axis) => { axis.width = Y_AXIS_PX; };

/**
 * The x axis: logarithmic from 1 to `max` (the slider's largest count) wherever the slider is, so
 * neither its kind nor its range changes under the reader; ticks at the slider's labelled stops.
 */
export function replicaAxis(max) {
  const marks = REPLICA_MARKS.filter((v) => v <= max);
  return {
    type: 'logarithmic', min: 1, max,
    afterBuildTicks: (axis) => { axis.ticks = marks.map((value) => ({ value })); },
    ticks: { autoSkip: false, maxRotation: 0, callback: (v) => (marks.includes(v) ? v : '') },
  };
}

// The counts the sweep has not reached (past the last swept one), shaded and labelled "not run yet",
// so the empty part of the fixed axis reads as not yet asked for, not as nothing.
const unswept = {
  id: 'unswept',
  beforeDatasetsDraw(chart, _args, o) {
    if (!o || !Number.isFinite(o.from)) return;
    const { ctx, chartArea: a, scales: { x } } = chart;
    const left = Math.max(a.left, x.getPixelForValue(o.from));
    if (a.right - left < 24) return;
    ctx.save();
    ctx.fillStyle = o.fill;
    ctx.fillRect(left, a.top, a.right - left, a.bottom - a.top);
    ctx.font = '11px system-ui, sans-serif';
    const room = a.right - left - 8;
    const fits = (lines) => lines.every((t) => ctx.measureText(t).width <= room);
    // One line if it fits, else two, else none (a sliver past a large count needs no words).
    const lines = !o.text ? [] : fits([o.text.join(' ')]) ? [o.text.join(' ')] : fits(o.text) ? o.text : [];
    ctx.fillStyle = o.color;
    ctx.textAlign = 'center';
    // Midway down: the "N replicas" label beside the rule takes the top or the bottom row.
    const top = (a.top + a.bottom) / 2 - 6.5 * (lines.length - 1);
    lines.forEach((t, i) => ctx.fillText(t, (left + a.right) / 2, top + 13 * i + 4));
    ctx.restore();
  },
};
const UNSWEPT_TEXT = ['not run yet:', 'move the slider'];

export class HeroChart {
  /** canvas: the figure; onPick(replicas): a point was clicked. */
  constructor(canvas, { onPick } = {}) {
    this.canvas = canvas;
    this.onPick = onPick;
    this.chart = null;
    this.create();
  }

  create() {
    const t = themeInk();
    this.chart = new window.Chart(this.canvas, {
      type: 'line',
      data: { datasets: [] },
      plugins: [unswept, hereLine],
      options: {
        parsing: false,
        layout: { padding: { left: 4, right: 16, top: 6 } },
        interaction: { mode: 'nearest', axis: 'x', intersect: false },
        onClick: (_e, items) => {
          const first = items[0];
          if (!first || !this.onPick) return;
          const p = this.chart.data.datasets[first.datasetIndex].data[first.index];
          if (p && Number.isFinite(p.x)) this.onPick(p.x);
        },
        plugins: {
          hereLine: { color: t.ink, panel: t.panel },
          legend: { position: 'bottom', labels: { usePointStyle: true, boxWidth: 28, boxHeight: 10, padding: 10, font: { size: 12 } } },
          tooltip: { callbacks: {
            title: (items) => (items.length ? `${items[0].parsed.x} replica${items[0].parsed.x === 1 ? '' : 's'}` : ''),
            label: (c) => ` ${c.dataset.label}: ${c.parsed.y.toFixed(1)}% of prompt tokens cached`,
          } },
        },
        scales: {
          x: { ...replicaAxis(256), title: { display: true, text: 'Replicas (log scale)', font: { weight: '600' } } },
          y: { min: 0, afterFit: alignY, title: { display: true, text: 'Prompt tokens from cache', font: { weight: '600' } }, ticks: { callback: (v) => `${v}%` } },
        },
      },
    });
    lazyDraw.watch(this.chart);
  }

  destroy() { if (this.chart) lazyDraw.forget(this.chart); this.chart?.destroy(); this.chart = null; }

  /**
   * Redraws from the sweeps ({policy: [{instances, hit_rate_tokens, ...}]}), the current run's point
   * and the model curves (null when the model does not apply).
   */
  update({ sweeps, policies, xs, max = Math.max(...xs), config, traced, current }) {
    const t = themeInk();
    // Chart.js's own record of the canvas's width: reading clientWidth here, after the run's numbers
    // were written, made the browser lay the page out at once.
    const w = this.chart.width;
    const narrow = w > 0 && w < 480;
    this.narrow = narrow;
    this.xs = xs;
    const sets = [];
    const curves = predictionCurves(config, traced, xs);
    for (const p of policies) {
      const pts = (sweeps[p] || []).filter((q) => Number.isFinite(q.hit_rate_tokens)).map((q) => ({ x: q.instances, y: 100 * q.hit_rate_tokens }));
      // Smaller marks on a phone, where 1 to 16 replicas take half of a narrow log axis.
      const radius = (p === config.routing ? 4.5 : 3.5) - (narrow ? 1 : 0);
      sets.push({ label: p, data: pts, ...policyLine(p), borderWidth: p === config.routing ? 3 : 2, pointRadius: radius, pointHoverRadius: 7, order: 2 });
    }
    if (curves) {
      for (const p of ['round_robin', 'prefix_aware']) {
        if (!policies.includes(p)) continue;
        sets.push({ label: (narrow ? MODEL_SHORT : MODEL_LABEL)[p], data: curves[p].map((q) => ({ x: q.x, y: 100 * q.y })), borderColor: hexAlpha(policyColor(p), 0.75),
          backgroundColor: 'transparent', borderWidth: 2, borderDash: [2, 5], borderCapStyle: 'round', pointRadius: 0, pointHoverRadius: 0,
          pointStyle: 'line', order: 3 });
      }
    }
    if (current && Number.isFinite(current.y)) {
      sets.push({ label: 'this run', data: [current], borderColor: t.ink, backgroundColor: 'transparent', borderWidth: 2.5,
        pointRadius: 9, pointHoverRadius: 10, pointStyle: 'circle', showLine: false, order: 1 });
    }
    const ys = sets.flatMap((s) => s.data.map((d) => d.y)).filter(Number.isFinite);
    const top = Math.min(100, Math.max(10, Math.ceil((Math.max(0, ...ys) + 4) / 10) * 10));
    const c = this.chart;
    c.data.datasets = sets;
    c.options.plugins.legend.labels.font.size = narrow ? 10.5 : 12;
    c.options.plugins.legend.labels.boxWidth = narrow ? 16 : 28;
    // Each entry draws its line as the plot does: the model's dotted, a policy's dashes, with its marker.
    c.options.plugins.legend.labels.pointStyleWidth = narrow ? 16 : 28;
    c.options.plugins.legend.labels.generateLabels = lineLegend(narrow ? 16 : 28, 12);
    c.options.plugins.legend.labels.padding = narrow ? 6 : 10;
    c.options.scales.y.title.text = narrow ? 'Tokens from cache' : 'Prompt tokens from cache';
    c.options.scales.y.max = top;
    // Written whole (as in create()), never read back from c.options: between two updates that is a stale resolver.
    // One log axis over the slider's whole range (its steps grow past 16 too), whatever the count.
    const title = { display: true, font: { weight: '600' }, text: isDisagg(config) ? `Prefill replicas (log scale; decode pool: ${config.decode_instances})` : 'Replicas (log scale)' };
    c.options.scales.x = { ...replicaAxis(max), title };
    c.options.plugins.hereLine = { x: cacheReplicas(config), color: t.ink, panel: t.panel, unit: isDisagg(config) ? 'prefill replica' : 'replica' };
    c.options.plugins.unswept = { from: Math.max(...xs), fill: hexAlpha(t.muted, 0.07), color: t.muted, text: UNSWEPT_TEXT };
    for (const d of c.data.datasets) d.clip = 12; // the ring at 1 or at the last count stays whole
    lazyDraw.draw(c); // now if it is in view, else when it comes into view or the page is idle
    const words = policies.map((p) => {
      const q = (sweeps[p] || []).find((d) => d.instances === cacheReplicas(config));
      return `${p} ${q ? pct(q.hit_rate_tokens, 0) : 'pending'}`;
    });
    this.canvas.setAttribute('aria-label', `Prompt tokens served from cache against replicas. At ${cacheReplicas(config)} ${isDisagg(config) ? 'prefill ' : ''}replica${cacheReplicas(config) === 1 ? '' : 's'}: ${words.join(', ')}.`);
  }
}

/**
 * The hero's numbers beside the figure: token hit rate, any-hit share, TTFT. `prev`: the run to
 * compare with ("was X at 256 replicas → now Y"), `where`: its settings in words (changeWords);
 * without them each sub-label says what its figure counts.
 */
export function renderHeroNumbers(root, report, prev, where = '') {
  const s = report.summary || {};
  const p = where ? prev?.summary : null;
  const big = (testid, label, value, note) => {
    const d = document.createElement('div');
    d.className = 'hero-num';
    d.dataset.testid = testid;
    const l = document.createElement('div'); l.className = 'label'; l.textContent = label;
    const v = document.createElement('div'); v.className = 'value'; v.textContent = value;
    const n = document.createElement('div'); n.className = 'sub'; n.textContent = note;
    d.append(l, v, n);
    return d;
  };
  const tokWas = wasNow(p?.hit_rate_tokens, s.hit_rate_tokens, (x) => pct(x), where);
  const p99Was = wasNow(p?.ttft_ms_p99, s.ttft_ms_p99, durationText, where);
  const answered = `from arrival, over the ${num(s.completed)} completed request${s.completed === 1 ? '' : 's'}`;
  patchChildren(root, [
    big('hero-token-hit', 'Prompt tokens from cache', pct(s.hit_rate_tokens), tokWas || `${num(s.cached_tokens)} of ${num(s.prompt_tokens)} tokens`),
    big('hero-any-hit', 'Requests with any cached block', pct(s.hit_rate_requests), 'a request counts with one cached block'),
    big('hero-ttft', 'Time to first token (TTFT) p50 · p99', `${durationText(s.ttft_ms_p50)} · ${durationText(s.ttft_ms_p99)}`, p99Was ? `p99 ${p99Was}` : answered),
  ]);
}

/** The takeaway (lead + detail) and, when the two hit rates part by > 20 points, why. */
export function renderTakeaway(els, ctx) {
  const { lead, detail } = heroTakeaway(ctx);
  setText(els.lead, lead);
  setText(els.detail, detail);
  const why = whyRatesDiffer(ctx.report?.summary, ctx.config, ctx.traced);
  setText(els.why, why);
  if (els.why.hidden !== !why) els.why.hidden = !why;
}

const SHARE_TITLE = ['Busiest replica\'s share of requests', 'dotted: an even share (1 / replicas)'];
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
 * swept policy, beside an even share (1 / replicas, dotted). Round robin sits on the dotted curve;
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
        layout: { padding: { left: 4, right: 16 } },
        interaction: { mode: 'nearest', axis: 'x', intersect: false },
        onResize: (chart, size) => { chart.options.plugins.title.text = shareTitle(chart, size.width); },
        plugins: {
          legend: { display: false },
          title: { display: true, align: 'start', text: SHARE_TITLE.join(' · '), font: SHARE_FONT, padding: { top: 0, bottom: 4 } },
          hereLine: {},
          tooltip: { callbacks: {
            title: (items) => (items.length ? `${items[0].parsed.x} replica${items[0].parsed.x === 1 ? '' : 's'}` : ''),
            label: (c) => ` ${c.dataset.label}: the busiest replica took ${c.parsed.y.toFixed(0)}% of requests`,
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

  update({ sweeps, policies, xs, max = Math.max(...xs), config }) {
    const t = themeInk();
    const sets = policies.map((p) => {
      const pts = (sweeps[p] || []).filter((q) => Number.isFinite(q.busiest_share)).map((q) => ({ x: q.instances, y: 100 * q.busiest_share }));
      return { label: p, data: pts, ...policyLine(p),
        borderWidth: p === config.routing ? 2.5 : 1.75, pointRadius: 2.5 };
    });
    // Drawn last, on top: round robin sits on it, and a hidden line would explain nothing.
    sets.push({ label: 'even share (1 / replicas)', data: xs.map((x) => ({ x, y: 100 / x })), borderColor: t.ink,
      borderDash: [2, 3], borderWidth: 1.5, pointRadius: 0, order: -1 });
    const c = this.chart;
    c.data.datasets = sets;
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
