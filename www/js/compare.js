// www/js/compare.js: "Compare routing policies": one click runs the same workload under every policy
// (in the worker); shows a table and grouped bars of hit rate, p99 TTFT and load spread, and a sweep
// of hit rate against the number of replicas for every policy. The table's headers wrap so it fits a
// desktop card; where it still scrolls sideways (a phone) a hint above it says so, as the planner's does.

import { num, policyColor, policyLine, countPct } from './format.js';
import { fmtMs } from './charts.js';
import { scrollCue } from './page-bits.js';
import { startBounds, withCacheReplicas } from './layout.js';

// Findings come from the report (src/findings.rs): each is evidence-gated, so a policy is flagged only
// when its own run shows the problem.
const FLAG = { load_uneven: 'uneven load', hit_uneven: 'uneven hit rate', overloaded: 'overloaded', kv_bound: 'KV-bound' };
const flags = (r) => {
  const kinds = [...new Set((r.findings || []).map((f) => f.kind))];
  return kinds.length ? `⚠ ${kinds.map((k) => FLAG[k] || k).join(', ')}` : '–';
};

const COLUMNS = [
  ['Policy', null],
  ['Token hit rate', (r) => countPct(r.summary.hit_rate_tokens)],
  ['Any cached block', (r) => countPct(r.summary.hit_rate_requests)],
  ['Evictions', (r) => num(r.summary.evictions)],
  ['TTFT p50', (r) => fmtMs(r.summary.ttft_ms_p50)],
  ['TTFT p99', (r) => fmtMs(r.summary.ttft_ms_p99)],
  ['Makespan', (r) => `${num(r.summary.makespan_s, 1)} s`],
  ['Load spread', (r) => num(r.summary.load_spread, 2)],
  ['Findings', flags],
];

const METRICS = [
  ['hit', 'Token hit rate (%)', (s) => (s.hit_rate_tokens ?? 0) * 100, (v) => `${v.toFixed(1)}%`],
  ['ttft', 'TTFT p99 (ms)', (s) => s.ttft_ms_p99 ?? 0, (v) => fmtMs(v)],
  ['spread', 'Load spread: (max − min) / mean requests', (s) => s.load_spread ?? 0, (v) => v.toFixed(2)],
];

const SWEEP = [1, 2, 4, 8, 16, 32];

/**
 * The runs behind a comparison: every policy at the current config, then every policy x SWEEP
 * replicas, laid out as the hero's sweep lays them out (withCacheReplicas: a mixed fleet in its
 * proportions, a split fleet's prefill pool), and under an autoscaler only the starting counts its
 * bounds accept.
 */
export function comparePlan(config, policies, maxInstances = 256) {
  const configs = policies.map((routing) => ({ ...config, routing }));
  const b = startBounds(config);
  const sweep = SWEEP.filter((n) => n <= maxInstances && (!b || (n >= b.lo && (b.hi === null || n <= b.hi))));
  for (const routing of policies) for (const n of sweep) configs.push({ ...withCacheReplicas(config, n), routing });
  return { configs, sweep, policies };
}

export class Compare {
  constructor(els, run, { load } = {}) {
    this.els = els;
    this.load = load;   // (config) => put a point's configuration into the page and run it
    this.charts = {};
    this.last = null;
    els.button.addEventListener('click', () => run());
  }

  /**
   * Before the first run: the panel at its final size, its table a row of "…" per policy and its
   * charts empty, so that filling it (it runs when a reader scrolls to it) moves nothing below.
   */
  reserve(policies) {
    if (this.last || this.placeholder) return;
    // A table of its own beside the real one (which stays empty until the run), hidden from screen readers.
    this.placeholder = document.createElement('table');
    this.placeholder.className = 'cmp-placeholder';
    this.placeholder.setAttribute('aria-hidden', 'true');
    this.renderTable(this.placeholder, policies.map((policy) => ({ policy, cells: COLUMNS.slice(1).map(() => '…') })), null);
    this.els.table.before(this.placeholder);
    this.els.out.classList.add('pending');
    this.els.out.hidden = false;
    if (!this.els.status.textContent) this.els.status.textContent = 'Every policy runs when this panel comes into view.';
    this.watchOverflow();
  }

  /** Fills `table`: a header row, then per row its policy (a swatch and the name) and its cells' texts. */
  renderTable(table, rows, currentPolicy) {
    const thead = document.createElement('thead');
    const hr = document.createElement('tr');
    for (const [h] of COLUMNS) { const th = document.createElement('th'); th.scope = 'col'; th.textContent = h; hr.append(th); }
    thead.append(hr);
    const tbody = document.createElement('tbody');
    for (const { policy, cells } of rows) {
      const tr = document.createElement('tr');
      tr.dataset.policy = policy;
      if (policy === currentPolicy) tr.className = 'current';
      const th = document.createElement('th');
      th.scope = 'row';
      const sw = document.createElement('span'); sw.className = 'swatch'; sw.style.background = policyColor(policy);
      th.append(sw, document.createTextNode(policy));
      tr.append(th);
      cells.forEach((text, i) => {
        const td = document.createElement('td');
        td.textContent = text;
        if (COLUMNS[i + 1][1] === flags) td.className = 'cmp-findings';
        tr.append(td);
      });
      tbody.append(tr);
    }
    table.replaceChildren(thead, tbody);
  }

  /** Says the table no longer matches the settings (they changed since it ran). */
  markStale() {
    if (!this.last || this.els.button.disabled) return;
    this.els.status.textContent = 'The settings changed since this comparison: run it again to update it.';
  }

  busy(on) {
    this.els.button.disabled = on;
    if (on) this.els.status.textContent = 'Running every policy…';
  }

  progress(p) { this.els.status.textContent = `Running every policy… ${Math.round(p * 100)}%`; }

  error(message) {
    this.busy(false);
    this.els.status.textContent = `Compare failed: ${message}`;
  }

  cancelled() { this.busy(false); this.els.status.textContent = 'Compare cancelled.'; }

  show(all, plan, currentPolicy, ms) {
    this.busy(false);
    const { sweep, policies } = plan;
    const reports = all.slice(0, policies.length);
    this.last = { reports, currentPolicy, sweep, policies, sweepReports: all.slice(policies.length), sweepConfigs: plan.configs.slice(policies.length) };
    const src = reports[0]?.source || 'synthetic';
    this.els.status.textContent = `Done in ${Math.round(ms)} ms · seed ${reports[0]?.seed ?? '?'} · ${src}. Your current policy is highlighted.`;
    const rows = reports.map((r) => ({ policy: r.config?.routing ?? '?',
      cells: COLUMNS.slice(1).map(([, f]) => f({ ...r, summary: r.summary || {} })) }));
    this.renderTable(this.els.table, rows, currentPolicy);
    this.placeholder?.remove();
    this.placeholder = null;
    this.els.out.classList.remove('pending');
    this.els.out.hidden = false;
    this.watchOverflow();
    this.draw();
  }

  /** Shows a hint above the table while it is wider than its box (a phone), and keeps it current. */
  watchOverflow() {
    this.fitHint ||= scrollCue(this.els.table.parentElement, 'compare-scroll-hint');
    this.fitHint();
  }

  draw() {
    if (!this.last) return;
    const { reports } = this.last;
    const C = window.Chart;
    this.drawSweep();
    const labels = reports.map((r) => r.config?.routing ?? '?');
    const colors = labels.map(policyColor);
    for (const [key, title, get, fmt] of METRICS) {
      const data = reports.map((r) => get(r.summary || {}));
      let ch = this.charts[key];
      if (!ch) {
        ch = this.charts[key] = new C(this.els.canvases[key], {
          type: 'bar',
          data: { labels, datasets: [{ label: title, data, backgroundColor: colors, borderRadius: 3, maxBarThickness: 22 }] },
          // Horizontal bars: eleven policy names read on the axis at any width, none skipped or rotated.
          options: {
            indexAxis: 'y',
            plugins: { legend: { display: false }, title: { display: true, text: title },
              tooltip: { callbacks: { label: (c) => ` ${fmt(c.parsed.x)}` } } },
            scales: { y: { grid: { display: false }, ticks: { autoSkip: false, font: { family: 'ui-monospace, monospace', size: 11 } } },
              x: { beginAtZero: true, ...(key === 'hit' ? { max: 100 } : {}) } },
          },
        });
      }
      ch.data.labels = labels;
      ch.data.datasets[0].data = data;
      ch.data.datasets[0].backgroundColor = colors;
      ch.update('none');
      ch.canvas.setAttribute('aria-label', `${title}: ${labels.map((l, i) => `${l} ${fmt(data[i])}`).join(', ')}`);
    }
  }

  drawSweep() {
    const { sweep, sweepReports, policies } = this.last;
    // The token hit rate, as in the headline: the share of requests with any hit sits near 100%
    // whenever prompts share a system prompt.
    const key = 'hit_rate_tokens';
    const what = 'Token hit rate (%)';
    const data = policies.map((p, i) => ({
      label: p,
      data: sweep.map((n, j) => (sweepReports[i * sweep.length + j]?.summary?.[key] ?? NaN) * 100),
      ...policyLine(p), borderWidth: 2.5, pointRadius: 4,
    }));
    let ch = this.charts.sweep;
    if (!ch) {
      ch = this.charts.sweep = new window.Chart(this.els.canvases.sweep, {
        type: 'line',
        data: { labels: sweep.map(String), datasets: data },
        options: {
          interaction: { mode: 'nearest', axis: 'x', intersect: false },
          onClick: (evt, _els, chart) => this.clickSweep(evt, chart),
          onHover: (evt, els) => { evt.native.target.style.cursor = els.length && this.load ? 'pointer' : 'default'; },
          plugins: { legend: { labels: { usePointStyle: true, boxWidth: 9, boxHeight: 9, padding: 8 } }, tooltip: { callbacks: {
            title: (items) => items.length ? `${items[0].label} ${items[0].label === '1' ? 'replica' : 'replicas'}` : '',
            label: (c) => ` ${c.dataset.label}: ${c.parsed.y.toFixed(1)}% ${c.chart.options.scales.y.title.text.startsWith('Token') ? 'of prompt tokens cached' : 'of requests hit'}`,
            footer: () => (this.load ? 'Click to load this point' : '') } } },
          scales: {
            x: { title: { display: true, text: 'Replicas (doubling)', font: { weight: '600' } } },
            y: { min: 0, max: 100, title: { display: true, text: 'Token hit rate (%)', font: { weight: '600' } }, ticks: { callback: (v) => `${v}%` } },
          },
        },
      });
    }
    ch.data.labels = sweep.map(String);
    ch.data.datasets = data;
    ch.options.scales.y.title.text = what;
    // The axis spans the data (to whole tens, at least 20 points), so eleven lines that sit
    // within a few points of each other stay apart; it still starts at 0 when the data come near.
    const ys = data.flatMap((d) => d.data).filter(Number.isFinite);
    const lo = ys.length ? Math.floor(Math.min(...ys) / 10) * 10 : 0;
    const hi = ys.length ? Math.ceil(Math.max(...ys) / 10) * 10 : 100;
    ch.options.scales.y.min = lo <= 10 ? 0 : Math.min(lo, Math.max(0, hi - 20));
    ch.options.scales.y.max = Math.max(hi, Math.min(100, ch.options.scales.y.min + 20));
    ch.update('none');
    ch.canvas.setAttribute('aria-label', `Hit rate as replicas grow: ${data.map((d) => `${d.label} ${d.data.map((y, j) => `${sweep[j]}: ${y.toFixed(0)}%`).join(', ')}`).join('; ')}`);
  }

  /** A click on the replica sweep loads that policy at that replica count. */
  clickSweep(evt, chart) {
    if (!this.load || !this.last) return;
    const hits = chart.getElementsAtEventForMode(evt, 'nearest', { axis: 'xy', intersect: false }, true);
    if (!hits.length) return;
    const { datasetIndex: p, index: j } = hits[0];
    const config = this.last.sweepConfigs?.[p * this.last.sweep.length + j];
    if (config) this.load(config);
  }

  retheme() {
    for (const c of Object.values(this.charts)) c.destroy();
    this.charts = {};
    this.draw();
  }
}
