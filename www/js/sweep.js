// www/js/sweep.js: "Sweep a setting": the simulator plans the points (sweep_plan_json, in the main
// worker); a pool of extra workers (one per core, 2 to 8) runs them in parallel; two charts show the
// request hit rate and the TTFT (p99 solid, p50 dashed) against the swept value, in each routing
// policy's colour (e.g. round_robin's "more replicas, fewer hits" next to kv's), with a table. Each point is an
// independent seeded run and results are kept by point index, so the number of workers never
// changes a number. Clicking a point (or its row) loads that configuration into the page and runs it.
// A setting the parameter table marks as read under one choice only ("kv only: ...") is named, next to
// the form and the result, when a line of the sweep runs without that choice (its points are all the
// same run); the panel opens on the first listed setting that the page's settings do read.
//
// Test hooks on window.kvfleet: `sweepWorkers` (force the pool size), `lastSweep` (the drawn curves:
// {seq, param, spec, workers, ms, inert, series: [{routing, label, points: [{value, config, summary}]}]},
// `inert` the labels of the lines the swept setting does not act on).

import { num, orderPolicies, countPct } from './format.js';
import { fmtMs, lineLegend } from './charts.js';
import { PRESETS, OWN_STYLES, FIRST, suggestion, valueLabel } from './sweep-presets.js';
import { renderTable } from './sweep-table.js';
import { firstScale, sweepCaptions, sweepDatasets, ttftScale } from './sweep-figure.js';
import { scrollCue } from './page-bits.js';

export { PRESETS };

const MAX_WORKERS = 8;
const MAX_POINTS = 400;   // all series together

/** The simulator's message without its CLI framing ("Error: --des-sweep "). */
function cleanMessage(m) {
  return String(m).replace(/^(Error:\s*)+/, '').replace(/^--des-sweep:?\s*/, '');
}

/** Workers in the pool: window.kvfleet.sweepWorkers if a test set it, else one per core (2..8). */
export function poolSize() {
  const forced = Number(window.kvfleet?.sweepWorkers);
  if (Number.isInteger(forced) && forced >= 1) return Math.min(forced, 16);
  return Math.max(2, Math.min(MAX_WORKERS, navigator.hardwareConcurrency || 2));
}

/**
 * The choice a parameter is read under, from its help in the parameter table: "kv only: ..." is read
 * only when a choice parameter offering `kv` (routing) is set to it. {key, value}, or null: always read.
 */
export function scopeOf(p, params) {
  const m = /^(\S+) only:/.exec(p?.help || '');
  if (!m) return null;
  const owner = params.find((q) => q.kind === 'choice' && (q.choices || []).includes(m[1]));
  return owner ? { key: owner.name, value: m[1] } : null;
}

/** The lines (of `lines`, each {label, set}) on which parameter `p` is never read: their points are one run. */
export function inertLines(p, params, lines, base) {
  const scope = scopeOf(p, params);
  if (!scope || p.name === scope.key) return [];
  return lines.filter((l) => ({ ...base, ...l.set })[scope.key] !== scope.value);
}

/** The note on a sweep whose setting some lines do not read ('' when every line reads it). */
export function inertNote(p, params, lines, base) {
  const off = inertLines(p, params, lines, base);
  if (!off.length) return '';
  const scope = scopeOf(p, params);
  const owner = params.find((q) => q.name === scope.key);
  const by = scope.key === 'routing' ? `by ${scope.value} routing` : `when ${owner.label.toLowerCase()} is ${scope.value}`;
  const under = [...new Set(off.map((l) => ({ ...base, ...l.set })[scope.key]))].join(', ');
  if (off.length < lines.length) {
    return `${p.label} is read only ${by}: under ${under} it changes nothing, so ${off.length === 1 ? 'that line stays' : 'those lines stay'} flat.`;
  }
  const way = scope.key === 'routing' ? ` Choose “${scope.value} only” under Routing to see it move.` : ` Set ${owner.label.toLowerCase()} to ${scope.value} to see it move.`;
  return `${p.label} is read only ${by}: under ${under} it changes nothing, so every point of this sweep is the same run.${way}`;
}

export class Sweep {
  /**
   * els: param, spec, series, presets, run, cancel, progress, status, error, out, canvas, ttft, table.
   * opts: plan(config, spec) -> Promise<{param, points}>, workerUrl, state() -> {config, params, source},
   *       load(config): put a point's configuration into the page and run it.
   */
  constructor(els, { plan, workerUrl, state, load }) {
    this.els = els;
    this.plan = plan;
    this.workerUrl = workerUrl;
    this.state = state;
    this.load = load;
    this.pool = [];
    this.charts = {};
    this.generation = 0;   // the sweep whose results we accept
    this.ticket = 0;       // the newest request to sweep (planning is async)
    this.seq = 0;
    this.selected = null;  // {s, i} of the loaded point
    this.own = null;       // the preset whose own series the form is showing, if any
    els.run.addEventListener('click', () => this.run());
    els.cancel.addEventListener('click', () => this.cancel('Sweep cancelled. The last finished sweep is still shown.'));
    els.param.addEventListener('change', () => {
      this.dropOwn();
      els.spec.value = suggestion(this.spec(els.param.value), this.state().config);
      this.syncSeries();
      this.syncNote();
      this.clearError();
    });
    els.series.addEventListener('change', () => { this.dropOwn(); this.syncNote(); });
    // Said next to the form, before running: a setting the chosen lines do not read.
    this.note = Object.assign(document.createElement('p'), { className: 'hint sweep-inert', hidden: true });
    this.note.dataset.testid = 'sweep-inert';
    this.note.setAttribute('aria-live', 'polite');
    els.error.after(this.note);
    // The page's settings may have changed since (the routing, say): checked again on the way in.
    for (const type of ['pointerenter', 'focusin']) els.run.parentElement?.addEventListener(type, () => this.syncNote());
    els.spec.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); this.run(); } });
    els.spec.addEventListener('input', () => { this.dropOwn(); this.clearError(); });
    for (const p of PRESETS) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'btn small preset';
      b.dataset.testid = `sweep-preset-${p.id}`;
      b.textContent = p.label;
      b.title = p.title;
      b.addEventListener('click', () => this.preset(p.id));
      els.presets.append(b);
    }
  }

  spec(name) { return this.state().params.find((p) => p.name === name); }

  /** Fills the parameter picker (numeric and choice parameters) and the routing-series picker. */
  setParams(params, config) {
    const usable = params.filter((p) => p.name !== 'seed' && p.kind !== 'text' && p.kind !== 'poly');
    const ordered = [...FIRST.map((n) => usable.find((p) => p.name === n)).filter(Boolean),
      ...usable.filter((p) => !FIRST.includes(p.name))];
    this.els.param.replaceChildren(...ordered.map((p) => {
      const o = document.createElement('option');
      o.value = p.name;
      o.textContent = `${p.label} (${p.name})`;
      return o;
    }));
    // The first listed setting that the page's settings read (not the kv-only weight under round robin).
    const first = ordered.find((p) => !inertLines(p, params, [{ set: {} }], config).length) ?? ordered[0];
    this.els.param.value = first?.name ?? '';
    this.els.spec.value = first ? suggestion(first, config) : '';
    const choices = orderPolicies(params.find((p) => p.name === 'routing')?.choices || []);
    const opts = [['current', 'The current routing'], ...choices.map((c) => [c, `${c} only`])];
    if (choices.includes('round_robin') && choices.includes('kv')) opts.push(['round_robin,kv', 'round_robin vs kv']);
    if (choices.length > 2) opts.push(['all', 'Every policy']);
    this.els.series.replaceChildren(...opts.map(([v, t]) => {
      const o = document.createElement('option');
      o.value = v;
      o.textContent = t;
      return o;
    }));
    this.routingChoices = choices;
    this.syncSeries();
    this.syncNote();
  }

  /** The inert-setting note for the form as it stands (or for the lines just run). */
  syncNote(lines = null, base = null) {
    if (!this.note) return;
    const { config, params } = this.state();
    const p = this.spec(this.els.param.value);
    const preset = this.own || this.presetPlain;
    const text = p ? inertNote(p, params, lines || this.lines(config), base || { ...config, ...(preset?.base || {}) }) : '';
    this.note.textContent = text;
    this.note.hidden = !text;
    return text;
  }

  syncSeries() {
    const isRouting = this.els.param.value === 'routing';
    this.els.series.disabled = isRouting;
    if (isRouting) this.els.series.value = 'current';
  }

  /** The routing of each series: [null] = the page's current routing. */
  routings() {
    const v = this.els.series.value;
    if (this.els.param.value === 'routing' || !v || v === 'current') return [null];
    if (v === 'all') return this.routingChoices;
    return v.split(',');
  }

  /** The lines to sweep: {label, set} each, where `set` overrides the config for that line. */
  lines(config) {
    if (this.own) return this.own.series.map((l, i) => ({ ...l, style: OWN_STYLES[i % OWN_STYLES.length] }));
    return this.routings().map((r) => ({ label: r ?? config.routing, set: r ? { routing: r } : {} }));
  }

  /** Leaves a preset's own series when the reader changes the form by hand. */
  dropOwn() {
    this.presetPlain = null;
    if (!this.own) return;
    this.own = null;
    this.els.series.querySelector('option[value="own"]')?.remove();
    this.els.series.value = 'current';
  }

  /** Sets the form to preset `id` and runs it (run: false only sets it; keepBase: false leaves the
   * preset's workload to the page's settings, as an embed that put it there does). */
  preset(id, { run = true, keepBase = true } = {}) {
    const found = PRESETS.find((x) => x.id === id);
    const p = keepBase ? found : { ...found, base: {} };
    this.dropOwn();
    this.els.param.value = p.param;
    this.els.spec.value = p.spec;
    if (Array.isArray(p.series)) {
      this.own = p;
      const o = document.createElement('option');
      o.value = 'own';
      o.textContent = p.seriesLabel;
      this.els.series.append(o);
      this.els.series.value = 'own';
    } else {
      this.els.series.value = p.series;
      this.presetPlain = p;
    }
    this.syncSeries();
    return run ? this.run() : null;
  }

  ensurePool() {
    const n = poolSize();
    while (this.pool.length > n) this.pool.pop().w.terminate();
    while (this.pool.length < n) {
      const w = new Worker(this.workerUrl, { type: 'module' });
      const slot = { w, nextId: 1 };
      w.onerror = (e) => { e.preventDefault(); this.fail(`A sweep worker failed (${e.message || 'no details'}).`); };
      this.pool.push(slot);
    }
  }

  setBusy(on) {
    this.els.cancel.hidden = !on;
    this.els.progress.hidden = !on;
    this.els.run.textContent = on ? 'Restart sweep' : 'Run sweep';
  }

  clearError() {
    this.els.error.hidden = true;
    this.els.spec.removeAttribute('aria-invalid');
  }

  /** A bad spec: said next to the input; a sweep in flight and the last curve are left alone. */
  specError(message) {
    this.els.error.textContent = message;
    this.els.error.hidden = false;
    this.els.spec.setAttribute('aria-invalid', 'true');
  }

  /** A failure while running: stops the sweep; the last good curve stays. */
  fail(message) {
    this.stopPool();
    this.generation += 1;
    this.setBusy(false);
    this.els.error.textContent = message;
    this.els.error.hidden = false;
    this.els.status.textContent = this.last ? 'The last finished sweep is still shown.' : '';
  }

  stopPool() { for (const s of this.pool) s.w.postMessage({ type: 'cancel', lane: 'main' }); }

  cancel(message) {
    if (this.els.cancel.hidden) return;
    this.stopPool();
    this.generation += 1;
    this.ticket += 1;
    this.setBusy(false);
    this.els.status.textContent = message;
  }

  async run() {
    const ticket = ++this.ticket;
    const { config, source } = this.state();
    const name = this.els.param.value;
    const values = this.els.spec.value.trim();
    this.clearError();
    if (!values) { this.specError('Enter the values to sweep: START:END:STEP (e.g. 0:4:0.5) or a list (1,2,4,8).'); return; }
    const specText = `${name}=${values}`;
    const own = this.own;
    // A preset with a routing-list series has no own lines, but may still set the workload and charts.
    const preset = own || this.presetPlain;
    const lines = this.lines(config);
    const base = { ...config, ...(preset?.base || {}) };
    const inert = inertLines(this.spec(name) || { name }, this.state().params, lines, base).map((l) => l.label);
    this.syncNote(lines, base);
    let plans;
    try {
      plans = await Promise.all(lines.map((l) => this.plan({ ...base, ...l.set }, specText)));
    } catch (err) {
      if (ticket === this.ticket) this.specError(`Can't sweep ${cleanMessage(err.message)}`);
      return;
    }
    if (ticket !== this.ticket) return;   // a newer click is planning
    const total = plans.reduce((a, p) => a + p.points.length, 0) + (this.own?.reference || this.presetPlain?.reference ? 1 : 0);
    if (total > MAX_POINTS) { this.specError(`${total} points is too many for the page (at most ${MAX_POINTS}); use a coarser step.`); return; }

    // This sweep supersedes any in flight: stop the workers' current points, ignore their answers.
    this.stopPool();
    const gen = ++this.generation;
    this.ensurePool();
    this.setBusy(true);
    const series = plans.map((plan, s) => {
      const routing = lines[s].set.routing ?? base.routing;
      return { routing, label: lines[s].label, style: lines[s].style, plan, summaries: new Array(plan.points.length) };
    });
    const jobs = series.flatMap((se, s) => se.plan.points.map((pt, i) => ({ s, i, config: pt.config })));
    // A preset's reference run (the P:D split's colocated fleet), drawn as a flat line on both charts.
    let reference = null;
    // It routes as the first line does (the P:D preset's kv), not by the page's own routing.
    if (preset?.reference) jobs.push({ s: 'ref', config: { ...base, ...lines[0].set, ...preset.reference.set } });
    const workers = this.pool.length;
    const t0 = performance.now();
    let next = 0, done = 0;
    const progress = () => {
      this.els.progress.value = done / total;
      this.els.progress.textContent = `${done}/${total}`;
      this.els.status.textContent = `Running ${total} points on ${workers} workers… ${done}/${total}`;
    };
    progress();
    const ok = await new Promise((resolve) => {
      const feed = (slot) => {
        if (gen !== this.generation) return resolve(false);
        if (next >= jobs.length) { if (done === jobs.length) resolve(true); return; }
        const job = jobs[next++];
        const id = slot.nextId++;
        slot.w.onmessage = (e) => {
          const m = e.data;
          if (gen !== this.generation) return resolve(false);
          if (m.type === 'fatal') {
            // A pool worker that could not load the simulator never answers its point: say so.
            this.pool.splice(this.pool.indexOf(slot), 1);
            slot.w.terminate();
            this.fail(`A sweep worker could not start: ${cleanMessage(m.message)}`);
            return resolve(false);
          }
          if (m.id !== id) return;
          if (m.type === 'result' && job.s === 'ref') {
            reference = { label: preset.reference.label, summary: JSON.parse(m.report).summary };
            done += 1;
            progress();
            feed(slot);
          } else if (m.type === 'result') {
            series[job.s].summaries[job.i] = JSON.parse(m.report).summary;
            done += 1;
            progress();
            feed(slot);
          } else if (m.type === 'error' && job.s === 'ref') {
            this.fail(`The reference run (${preset.reference.label}) failed: ${cleanMessage(m.message)}`);
            resolve(false);
          } else if (m.type === 'error') {
            const pt = series[job.s].plan.points[job.i];
            this.fail(`Point ${plans[job.s].param} = ${valueLabel(pt.value)} (${series[job.s].routing}) failed: ${cleanMessage(m.message)}`);
            resolve(false);
          } else if (m.type === 'cancelled') resolve(false);
        };
        slot.w.postMessage({ type: 'run', lane: 'main', id, config: job.config, trace: source });
      };
      this.pool.forEach(feed);
    });
    if (!ok || gen !== this.generation) return;
    const ms = performance.now() - t0;
    this.setBusy(false);
    this.els.status.textContent = `${total} points in ${Math.round(ms)} ms on ${workers} workers · seed ${config.seed}${source ? ` · ${source.name}` : ''}. `
      + `${preset?.note && !source ? `${preset.note} ` : ''}Each point is the whole run at that value: click one (or its row) to load it.`;
    this.selected = null;
    const metrics = preset?.metrics || ['hit', 'ttft'];
    const note = this.syncNote(lines, base);
    if (note) this.els.status.textContent = `${note} ${this.els.status.textContent}`;
    this.show({ param: plans[0].param, spec: specText, series, ms, workers, source: source?.name ?? null, metrics, preset: preset?.id ?? null, reference, inert });
  }

  show(last) {
    this.last = last;
    const { param, series } = last;
    this.seq += 1;
    if (window.kvfleet) {
      window.kvfleet.lastSweep = {
        seq: this.seq, param, spec: last.spec, workers: last.workers, ms: last.ms, source: last.source, inert: last.inert ?? [],
        metrics: last.metrics, preset: last.preset, reference: last.reference ?? null,
        series: series.map((se) => ({ routing: se.routing, label: se.label,
          points: se.plan.points.map((pt, i) => ({ value: pt.value, config: pt.config, summary: se.summaries[i] })) })),
      };
    }
    this.els.out.hidden = false;
    this.draw();
    this.table();
  }

  xTitle() {
    const p = this.spec(this.last.param);
    if (!p) return this.last.param;
    const unit = !p.unit || p.unit === 'x' ? '' : p.label.toLowerCase().includes(p.unit.toLowerCase()) ? ' (count)' : ` (${p.unit})`;
    return `${p.label}${unit}`;
  }

  draw() {
    if (!this.last) return;
    const { series } = this.last;
    const first = (this.last.metrics || ['hit'])[0];
    const labels = series[0].plan.points.map((p) => valueLabel(p.value));
    const xTitle = this.xTitle();
    const specs = [
      [first, this.els.canvas, null, null, first === 'spread' ? (c) => num(c.parsed.y, 2) : first === 'tpot' ? (c) => fmtMs(c.parsed.y) : (c) => `${c.parsed.y.toFixed(1)}%`],
      ['ttft', this.els.ttft, null, null, (c) => fmtMs(c.parsed.y)],
    ];
    sweepCaptions(this.els, this.last, first);
    for (const [key, canvas, , , fmt] of specs) {
      const slot = canvas === this.els.canvas ? 'first' : 'ttft';
      let ch = this.charts[slot];
      if (ch && ch.kvfleetKey !== key) { ch.destroy(); ch = null; }
      if (!ch) {
        ch = this.charts[slot] = new window.Chart(canvas, {
          type: 'line',
          data: { labels, datasets: [] },
          options: {
            interaction: { mode: 'nearest', axis: 'x', intersect: false },
            onClick: (evt, _els, chart) => this.clickChart(evt, chart),
            onHover: (evt, els) => { evt.native.target.style.cursor = els.length ? 'pointer' : 'default'; },
            plugins: {
              // Each entry draws its line as the plot does: p99 solid, p50 dashed, the policy's marker on it.
              legend: { position: 'top', align: 'start', labels: { usePointStyle: true, pointStyleWidth: 26, boxHeight: 10, generateLabels: lineLegend(26, 10) } },
              tooltip: { callbacks: {
                title: (items) => (items.length ? `${this.last.param} = ${items[0].label}` : ''),
                label: (c) => ` ${c.dataset.label}: ${fmt(c)}`,
                footer: () => 'Click to load this point',
              } },
            },
            scales: {
              x: { title: { display: true, text: xTitle, font: { weight: '600' } } },
              y: key === 'ttft' ? ttftScale(this.last) : firstScale(this.last, key),
            },
          },
        });
        ch.kvfleetKey = key;
      }
      ch.data.labels = labels;
      ch.data.datasets = sweepDatasets(this.last, this.selected, key);
      ch.options.scales.x.title.text = xTitle;
      if (key === 'ttft') ch.options.scales.y = ttftScale(this.last);
      ch.update('none');
      const what = { hit: 'request hit rate', spread: 'load spread', ttft: 'p99 TTFT', tpot: 'p99 TPOT' }[key];
      const value = (s) => (key === 'hit' ? countPct(s.hit_rate_requests, 1) : key === 'spread' ? num(s.load_spread, 2) : key === 'tpot' ? fmtMs(s.tpot_ms_p99) : fmtMs(s.ttft_ms_p99));
      ch.canvas.setAttribute('aria-label', `Sweep of ${this.last.param}, ${what}: ${series.map((se) => `${se.label}: ${labels.map((l, i) => `${l} ${value(se.summaries[i])}`).join(', ')}`).join('; ')}. Click a point to load it.`);
    }
  }

  clickChart(evt, chart) {
    const hits = chart.getElementsAtEventForMode(evt, 'nearest', { axis: 'xy', intersect: false }, true);
    if (!hits.length) return;
    const ds = chart.data.datasets[hits[0].datasetIndex];
    if (ds.series === null || ds.series === undefined) return; // a reference line is not a point
    this.pick(ds.series, hits[0].index);
  }

  /** Loads point i of series s into the page (controls, URL) and runs it. */
  pick(s, i) {
    const se = this.last.series[s];
    const pt = se.plan.points[i];
    this.selected = { s, i };
    this.draw();
    for (const tr of this.els.table.querySelectorAll('tbody tr')) tr.classList.toggle('current', tr.dataset.s === String(s) && tr.dataset.i === String(i));
    const line = se.style ? `${se.label}, ${se.routing}` : `${se.routing} routing`;
    this.els.status.textContent = `Loaded ${this.last.param} = ${valueLabel(pt.value)} with ${line}: the results at the top now show this point `
      + `(token hit rate ${countPct(se.summaries[i].hit_rate_tokens)}, p99 TTFT ${fmtMs(se.summaries[i].ttft_ms_p99)}).`;
    this.load(pt.config);
  }

  table() {
    renderTable(this.els.table, this.last, (s, i) => this.pick(s, i));
    this.fitHint ||= scrollCue(this.els.table.parentElement, 'sweep-scroll-hint');
    this.fitHint();
  }

  retheme() {
    for (const c of Object.values(this.charts)) c.destroy();
    this.charts = {};
    this.draw();
  }
}
