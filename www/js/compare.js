// www/js/compare.js: "Compare routing policies": one click runs the same workload under every policy
// (in the worker); shows a table and grouped bars of hit rate, p99 TTFT and load spread.

import { pct, num, policyColor, POLICIES } from './format.js';
import { fmtMs } from './charts.js';

const COLUMNS = [
  ['Policy', null],
  ['Hit rate', (s) => pct(s.hit_rate_requests)],
  ['Token hit', (s) => pct(s.hit_rate_tokens)],
  ['Block reuse', (s) => pct(s.block_reuse)],
  ['Evictions', (s) => num(s.evictions)],
  ['TTFT p50', (s) => fmtMs(s.ttft_ms_p50)],
  ['TTFT p99', (s) => fmtMs(s.ttft_ms_p99)],
  ['E2E p99', (s) => fmtMs(s.e2e_ms_p99)],
  ['Makespan', (s) => `${num(s.makespan_s, 1)} s`],
  ['Load spread', (s) => num(s.load_spread, 2)],
  ['Per-replica hit', (s) => `${pct(s.hit_rate_instance_min, 0)}–${pct(s.hit_rate_instance_max, 0)}`],
  ['Hot spot', (s) => (s.hot_spot ? 'yes ⚠' : 'no')],
];

const METRICS = [
  ['hit', 'Request hit rate (%)', (s) => (s.hit_rate_requests ?? 0) * 100, (v) => `${v.toFixed(1)}%`],
  ['ttft', 'TTFT p99 (ms)', (s) => s.ttft_ms_p99 ?? 0, (v) => fmtMs(v)],
  ['spread', 'Load spread: (max − min) / mean requests', (s) => s.load_spread ?? 0, (v) => v.toFixed(2)],
];

export class Compare {
  constructor(els, run) {
    this.els = els;
    this.charts = {};
    this.last = null;
    els.button.addEventListener('click', () => run(POLICIES));
  }

  busy(on) {
    this.els.button.disabled = on;
    if (on) this.els.status.textContent = 'Running all four policies…';
  }

  progress(p) { this.els.status.textContent = `Running all four policies… ${Math.round(p * 100)}%`; }

  error(message) {
    this.busy(false);
    this.els.status.textContent = `Compare failed: ${message}`;
  }

  cancelled() { this.busy(false); this.els.status.textContent = 'Compare cancelled.'; }

  show(reports, currentPolicy, ms) {
    this.busy(false);
    this.last = { reports, currentPolicy };
    const src = reports[0]?.source || 'synthetic';
    this.els.status.textContent = `Done in ${Math.round(ms)} ms · seed ${reports[0]?.seed ?? '?'} · ${src}. Your current policy is highlighted.`;
    const table = this.els.table;
    const thead = document.createElement('thead');
    const hr = document.createElement('tr');
    for (const [h] of COLUMNS) { const th = document.createElement('th'); th.scope = 'col'; th.textContent = h; hr.append(th); }
    thead.append(hr);
    const tbody = document.createElement('tbody');
    for (const r of reports) {
      const policy = r.config?.routing ?? '?';
      const tr = document.createElement('tr');
      tr.dataset.policy = policy;
      if (policy === currentPolicy) tr.className = 'current';
      for (const [, f] of COLUMNS) {
        const td = document.createElement(f ? 'td' : 'th');
        if (!f) {
          td.scope = 'row';
          const sw = document.createElement('span'); sw.className = 'swatch'; sw.style.background = policyColor(policy);
          td.append(sw, document.createTextNode(policy));
        } else td.textContent = f(r.summary || {});
        tr.append(td);
      }
      tbody.append(tr);
    }
    table.replaceChildren(thead, tbody);
    this.els.out.hidden = false;
    this.draw();
  }

  draw() {
    if (!this.last) return;
    const { reports } = this.last;
    const C = window.Chart;
    const labels = reports.map((r) => r.config?.routing ?? '?');
    const colors = labels.map(policyColor);
    for (const [key, title, get, fmt] of METRICS) {
      const data = reports.map((r) => get(r.summary || {}));
      let ch = this.charts[key];
      if (!ch) {
        ch = this.charts[key] = new C(this.els.canvases[key], {
          type: 'bar',
          data: { labels, datasets: [{ label: title, data, backgroundColor: colors, borderRadius: 3 }] },
          options: {
            plugins: { legend: { display: false }, title: { display: true, text: title },
              tooltip: { callbacks: { label: (c) => ` ${fmt(c.parsed.y)}` } } },
            scales: { x: { grid: { display: false }, title: { display: true, text: 'Routing policy' } },
              y: { beginAtZero: true, ...(key === 'hit' ? { max: 100 } : {}) } },
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

  retheme() {
    for (const c of Object.values(this.charts)) c.destroy();
    this.charts = {};
    this.draw();
  }
}
