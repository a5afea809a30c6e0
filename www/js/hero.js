// www/js/hero.js: the page's first screen, one experiment: token hit rate against the number of
// replicas for round robin, prefix_aware and the chosen policy on one log axis over the slider's whole
// range, each curve named at its end, the simple model's prediction dotted over the simulated points,
// the controls that move it, and a takeaway computed from the run. The words on the plot (the rule's
// label, the curves' names) are hero-labels.js's.

import { cacheReplicas, isDisagg } from './layout.js';
import { policyColor, policyLine, pct, themeInk, num, replicaColor, countPct } from './format.js';
import { endLabels, endTexts, hereLine, labelWidths, overlaps, PAD_RIGHT, rightPadding } from './hero-labels.js';
import { hexAlpha, lineLegend } from './charts.js';
import { REPLICA_MARKS } from './controls.js';
import { predictionCurves } from './predict.js';
import { durationText, heroTakeaway, wasNow, wasNowText, whyRatesDiffer } from './story.js';
import { lazyDraw } from './lazy-draw.js';
import { patchChildren, setText } from './page-bits.js';
import { linkTerms } from './terms.js';

/** Replica counts the hero sweeps: 1 to 16, then doubling steps up to the current count. */
export function heroReplicaCounts(current, max = 256) {
  const xs = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16];
  for (let v = 24; v <= Math.min(current, max); v = v % 3 === 0 ? (v / 3) * 4 : (v / 2) * 3) xs.push(v);
  if (current <= max && !xs.includes(current)) xs.push(current);
  return xs.filter((x) => x <= max).sort((a, b) => a - b);
}

/**
 * The policies the hero draws: the two the model describes, then the chosen one, then `kept` (the
 * policy chosen before it, so a reader who moves from kv to sglang still sees kv to compare with).
 */
export function heroPolicies(routing, choices, kept = null) {
  const out = ['round_robin', 'prefix_aware'].filter((p) => choices.includes(p));
  for (const p of [routing, kept]) if (p && choices.includes(p) && !out.includes(p)) out.push(p);
  return out;
}


const MODEL_LABEL = {
  round_robin: 'round robin\'s model (dotted): misses ≈ prefixes × replicas',
  prefix_aware: 'prefix_aware\'s model (dashed): misses ≈ prefixes',
};
const MODEL_SHORT = { round_robin: 'round robin\'s model: misses ≈ prefixes × replicas', prefix_aware: 'prefix_aware\'s model: misses ≈ prefixes' };
/** Each model's line: both in the ink colour, so each policy's model is told apart by its pattern. */
const MODEL_DASH = { round_robin: [2, 5], prefix_aware: [8, 5] };
/**
 * A model curve: dotted or dashed in the ink colour, drawn over the measured lines (order 0, below
 * only the "this run" ring), so it shows where a curve sits right on it (prefix_aware on "misses ≈ prefixes").
 */
function modelSet(p, curve, narrow, t) {
  return { label: (narrow ? MODEL_SHORT : MODEL_LABEL)[p], data: curve.map((q) => ({ x: q.x, y: 100 * q.y })), model: p,
    borderColor: hexAlpha(t.ink, 0.85), backgroundColor: 'transparent', borderWidth: 2.5, borderDash: MODEL_DASH[p], borderCapStyle: 'round',
    pointRadius: 0, pointHoverRadius: 0, pointStyle: 'line', order: 0 };
}

/**
 * A policy's band (hero-band.js): its 95 % interval over the seeds at each count ({x, lo, hi}, 0 to 1),
 * the upper edge filled down to the lower, in the policy's colour, faint and under every line.
 */
function bandSets(p, pts) {
  const edge = { borderWidth: 0, pointRadius: 0, pointHoverRadius: 0, band: p, order: 5 };
  return [
    { ...edge, label: `${p} band low`, data: pts.map((q) => ({ x: q.x, y: 100 * q.lo })), fill: false, backgroundColor: 'transparent' },
    { ...edge, label: `${p} band`, data: pts.map((q) => ({ x: q.x, y: 100 * q.hi })), fill: '-1', backgroundColor: hexAlpha(policyColor(p), 0.22) },
  ];
}

/**
 * The legend's order: this run, the policies, the models (Chart.js would list them in drawing order,
 * the models, drawn over the policies, before them).
 */
const legendOrder = (sets) => {
  const rank = (i) => (sets[i]?.label === 'this run' ? 0 : sets[i]?.model ? 2 : 1);
  return (a, b) => rank(a.datasetIndex) - rank(b.datasetIndex) || a.datasetIndex - b.datasetIndex;
};

/** Both hero charts reserve this much for the y axis, so their x positions line up. */
const Y_AXIS_PX = 58;
export const alignY = (axis) => { axis.width = Y_AXIS_PX; };

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

// The counts the sweep has not reached yet (past the last swept one, while it runs), shaded and labelled "not run yet",
// so the empty part of the fixed axis reads as not yet asked for, not as nothing.
export const unswept = {
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
    const w = Math.max(0, ...lines.map((t) => ctx.measureText(t).width));
    const top = wordsTop(chart, (left + a.right) / 2 - w / 2, w, 13 * lines.length);
    if (top !== null) lines.forEach((t, i) => ctx.fillText(t, (left + a.right) / 2, top + 13 * i + 10));
    chart.unsweptBox = top === null || !lines.length ? null : { x: (left + a.right) / 2 - w / 2, y: top, w, h: 13 * lines.length };
    ctx.restore();
  },
};

/**
 * Where the "not run yet" words (w x h at x) go: midway down (the "N replicas" label beside the rule
 * takes the top or the bottom row), else the nearest place above or below that clears the curves'
 * end labels; null when none does.
 */
function wordsTop(chart, x, w, h) {
  const a = chart.chartArea, mid = (a.top + a.bottom) / 2 - h / 2;
  const labels = chart.endLabelBoxes || [];
  for (let d = 0; d <= (a.bottom - a.top) / 2; d += 6) {
    for (const y of d ? [mid - d, mid + d] : [mid]) {
      if (y < a.top + 22 || y + h > a.bottom - 22) continue;
      if (!labels.some((l) => overlaps(l, { x, y, w, h }))) return y;
    }
  }
  return null;
}
const UNSWEPT_TEXT = ['not run yet'];

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
      plugins: [endLabels, unswept, hereLine],
      options: {
        parsing: false,
        layout: { padding: { left: 4, right: PAD_RIGHT, top: 6 } },
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
          tooltip: { filter: (item) => !item.dataset.band, callbacks: {
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
  update({ sweeps, policies, xs, max = Math.max(...xs), config, traced, current, bands = null }) {
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
      // The chosen policy's line over the others' (a lower order draws later), where they coincide.
      sets.push({ label: p, data: pts, ...policyLine(p), borderWidth: p === config.routing ? 3 : 2, pointRadius: radius, pointHoverRadius: 7, order: p === config.routing ? 1 : 2 });
    }
    if (curves) for (const p of ['round_robin', 'prefix_aware']) if (policies.includes(p)) sets.push(modelSet(p, curves[p], narrow, t));
    for (const p of policies) if (bands?.[p]?.length) sets.push(...bandSets(p, bands[p]));
    if (current && Number.isFinite(current.y)) {
      sets.push({ label: 'this run', data: [current], borderColor: t.ink, backgroundColor: 'transparent', borderWidth: 2.5,
        pointRadius: 9, pointHoverRadius: 10, pointStyle: 'circle', showLine: false, order: -1 });
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
    c.options.plugins.legend.labels.sort = legendOrder(sets);
    c.options.plugins.legend.labels.filter = (item) => !sets[item.datasetIndex]?.band;
    c.options.scales.y.title.text = narrow ? 'Tokens from cache' : 'Prompt tokens from cache';
    c.options.scales.y.max = top;
    // Written whole (as in create()), never read back from c.options: between two updates that is a stale resolver.
    // One log axis over the slider's whole range (its steps grow past 16 too), whatever the count.
    const title = { display: true, font: { weight: '600' }, text: isDisagg(config) ? `Prefill replicas (log scale; decode pool: ${config.decode_instances})` : 'Replicas (log scale)' };
    c.options.scales.x = { ...replicaAxis(max), title };
    c.options.plugins.hereLine = { x: cacheReplicas(config), color: t.ink, panel: t.panel, unit: isDisagg(config) ? 'prefill replica' : 'replica' };
    const font = `600 ${narrow ? 10.5 : 12}px system-ui, sans-serif`;
    const lastX = Math.max(0, ...policies.flatMap((p) => (sweeps[p] || []).map((q) => q.instances)));
    // The pile-up notes on the names' line where they fit in the usual padding; else under the names
    // (room is made for the wider of the two lines).
    const noted = endTexts(policies, sweeps);
    const texts = rightPadding(c, labelWidths(c.ctx, noted, font), lastX, max, narrow) === PAD_RIGHT ? noted : endTexts(policies, sweeps, true);
    const pad = rightPadding(c, labelWidths(c.ctx, texts, font), lastX, max, narrow);
    this.padRight = pad || PAD_RIGHT; // (the small multiple takes the same, HeroPanel.draw)
    c.options.layout = { padding: { left: 4, right: this.padRight, top: 6 } };
    c.options.plugins.endLabels = { names: pad ? policies : [], texts, colors: Object.fromEntries(policies.map((p) => [p, policyColor(p)])),
      font, h: narrow ? 13 : 15, panel: hexAlpha(t.panel, 0.85) };
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
  const big = (testid, label, value, note, title = '') => {
    const d = document.createElement('div');
    d.className = 'hero-num';
    d.dataset.testid = testid;
    if (title) d.title = title;
    const l = document.createElement('div'); l.className = 'label'; l.textContent = label;
    const v = document.createElement('div'); v.className = 'value';
    // "19.7 min · 35.5 min" may wrap at the dot, never inside a figure ("35.5 / min").
    value.split(' · ').forEach((part, i) => {
      if (i) v.append(' · ');
      const w = document.createElement('span'); w.className = 'nowrap'; w.textContent = part; v.append(w);
    });
    const n = document.createElement('div'); n.className = 'sub'; n.textContent = note;
    d.append(l, v, n);
    return d;
  };
  const tokWas = wasNow(p?.hit_rate_tokens, s.hit_rate_tokens, (x) => countPct(x), where);
  // Both statistics, as the figure gives them: the median can double while the p99 falls.
  const ttft = (q) => (Number.isFinite(q?.ttft_ms_p50) && Number.isFinite(q?.ttft_ms_p99) ? `${durationText(q.ttft_ms_p50)} · ${durationText(q.ttft_ms_p99)}` : '');
  const ttftWas = p ? wasNowText(ttft(p), ttft(s), where) : '';
  const answered = `from arrival, over the ${num(s.completed)} completed request${s.completed === 1 ? '' : 's'}`;
  patchChildren(root, [
    big('hero-token-hit', 'Prompt tokens from cache', countPct(s.hit_rate_tokens), tokWas || `${num(s.cached_tokens)} of ${num(s.prompt_tokens)} tokens`),
    big('hero-any-hit', 'Requests with any cached block', countPct(s.hit_rate_requests), 'a request counts with one cached block'),
    big('hero-ttft', 'Time to first token (TTFT) median · p99', `${durationText(s.ttft_ms_p50)} · ${durationText(s.ttft_ms_p99)}`, ttftWas ? `median · p99 ${ttftWas}` : answered,
      'The median (p50): half of the requests wait less for their first token. The p99: 1 in 100 waits longer.'),
  ]);
}

/** The takeaway (lead + detail) and, when the two hit rates part by > 20 points, why. */
export function renderTakeaway(els, ctx) {
  const { lead, detail } = heroTakeaway(ctx);
  setText(els.lead, lead);
  setText(els.detail, detail);
  linkTerms(els.detail);
  const why = whyRatesDiffer(ctx.report?.summary, ctx.config, ctx.traced);
  setText(els.why, why);
  if (els.why.hidden !== !why) els.why.hidden = !why;
}
