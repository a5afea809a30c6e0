// www/js/lesson-figure.js: a lesson's measured "how it works" figure (lesson_material_json's diagram):
// the metric against one setting, a line per series, the lesson's goal as a dashed line across it,
// axes to scale (log when the values span more than 20x) with numbers printed as the lesson's words.

import { pct, num, policyLine, POLICY_STYLE, replicaColor } from './format.js';
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
    return { ...item, pointStyle: 'line', lineDash: ds.borderDash, lineWidth: ds.borderWidth, strokeStyle: ds.borderColor };
  });
}

/** The goal's thresholds on the figure's metric, each a dashed line across it (marked `goal`). */
function goalLines(d, checks) {
  const xs = d.values;
  return checks.filter((c) => c.metric === d.metric).map((c) => ({
    label: `goal: ${c.label}`, goal: true, data: [{ x: xs[0], y: c.value }, { x: xs[xs.length - 1], y: c.value }],
    borderColor: '#6b7280', backgroundColor: '#6b7280', borderDash: [3, 4], borderWidth: 1.5, pointRadius: 0, pointHoverRadius: 0,
  }));
}

/**
 * Draws diagram `d` into `root` (a figure: canvas and caption) with the lesson's `checks`; returns
 * the chart (null before Chart.js has loaded), which the caller destroys before the next draw.
 */
export function drawLessonFigure(root, d, checks) {
  const fmt = (v) => (d.format === 'percent' ? pct(v) : d.format === 'ms' ? fmtMs(v) : num(v, 0));
  const fmtX = (v) => (Number.isInteger(v) ? num(v) : String(v)); // "32,000", as the lesson's words print it
  const canvas = el('canvas');
  canvas.setAttribute('role', 'img');
  const words = d.series.map(([label], i) => `${label}: ${d.values.map((x, j) => `${fmtX(x)} → ${fmt(d.points[i][j])}`).join(', ')}`).join('; ');
  canvas.setAttribute('aria-label', `${d.caption} ${words}`);
  const box = el('div', 'canvas-box');
  box.append(canvas);
  root.replaceChildren(box, el('figcaption', null, d.caption));
  root.dataset.testid = 'lesson-diagram';
  const C = window.Chart;
  if (!C) return null;
  // The x axis is to scale: linear, or logarithmic when the values span more than 20x (and
  // start above 0); a log axis labels 1, 2 and 5 x 10^k only, so labels never collide.
  const xs = d.values;
  const logX = xs[0] > 0 && xs[xs.length - 1] / xs[0] > 20;
  const is125 = (v) => { const lead = v / 10 ** Math.floor(Math.log10(v) + 1e-9); return [1, 2, 5].some((k) => Math.abs(lead - k) < 1e-6); };
  const goals = goalLines(d, checks);
  const title = (text) => ({ display: true, text, font: { weight: '600' } });
  return new C(canvas, {
    type: 'line',
    data: { datasets: [...d.series.map(([label], i) => ({ label, data: d.points[i].map((y, j) => ({ x: xs[j], y })), ...seriesLine(label, i), borderWidth: 2.5, pointRadius: 4 })), ...goals] },
    options: {
      plugins: { legend: { display: d.series.length > 1 || goals.length > 0, labels: { usePointStyle: true, boxWidth: 9, boxHeight: 9, generateLabels: legendItems } },
        tooltip: { callbacks: { title: (items) => (items.length ? `${d.x_label}: ${fmtX(items[0].parsed.x)}` : ''), label: (c) => ` ${c.dataset.label}: ${fmt(c.parsed.y)}` } } },
      scales: {
        x: { type: logX ? 'logarithmic' : 'linear', title: title(d.x_label),
          ticks: logX ? { callback: (v) => (is125(v) ? fmtX(v) : '') } : {} },
        y: { type: d.log_y ? 'logarithmic' : 'linear', beginAtZero: !d.log_y, title: title(d.y_label),
          ticks: { callback: (v) => (!d.log_y || is125(v) ? fmt(v) : '') } },
      },
    },
  });
}
