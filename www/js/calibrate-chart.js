// www/js/calibrate-chart.js: the calibration panel's two charts (Chart.js): each step's predicted
// duration against its measured one, with the line where they are equal, and each step's residual
// (measured − predicted) against its measured duration, with the zero line. Durations in ms.

import { themeInk } from './format.js';
import { axisTitle, hexAlpha } from './charts.js';

const ms = (us) => us / 1000;

/** The points {x: measured ms, y: predicted ms} and {x: measured ms, y: residual ms} of a fit. */
export function fitPoints(fit) {
  const fitted = [], resid = [];
  fit.measured_us.forEach((m, i) => {
    const p = fit.predicted_us[i];
    fitted.push({ x: ms(m), y: ms(p) });
    resid.push({ x: ms(m), y: ms(m - p) });
  });
  return { fitted, resid };
}

/** The x range the guide lines cover: from 0 (or the lowest point below it) to the highest point. */
function span(points) {
  const xs = points.map((p) => p.x);
  const lo = Math.min(0, ...xs), hi = Math.max(...xs);
  return [lo, hi];
}

function scatter(points, color, label) {
  return { type: 'scatter', label, data: points, pointRadius: 2, pointHoverRadius: 4, borderWidth: 0,
    backgroundColor: hexAlpha(color, 0.55), order: 1 };
}

function guide(from, to, color, label) {
  return { type: 'line', label, data: [from, to], borderColor: color, borderWidth: 1.5, borderDash: [6, 4],
    pointRadius: 0, fill: false, order: 0 };
}

const tooltip = (yWord) => ({
  callbacks: {
    label: (c) => (c.dataset.type === 'line' ? c.dataset.label
      : `step ${c.dataIndex + 1}: measured ${c.parsed.x.toFixed(2)} ms, ${yWord} ${c.parsed.y.toFixed(2)} ms`),
  },
});

/** Predicted against measured, with the line y = x. */
export function fittedConfig(points) {
  const t = themeInk();
  const [lo, hi] = span(points);
  return {
    type: 'scatter',
    data: { datasets: [scatter(points, t.accent, 'steps'), guide({ x: lo, y: lo }, { x: hi, y: hi }, t.muted, 'predicted = measured')] },
    options: {
      scales: { x: { type: 'linear', title: axisTitle('measured step (ms)') }, y: { type: 'linear', title: axisTitle('predicted step (ms)') } },
      plugins: { legend: { display: false }, tooltip: tooltip('predicted') },
    },
  };
}

/** Residual against measured, with the zero line. */
export function residConfig(points) {
  const t = themeInk();
  const [lo, hi] = span(points);
  return {
    type: 'scatter',
    data: { datasets: [scatter(points, t.warn, 'steps'), guide({ x: lo, y: 0 }, { x: hi, y: 0 }, t.muted, 'residual 0')] },
    options: {
      scales: { x: { type: 'linear', title: axisTitle('measured step (ms)') }, y: { type: 'linear', title: axisTitle('measured − predicted (ms)') } },
      plugins: { legend: { display: false }, tooltip: tooltip('residual') },
    },
  };
}

/** Draws (or redraws) a chart on `canvas` from `config`; returns it. */
export function drawChart(old, canvas, config) {
  if (old) old.destroy();
  return new window.Chart(canvas, config);
}
