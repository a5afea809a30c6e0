// www/js/tasks.js: the Tasks panel, shown only for the sessions workload (report.sessions): task
// completion time as headline figures, and a by-turn chart (token hit rate and mean TTFT per turn).
// It builds its own DOM (textContent only) and its own Chart.js chart.

import { num, pct, seconds, themeInk } from './format.js';
import { fmtMs } from './charts.js';
import { el } from './page-bits.js';

function figure(cls, testid, label) {
  const d = el('div', `figure ${cls}`);
  d.dataset.testid = testid;
  const l = el('div', 'label', label);
  const v = el('div', 'value');
  const s = el('div', 'sub');
  d.append(l, v, s);
  return { root: d, set(value, unit, sub, alarm = false) {
    v.textContent = value;
    if (unit) v.append(el('small', null, ` ${unit}`));
    s.textContent = sub;
    d.classList.toggle('alarm', alarm);
  } };
}

const finite = (x) => (typeof x === 'number' && Number.isFinite(x) ? x : null);
const axisTitle = (text) => ({ display: true, text, font: { weight: '600' } });
const pc1 = (x) => (x === null || x === undefined ? '–' : `${x.toFixed(1)}%`);

/**
 * The last-turn figure's sub-label: turn 1's rate, the turns' rates averaged (each turn counts once)
 * and the run's token hit rate (each prompt token counts once: the headline's), each named, since the
 * two are near but differ (a long turn weighs more in the second). `hit`: percent by turn (null: none).
 */
export function turnHitWords(hit, tokenRate) {
  const rates = hit.filter((x) => x !== null);
  const mean = rates.length ? rates.reduce((a, b) => a + b, 0) / rates.length : null;
  const all = finite(tokenRate) === null ? '' : ` · all prompt tokens: ${pct(tokenRate)}`;
  return `turn 1: ${pc1(hit[0] ?? null)} · mean of the ${num(rates.length)} turns: ${pc1(mean)}${all}`;
}

export class Tasks {
  constructor() {
    const root = el('section', 'card tasks');
    root.dataset.testid = 'tasks';
    root.setAttribute('aria-labelledby', 'tasks-h');
    root.hidden = true;
    const head = el('div', 'section-head');
    const h = el('h2', null, 'Tasks');
    h.id = 'tasks-h';
    head.append(h);
    this.hint = el('p', 'hint');
    this.figs = {
      mean: figure('task', 'fig-task-mean', 'Task time, mean'),
      p99: figure('task', 'fig-task-p99', 'Task time, p99'),
      done: figure('task', 'fig-task-done', 'Tasks completed'),
      last: figure('task', 'fig-task-last-hit', 'Token hit rate, last turn'),
    };
    const row = el('div', 'fig-row');
    row.style.setProperty('--n', '4');
    row.append(...Object.values(this.figs).map((f) => f.root));
    const cap = el('div', 'tasks-chart-head');
    cap.append(el('h3', null, 'By turn'),
      el('p', null, 'Solid: share of each turn\'s prompt tokens found in the cache. Dashed: mean time to first token of that turn. '
        + 'A turn\'s prompt extends the previous one, so it should hit more each turn, if it lands where its session has been.'));
    const box = el('div', 'canvas-box');
    this.canvas = el('canvas');
    this.canvas.id = 'chart-turns';
    this.canvas.dataset.testid = 'chart-turns';
    this.canvas.setAttribute('role', 'img');
    this.canvas.setAttribute('aria-label', 'Token hit rate and TTFT by turn');
    box.append(this.canvas);
    root.append(head, this.hint, row, cap, box);
    this.el = root;
    this.chart = null;
    this.last = null;
  }

  createChart() {
    const t = themeInk();
    this.chart = new window.Chart(this.canvas, {
      type: 'line',
      data: { labels: [], datasets: [
        { label: 'Token hit rate (% of prompt tokens)', data: [], yAxisID: 'y', borderColor: t.accent, backgroundColor: t.accent,
          borderWidth: 2.5, pointRadius: 3, pointHoverRadius: 5, tension: 0, spanGaps: true },
        { label: 'Mean TTFT (ms)', data: [], yAxisID: 'y1', borderColor: t.warn, backgroundColor: t.warn,
          borderWidth: 2.5, borderDash: [7, 4], pointRadius: 3, pointHoverRadius: 5, pointStyle: 'rectRot', tension: 0, spanGaps: true },
      ] },
      options: {
        interaction: { mode: 'index', intersect: false },
        plugins: {
          legend: { labels: { usePointStyle: true, boxWidth: 8, boxHeight: 8 } },
          tooltip: { callbacks: {
            title: (items) => (items.length ? `Turn ${items[0].label}` : ''),
            label: (c) => (c.datasetIndex === 0 ? ` ${c.parsed.y.toFixed(1)}% of prompt tokens cached` : ` mean TTFT ${fmtMs(c.parsed.y)}`),
          } },
        },
        scales: {
          x: { title: axisTitle('Turn (step of a task)'), grid: { display: false }, ticks: { autoSkip: true, maxRotation: 0 } },
          y: { min: 0, max: 100, title: axisTitle('Token hit rate (%)'), ticks: { callback: (v) => `${v}%` } },
          y1: { position: 'right', beginAtZero: true, grace: '8%', title: axisTitle('Mean TTFT (ms)'), grid: { display: false },
            ticks: { callback: (v) => (v >= 1000 ? `${+(v / 1000).toFixed(1)} s` : `${v}`) } },
        },
      },
    });
  }

  /** Shows the panel for a sessions report; hides it for every other workload. */
  update(report) {
    const t = report.sessions;
    this.last = report;
    this.el.hidden = !t;
    if (!t) return;
    if (!this.chart) this.createChart();
    const cfg = report.config || {};
    const hit = (t.token_hit_rate_by_turn || []).map((x) => (finite(x) === null ? null : x * 100));
    const ttft = (t.ttft_ms_by_turn || []).map(finite);
    const turns = Math.max(hit.length, ttft.length);
    this.hint.textContent = `${num(t.tasks)} agent tasks of ${num(cfg.turns ?? turns)} turns each; a turn is sent when the previous answer is back`
      + `${cfg.think_time_ms ? ` plus ${num(cfg.think_time_ms)} ms of tool time` : ''}. Task time runs from the first turn sent to the last answer.`;

    const q = t.task_s || {};
    const [mean, meanU] = seconds(q.mean);
    const [p99, p99U] = seconds(q.p99);
    const [p50, p50U] = seconds(q.p50);
    this.figs.mean.set(mean, meanU, `median ${p50} ${p50U} · over ${num(t.completed_tasks)} completed tasks`);
    this.figs.p99.set(p99, p99U, 'slowest 1% of tasks take this long');
    const failed = t.failed_tasks || 0;
    this.figs.done.set(num(t.completed_tasks), `of ${num(t.tasks)}`,
      failed ? `⚠ ${num(failed)} failed: a turn was rejected or timed out` : 'none failed', failed > 0);
    const lastHit = [...hit].reverse().find((x) => x !== null);
    this.figs.last.set(lastHit === undefined ? '–' : `${lastHit.toFixed(1)}%`, '', turnHitWords(hit, report.summary?.hit_rate_tokens));

    const ch = this.chart;
    ch.data.labels = Array.from({ length: turns }, (_, i) => String(i + 1));
    ch.data.datasets[0].data = hit;
    ch.data.datasets[1].data = ttft;
    ch.options.scales.x.ticks.autoSkip = turns > 20;
    ch.update('none');
    this.canvas.setAttribute('aria-label', `By turn: token hit rate ${hit.map((x, i) => `turn ${i + 1} ${x === null ? '–' : `${x.toFixed(0)}%`}`).join(', ')}; `
      + `mean TTFT turn 1 ${fmtMs(ttft[0])}, turn ${turns} ${fmtMs(ttft[turns - 1])}.`);
  }

  retheme() {
    if (this.chart) { this.chart.destroy(); this.chart = null; }
    if (this.last) this.update(this.last);
  }
}

