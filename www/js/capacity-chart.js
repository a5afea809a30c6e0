// www/js/capacity-chart.js: the capacity planner's chart of cost against p99 TTFT (Chart.js): one
// scatter dataset per policy, each point full size and colour where it meets every target, small and
// faded where it misses one; the Pareto front of the points that meet every target; the TTFT target;
// a log p99 TTFT axis and a cost axis (log when the costs span 4x) with a tick at each point's cost
// when there are few (else at the cost of 1, 2, 4, ... replicas); the legend's and the caption's
// marker glyphs. capacity.js draws it and handles clicks.

import { policyColor, policyLine, themeInk } from './format.js';
import { fmtMs, hexAlpha, lineLegend } from './charts.js';

export const money = (x) => (Number.isFinite(x) ? `$${x.toFixed(2)}` : '–');

/** "1 replica", "2 replicas". */
export const count = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/**
 * The Pareto front of points {x: p99 TTFT, y: $/h}: the cheapest point for each latency. The chart
 * passes only the points that meet every target, so the front never leads to a fleet that fails.
 * `answer(p)`: the headline's answer, which stands alone at its cost (a tie on $/h goes to the lower
 * $/M output tokens before the p99, src/plan/headline.rs), so the ring at the lowest cost is the
 * fleet the headline names.
 */
export function paretoFront(points, answer = () => false) {
  const sorted = points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y))
    .sort((a, b) => a.y - b.y || a.x - b.x);
  const pick = sorted.find(answer);
  const front = [];
  let best = Infinity;
  for (const p of sorted) {
    if (pick && p !== pick && p.y === pick.y) continue;
    if (p.x < best) { front.push(p); best = p.x; }
  }
  return front;
}

// Tick mantissas for the log x axis, coarsest first: the first set that puts 3 or more ticks
// across the data is used, so a plan whose p99s sit within one decade still gets a readable scale.
const MANTISSAS = [[1], [1, 2, 5], [1, 1.5, 2, 3, 5, 7], [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8]];

/** The values m x 10^k (m in `ms`) from below `lo` to above `hi`, ascending. */
function ladder(ms, lo, hi) {
  const out = [];
  for (let k = Math.floor(Math.log10(lo)) - 1; k <= Math.ceil(Math.log10(hi)) + 1; k++) {
    for (const m of ms) out.push(Number((m * 10 ** k).toPrecision(6)));
  }
  return out;
}

/** Linear "nice" ticks from at or below lo to at or above hi, at least 3 (a very narrow range). */
function linearTicks(lo, hi) {
  const raw = (hi - lo) / 2;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [5, 2, 1].map((m) => m * p).find((v) => v <= raw);
  const out = [];
  for (let v = Math.floor(lo / step) * step; v < hi + step; v += step) out.push(Number(v.toPrecision(6)));
  return out;
}

/**
 * The x axis's tick values for points from lo to hi (> 0): the first tick at or below lo, the last
 * at or above hi, at least three in all, on a 1-2-5 ladder when that gives three.
 */
export function logTicks(lo, hi) {
  if (!(lo > 0) || !(hi > 0)) return [1, 10, 100];
  if (hi / lo < 1.001) { lo /= 1.2; hi *= 1.2; }
  for (const ms of MANTISSAS) {
    const seq = ladder(ms, lo, hi);
    const a = seq.filter((v) => v <= lo).pop();
    const b = seq.find((v) => v >= hi);
    const ticks = seq.filter((v) => v >= a && v <= b);
    if (ticks.length >= 3) return ticks;
  }
  return linearTicks(lo, hi);
}

/** The planner chart's x axis: logarithmic, from the first tick to the last, every tick labelled. */
function xAxis(xs) {
  const ticks = logTicks(Math.min(...xs), Math.max(...xs));
  return {
    type: 'logarithmic', min: ticks[0], max: ticks[ticks.length - 1],
    title: { display: true, text: 'p99 TTFT (log scale)', font: { weight: '600' } },
    afterBuildTicks: (axis) => { axis.ticks = ticks.map((value) => ({ value })); },
    ticks: { autoSkip: true, maxRotation: 0, callback: (v) => fmtMs(v) },
  };
}

/** "$5", "$2.50": dollars, with cents only when there are any. */
const dollars = (v) => (Number.isInteger(v) ? `$${v}` : `$${v.toFixed(2)}`);

// At most this many distinct costs get a tick each, so that every point's cost reads off the axis
// (a plan doubling the fleet also tries 3 or 6 replicas, $7.50 between $5 and $10); with more, the
// ticks fall back to a ladder and the tooltip gives each point's cost.
const MAX_COST_TICKS = 8;
// Two ticks closer than this share of the axis would print their labels over each other.
const TICK_ROOM = 1 / 20;

/**
 * The distinct costs `ys`, ascending, when there are at most MAX_COST_TICKS of them and no two are
 * closer than TICK_ROOM of the axis, which `at` maps a cost onto (a log or a linear scale); else null.
 */
export function costTicks(ys, at) {
  const costs = [...new Set(ys.map((y) => Number(y.toPrecision(6))))].sort((a, b) => a - b);
  if (costs.length === 0 || costs.length > MAX_COST_TICKS) return null;
  const span = at(costs.at(-1)) - at(costs[0]);
  const crowded = costs.some((c, i) => i > 0 && at(c) - at(costs[i - 1]) < TICK_ROOM * span);
  return crowded ? null : costs;
}

/** A tick at each of `ticks` and nowhere else (Chart.js's own ticks replaced). */
const ticksAt = (ticks) => (axis) => { axis.ticks = ticks.map((value) => ({ value })); };

/**
 * The planner chart's y axis for points {y: $/h, n: replicas}. The searches double the fleet, so
 * costs from 1 to 32 replicas crowd the bottom of a linear axis: when they span 4x or more (and all
 * cost something) the axis is logarithmic, else linear from $0. Either way a tick labels each cost a
 * point has when there are few (costTicks); else the log axis ticks the cost of 1, 2, 4, 8, ...
 * replicas.
 */
function yAxis(points) {
  const title = { display: true, font: { weight: '600' } };
  const ys = points.map((q) => q.y);
  const lo = Math.min(...ys), hi = Math.max(...ys);
  if (!(lo > 0) || hi / lo < 4) {
    const each = costTicks(ys.filter(Number.isFinite), (v) => v);
    const own = each ? { afterBuildTicks: ticksAt([0, ...each.filter((c) => c > 0)]), ticks: { autoSkip: false, callback: dollars } } : { ticks: { callback: dollars } };
    return { type: 'linear', beginAtZero: true, title: { ...title, text: 'Fleet cost ($ per hour)' }, ...own };
  }
  const ticks = costTicks(ys, Math.log) || doublingTicks(points, lo, hi);
  return {
    type: 'logarithmic', min: ticks[0] / 1.15, max: ticks.at(-1) * 1.15,
    title: { ...title, text: 'Fleet cost ($ per hour, log scale)' },
    afterBuildTicks: ticksAt(ticks),
    ticks: { autoSkip: false, callback: dollars },
  };
}

/** The cost of 1, 2, 4, 8, ... replicas from at or below `lo` to at or above `hi`. */
function doublingTicks(points, lo, hi) {
  const unit = lo / Math.min(...points.filter((q) => q.y === lo).map((q) => q.n)); // one replica
  const ticks = [];
  for (let k = Math.floor(Math.log2(lo / unit)); k <= Math.ceil(Math.log2(hi / unit)); k++) ticks.push(Number((unit * 2 ** k).toPrecision(6)));
  return ticks;
}

// How a point shows whether it meets every target, the same for every marker: the crosses and the
// star (least_loaded, p2c, kv) are strokes only and cannot be drawn hollow, so a point that misses a
// target is drawn small, thin and faded instead, one that meets them all at full size and colour.
// `alpha` is the stroke's opacity, `fill` the fill's (filled markers only).
const MEETS = { radius: 6, border: 2, alpha: 1, fill: 1 };
const MISSES = { radius: 3.5, border: 1, alpha: 0.45, fill: 0.2 };
const FRONT_LABEL = 'Pareto front (targets met)';

// A target a point misses, in words (its name in the plan's `misses`).
const MISS_WORDS = { ttft_p99: 'p99 TTFT', tpot_p99: 'p99 TPOT', e2e_p99: 'p99 end-to-end', rejected: 'unserved', overloaded: 'growing backlog' };

/** The scatter dataset of one policy's points, each drawn as MEETS or MISSES. */
function pointSet(policy, pts) {
  const color = policyColor(policy);
  const line = policyLine(policy);
  const look = (q) => (q.meets ? MEETS : MISSES);
  const filled = line.pointBackgroundColor === color;
  const fill = (q) => (q.meets ? line.pointBackgroundColor : filled ? hexAlpha(color, MISSES.fill) : 'transparent');
  return {
    ...line, label: policy, data: pts, showLine: false, borderDash: [], borderWidth: MEETS.border,
    pointRadius: pts.map((q) => look(q).radius),
    pointHoverRadius: pts.map((q) => look(q).radius + 2),
    pointBorderWidth: pts.map((q) => look(q).border),
    pointBackgroundColor: pts.map(fill),
    pointBorderColor: pts.map((q) => hexAlpha(color, look(q).alpha)),
    glyph: marker(line, MEETS, line.pointBackgroundColor, color),
  };
}

/** A 22 x 12 canvas with a policy's marker (`line`) drawn in `look`, for the legend and the key. */
function marker(line, look, fill, stroke, w = 22, h = 12) {
  const c = document.createElement('canvas');
  c.width = w; c.height = h;
  const g = c.getContext('2d');
  g.fillStyle = fill;
  g.strokeStyle = stroke;
  g.lineWidth = look.border;
  const radius = Math.min(h / 2 - 1, look.radius * 0.8);
  window.Chart.helpers.drawPoint(g, { pointStyle: line.pointStyle, radius, borderWidth: look.border, rotation: line.pointRotation || 0 }, w / 2, h / 2);
  return c;
}

/** The legend's entries: a policy's own marker at full strength (not its first point's look). */
function legendLabels(chart) {
  return lineLegend(22, 12)(chart).map((item) => {
    const glyph = chart.data.datasets[item.datasetIndex]?.glyph;
    return glyph ? { ...item, pointStyle: glyph } : item;
  });
}

/** The caption's key: a circle and a cross as a point that meets every target, then as one that misses. */
function captionKey(span) {
  const ink = themeInk().ink;
  const glyphs = (look) => ['circle', 'cross'].map((pointStyle) => {
    const c = marker({ pointStyle }, look, hexAlpha(ink, look.fill), hexAlpha(ink, look.alpha), 16, 14);
    c.className = 'cap-key-glyph';
    c.setAttribute('aria-hidden', 'true');
    return c;
  });
  span.replaceChildren(
    '· one marker per policy and fleet size tried; ',
    ...glyphs(MEETS), ' full size: meets every target; ',
    ...glyphs(MISSES), ' small, faded: misses at least one. ',
    'Ringed and joined by the dashed line: the Pareto front, the cheapest fleet at each latency among those that meet every target; at the lowest cost, the fleet the headline names.',
  );
  span.dataset.testid = 'cap-key';
}

/**
 * One scatter dataset per policy (each point drawn as MEETS or MISSES), the Pareto front of the
 * points that meet every target (its cheapest ring on `cheapest`'s answer, the policy the headline
 * names), and the TTFT target.
 */
export function chartSets({ plans, spec, cheapest = '' }) {
  const all = [];
  const sets = plans.map((p) => {
    const pts = p.points.map((x) => ({ x: x.measured.ttft_ms_p99, y: x.cost.usd_per_hour, n: x.instances, meets: x.meets, misses: x.misses, policy: p.policy }))
      .filter((q) => Number.isFinite(q.x));
    all.push(...pts);
    return pointSet(p.policy, pts);
  });
  const answer = plans.find((p) => p.policy === cheapest)?.at_min?.instances;
  const front = paretoFront(all.filter((q) => q.meets), (q) => q.policy === cheapest && q.n === answer);
  if (front.length) {
    // A ring around each point of the front, joined by a dashed step line.
    const ink = themeInk().muted || '#888';
    sets.push({ label: FRONT_LABEL, data: front, showLine: true, stepped: 'after', fill: false, borderWidth: 2, borderColor: ink, borderDash: [5, 4],
      pointStyle: 'circle', pointRadius: 10, pointHoverRadius: 10, pointBorderWidth: 1.5, pointBorderColor: ink, pointBackgroundColor: 'transparent' });
  }
  const y = yAxis(all);
  const t = spec.slo.ttft_p99_ms;
  if (t) {
    const ys = all.map((q) => q.y);
    const [y0, y1] = y.type === 'logarithmic' ? [y.min, y.max] : [0, Math.max(1, ...ys)];
    sets.push({ label: `TTFT target ${fmtMs(t)}`, data: [{ x: t, y: y0 }, { x: t, y: y1 }], showLine: true, pointRadius: 0, borderWidth: 1.5, borderColor: '#c0392b', borderDash: [2, 3] });
  }
  return { sets, front, y };
}

/**
 * The chart's Chart.js config for `sets` (chartSets) and cost axis `y`; `onClick(evt, els)` gets
 * the clicks.
 */
export function chartConfig(sets, y, onClick) {
  return {
    type: 'scatter',
    data: { datasets: sets },
    options: {
      onClick,
      onHover: (evt, els) => { evt.native.target.style.cursor = els.length ? 'pointer' : 'default'; },
      plugins: {
        // Each entry draws its dataset's line (the front's dashes, the target's dots) or marker.
        legend: { labels: { usePointStyle: true, boxWidth: 22, boxHeight: 9, pointStyleWidth: 22, padding: 8, generateLabels: legendLabels } },
        tooltip: { callbacks: { label: (c) => {
          const q = c.raw;
          if (q.policy === undefined) return ` ${c.dataset.label}`;
          const verdict = q.meets ? 'meets every target' : `misses: ${q.misses.map((m) => MISS_WORDS[m] || m).join(', ')}`;
          return ` ${q.policy}, ${count(q.n, 'replica')}: ${money(q.y)}/h, TTFT p99 ${fmtMs(q.x)} (${verdict})`;
        }, footer: () => 'Click to load this point' } },
      },
      scales: {
        x: xAxis(plotted(sets)),
        y,
      },
    },
  };
}

/** Puts new `sets` and cost axis `y` on a drawn chart. */
export function updateChart(chart, sets, y) {
  chart.data.datasets = sets;
  chart.options.scales.x = xAxis(plotted(sets)); // written whole: the ticks follow the data
  chart.options.scales.y = y;
  chart.update('none');
}

/** The canvas's words (the Pareto front, for a screen reader) and its caption's key of markers. */
export function describeChart(canvas, front) {
  const said = front.map((q) => `${q.policy} ${count(q.n, 'replica')} ${money(q.y)}/h at ${fmtMs(q.x)}`).join('; ');
  canvas.setAttribute('aria-label', `Cost against p99 TTFT. ${front.length ? `Pareto front of the fleets that meet every target: ${said}` : 'No fleet tried meets every target.'}`);
  const key = canvas.closest('figure')?.querySelector('figcaption .thin');
  if (key) captionKey(key);
}

/** Every plotted x (the points, the front, the target line). */
function plotted(sets) {
  return sets.flatMap((d) => d.data.map((q) => q.x)).filter((x) => Number.isFinite(x) && x > 0);
}
