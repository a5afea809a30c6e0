// www/js/headline.js: the headline figures, the report's three fleet lines (verbatim), and the
// plain-words hot-spot warning. Everything is written with textContent.

import { pct, num, ms, seconds } from './format.js';

function figure(cls, testid, label, value, unit, sub) {
  const d = document.createElement('div');
  d.className = `figure ${cls}`;
  d.dataset.testid = testid;
  const l = document.createElement('div'); l.className = 'label'; l.textContent = label;
  const v = document.createElement('div'); v.className = 'value'; v.textContent = value;
  if (unit) { const u = document.createElement('small'); u.textContent = unit; v.append(u); }
  const s = document.createElement('div'); s.className = 'sub'; s.textContent = sub;
  d.append(l, v, s);
  return d;
}

export function renderHeadline(root, report) {
  const s = report.summary || {};
  const [p50, p50u] = ms(s.ttft_ms_p50);
  const [p99, p99u] = ms(s.ttft_ms_p99);
  const [mk, mku] = seconds(s.makespan_s);
  const group = (title, ...figs) => {
    const g = document.createElement('div'); g.className = 'fig-group';
    const h = document.createElement('h3'); h.textContent = title;
    const row = document.createElement('div'); row.className = 'fig-row'; row.style.setProperty('--n', String(figs.length)); row.append(...figs);
    g.append(h, row);
    return g;
  };
  const rejected = s.rejected || 0;
  const timedOut = s.timed_out || 0;
  const dropped = rejected + timedOut;
  const done = [`${num(s.completed)} done`];
  if (rejected) done.push(`${num(rejected)} rejected`);
  if (timedOut) done.push(`${num(timedOut)} timed out`);
  const latency = [
    figure('latency', 'fig-ttft-p50', 'TTFT p50', p50, p50u, 'typical time to first token'),
    figure('latency', 'fig-ttft-p99', 'TTFT p99', p99, p99u, 'slowest 1% wait this long'),
    figure('latency', 'fig-makespan', 'Makespan', mk, mku, `${done.join(', ')} · ${num(s.throughput_tok_s)} tok/s`),
  ];
  if (dropped) {
    // A symptom, not a statistic: callers got no answer. Shown only when it happens.
    const why = [];
    if (rejected) why.push(`${num(rejected)} rejected (queue full)`);
    if (timedOut) why.push(`${num(timedOut)} timed out`);
    const share = s.requests ? dropped / s.requests : NaN;
    const f = figure('alarm', 'fig-dropped', 'Turned away', num(dropped), `of ${num(s.requests)}`,
      `⚠ ${pct(share, share < 0.1 ? 1 : 0)} got no answer: ${why.join(', ')}`);
    f.setAttribute('role', 'status');
    latency.push(f);
  }
  root.replaceChildren(group('Prefix cache',
    figure('cache', 'fig-hit-rate', 'Request hit rate', pct(s.hit_rate_requests), '',
      `requests reusing ≥1 cached block · tokens ${pct(s.hit_rate_tokens)}`),
    figure('cache', 'fig-cached-avg', 'Cached tok / request', num(s.cached_tokens_avg), 'tok',
      'average prompt tokens not recomputed'),
    figure('cache', 'fig-block-reuse', 'Block reuse', pct(s.block_reuse), '',
      `${num(s.cached_blocks)} of ${num(s.prompt_blocks)} prompt blocks`),
    figure('cache', 'fig-evictions', 'Evictions', num(s.evictions), '',
      s.evictions ? 'blocks pushed out of full caches' : 'no cache filled up')),
    group(dropped ? 'Latency and admission' : 'Latency', ...latency),
  );
}

export function renderFleetLines(pre, report) {
  pre.textContent = (report.fleet_lines || []).join('\n');
}

/** Shows the hot-spot warning when the report flags one (or has warnings); hides it otherwise. */
export function renderHotspot(box, report) {
  const s = report.summary || {};
  const warnings = report.warnings || [];
  if (!s.hot_spot && warnings.length === 0) { box.hidden = true; box.replaceChildren(); return; }
  const per = report.per_instance || [];
  const total = per.reduce((a, r) => a + (r.requests || 0), 0);
  const busiest = per.reduce((b, r) => (r.requests > (b?.requests ?? -1) ? r : b), null);
  const title = document.createElement('strong');
  const parts = [];
  if (s.hot_spot) {
    title.textContent = '⚠ Hot spot: the replicas are not sharing the work evenly.';
    if (busiest && total > 0 && per.length > 1) {
      const share = busiest.requests / total;
      parts.push(`Replica R${busiest.index} took ${pct(share, 0)} of all requests (an even split would be ${pct(1 / per.length, 0)} each). ` +
        `Per-replica hit rates range ${pct(s.hit_rate_instance_min, 0)}–${pct(s.hit_rate_instance_max, 0)}. ` +
        'A high hit rate beside uneven work is not a win: the busy replica queues and its answers slow down.');
    }
  } else {
    title.textContent = '⚠ Note';
  }
  const lines = warnings.length ? [...warnings, 'A high hit rate beside uneven work is not a win: the busy replica queues and its answers slow down.'] : parts;
  const nodes = [title];
  for (const t of lines) {
    const p = document.createElement('p');
    p.textContent = t;
    nodes.push(p);
  }
  box.replaceChildren(...nodes);
  box.hidden = false;
}
