// www/js/charts.js: the four result charts (Chart.js 4, loaded as a UMD global), created once and
// updated in place from each report. Replica i has the same colour in every chart.

import { replicaColor, replicaName, themeInk, pct, num, countPct } from './format.js';
import { lazyDraw } from './lazy-draw.js';
import { rejectedWords } from './headline.js';

const MAX_LEGEND = 10;

export function applyChartDefaults() {
  const t = themeInk();
  const C = window.Chart;
  C.defaults.color = t.muted;
  C.defaults.borderColor = t.line;
  C.defaults.font.family = getComputedStyle(document.body).fontFamily;
  C.defaults.font.size = 12;
  C.defaults.animation = false;          // results follow the slider; no tweening between runs
  C.defaults.responsive = true;
  C.defaults.maintainAspectRatio = false;
  C.defaults.plugins.tooltip.intersect = false;
  C.defaults.plugins.legend.labels.boxWidth = 12;
  C.defaults.plugins.legend.labels.boxHeight = 12;
}

export const axisTitle = (text) => ({ display: true, text, font: { weight: '600' } });
export const replicaLabel = (i) => `R${i}`;

// Draws the fleet hit rate (dashed line) and the per-replica min–max band across the hit-rate chart.
const fleetBand = {
  id: 'fleetBand',
  beforeDatasetsDraw(chart, _args, o) {
    if (!o || o.min === undefined) return;
    const { ctx, chartArea: a, scales: { y } } = chart;
    const top = y.getPixelForValue(o.max), bottom = y.getPixelForValue(o.min);
    ctx.save();
    ctx.fillStyle = o.band;
    ctx.fillRect(a.left, top, a.right - a.left, Math.max(1, bottom - top));
    ctx.restore();
  },
  afterDatasetsDraw(chart, _args, o) {
    if (!o || o.fleet === undefined) return;
    const { ctx, chartArea: a, scales: { y } } = chart;
    const py = y.getPixelForValue(o.fleet);
    ctx.save();
    ctx.strokeStyle = o.ink;
    ctx.lineWidth = 2;
    ctx.setLineDash([6, 4]);
    ctx.beginPath(); ctx.moveTo(a.left, py); ctx.lineTo(a.right, py); ctx.stroke();
    ctx.restore();
  },
};

// Separates a disaggregated fleet's pools on the per-replica bar charts: a dashed line between the
// last prefill replica and the first decode one, each pool's name on its side.
export const poolDivider = {
  id: 'poolDivider',
  afterDatasetsDraw(chart, _args, o) {
    if (!o || !o.split) return;
    const { ctx, chartArea: a, scales: { x } } = chart;
    const px = (x.getPixelForValue(o.split - 1) + x.getPixelForValue(o.split)) / 2;
    ctx.save();
    ctx.strokeStyle = o.ink;
    ctx.fillStyle = o.ink;
    ctx.lineWidth = 1.5;
    ctx.setLineDash([4, 4]);
    ctx.beginPath(); ctx.moveTo(px, a.top); ctx.lineTo(px, a.bottom); ctx.stroke();
    ctx.font = `600 11px ${window.Chart.defaults.font.family}`;
    ctx.textBaseline = 'top';
    ctx.textAlign = 'right';
    ctx.fillText(`prefill pool (${o.split})`, px - 6, a.top + 2);
    ctx.textAlign = 'left';
    ctx.fillText(`decode pool (${o.n - o.split})`, px + 6, a.top + 2);
    ctx.restore();
  },
};

/** The replica's name with its pool, when the fleet has pools. */
const pooledLabel = (r) => (r.pool ? `R${r.index} ${r.pool}` : replicaName(r));

export class Charts {
  constructor(ids) {
    this.ids = ids;
    this.charts = {};
    this.lazy = lazyDraw; // a chart off the screen is drawn when it comes near it, or when idle
    this.create();
  }

  destroy() {
    for (const c of Object.values(this.charts)) { this.lazy.forget(c); c.destroy(); }
    this.charts = {};
  }

  create() {
    const C = window.Chart;
    const t = themeInk();
    // Only the charts whose canvas is on the page (an embed shows one figure).
    const get = (k) => (this.ids[k] ? document.getElementById(this.ids[k]) : null);

    if (get('hit')) this.charts.hit = new C(get('hit'), {
      type: 'bar',
      // With offload tiers the bar splits, stacked: HBM (solid), the CPU tier (hatched), the shared
      // tier (pale); without them the tier parts are empty and hidden.
      data: { labels: [], datasets: [
        { label: 'Token hit rate (% of prompt tokens)', data: [], backgroundColor: [], borderRadius: 3, maxBarThickness: 56, stack: 'hit' },
        { label: 'Loaded from the CPU tier', data: [], backgroundColor: [], maxBarThickness: 56, stack: 'hit', hidden: true },
        { label: 'Loaded from the shared tier', data: [], backgroundColor: [], maxBarThickness: 56, stack: 'hit', hidden: true },
      ] },
      plugins: [fleetBand, poolDivider],
      options: {
        plugins: { legend: { display: false, labels: { generateLabels: tierLegend } }, fleetBand: {},
          subtitle: { display: true, align: 'center', font: { size: 12, weight: '600' }, padding: { bottom: 8 }, text: '' },
          tooltip: { callbacks: { label: hitTooltip } } },
        scales: {
          x: { stacked: true, title: axisTitle('Replica'), grid: { display: false } },
          y: { stacked: true, min: 0, max: 100, title: axisTitle('Prompt tokens from cache (%)'), ticks: { callback: (v) => `${v}%` } },
        },
      },
    });

    if (get('load')) this.charts.load = new C(get('load'), {
      type: 'bar',
      plugins: [poolDivider],
      data: { labels: [], datasets: [
        { type: 'bar', label: 'Requests served', data: [], backgroundColor: [], borderRadius: 3, maxBarThickness: 56, yAxisID: 'y', order: 2, stack: 'r' },
        { type: 'line', label: 'Saturated (% of run)', data: [], yAxisID: 'y1', borderColor: t.ink, backgroundColor: t.ink,
          pointRadius: 4, pointHoverRadius: 6, pointStyle: 'rectRot', showLine: false, order: 1, clip: 8 },
        // Turned away, stacked on top of the served part (so a bar's height is still every request routed there).
        { type: 'bar', label: 'Rejected', data: [], backgroundColor: hatch(t.err, 1), borderColor: t.err, borderWidth: 1.5,
          maxBarThickness: 56, yAxisID: 'y', order: 2, stack: 'r', hidden: true },
        { type: 'bar', label: 'Timed out', data: [], backgroundColor: hatch(t.warn, -1), borderColor: t.warn, borderWidth: 1.5,
          maxBarThickness: 56, yAxisID: 'y', order: 2, stack: 'r', hidden: true },
      ] },
      options: {
        plugins: {
          legend: { labels: { generateLabels: (chart) => {
            const k = themeInk();
            const sets = chart.data.datasets;
            const dropped = sets[2].present || sets[3].present;
            const off = (i) => !chart.isDatasetVisible(i);
            const items = [
              { text: dropped ? 'Served (bars)' : 'Requests routed (bars)', fillStyle: k.muted, strokeStyle: k.muted, lineWidth: 0, datasetIndex: 0, fontColor: k.muted, hidden: off(0) },
              { text: 'Saturated, % of run (◆)', fillStyle: k.ink, strokeStyle: k.ink, pointStyle: 'rectRot', datasetIndex: 1, fontColor: k.muted, hidden: off(1) },
            ];
            if (sets[2].present) items.push({ text: 'Rejected', fillStyle: sets[2].backgroundColor, strokeStyle: k.err, lineWidth: 1.5, datasetIndex: 2, fontColor: k.err, hidden: off(2) });
            if (sets[3].present) items.push({ text: 'Timed out', fillStyle: sets[3].backgroundColor, strokeStyle: k.warn, lineWidth: 1.5, datasetIndex: 3, fontColor: k.warn, hidden: off(3) });
            return items;
          } } },
          tooltip: { callbacks: { label: (c) => {
            const v = c.parsed.y;
            switch (c.datasetIndex) {
              case 0: return ` ${num(v)} served`;
              case 1: return ` saturated ${v.toFixed(1)}% of the run (steps began with work waiting)`;
              case 2: { const r = c.dataset.rows?.[c.dataIndex] || {}; return ` ${rejectedWords(v, r.rejected_queue_full, r.rejected_too_large, c.dataset.kvBlocks)}`; }
              default: return ` ${num(v)} timed out (caller gave up)`;
            }
          } } },
        },
        scales: {
          x: { stacked: true, title: axisTitle('Replica'), grid: { display: false } },
          y: { stacked: true, beginAtZero: true, grace: '8%', title: axisTitle('Requests routed'), ticks: { precision: 0 } },
          y1: { position: 'right', min: 0, max: 100, title: axisTitle('Saturated (% of run)'), grid: { display: false }, ticks: { callback: (v) => `${v}%` } },
        },
      },
    });

    if (get('latency')) this.charts.latency = new C(get('latency'), {
      type: 'line',
      data: { datasets: [
        { label: 'TTFT (time to first token)', data: [], borderColor: t.accent, backgroundColor: t.accent, borderWidth: 2.5, pointRadius: 0, tension: 0 },
        { label: 'End-to-end (whole answer)', data: [], borderColor: t.warn, backgroundColor: t.warn, borderWidth: 2.5, borderDash: [7, 4], pointRadius: 0, tension: 0 },
      ] },
      options: {
        parsing: false,
        interaction: { mode: 'nearest', axis: 'y', intersect: false },
        plugins: { tooltip: { callbacks: { label: (c) => ` ${c.dataset.label.split(' (')[0]}: ${c.parsed.y.toFixed(0)}% of requests within ${fmtMs(c.parsed.x)}` } } },
        scales: {
          x: { type: 'logarithmic', title: axisTitle('Latency (log scale)'),
            ticks: { maxRotation: 0, autoSkip: true, callback(v) { return logTick(v, this.max / Math.max(this.min, 1e-9)); } } },
          y: { min: 0, max: 100, title: axisTitle('Requests at or below (%)'), ticks: { callback: (v) => `${v}%` } },
        },
      },
    });

    const timeChart = (canvas, yTitle) => new C(canvas, {
      type: 'line',
      data: { datasets: [] },
      options: {
        parsing: false,
        normalized: true,
        interaction: { mode: 'nearest', axis: 'x', intersect: false },
        plugins: { legend: { position: 'right', labels: { boxWidth: 10, boxHeight: 10, font: { size: 11 } } },
          tooltip: { callbacks: { title: (items) => items.length ? `t = ${items[0].parsed.x.toFixed(1)} s` : '' } } },
        scales: {
          x: { type: 'linear', min: 0, title: axisTitle('Time (s)'), ticks: { includeBounds: false } },
          y: { beginAtZero: true, title: axisTitle(yTitle), ticks: { precision: 0 } },
        },
      },
    });
    if (get('queue')) this.charts.queue = timeChart(get('queue'), 'Queue (requests)');
    if (get('cache')) this.charts.cache = timeChart(get('cache'), 'Cache (blocks)');
    for (const c of Object.values(this.charts)) this.lazy.watch(c);
  }

  /** Redraws every chart on the page from a report. */
  update(report) {
    const per = report.per_instance || [];
    const ctx = {
      per, s: report.summary || {}, t: themeInk(),
      labels: per.map((r) => (r.preset ? replicaName(r) : replicaLabel(r.index ?? 0))), colors: per.map((r) => replicaColor(r.index ?? 0)),
    };
    const split = per.filter((r) => r.pool === 'prefill').length;
    for (const k of ['hit', 'load']) {
      if (this.charts[k]) this.charts[k].options.plugins.poolDivider = split > 0 && split < per.length ? { split, n: per.length, ink: ctx.t.ink } : {};
    }
    if (this.charts.hit) this.updateHit(ctx);
    if (this.charts.load) this.updateLoad(ctx, (report.config || {}).kv_blocks);
    if (this.charts.latency) this.updateLatency(report, ctx);
    this.updateTime(report, per.length, per);
  }

  // Token hit rate per replica; a replica that admitted nothing has no bar (its label says "–").
  // With offload tiers each bar splits into the tokens served from HBM, the CPU tier and the pool.
  updateHit({ per, s, t, labels, colors }) {
    const hit = this.charts.hit;
    hit.data.labels = labels.map((l, i) => (Number.isFinite(per[i].hit_rate_tokens) ? l : `${l} –`));
    const parts = per.map(tierParts);
    const tiered = [1, 2].map((k) => parts.some((p) => p && p[k] !== null));
    const sets = hit.data.datasets;
    sets[0].data = per.map((r, i) => (Number.isFinite(r.hit_rate_tokens) ? (parts[i] ? parts[i][0] : r.hit_rate_tokens * 100) : null));
    sets[0].label = tiered[0] || tiered[1] ? 'Served from HBM' : 'Token hit rate (% of prompt tokens)';
    sets[0].backgroundColor = colors;
    sets[1].data = parts.map((p) => (p ? p[1] : null));
    sets[1].backgroundColor = colors.map((c) => hatchOf(c));
    sets[2].data = parts.map((p) => (p ? p[2] : null));
    sets[2].backgroundColor = colors.map((c) => hexAlpha(c, 0.35));
    sets[1].hidden = !tiered[0];
    sets[2].hidden = !tiered[1];
    hit.options.plugins.legend.display = tiered[0] || tiered[1];
    const rates = per.map((r) => r.hit_rate_tokens).filter(Number.isFinite);
    const lo = rates.length ? Math.min(...rates) : NaN, hi = rates.length ? Math.max(...rates) : NaN;
    hit.options.plugins.fleetBand = Number.isFinite(s.hit_rate_tokens) ? {
      fleet: s.hit_rate_tokens * 100, min: lo * 100, max: hi * 100,
      ink: t.ink, panel: t.panel, band: hexAlpha(t.muted, 0.16),
    } : {};
    hit.options.plugins.subtitle.color = t.ink;
    const narrow = hit.width < 420;
    // A spread that rounds to one value is not a range ("42%–42%"): every replica at about that value.
    const spread = pct(lo, 0) === pct(hi, 0) ? `every replica ≈ ${pct(lo, 0)}` : `${narrow ? '' : 'per-replica spread '}${pct(lo, 0)}–${pct(hi, 0)}`;
    hit.options.plugins.subtitle.text = `- - fleet ${countPct(s.hit_rate_tokens)}${narrow ? ' ' : '    '}▒ ${spread}`;
    hit.options.scales.y.title.display = !narrow;
    this.lazy.draw(hit);
    const split = (i) => (parts[i] ? ` (${tierWords(parts[i])})` : '');
    setLabel(hit, `Token hit rate per replica. Fleet ${countPct(s.hit_rate_tokens)}; per replica ${per.map((r, i) => `${labels[i]} ${pct(r.hit_rate_tokens, 0)}${split(i)}`).join(', ')}.`);
  }

  // Requests per replica (served, rejected, timed out) and its saturated share of the run; a
  // rejection's words give the report's reasons (queue full, too large for the cache).
  updateLoad({ per, labels, colors }, kvBlocks) {
    const load = this.charts.load;
    load.data.labels = labels;
    const rejected = per.map((r) => r.rejected ?? 0);
    const timedOut = per.map((r) => r.timed_out ?? 0);
    const anyRejected = rejected.some((v) => v > 0);
    const anyTimedOut = timedOut.some((v) => v > 0);
    const sets = load.data.datasets;
    sets[0].data = per.map((r, i) => Math.max(0, (r.requests ?? 0) - rejected[i] - timedOut[i]));
    sets[0].backgroundColor = colors;
    sets[1].data = per.map((r) => (Number.isFinite(r.saturated_share) ? r.saturated_share * 100 : null));
    sets[2].data = rejected;
    sets[2].rows = per; // the tooltip's reasons (queue full, too large for the cache)
    sets[2].kvBlocks = kvBlocks;
    sets[2].hidden = !anyRejected;
    sets[2].present = anyRejected;
    sets[3].data = timedOut;
    sets[3].hidden = !anyTimedOut;
    sets[3].present = anyTimedOut;
    this.lazy.draw(load);
    const dropped = (i) => [rejected[i] ? rejectedWords(rejected[i], per[i].rejected_queue_full, per[i].rejected_too_large, kvBlocks) : '', timedOut[i] ? `${num(timedOut[i])} timed out` : ''].filter(Boolean).join(', ');
    setLabel(load, `Requests per replica: ${per.map((r, i) => `${labels[i]} ${r.requests}${dropped(i) ? ` (${dropped(i)})` : ''} (saturated ${pct(r.saturated_share, 0)})`).join(', ')}.`);
  }

  updateLatency(report, { s }) {
    const cdf = report.latency_cdf || { q: [], ttft_ms: [], e2e_ms: [] };
    const pts = (arr) => (arr || []).map((x, i) => ({ x: Math.max(x, 0.01), y: cdf.q[i] * 100 }));
    const lat = this.charts.latency;
    lat.data.datasets[0].data = pts(cdf.ttft_ms);
    lat.data.datasets[1].data = pts(cdf.e2e_ms);
    const top = Math.max(0.01, ...(cdf.e2e_ms || []), ...(cdf.ttft_ms || []));
    lat.options.scales.x.max = top * 1.15; // the slowest request stays inside the plot
    this.lazy.draw(lat);
    setLabel(lat, `Latency: TTFT p50 ${fmtMs(s.ttft_ms_p50)}, p99 ${fmtMs(s.ttft_ms_p99)}; end-to-end p50 ${fmtMs(s.e2e_ms_p50)}, p99 ${fmtMs(s.e2e_ms_p99)}.`);
  }

  updateTime(report, n, per = []) {
    const series = report.series || {};
    const ts = series.t_s || [];
    // The queue chart draws each window's longest queue (series.queue_peak), so its highest point is the
    // table's peak queue; point samples would step over a short peak (`tests/series_peaks.rs`).
    for (const [key, field] of [['queue', 'queue_peak'], ['cache', 'cache_blocks']]) {
      const ch = this.charts[key];
      if (!ch) continue;
      const rows = series[field] || [];
      // Reuse dataset objects (Chart.js then keeps their controllers) and only swap the data.
      const sets = ch.data.datasets;
      sets.length = Math.min(sets.length, rows.length);
      rows.forEach((row, i) => {
        const data = row.map((v, j) => ({ x: ts[j], y: v }));
        const label = per[i] ? pooledLabel(per[i]) : replicaLabel(i);
        if (sets[i]) { sets[i].data = data; sets[i].label = label; sets[i].borderWidth = n > 16 ? 1 : 1.75; return; }
        sets.push({ label, data, borderColor: replicaColor(i), backgroundColor: replicaColor(i),
          borderWidth: n > 16 ? 1 : 1.75, pointRadius: 0, stepped: true });
      });
      ch.options.plugins.legend.display = rows.length > 1 && rows.length <= MAX_LEGEND;
      ch.options.plugins.legend.position = ch.width < 520 ? 'top' : 'right';
      ch.options.scales.x.max = ts.length ? ts[ts.length - 1] : undefined;
      this.lazy.draw(ch);
    }
    const peak = (rows) => Math.max(0, ...(rows || []).map((r) => Math.max(0, ...r.filter(Number.isFinite))));
    if (this.charts.queue) setLabel(this.charts.queue, `Queue depth over time; the deepest queue reached ${num(peak(series.queue_peak))} requests.`);
    if (this.charts.cache) setLabel(this.charts.cache, `Cache occupancy over time; the fullest replica held ${num(peak(series.cache_blocks))} blocks.`);
  }
}

function setLabel(chart, text) { chart.canvas.setAttribute('aria-label', text); }

export function fmtMs(x) {
  if (!Number.isFinite(x)) return '–';
  return x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(x < 10 ? 1 : 0)} ms`;
}

// Log-axis labels: 1-2-5 steps on a narrow range, powers of ten only on a wide one.
function logTick(v, ratio) {
  const e = Math.log10(v);
  const lead = Math.round(v / 10 ** Math.floor(e));
  const power = Math.abs(e - Math.round(e)) < 1e-9;
  if (!power && (ratio > 300 || ![2, 5].includes(lead))) return '';
  return v >= 1000 ? `${v / 1000} s` : `${v} ms`;
}

/** A diagonal-stripe fill (dir 1 or -1) in a colour, so "turned away" never reads as a replica's hue. */
/**
 * A replica's token hit rate split per tier, in % of its prompt tokens: [HBM, CPU tier, shared tier]
 * (null for a tier the run does not have), or null without offload tiers or with no admissions.
 */
export function tierParts(r) {
  const cpu = r.cpu_tier, shared = r.shared_tier;
  if ((!cpu && !shared) || !Number.isFinite(r.hit_rate_tokens)) return null;
  const cached = r.cached_tokens || 0;
  const share = (tokens) => (cached > 0 ? (r.hit_rate_tokens * 100 * tokens) / cached : 0);
  const hbm = shared ? shared.hbm_hit_tokens : cpu.hbm_hit_tokens;
  return [share(hbm), cpu ? share(cpu.cpu_hit_tokens) : null, shared ? share(shared.shared_hit_tokens) : null];
}

/** "HBM 12%, CPU 5%, shared 16%" for tierParts' split. */
function tierWords(p) {
  return [['HBM', p[0]], ['CPU', p[1]], ['shared', p[2]]].filter(([, v]) => v !== null).map(([n, v]) => `${n} ${v.toFixed(0)}%`).join(', ');
}

// The hit chart's tooltip: the part under the pointer, per tier when the bar is split.
function hitTooltip(c) {
  const v = c.parsed.y.toFixed(1);
  if (c.chart.data.datasets[1].hidden && c.chart.data.datasets[2].hidden) return ` ${v}% of its prompt tokens came from its cache`;
  return [` ${v}% of its prompt tokens from HBM`, ` ${v}% loaded from its CPU tier`, ` ${v}% loaded from the shared tier`][c.datasetIndex];
}

// The hit chart's legend, shown only with tiers: one entry per tier present, in the page's ink.
function tierLegend(chart) {
  const k = themeInk();
  const fills = [k.muted, hatchOf(k.muted), hexAlpha(k.muted, 0.35)];
  const names = ['HBM', 'CPU tier', 'Shared tier'];
  return chart.data.datasets.map((d, i) => ({ text: names[i], fillStyle: fills[i], strokeStyle: k.muted, lineWidth: 0, datasetIndex: i, fontColor: k.muted, hidden: false }))
    .filter((item) => !chart.data.datasets[item.datasetIndex].hidden);
}

const hatches = new Map();
/** One hatch pattern per colour, made once. */
function hatchOf(color) {
  if (!hatches.has(color)) hatches.set(color, hatch(color, 1));
  return hatches.get(color);
}

export function hatch(color, dir = 1) {
  const size = 8;
  const c = document.createElement('canvas');
  c.width = size; c.height = size;
  const g = c.getContext('2d');
  g.fillStyle = hexAlpha(color, 0.28);
  g.fillRect(0, 0, size, size);
  g.strokeStyle = color;
  g.lineWidth = 2;
  g.beginPath();
  for (const o of [-size, 0, size]) {
    if (dir > 0) { g.moveTo(o, size); g.lineTo(o + size, 0); } else { g.moveTo(o, 0); g.lineTo(o + size, size); }
  }
  g.stroke();
  return g.createPattern(c, 'repeat') || color;
}

export function hexAlpha(color, a) {
  const m = /^#([0-9a-f]{6})$/i.exec(color);
  if (!m) return color;
  return `#${m[1]}${Math.round(a * 255).toString(16).padStart(2, '0')}`;
}

/**
 * A legend `generateLabels` whose glyphs draw each dataset's line as the plot does (solid, dashed or
 * dotted: Chart.js's point-style legend drops the dash) with its marker on it, in a `w` x `h` box
 * (set the legend's `pointStyleWidth` to `w`). Each item's `lineDash` is its dataset's borderDash.
 */
export function lineLegend(w, h) {
  return (chart) => window.Chart.defaults.plugins.legend.labels.generateLabels(chart).map((item) => {
    const ds = chart.data.datasets[item.datasetIndex] || {};
    return { ...item, lineDash: ds.borderDash || [], pointStyle: legendGlyph(ds, w, h) };
  });
}

/** The glyph of one dataset: its line across (unless it draws none) and its marker in the middle. */
function legendGlyph(ds, w, h) {
  const c = document.createElement('canvas');
  c.width = w; c.height = h;
  const g = c.getContext('2d');
  const first = (v) => (Array.isArray(v) ? v[0] : v);
  if (ds.showLine !== false) {
    g.strokeStyle = first(ds.borderColor);
    g.lineWidth = Math.min(3, ds.borderWidth || 2);
    g.lineCap = ds.borderCapStyle || 'butt';
    g.setLineDash(ds.borderDash || []);
    g.beginPath(); g.moveTo(1, h / 2); g.lineTo(w - 1, h / 2); g.stroke();
    g.setLineDash([]);
  }
  const style = first(ds.pointStyle) ?? 'circle';
  const radius = Math.max(...[ds.pointRadius ?? 3].flat());
  if (radius > 0 && style !== 'line') {
    g.fillStyle = typeof ds.pointBackgroundColor === 'string' ? ds.pointBackgroundColor : first(ds.backgroundColor);
    g.strokeStyle = first(ds.pointBorderColor) || first(ds.borderColor);
    g.lineWidth = 1.5;
    const r = Math.min(h / 2 - 1, ds.showLine === false ? radius : 4);
    window.Chart.helpers.drawPoint(g, { pointStyle: style, radius: r, borderWidth: 1.5, rotation: first(ds.pointRotation) || 0 }, w / 2, h / 2);
  }
  return c;
}
