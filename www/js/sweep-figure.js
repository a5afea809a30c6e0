// www/js/sweep-figure.js: what the sweep panel's two charts draw, as pure functions of the sweep
// (sweep.js's `last`): each series' lines in its policy's colour, dash and marker, the y axes (a log
// TTFT axis when the values span more than 30x) and the captions that name the lines.

import { num, policyColor, policyLine } from './format.js';

// Log-axis labels with their unit: 1-2-5 steps on a narrow range, powers of ten only on a wide one.
function logTick(v, ratio) {
  const e = Math.log10(v);
  const lead = Math.round(v / 10 ** Math.floor(e));
  const power = Math.abs(e - Math.round(e)) < 1e-9;
  if (!power && (ratio > 300 || ![2, 5].includes(lead))) return '';
  return v >= 1000 ? `${+(v / 1000).toPrecision(3)} s` : `${+v.toPrecision(3)} ms`;
}

/**
 * The datasets of one sweep chart (`metric`: hit, spread, tpot or ttft) for the sweep `last`, the
 * `selected` point ({s, i}) drawn larger: dataset s is series s's main line, then the second lines
 * (tokens, or p50) and a reference run's flat dotted line.
 */
export function sweepDatasets(last, selected, metric) {
  const { series } = last;
  const single = series.length === 1;
  const sel = selected;
  const radius = (s) => series[s].plan.points.map((_, i) => (sel && sel.s === s && sel.i === i ? 7 : 3.5));
  const main = [], second = [];
  series.forEach((se, s) => {
    const c = policyColor(se.routing);
    const S = se.summaries;
    const base = { borderColor: c, backgroundColor: c, pointRadius: radius(s), pointHoverRadius: 7, series: s };
    const width = se.routing === 'kv' ? 3 : 2.5;
    // Several policies: each main line carries its policy's marker, as in every other chart.
    const { pointStyle, pointRotation, pointBackgroundColor } = policyLine(se.routing);
    const marker = single ? {} : { pointStyle, pointRotation, pointBackgroundColor };
    if (se.style) {
      // A preset's own lines: one dataset each, told apart by dash and marker.
      const data = S.map((x) => (metric === 'spread' ? x.load_spread : metric === 'hit' ? x.hit_rate_requests * 100 : metric === 'tpot' ? x.tpot_ms_p99 : x.ttft_ms_p99));
      main.push({ ...base, label: se.label, data, borderWidth: width, borderDash: se.style.dash, pointStyle: se.style.point });
      return;
    }
    if (metric === 'hit') {
      main.push({ ...base, label: single ? `requests (${se.routing})` : se.label, data: S.map((x) => x.hit_rate_requests * 100), borderWidth: width, ...marker });
      second.push({ ...base, label: single ? 'prompt tokens' : `${se.label} · tokens`, data: S.map((x) => x.hit_rate_tokens * 100),
        borderDash: [6, 4], borderWidth: 2, pointStyle: 'rect' });
    } else {
      // A latency: each policy's p99 solid and its p50 dashed, in the policy's colour.
      const key = metric === 'tpot' ? 'tpot_ms' : 'ttft_ms';
      main.push({ ...base, label: single ? `p99 (${se.routing})` : `${se.label} p99`, data: S.map((x) => x[`${key}_p99`]), borderWidth: width,
        ...(metric === 'tpot' ? {} : { pointStyle: 'rectRot' }), ...marker });
      second.push({ ...base, label: single ? 'p50' : `${se.label} p50`, data: S.map((x) => x[`${key}_p50`]), borderDash: [6, 4], borderWidth: 2,
        pointStyle: 'rect', ...marker, ...(single ? {} : { pointRadius: radius(s).map((r) => r - 1) }) });
    }
  });
  const ref = last.reference;
  if (ref) {
    const key = { hit: 'hit_rate_requests', spread: 'load_spread', tpot: 'tpot_ms_p99', ttft: 'ttft_ms_p99' }[metric];
    const v = metric === 'hit' ? ref.summary[key] * 100 : ref.summary[key];
    const ink = getComputedStyle(document.documentElement).getPropertyValue('--ink').trim() || '#16181d';
    second.push({ label: `${ref.label} (reference)`, data: series[0].plan.points.map(() => v), borderColor: ink, backgroundColor: ink,
      borderDash: [2, 4], borderWidth: 2, pointRadius: 0, pointHoverRadius: 0, series: null });
  }
  return [...main, ...second];   // dataset s is series s's main line
}

/** The TTFT axis: linear, or logarithmic when the values span more than 30x. */
export function ttftScale(last) {
  const own = hasOwnLines(last);
  const all = last.series.flatMap((se) => se.summaries.flatMap((x) => [x.ttft_ms_p99, ...(own ? [] : [x.ttft_ms_p50])]))
    .filter((v) => Number.isFinite(v) && v > 0);
  const ratio = all.length ? Math.max(...all) / Math.min(...all) : 1;
  const title = (text) => ({ display: true, text, font: { weight: '600' } });
  const what = own ? 'TTFT p99' : 'TTFT p99 and p50';
  if (ratio <= 30) return { type: 'linear', beginAtZero: true, title: title(`${what} (ms)`), ticks: { callback: (v) => num(v) } };
  return { type: 'logarithmic', title: title(`${what} (log scale)`), ticks: { autoSkip: true, callback: (v) => logTick(v, ratio) } };
}

/** The y axis of the first chart: hit rate (0-100%), load spread or TPOT (from 0). */
export function firstScale(last, key) {
  const title = (text) => ({ display: true, text, font: { weight: '600' } });
  if (key === 'spread') return { type: 'linear', beginAtZero: true, title: title('Load spread'), ticks: { callback: (v) => num(v, 2) } };
  if (key === 'tpot') return { type: 'linear', beginAtZero: true, title: title(hasOwnLines(last) ? 'TPOT p99 (ms)' : 'TPOT p99 and p50 (ms)'), ticks: { callback: (v) => num(v) } };
  return { min: 0, max: 100, title: title('Hit rate (%)'), ticks: { callback: (v) => `${v}%` } };
}

/** Whether the drawn lines are a preset's own (p99 only, told apart by dash) rather than policies. */
const hasOwnLines = (last) => last.series.some((se) => se.style);

/** The figure captions (`els`: {cap1, cap2}), as the charts are drawn. */
export function sweepCaptions(els, last, first) {
  const { cap1, cap2 } = els;
  if (!cap1 || !cap2) return;
  const own = hasOwnLines(last);
  const lines = own ? ` · ${last.series.map((se, i) => `${se.label} ${['solid', 'dashed', 'dotted'][i % 3]}`).join(', ')}` : null;
  const what = first === 'spread' ? ' · (max − min) / mean requests per replica' : first === 'tpot' ? ' · p99' : '';
  const title = { spread: 'Load spread', tpot: 'Time per output token' }[first] || 'Hit rate';
  // Every policy drawn gets both lines, in its own colour; a reference run is a dotted flat line.
  const colours = last.series.length > 1 ? ', one colour per policy' : '';
  const ref = last.reference ? `; dotted: ${last.reference.label}` : '';
  const latency = ` · p99 solid (p50 dashed)${colours}${ref}`;
  const plain = first === 'tpot' ? latency : ' · requests solid, prompt tokens dashed';
  cap1.replaceChildren(title, Object.assign(document.createElement('span'), {
    className: 'thin', textContent: lines ? `${what}${lines}` : plain }));
  cap2.replaceChildren('Time to first token', Object.assign(document.createElement('span'), {
    className: 'thin', textContent: own ? ` · p99${lines}` : latency }));
}
