// www/js/calibrate-requests.js: "From request measurements: fit by simulation" in the calibration
// panel: the search of `kvfleet calibrate --requests FILE` (Nelder–Mead over the linear engine's four
// coefficients, each candidate a replay of the log on one replica), driven a batch at a time over a
// pool of workers (worker-reqfit.js): the first worker holds the search, every worker scores the
// batch's candidates, so the same log, start and budget give the CLI's fit. Shows progress and the
// best distance after each step; Cancel stops the search after the batch in flight and keeps the best
// so far (the CLI's Ctrl-C). The result: the coefficients (start and fitted), each quantile's measured
// and simulated TTFT and TPOT with the error, the distance, the assumptions; "Use this fit as the
// engine" as for a step fit. A bad log shows the simulator's message and keeps the last fit.
//
// Test hook on window.kvfleet: `lastRequestFit` = {id, name, start, maxEvaluations, fit (the parsed
// JSON), ms, workers}.

import { num } from './format.js';
import { poolSize } from './sweep.js';
import { LINEAR_KEYS, engineSettings } from './calibrate.js';
import { scrollCue } from './page-bits.js';

const QUANTILE_NAMES = (qs) => qs.map((q) => `p${Math.round(q * 100)}`);
const pct = (e) => (Number.isFinite(e) ? `${e >= 0 ? '+' : ''}${(e * 100).toFixed(1)}%` : '–');
const ms2 = (x) => (Number.isFinite(x) ? `${x.toFixed(2)} ms` : '–');
/**
 * The search's default start: not the sample's own preset (llama3-8b-h100), from which the fit has
 * nowhere to go, but another GPU's engine, so the sample shows the search close a real distance.
 */
export const DEFAULT_START = 'llama3-8b-b200';
const ENDED = { converged: 'converged', budget: 'stopped at the replay budget', stopped: 'cancelled: the best so far' };

/** "1.6% (start 85.2%), 649 replays, converged": the CLI's distance line. */
export function distanceWords(fit) {
  return `${(fit.fit.distance * 100).toFixed(1)}% (start ${(fit.start_distance * 100).toFixed(1)}%), ${num(fit.evaluations)} replays, ${ENDED[fit.ended] ?? fit.ended}`;
}

export class RequestFit {
  /**
   * els: samples (buttons, data-request-sample), file, drop, start, budget, cancel, progress, status, error, out,
   *      headline, assumptions, coefs, quantiles, use, useNote.
   * opts: workerUrl; state() -> {config, presets}; load(config).
   */
  constructor(els, { workerUrl, state, load }) {
    this.els = els;
    this.workerUrl = workerUrl;
    this.state = state;
    this.load = load;
    this.pool = [];
    this.generation = 0;
    this.last = null;
    this.stopAsked = false;
    for (const b of els.samples) {
      const name = b.dataset.requestSample;
      b.addEventListener('click', () => this.run({ name, url: new URL(`data/${name}`, document.baseURI).href }));
    }
    els.file.addEventListener('change', () => { const f = els.file.files?.[0]; if (f) this.run({ name: f.name, file: f }); });
    els.drop.addEventListener('dragover', (e) => { e.preventDefault(); els.drop.classList.add('over'); });
    els.drop.addEventListener('dragleave', () => els.drop.classList.remove('over'));
    els.drop.addEventListener('drop', (e) => {
      e.preventDefault();
      els.drop.classList.remove('over');
      const f = e.dataTransfer?.files[0];
      if (f) this.run({ name: f.name, file: f });
    });
    els.cancel.addEventListener('click', () => { this.stopAsked = true; els.status.textContent = 'Stopping after the replays in flight…'; });
    els.use.addEventListener('click', () => this.use());
  }

  /** The start presets (every preset but custom), once the simulator has listed them. */
  setPresets(presets) {
    const names = presets.map((p) => p.name).filter((n) => n !== 'custom');
    const keep = this.els.start.value || DEFAULT_START;
    this.els.start.replaceChildren(...names.map((n) => new Option(n, n, false, n === keep)));
  }

  budget() {
    const n = Number(this.els.budget.value);
    if (!Number.isInteger(n) || n < 1 || n > 100000) {
      this.els.budget.setAttribute('aria-invalid', 'true');
      throw new Error('Replays: enter a whole number from 1 to 100,000');
    }
    this.els.budget.removeAttribute('aria-invalid');
    return n;
  }

  stop() {
    this.generation += 1;
    for (const w of this.pool) w.terminate();
    this.pool = [];
    this.setBusy(false);
  }

  setBusy(on) {
    this.els.cancel.hidden = !on;
    this.els.progress.hidden = !on;
  }

  /** Sends `msg` to worker `w`; resolves to its answer of type `want` (rejects on an error). */
  ask(w, msg, want, transfer = []) {
    return new Promise((resolve, reject) => {
      w.onmessage = (e) => {
        const m = e.data;
        if (m.id !== msg.id) return;
        if (m.type === want) resolve(m);
        else if (m.type === 'reqfit-error' || m.type === 'error' || m.type === 'fatal') reject(new Error(String(m.message).replace(/^(Error:\s*)+/, '')));
      };
      w.onerror = (ev) => { ev.preventDefault(); reject(new Error(ev.message || 'a fitting worker failed')); };
      w.postMessage(msg, transfer);
    });
  }

  /** Scores a batch (4 numbers a candidate) over the pool, in order; the scores one after another. */
  async scoreBatch(id, batch) {
    const n = batch.length / 4;
    const scores = new Array(n);
    let next = 0;
    const feed = async (w) => {
      while (next < n) {
        const i = next++;
        const m = await this.ask(w, { type: 'reqfit-score', id, index: i, coefficients: batch.slice(4 * i, 4 * i + 4) }, 'reqfit-scored');
        scores[i] = m.score;
      }
    };
    await Promise.all(this.pool.map(feed));
    const out = new Float64Array(scores.reduce((k, s) => k + s.length, 0));
    let at = 0;
    for (const s of scores) { out.set(s, at); at += s.length; }
    return out;
  }

  async run(log) {
    this.els.error.hidden = true;
    let maxEvaluations;
    try { maxEvaluations = this.budget(); } catch (err) { this.showError(err.message); return; }
    this.stop();
    const gen = this.generation;
    const id = gen;
    const start = this.els.start.value || DEFAULT_START;
    const n = poolSize();
    for (let i = 0; i < n; i++) this.pool.push(new Worker(this.workerUrl, { type: 'module' }));
    this.stopAsked = false;
    this.setBusy(true);
    const t0 = performance.now();
    this.els.progress.value = 0;
    this.els.status.textContent = `Reading ${log.name} in ${n} workers…`;
    try {
      const opened = await Promise.all(this.pool.map((w) => this.ask(w, { type: 'reqfit-open', id, log, start, maxEvaluations }, 'reqfit-opened')));
      const requests = opened[0].requests;
      const boss = this.pool[0];
      // Batches until the search ends, or a cancel; then the fit (a cancel's: the best so far, "stopped").
      while (!this.stopAsked) {
        const { batch } = await this.ask(boss, { type: 'reqfit-next', id }, 'reqfit-batch');
        if (gen !== this.generation) return;
        if (batch.length === 0) break;
        const scores = await this.scoreBatch(id, batch);
        if (gen !== this.generation) return;
        const t = await this.ask(boss, { type: 'reqfit-tell', id, scores }, 'reqfit-told', [scores.buffer]);
        this.showProgress(t.progress, requests, n);
      }
      const told = await this.ask(boss, { type: 'reqfit-stop', id }, 'reqfit-told');
      if (gen !== this.generation) return;
      if (!told.fit) throw new Error('cancelled before the start was replayed: no fit yet');
      const fit = JSON.parse(told.fit);
      this.stop();
      this.show({ id, name: log.name, start, maxEvaluations, fit, ms: performance.now() - t0, workers: n });
    } catch (err) {
      if (gen !== this.generation) return;
      this.stop();
      this.showError(`Could not fit the request log. ${err.message}`);
      this.els.status.textContent = this.last ? `The last fit (${this.last.name}) is still shown.` : '';
      this.els.file.value = '';
    }
  }

  showProgress([done, most, distance], requests, n) {
    this.els.progress.value = Math.min(1, done / most);
    const best = Number.isFinite(distance) ? `, best distance so far ${(distance * 100).toFixed(1)}%` : '';
    this.els.status.textContent = `Replaying ${num(requests)} requests on ${n} workers: ${num(done)} of at most ${num(most)} replays${best}…`;
  }

  showError(message) {
    this.els.error.textContent = message;
    this.els.error.hidden = false;
  }

  show(result) {
    this.last = result;
    window.kvfleet = window.kvfleet || {};
    window.kvfleet.lastRequestFit = result;
    const { fit, name, start, ms, workers } = result;
    this.els.status.textContent = `Fitted ${name} from the ${start} preset's engine in ${(ms / 1000).toFixed(1)} s on ${workers} workers.`;
    this.els.out.hidden = false;
    this.els.headline.textContent = `${name}: ${num(fit.requests)} requests on one replica (max batch ${fit.replica.max_batch}, ${num(fit.replica.max_batched_tokens)} tokens per step). Distance (RMS of the relative errors): ${distanceWords(fit)}.`;
    this.els.assumptions.replaceChildren(...fit.assumptions.map((a) => { const li = document.createElement('li'); li.textContent = `Assumed: ${a}`; return li; }));
    this.renderCoefs(fit, start);
    this.renderQuantiles(fit);
    this.els.useNote.textContent = 'Sets Engine to custom with the four fitted coefficients.';
  }

  renderCoefs(fit, start) {
    const rows = LINEAR_KEYS.map((k) => [k, fit.start_engine[k].toFixed(3), fit.engine[k].toFixed(3)]);
    this.els.coefs.replaceChildren(table(['Coefficient', `Start (${start})`, 'Fitted'], rows));
  }

  renderQuantiles(fit) {
    const s = fit.fit;
    const hasTpot = fit.measured_tpot_ms.length > 0;
    const head = ['Quantile', 'TTFT measured', 'simulated', 'error', ...(hasTpot ? ['TPOT measured', 'simulated', 'error'] : [])];
    const rows = QUANTILE_NAMES(fit.quantiles).map((q, i) => [q, ms2(fit.measured_ttft_ms[i]), ms2(s.ttft_ms[i]), pct(s.ttft_rel_err[i]),
      ...(hasTpot ? [ms2(fit.measured_tpot_ms[i]), ms2(s.tpot_ms[i]), pct(s.tpot_rel_err[i])] : [])]);
    // On a phone the seven columns scroll sideways: say so above the table (page-bits.js).
    this.fitHint ||= scrollCue(this.els.quantiles, 'rf-scroll-hint');
    this.els.quantiles.querySelector('table')?.remove();
    this.els.quantiles.append(table(head, rows));
    this.fitHint();
  }

  use() {
    if (!this.last) return;
    this.load({ ...this.state().config, ...engineSettings(this.last.fit.engine) }); // (no polynomial phases: 0,0,0)
    this.els.useNote.textContent = `Engine set to custom with the fit of ${this.last.name}: the charts at the top and the link now use it.`;
  }
}

/** A table of a header row and rows of text, the first cell of each a row header. */
function table(head, rows) {
  const t = document.createElement('table');
  const thead = t.createTHead().insertRow();
  for (const h of head) { const th = document.createElement('th'); th.scope = 'col'; th.textContent = h; thead.append(th); }
  const tbody = t.createTBody();
  for (const r of rows) {
    const tr = tbody.insertRow();
    r.forEach((c, i) => {
      const cell = document.createElement(i === 0 ? 'th' : 'td');
      if (i === 0) cell.scope = 'row';
      cell.textContent = c;
      tr.append(cell);
    });
  }
  return t;
}
