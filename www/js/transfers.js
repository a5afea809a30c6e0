// www/js/transfers.js: the KV transfers panel, shown only for a disaggregated fleet (report.pools):
// the two pools side by side as figures, each decode replica's inbound link busy over time, and the
// transfer time as a distribution. Builds its own DOM (textContent only) and its own Chart.js charts.

import { num, pct, replicaColor, themeInk, countPct } from './format.js';
import { fmtMs } from './charts.js';
import { WorkerHost } from './worker-host.js';
import { el } from './page-bits.js';

const axisTitle = (text) => ({ display: true, text, font: { weight: '600' } });
const finite = (x) => typeof x === 'number' && Number.isFinite(x);

function figure(testid, label) {
  const d = el('div', 'figure');
  d.dataset.testid = testid;
  const v = el('div', 'value');
  const s = el('div', 'sub');
  d.append(el('div', 'label', label), v, s);
  return { root: d, set(value, sub) { v.textContent = value; s.textContent = sub; } };
}

function canvas(id, label) {
  const c = el('canvas');
  c.id = id;
  c.dataset.testid = id;
  c.setAttribute('role', 'img');
  c.setAttribute('aria-label', label);
  const box = el('div', 'canvas-box');
  box.append(c);
  return { c, box };
}

/** The sentence under the panel's title, computed from the run: where a request's first token waits. */
export function transferWords(report) {
  const p = report.pools;
  const t = p.transfers;
  const s = report.summary || {};
  if (!t.count) return 'No prompt crossed the link: every request prefilled on its decode replica.';
  const gb = t.bytes / 1e9;
  const share = finite(s.ttft_ms_mean) && s.ttft_ms_mean > 0 ? t.time_ms_mean / s.ttft_ms_mean : NaN;
  const waited = t.time_ms_mean > 0 ? t.wait_ms_mean / t.time_ms_mean : 0;
  const parts = [`${num(t.count)} prompts crossed to the decode pool (${gb < 10 ? gb.toFixed(2) : num(Math.round(gb))} GB at ${num(t.bandwidth_gbps)} GB/s per link).`];
  if (finite(share)) parts.push(`A transfer took ${fmtMs(t.time_ms_mean)} on average, ${pct(share, 0)} of the mean time to first token (${fmtMs(s.ttft_ms_mean)}).`);
  if (waited >= 0.05) parts.push(`${pct(waited, 0)} of that was waiting behind earlier transfers on the same link.`);
  if (p.skipped_prefill) parts.push(`${num(p.skipped_prefill)} requests (${countPct(p.skipped_prefill_share, 1)}) had fewer than ${num(p.min_uncached_tokens)} uncached tokens and prefilled on their decode replica instead.`);
  return parts.join(' ');
}

/**
 * The verdict against a colocated fleet of the same size on the same traffic (`colo`: that run's
 * point: ttft_ms_p99, tpot_ms_p99), and the pool that had work waiting, if one did.
 */
export function verdictWords(report, colo) {
  const s = report.summary || {};
  const n = report.config?.instances;
  const p = report.pools;
  const ok = (x) => finite(x) && x > 0;
  if (!ok(colo?.ttft_ms_p99) || !ok(colo?.tpot_ms_p99) || !ok(s.ttft_ms_p99) || !ok(s.tpot_ms_p99)) return '';
  const tpot = s.tpot_ms_p99 < colo.tpot_ms_p99, ttft = s.ttft_ms_p99 < colo.ttft_ms_p99;
  const out = [`Against ${num(n)} colocated replicas on the same traffic: p99 time per output token ${fmtMs(s.tpot_ms_p99)} against ${fmtMs(colo.tpot_ms_p99)}, `
    + `p99 time to first token ${fmtMs(s.ttft_ms_p99)} against ${fmtMs(colo.ttft_ms_p99)}.`];
  if (tpot && ttft) out.push('This split wins on both.');
  else if (tpot) out.push('This split buys faster tokens with slower first tokens.');
  else if (ttft) out.push('This split buys faster first tokens with slower tokens.');
  else out.push('Colocation wins on both: this split does not pay here.');
  const sat = (pool) => {
    const rows = (report.per_instance || []).filter((r) => r.pool === pool && finite(r.saturated_share));
    return rows.length ? rows.reduce((a, r) => a + r.saturated_share, 0) / rows.length : 0;
  };
  const [ps, ds] = [sat('prefill'), sat('decode')];
  const top = ps >= ds ? ['prefill', ps, p.prefill.replicas] : ['decode', ds, p.decode.replicas];
  if (top[1] >= 0.5) out.push(`The ${top[0]} pool is the bottleneck: its ${top[2]} replicas had work waiting ${pct(top[1], 0)} of the run on average.`);
  return out.join(' ');
}

export class Transfers {
  constructor({ workerUrl = null } = {}) {
    this.workerUrl = workerUrl;
    this.host = null;
    this.refKey = null;
    this.refPoint = null;
    this.refId = 0;
    const root = el('section', 'card transfers');
    root.dataset.testid = 'transfers';
    root.setAttribute('aria-labelledby', 'transfers-h');
    root.hidden = true;
    const head = el('div', 'section-head');
    const h = el('h2', null, 'Prefill pool → decode pool: the KV transfers');
    h.id = 'transfers-h';
    head.append(h);
    this.words = el('p', 'hint');
    this.words.dataset.testid = 'transfers-words';
    this.verdict = el('p', 'verdict');
    this.verdict.dataset.testid = 'transfers-verdict';
    this.verdict.setAttribute('aria-live', 'polite');
    this.figs = {
      prefill: figure('fig-pool-prefill', 'Prefill pool'),
      decode: figure('fig-pool-decode', 'Decode pool'),
      time: figure('fig-transfer-time', 'Transfer time'),
      link: figure('fig-link-busy', 'Link utilisation'),
    };
    const row = el('div', 'fig-row');
    row.style.setProperty('--n', '4');
    row.append(...Object.values(this.figs).map((f) => f.root));
    const grid = el('div', 'transfer-charts');
    this.busy = canvas('chart-link-busy', 'Link busy over time per decode replica');
    this.cdf = canvas('chart-transfer-cdf', 'Transfer time distribution');
    const fig = (title, text, box) => {
      const f = el('figure', 'chart-card');
      const cap = el('figcaption');
      cap.append(el('h3', null, title), el('p', null, text));
      f.append(cap, box);
      return f;
    };
    grid.append(
      fig('Link busy over time', 'Each decode replica has one inbound link; transfers into it go first come, first served. Line: the share of each sampling window its link spent moving KV.', this.busy.box),
      fig('Transfer time', 'Share of transfers done within a time, from the prefill\'s end to the KV landing on the decode replica (link wait included). Left is faster.', this.cdf.box));
    root.append(head, this.verdict, this.words, row, grid);
    this.el = root;
    this.charts = null;
    this.last = null;
  }

  create() {
    const t = themeInk();
    const C = window.Chart;
    this.charts = {
      busy: new C(this.busy.c, {
        type: 'line',
        data: { datasets: [] },
        options: {
          parsing: false,
          interaction: { mode: 'nearest', axis: 'x', intersect: false },
          plugins: { legend: { position: 'top', labels: { boxWidth: 10, boxHeight: 10, font: { size: 11 } } },
            tooltip: { callbacks: { title: (items) => (items.length ? `t = ${items[0].parsed.x.toFixed(1)} s` : ''),
              label: (c) => ` ${c.dataset.label}: link busy ${c.parsed.y.toFixed(0)}% of the window` } } },
          scales: {
            x: { type: 'linear', min: 0, title: axisTitle('Time (s)'), ticks: { includeBounds: false } },
            y: { min: 0, max: 100, title: axisTitle('Link busy (%)'), ticks: { callback: (v) => `${v}%` } },
          },
        },
      }),
      cdf: new C(this.cdf.c, {
        type: 'line',
        data: { datasets: [{ label: 'Transfer time', data: [], borderColor: t.accent, backgroundColor: t.accent, borderWidth: 2.5, pointRadius: 0, tension: 0 }] },
        options: {
          parsing: false,
          interaction: { mode: 'nearest', axis: 'y', intersect: false },
          plugins: { legend: { display: false },
            tooltip: { callbacks: { label: (c) => ` ${c.parsed.y.toFixed(0)}% of transfers within ${fmtMs(c.parsed.x)}` } } },
          scales: {
            x: { type: 'linear', beginAtZero: true, title: axisTitle('Transfer time (ms)') },
            y: { min: 0, max: 100, title: axisTitle('Transfers at or below (%)'), ticks: { callback: (v) => `${v}%` } },
          },
        },
      }),
    };
  }

  /** The colocated fleet of the same size on the same traffic, run once per configuration. */
  compare(report, source) {
    const colocated = { ...report.config, prefill_instances: null, decode_instances: null };
    const key = `${source?.name ?? ''}|${JSON.stringify(colocated)}`;
    if (key === this.refKey) { this.showVerdict(); return; }
    this.refKey = key;
    this.refPoint = null;
    this.verdict.textContent = `Running ${num(report.config.instances)} colocated replicas on the same traffic for comparison…`;
    if (!this.workerUrl) return;
    if (!this.host) {
      this.host = new WorkerHost(this.workerUrl, { onMessage: (m) => this.onWorker(m) });
      window.kvfleet = Object.assign(window.kvfleet || {}, { transfers: this });
    }
    this.refId += 1;
    this.host.post({ type: 'batch', id: this.refId, configs: [colocated], trace: source || null });
  }

  onWorker(m) {
    if (m.id !== this.refId) return;
    if (m.type === 'batch-part') { this.refPoint = m.point; this.showVerdict(); }
    else if (m.type === 'error') {
      if (m.trap) this.host.replace();
      this.verdict.textContent = `The colocated comparison could not run: ${m.message}`;
    }
  }

  showVerdict() {
    if (!this.last?.pools || !this.refPoint) return;
    this.verdict.textContent = verdictWords(this.last, this.refPoint);
    window.kvfleet.transfersVerdict = { text: this.verdict.textContent, colocated: this.refPoint };
  }

  /** Shows the panel for a disaggregated run; hides it for a colocated one. */
  update(report, source = null) {
    const p = report.pools;
    this.last = report;
    this.el.hidden = !p;
    if (!p) return;
    if (!this.charts) this.create();
    this.compare(report, source);
    const tr = p.transfers;
    this.words.textContent = transferWords(report);
    const sat = (pool) => {
      const rows = (report.per_instance || []).filter((r) => r.pool === pool && finite(r.saturated_share));
      return rows.length ? rows.reduce((a, r) => a + r.saturated_share, 0) / rows.length : NaN;
    };
    this.figs.prefill.set(`${p.prefill.replicas} replicas`, `token hit ${pct(p.prefill.hit_rate_tokens, 1)} · in steps ${pct(p.prefill.busy_share, 0)} of the run, work waiting ${pct(sat('prefill'), 0)} · peak queue ${num(p.prefill.peak_queue)}`);
    this.figs.decode.set(`${p.decode.replicas} replicas`, `in steps ${pct(p.decode.busy_share, 0)} of the run, work waiting ${pct(sat('decode'), 0)} · peak queue ${num(p.decode.peak_queue)}${p.decode.rejected ? ` · ${num(p.decode.rejected)} rejected` : ''}`);
    this.figs.time.set(fmtMs(tr.time_ms_mean), `mean · p99 ${fmtMs(tr.time_ms_p99)} · waiting for the link ${fmtMs(tr.wait_ms_mean)}`);
    this.figs.link.set(pct(tr.link_utilisation, 0), `mean over links · busiest ${pct(tr.link_utilisation_max, 0)}`);
    const ts = report.series?.t_s || [];
    const first = p.prefill.replicas;
    const busy = this.charts.busy;
    busy.data.datasets = (report.series?.link_busy || []).map((row, k) => ({
      label: `R${first + k} link`, borderColor: replicaColor(first + k), backgroundColor: replicaColor(first + k),
      borderWidth: 1.5, pointRadius: 0, stepped: 'after',
      data: row.map((v, j) => ({ x: ts[j], y: v === null ? null : 100 * v })).slice(1),
    }));
    busy.options.scales.x.max = ts.length ? ts[ts.length - 1] : undefined;
    busy.options.plugins.legend.display = busy.data.datasets.length <= 10;
    busy.update('none');
    const cdf = this.charts.cdf;
    cdf.data.datasets[0].data = (tr.time_ms_cdf || []).map((x, i) => ({ x, y: i + 1 }));
    cdf.update('none');
    this.busy.c.setAttribute('aria-label', `Link busy over time; mean over links ${pct(tr.link_utilisation, 0)}, busiest ${pct(tr.link_utilisation_max, 0)}.`);
    this.cdf.c.setAttribute('aria-label', `Transfer time: mean ${fmtMs(tr.time_ms_mean)}, median ${fmtMs(tr.time_ms_p50)}, p99 ${fmtMs(tr.time_ms_p99)}.`);
  }

  retheme() {
    if (this.charts) { for (const c of Object.values(this.charts)) c.destroy(); this.charts = null; }
    if (this.last) this.update(this.last);
  }
}
