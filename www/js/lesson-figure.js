// www/js/lesson-figure.js: a lesson's measured "how it works" figure (lesson_material_json's diagram):
// the metric against one setting, a line per series, the lesson's goal as a dashed line across it,
// axes to scale with numbers printed as the lesson's words. The x axis is logarithmic, ticked at the
// swept values, when those are doublings or span 8x or more; y ticks carry no needless ".0" ("100%").

import { pct, num, policyLine, POLICY_STYLE, replicaColor, themeInk } from './format.js';
import { fmtMs } from './charts.js';
import { el } from './page-bits.js';

/** A policy's own line, or a distinct colour for a series that is not a policy ("4 routers"). */
function seriesLine(label, i) {
  if (POLICY_STYLE[label]) return policyLine(label);
  const c = replicaColor(i);
  return { borderColor: c, backgroundColor: c, pointBackgroundColor: c, pointBorderColor: c, borderDash: i ? [6, 3] : [] };
}

/**
 * The legend's entries, with each goal threshold drawn as the dotted line it is on the figure (the
 * point style would show it as a grey circle).
 */
function legendItems(chart) {
  const items = window.Chart.defaults.plugins.legend.labels.generateLabels(chart);
  return items.map((item) => {
    const ds = chart.data.datasets[item.datasetIndex];
    if (!ds?.goal) return item;
    return { ...item, pointStyle: 'line', lineDash: ds.borderDash, lineCap: ds.borderCapStyle, lineWidth: ds.borderWidth, strokeStyle: ds.borderColor };
  });
}

/** The y ticks' callback: labels from yTickLabels over the axis's ticks (log axes: 1, 2, 5 x 10^k only). */
function yTick(d) {
  const is125 = (v) => { const lead = v / 10 ** Math.floor(Math.log10(v) + 1e-9); return [1, 2, 5].some((k) => Math.abs(lead - k) < 1e-6); };
  return (v, i, ticks) => {
    const shown = ticks.map((t) => t.value).filter((x) => !d.log_y || is125(x));
    if (d.log_y && !is125(v)) return '';
    return yTickLabels(shown, d.format)[shown.indexOf(v)];
  };
}

/** The goal's thresholds on the figure's metric, each a dashed line across it (marked `goal`). */
function goalLines(d, checks) {
  const xs = d.values;
  return checks.filter((c) => c.metric === d.metric).map((c) => ({
    label: `goal: ${c.label}`, goal: true, data: [{ x: xs[0], y: c.value }, { x: xs[xs.length - 1], y: c.value }],
    // Dotted (round dots), so it is never taken for a dashed policy's line (sticky's 6-3 dashes).
    borderColor: '#6b7280', backgroundColor: '#6b7280', borderDash: [1, 4], borderCapStyle: 'round', borderWidth: 2, pointRadius: 0, pointHoverRadius: 0,
  }));
}

/** Whether the swept values go up by doubling (1, 2, 4, 8...) or span 8x or more, all above 0: a log axis. */
export function wantsLogX(xs) {
  if (!(xs.length > 1 && xs[0] > 0)) return false;
  const doublings = xs.length > 2 && xs.every((x, i) => i === 0 || Math.abs(x / xs[i - 1] - 2) < 1e-9);
  return doublings || xs[xs.length - 1] / xs[0] >= 8;
}

/**
 * The log x axis's ticks: one at each swept value, less any whose label would touch a neighbour's on a
 * narrow chart (Chart.js spaces labels by their average gap only). The first and last stay, then the
 * values the caption names ("32,000 blocks"), then the rest from the left.
 */
function spacedTicks(scale, xs, fmtX, caption) {
  const ctx = scale.ctx;
  ctx.save();
  ctx.font = window.Chart.helpers.toFont(scale.options.ticks.font).string;
  const widths = new Map(xs.map((v) => [v, ctx.measureText(fmtX(v)).width]));
  ctx.restore();
  const [lo, hi] = [Math.log(xs[0]), Math.log(xs[xs.length - 1])];
  const at = (v) => (scale.width * (Math.log(v) - lo)) / (hi - lo || 1);
  const fits = (a, b) => Math.abs(at(b) - at(a)) >= widths.get(a) / 2 + widths.get(b) / 2 + 12;
  const named = (v) => new RegExp(`(^|[^\\d,.])${fmtX(v).replace(/[.]/g, '\\.')}([^\\d,]|$)`).test(caption);
  const middle = xs.slice(1, -1);
  const kept = xs.length > 1 ? [xs[0], xs[xs.length - 1]] : [xs[0]];
  for (const v of [...middle.filter(named), ...middle.filter((x) => !named(x))]) {
    if (kept.every((k) => fits(k, v))) kept.push(v);
  }
  return kept.sort((p, q) => p - q).map((value) => ({ value }));
}

/** The fewest decimals (0 to 2) at which every value of `vs` prints exactly. */
function decimalsFor(vs) {
  for (let d = 0; d < 2; d += 1) if (vs.every((v) => Math.abs(Math.round(v * 10 ** d) - v * 10 ** d) < 1e-6)) return d;
  return 2;
}

/**
 * The y tick labels of a figure in `format` (percent of 1, ms, or a count): every tick with the same
 * decimals, the fewest that print each tick exactly ("0%, 25%, 100%"; "2.5%, 5.0%").
 */
export function yTickLabels(values, format) {
  if (format === 'percent') {
    const d = decimalsFor(values.map((v) => v * 100));
    return values.map((v) => `${num(v * 100, d)}%`);
  }
  if (format === 'ms') {
    const ds = decimalsFor(values.filter((v) => v >= 1000).map((v) => v / 1000));
    const dm = decimalsFor(values.filter((v) => v < 1000));
    return values.map((v) => (v >= 1000 ? `${num(v / 1000, ds)} s` : `${num(v, dm)} ms`));
  }
  const d = decimalsFor(values);
  return values.map((v) => num(v, d));
}

/**
 * Draws diagram `d` into `root` (a figure: canvas and caption) with the lesson's `checks`; with a
 * second panel (d.second: another metric of the same runs), a second chart under the first. Returns
 * {destroy} over the charts (null before Chart.js has loaded), which the caller calls before the next draw.
 */
export function drawLessonFigure(root, d, checks) {
  const panels = [d];
  if (d.second && d.second_points?.length) panels.push({ ...d, ...d.second, points: d.second_points });
  const canvases = panels.map((p, i) => {
    const canvas = el('canvas');
    canvas.setAttribute('role', 'img');
    if (i) canvas.dataset.testid = 'lesson-diagram-second';
    canvas.setAttribute('aria-label', `${i ? `${p.y_label}, the same runs.` : d.caption} ${panelWords(p)}`);
    const box = el('div', 'canvas-box');
    box.append(canvas);
    return { canvas, box };
  });
  root.replaceChildren(...canvases.map((c) => c.box), el('figcaption', null, d.caption));
  root.dataset.testid = 'lesson-diagram';
  if (!window.Chart) return null;
  // Two panels share the x axis: their y axes are made one width, so the swept values line up.
  const yWidth = panels.length > 1 ? 84 : 0;
  const charts = panels.map((p, i) => panelChart(canvases[i].canvas, p, checks, yWidth));
  return { charts, destroy: () => charts.forEach((c) => c.destroy()) };
}

const fmtX = (v) => (Number.isInteger(v) ? num(v) : String(v)); // "32,000", as the lesson's words print it
// A figure's y values in its format's words; `fixed2` (GPU-hours) keeps its two decimals ("0.64").
const fmtY = (p) => (v) => (p.format === 'percent' ? pct(v) : p.format === 'ms' ? fmtMs(v) : num(v, p.format === 'fixed2' ? 2 : 0));

/** A panel's points in words, for its aria-label: "round_robin: 1 → 92.0%, 2 → 85.8%; sticky: ...". */
function panelWords(p) {
  const fmt = fmtY(p);
  return p.series.map(([label], i) => `${label}: ${p.values.map((x, j) => `${fmtX(x)} → ${fmt(p.points[i][j])}`).join(', ')}`).join('; ');
}

/**
 * One panel's chart: `p.metric` against the swept values, a line per series, the goal's thresholds on
 * it; its y axis at least `yWidth` px wide.
 */
function panelChart(canvas, p, checks, yWidth = 0) {
  const C = window.Chart;
  const fmt = fmtY(p);
  // The x axis is to scale: linear, or logarithmic (ticked at the swept values) when they double
  // or span 8x or more, so each doubling is one equal step.
  const xs = p.values;
  const logX = wantsLogX(xs);
  const goals = goalLines(p, checks);
  const title = (text) => ({ display: true, text, font: { weight: '600' } });
  return new C(canvas, {
    type: 'line',
    data: { datasets: [...p.series.map(([label], i) => ({ label, data: p.points[i].map((y, j) => ({ x: xs[j], y })), ...seriesLine(label, i), borderWidth: 2.5, pointRadius: 4 })), ...goals] },
    options: {
      plugins: { legend: { display: p.series.length > 1 || goals.length > 0, labels: { usePointStyle: true, boxWidth: 9, boxHeight: 9, generateLabels: legendItems } },
        tooltip: { callbacks: { title: (items) => (items.length ? `${p.x_label}: ${fmtX(items[0].parsed.x)}` : ''), label: (c) => ` ${c.dataset.label}: ${fmt(c.parsed.y)}` } } },
      scales: {
        x: logX ? { type: 'logarithmic', title: title(`${p.x_label} (log scale)`), min: xs[0], max: xs[xs.length - 1],
          afterBuildTicks: (scale) => { scale.ticks = spacedTicks(scale, xs, fmtX, p.caption); }, ticks: { callback: (v) => fmtX(v) } }
          : { type: 'linear', title: title(p.x_label), min: xs[0], max: xs[xs.length - 1] }, // no empty room past the last run
        y: { type: p.log_y ? 'logarithmic' : 'linear', beginAtZero: !p.log_y, title: title(p.log_y ? `${p.y_label} (log scale)` : p.y_label), ticks: { callback: yTick(p) },
          afterFit: (scale) => { if (yWidth) scale.width = Math.max(scale.width, yWidth); } },
      },
    },
  });
}

/**
 * The series of diagram `d` whose run `config` is, but for the swept setting: every setting equals
 * `base` (the defaults and the lesson's broken setup) with the series' changes. -1 when none is (the
 * reader changed a setting the figure holds fixed), or when the swept value lies outside the figure.
 */
export function runSeries(d, config, base) {
  const x = config?.[d.x_key];
  if (!(Number.isFinite(x) && x >= d.values[0] && x <= d.values[d.values.length - 1])) return -1;
  const same = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  // Over the run's own settings (a report leaves out those its layout does not use: a colocated
  // fleet's has no decode_routing) and every one the series changes.
  return d.series.findIndex(([, changes]) => {
    const want = { ...base, ...changes };
    return [...Object.keys(config), ...Object.keys(changes)].every((k) => k === d.x_key || same(config[k], want[k]));
  });
}

/**
 * Marks the run on screen on each of the figure's panels (`charts`, drawLessonFigure's): a ring at
 * its swept value and its measured metric, when it is one of series `i`'s runs but for the swept
 * setting; none when `i` is -1. `valueOf(path)` reads the run's report.
 */
export function markRun(charts, d, i, x, valueOf) {
  const panels = [d.metric, d.second?.metric].filter(Boolean);
  charts.forEach((chart, k) => {
    const sets = chart.data.datasets.filter((s) => !s.run);
    const y = valueOf(panels[k]);
    if (i >= 0 && Number.isFinite(y)) {
      // Not clipped to the plot: a run at the first or last swept value sits on the plot's edge.
      sets.push({ label: 'this run', run: true, data: [{ x, y }], borderColor: themeInk().ink, backgroundColor: 'transparent',
        borderWidth: 2.5, pointRadius: RING_PX, pointHoverRadius: 10, pointStyle: 'circle', showLine: false, order: -1, clip: false });
    }
    chart.data.datasets = sets;
    chart.options.scales.y.max = undefined;
    chart.options.scales.y.ticks.includeBounds = true;
    chart.update('none');
    ringHeadroom(chart, sets.length - 1);
  });
}

/** The "this run" ring's radius, px. */
const RING_PX = 9;

/**
 * Raises the y axis's top when the ring (dataset `i`) at the highest value would cross the plot's top
 * edge, so it stays whole inside the plot; the new top carries no tick label (an odd "104%").
 */
function ringHeadroom(chart, i) {
  const ring = chart.data.datasets[i]?.run ? chart.getDatasetMeta(i).data[0] : null;
  const a = chart.chartArea, y = chart.scales.y;
  if (!ring || !a || ring.y - RING_PX - 3 >= a.top) return;
  const f = (RING_PX + 3) / Math.max(40, a.bottom - a.top);
  const v = chart.data.datasets[i].data[0].y;
  const log = y.type === 'logarithmic';
  const [lo, at] = log ? [Math.log(y.min), Math.log(v)] : [y.min, v];
  const top = (at - f * lo) / (1 - f);
  chart.options.scales.y.max = log ? Math.exp(top) : top;
  chart.options.scales.y.ticks.includeBounds = false;
  chart.update('none');
}
