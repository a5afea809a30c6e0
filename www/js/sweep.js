// www/js/sweep.js: "Sweep a setting": the simulator plans the points (sweep_plan_json, in the main
// worker); a small pool of extra workers runs them in parallel; one chart shows hit rate and p99 TTFT
// against the swept value, with a table. Each point is an independent seeded run.

import { pct, num, themeInk } from './format.js';
import { fmtMs } from './charts.js';

// Suggested values per parameter (any NAME=START:END[:STEP] or NAME=A,B,C works).
const SUGGEST = {
  overlap_weight: '0:4:0.5', instances: '1,2,4,8,16,32', kv_blocks: '16,24,32,48,64,128,256',
  num_prefixes: '1,2,4,8,16,32,64', prefix_len: '512,1024,2048,3072,4096', request_rate: '2:20:2',
  spill_queue: '0,1,2,4,8,16,32', session_affinity: '0:100:20', block_size: '16,64,128,256,512,1024',
  turns: '2,5,10,20,40', max_batch: '8,16,32,64,128,256', queue_capacity: '0,4,8,16,32,64',
};
const FIRST = ['overlap_weight', 'instances', 'kv_blocks', 'num_prefixes', 'spill_queue', 'session_affinity', 'request_rate'];

function suggestion(p, config) {
  if (SUGGEST[p.name]) return SUGGEST[p.name];
  const v = Number(config[p.name] ?? p.default ?? p.min ?? 1) || 1;
  const pts = [0.25, 0.5, 1, 2, 4].map((f) => v * f)
    .filter((x) => x >= (p.min ?? -Infinity) && x <= (p.max ?? Infinity))
    .map((x) => (p.kind.includes('int') ? Math.max(1, Math.round(x)) : +x.toPrecision(3)));
  return [...new Set(pts)].join(',');
}

export class Sweep {
  constructor(els, { plan, workerUrl, state }) {
    this.els = els;
    this.plan = plan;          // (config, spec) -> Promise<{param, points}>
    this.workerUrl = workerUrl;
    this.state = state;        // () => {config, params, source}
    this.pool = [];
    this.chart = null;
    this.generation = 0;
    els.run.addEventListener('click', () => this.run());
    els.cancel.addEventListener('click', () => this.cancel('Sweep cancelled.'));
    els.param.addEventListener('change', () => { els.spec.value = suggestion(this.spec(els.param.value), this.state().config); });
  }

  spec(name) { return this.state().params.find((p) => p.name === name); }

  /** Fills the parameter picker (numeric and choice parameters). */
  setParams(params, config) {
    const usable = params.filter((p) => p.name !== 'seed' && p.kind !== 'text');
    const ordered = [...FIRST.map((n) => usable.find((p) => p.name === n)).filter(Boolean),
      ...usable.filter((p) => !FIRST.includes(p.name))];
    this.els.param.replaceChildren(...ordered.map((p) => {
      const o = document.createElement('option');
      o.value = p.name;
      o.textContent = `${p.label} (${p.name})`;
      return o;
    }));
    this.els.param.value = ordered[0]?.name ?? '';
    this.els.spec.value = ordered[0] ? suggestion(ordered[0], config) : '';
  }

  ensurePool() {
    const n = Math.max(2, Math.min(4, (navigator.hardwareConcurrency || 2)));
    while (this.pool.length < n) {
      const w = new Worker(this.workerUrl, { type: 'module' });
      const slot = { w, busy: false, nextId: 1 };
      w.onerror = (e) => { e.preventDefault(); this.fail(`a sweep worker failed (${e.message || 'no details'})`); };
      this.pool.push(slot);
    }
  }

  setBusy(on) {
    this.els.run.disabled = on;
    this.els.cancel.hidden = !on;
    this.els.progress.hidden = !on;
  }

  fail(message) {
    this.generation += 1;
    this.setBusy(false);
    this.els.error.textContent = message;
    this.els.error.hidden = false;
  }

  cancel(message) {
    this.generation += 1;
    for (const s of this.pool) { s.w.postMessage({ type: 'cancel', lane: 'main' }); s.busy = false; }
    this.setBusy(false);
    this.els.status.textContent = message;
  }

  async run() {
    const { config, source } = this.state();
    const name = this.els.param.value;
    const specText = `${name}=${this.els.spec.value.trim()}`;
    this.els.error.hidden = true;
    this.els.status.textContent = 'Planning…';
    let plan;
    try {
      plan = await this.plan(config, specText);
    } catch (err) {
      this.els.status.textContent = '';
      this.fail(err.message);
      return;
    }
    const gen = ++this.generation;
    this.ensurePool();
    this.setBusy(true);
    const t0 = performance.now();
    const results = new Array(plan.points.length);
    let next = 0, done = 0;
    const total = plan.points.length;
    const progress = () => {
      this.els.progress.value = done / total;
      this.els.status.textContent = `Running ${total} points on ${this.pool.length} workers… ${done}/${total}`;
    };
    progress();
    await new Promise((resolve, reject) => {
      const feed = (slot) => {
        if (gen !== this.generation) return resolve();
        if (next >= total) { if (done === total) resolve(); return; }
        const i = next++;
        const id = slot.nextId++;
        slot.busy = true;
        slot.w.onmessage = (e) => {
          const m = e.data;
          if (gen !== this.generation || m.id !== id) return;
          if (m.type === 'result') { results[i] = JSON.parse(m.report); done += 1; progress(); slot.busy = false; feed(slot); }
          else if (m.type === 'error') reject(new Error(`point ${plan.param} = ${plan.points[i].value}: ${m.message}`));
        };
        slot.w.postMessage({ type: 'run', lane: 'main', id, config: plan.points[i].config, trace: source });
      };
      this.pool.forEach(feed);
    }).catch((err) => this.fail(err.message));
    if (gen !== this.generation) return;
    this.setBusy(false);
    this.els.status.textContent = `${total} points in ${Math.round(performance.now() - t0)} ms · seed ${config.seed}. Each point is the whole run at that value.`;
    this.show(plan, results);
  }

  show(plan, reports) {
    this.last = { plan, reports };
    this.els.out.hidden = false;
    const labels = plan.points.map((p) => (p.value === null ? 'unbounded' : String(p.value)));
    const S = reports.map((r) => r.summary);
    const t = themeInk();
    const datasets = [
      { label: 'Request hit rate (%)', data: S.map((s) => s.hit_rate_requests * 100), borderColor: t.accent, backgroundColor: t.accent, yAxisID: 'y', borderWidth: 2.5, pointRadius: 3 },
      { label: 'Token hit rate (%)', data: S.map((s) => s.hit_rate_tokens * 100), borderColor: t.accent, backgroundColor: t.accent, yAxisID: 'y', borderDash: [6, 4], borderWidth: 2, pointRadius: 3 },
      { label: 'TTFT p99 (ms, right)', data: S.map((s) => s.ttft_ms_p99), borderColor: t.warn, backgroundColor: t.warn, yAxisID: 'y1', borderWidth: 2.5, pointRadius: 3, pointStyle: 'rectRot' },
    ];
    const p = this.spec(plan.param);
    const xTitle = `${p ? p.label : plan.param}${p && p.unit && p.unit !== 'x' ? ` (${p.unit})` : ''}`;
    if (!this.chart) {
      this.chart = new window.Chart(this.els.canvas, {
        type: 'line',
        data: { labels, datasets },
        options: {
          interaction: { mode: 'index', intersect: false },
          plugins: { tooltip: { callbacks: { label: (c) => ` ${c.dataset.label.replace(/ \(.*\)/, '')}: ${c.datasetIndex === 2 ? fmtMs(c.parsed.y) : `${c.parsed.y.toFixed(1)}%`}` } } },
          scales: {
            x: { title: { display: true, text: xTitle, font: { weight: '600' } } },
            y: { min: 0, max: 100, title: { display: true, text: 'Hit rate (%)', font: { weight: '600' } }, ticks: { callback: (v) => `${v}%` } },
            y1: { position: 'right', beginAtZero: true, title: { display: true, text: 'TTFT p99', font: { weight: '600' } }, grid: { display: false },
              ticks: { callback: (v) => fmtMs(v) } },
          },
        },
      });
    }
    this.chart.data.labels = labels;
    this.chart.data.datasets = datasets;
    this.chart.options.scales.x.title.text = xTitle;
    this.chart.update('none');
    this.chart.canvas.setAttribute('aria-label', `Sweep of ${plan.param}: ${labels.map((l, i) => `${l}: hit ${pct(S[i].hit_rate_requests, 0)}, p99 TTFT ${fmtMs(S[i].ttft_ms_p99)}`).join('; ')}`);

    const head = ['Value', 'Hit rate', 'Token hit', 'TTFT p50', 'TTFT p99', 'Makespan', 'Load spread', 'Rejected', 'Evictions'];
    const rows = S.map((s, i) => [labels[i], pct(s.hit_rate_requests), pct(s.hit_rate_tokens), fmtMs(s.ttft_ms_p50), fmtMs(s.ttft_ms_p99),
      `${num(s.makespan_s, 1)} s`, num(s.load_spread, 2), num(s.rejected), num(s.evictions)]);
    const thead = document.createElement('thead');
    const tr = document.createElement('tr');
    for (const h of head) { const th = document.createElement('th'); th.scope = 'col'; th.textContent = h; tr.append(th); }
    thead.append(tr);
    const tbody = document.createElement('tbody');
    for (const r of rows) {
      const row = document.createElement('tr');
      r.forEach((c, j) => { const td = document.createElement(j === 0 ? 'th' : 'td'); if (j === 0) td.scope = 'row'; td.textContent = c; row.append(td); });
      tbody.append(row);
    }
    this.els.table.replaceChildren(thead, tbody);
  }

  retheme() {
    if (this.chart) { this.chart.destroy(); this.chart = null; }
    if (this.last) this.show(this.last.plan, this.last.reports);
  }
}
