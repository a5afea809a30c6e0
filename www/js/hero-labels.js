// www/js/hero-labels.js: the hero chart's words on the plot: the "N replicas" rule and its label, placed
// where no line or point is, and each curve's name at its end (with its pile-up note), nudged apart so
// no two overlap. Chart.js plugins and the pure placement they use; hero.js sets their options.

import { pileNote } from './format.js';

/** Whether two boxes {x, y, w, h} overlap. */
export const overlaps = (p, q) => p.x < q.x + q.w && q.x < p.x + p.w && p.y < q.y + q.h && q.y < p.y + p.h;

// "You are here": a vertical rule at the current replica count, labelled where no line or point is.
export const hereLine = {
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
    if (!chart.isDatasetVisible(i) || d.band) return; // a seeds band (hero-band.js) is a faint area, not a line to keep clear of
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
 * the top, on whichever side fits, else on a row between; the first place no point or line
 * crosses (else the least crossed).
 */
function labelBox(chart, px, w) {
  const a = chart.chartArea, h = 16;
  const rightFirst = px + 4 + w <= a.right + 12;
  // Last, against the canvas's right edge (a phone at 64 replicas has a free band there, a pixel
  // too narrow for the box beside the rule).
  const sides = [...(rightFirst ? [px + 4, px - 4 - w] : [px - 4 - w, px + 4]), chart.width - w];
  // Above the axis or under the top first; else any row between, from the bottom up (on a phone at
  // 64 replicas both first rows crossed a line, and the label sat on prefix_aware's).
  const rows = [a.bottom - 20, a.top + 4];
  for (let y = a.bottom - 40; y > a.top + 4; y -= 10) rows.push(y);
  const boxes = rows.flatMap((y) => sides.map((x) => ({ x, y, w, h })))
    .filter((b) => b.x >= 0 && b.x + b.w <= chart.width);
  const marks = drawnMarks(chart);
  const labels = chart.endLabelBoxes || [];
  const crossed = (b) => marks.filter((m) => m.x + m.r > b.x && m.x - m.r < b.x + b.w && m.y + m.r > b.y && m.y - m.r < b.y + b.h).length
    + 100 * labels.filter((l) => overlaps(l, b)).length;
  let best = null, fewest = Infinity;
  for (const b of boxes) {
    const n = crossed(b);
    if (n < fewest) { best = b; fewest = n; }
    if (n === 0) break;
  }
  return best || { x: px + 4, y: a.bottom - 20, w, h };
}

// End-of-line labels: each swept policy's name just past its curve's last point, nudged apart so two
// close curves' names never overlap. When the curves reach the axis's right end the chart makes room
// on its right (the small multiple follows, so their x positions still line up); on a phone, where that
// room would squeeze the plot, the legend names them instead.
const END_GAP = 13; // past the point: clear of the 9 px "this run" ring
export const PAD_RIGHT = 16;

/**
 * Centres for labels of heights `hs` wanted at `ys` (sorted), stacked without overlap inside [lo, hi]:
 * labels that would overlap form a group centred on its wanted places, merged until no two groups touch.
 */
function spreadLabels(ys, hs, lo, hi) {
  const groups = ys.map((y, i) => ({ ys: [y], hs: [hs[i]], top: y - hs[i] / 2 }));
  const height = (g) => g.hs.reduce((a, b) => a + b, 0);
  const place = (g) => {
    // The group's top edge: its members' wanted centres averaged, less half its height; kept inside.
    const want = g.ys.reduce((a, b) => a + b, 0) / g.ys.length - height(g) / 2;
    g.top = Math.max(lo, Math.min(want, hi - height(g)));
  };
  groups.forEach(place);
  for (let k = 1; k < groups.length;) {
    const a = groups[k - 1], b = groups[k];
    if (a.top + height(a) <= b.top) { k++; continue; }
    a.ys.push(...b.ys);
    a.hs.push(...b.hs);
    groups.splice(k, 1);
    place(a);
    k = Math.max(1, k - 1); // the grown group may now reach the one above
  }
  return groups.flatMap((g) => g.hs.map((h, i) => g.top + g.hs.slice(0, i).reduce((a, b) => a + b, 0) + h / 2));
}

/** The width of each label's box (its widest line and a margin) in `font`; texts: {policy: lines drawn}. */
export function labelWidths(ctx, texts, font) {
  ctx.save();
  ctx.font = font;
  const out = Object.fromEntries(Object.entries(texts).map(([n, lines]) => [n, Math.max(...lines.map((t) => ctx.measureText(t).width)) + 6]));
  ctx.restore();
  return out;
}

/**
 * Each policy's end label, as lines: its name, then its pile-up note when it has one; on one line
 * ("prefix_aware · all on one replica"), or with `stacked` on two (where the chart makes room at the
 * axis's end, and one long line would squeeze the plot).
 */
export function endTexts(policies, sweeps, stacked = false) {
  return Object.fromEntries(policies.map((p) => {
    const last = (sweeps[p] || []).filter((q) => Number.isFinite(q.hit_rate_tokens)).reduce((a, q) => (!a || q.instances > a.instances ? q : a), null);
    const note = pileNote(last);
    return [p, !note ? [p] : stacked ? [p, note] : [`${p} · ${note}`]];
  }));
}

/**
 * The label boxes, {text, color, x, y, w, h, ax, ay} in canvas pixels, top to bottom: past the curves'
 * last points, in the order of their values (ties in the datasets' order); none unless all fit.
 */
function endLabelBoxes(chart, o) {
  const a = chart.chartArea;
  const widths = labelWidths(chart.ctx, o.texts, o.font);
  const ends = [];
  chart.data.datasets.forEach((d, i) => {
    if (!o.names.includes(d.label) || !chart.isDatasetVisible(i)) return;
    const last = chart.getDatasetMeta(i).data.filter((e) => Number.isFinite(e.x) && Number.isFinite(e.y)).pop();
    const lines = o.texts[d.label];
    if (last) ends.push({ text: d.label, words: lines.join(' · '), lines, color: o.colors[d.label], ax: last.x, ay: last.y, w: widths[d.label], h: o.h * lines.length, order: ends.length });
  });
  if (!ends.length || ends.some((e) => e.ax + END_GAP + e.w > chart.width)) return [];
  ends.sort((p, q) => p.ay - q.ay || p.order - q.order);
  // A two-line label is wanted with its first line (the name) on its curve's end.
  const ys = spreadLabels(ends.map((e) => e.ay + (e.h - o.h) / 2), ends.map((e) => e.h), a.top, a.bottom);
  return ends.map((e, k) => ({ ...e, lineH: o.h, x: e.ax + END_GAP, y: ys[k] - e.h / 2 }));
}

/**
 * The chart's right padding for labels of `widths` past curves that end at `lastX` on a log axis to
 * `max`: the usual padding when they fit, else room for them (0: none, on a phone).
 */
export function rightPadding(chart, widths, lastX, max, narrow) {
  const need = END_GAP + Math.max(0, ...Object.values(widths)) + 1;
  const left = chart.chartArea?.left ?? Y_AXIS_PX + 4;
  const at = left + (chart.width - PAD_RIGHT - left) * (Math.log(lastX) / Math.log(max));
  if (at + need <= chart.width) return PAD_RIGHT;
  return narrow ? 0 : Math.max(PAD_RIGHT, need);
}

function drawEndLabel(ctx, b, panel) {
  const cy = b.y + b.lineH / 2; // the name's line
  ctx.strokeStyle = b.color;
  ctx.lineWidth = 1;
  // A leader from the curve's end when the label was moved off its line.
  if (Math.abs(cy - b.ay) > 2) {
    ctx.beginPath();
    ctx.moveTo(b.ax + 6, b.ay);
    ctx.lineTo(b.x, cy);
    ctx.stroke();
  }
  ctx.fillStyle = panel;
  ctx.fillRect(b.x, b.y, b.w, b.h);
  ctx.fillStyle = b.color;
  b.lines.forEach((t, i) => ctx.fillText(t, b.x + 3, cy + i * b.lineH));
}

export const endLabels = {
  id: 'endLabels',
  // Placed before the datasets draw, so the "not run yet" words and the "N replicas" label can keep clear.
  beforeDatasetsDraw(chart, _args, o) { chart.endLabelBoxes = o?.names?.length ? endLabelBoxes(chart, o) : []; },
  afterDatasetsDraw(chart, _args, o) {
    if (!chart.endLabelBoxes?.length) return;
    const { ctx } = chart;
    ctx.save();
    ctx.font = o.font;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    for (const b of chart.endLabelBoxes) drawEndLabel(ctx, b, o.panel);
    ctx.restore();
  },
};
