// www/js/calibrate.js: "Calibrate the engine to your GPU": fits a step log (the shipped sample, or
// a file chosen or dropped) in a worker of its own with the simulator's calibrate_json, the fit of
// `kvfleet calibrate FILE --calibrate-json` (same numbers), and shows it: the CLI's summary line (R²,
// RMS residual), each coefficient with its standard error, the fit's warnings, predicted against
// measured and the residuals (calibrate-chart.js). "Use this fit as the engine" sets the page's
// custom engine to the fit's six settings (a linear fit's four, or a polynomial fit's two phases;
// poly-params.js), so the link and every run carry them, as --des-engine-file runs the fit; the
// planner's answer on the page's engine and on the fit, side by side: calibrate-plan.js. A bad log
// shows the simulator's message (file and line) and keeps the last good fit on screen.
//
// Test hook on window.kvfleet: `lastCalibration` = {id (one more for each fit asked for), name, form,
// kvCapacityTokens, fit (the parsed JSON)}.

import { num } from './format.js';
import { fitPoints, fittedConfig, residConfig, drawChart } from './calibrate-chart.js';
import { PlanCompare } from './calibrate-plan.js';

/**
 * The shipped sample step logs, generated from a preset with 2 % noise, not measured (their names
 * say so; data/kvfleet/README.md): the page's default engine's, and a faster GPU's.
 */
export const SAMPLES = {
  'steps_generated_llama3-8b-h100.csv': 'the llama3-8b-h100 preset',
  'steps_generated_llama3-8b-b200.csv': 'the llama3-8b-b200 preset (standing in for a faster GPU)',
};

/** The linear form's coefficients: the custom engine's four settings, same names and units. */
export const LINEAR_KEYS = ['step_fixed_us', 'prefill_token_us', 'decode_seq_us', 'kv_read_token_ns'];

/** The custom engine's six settings (a fit's `engine`, what --des-engine-file reads): the linear four and the two polynomial phases. */
export const ENGINE_KEYS = [...LINEAR_KEYS, 'prefill_poly_ms', 'decode_poly_ms'];

/** A fit's `engine` as the page's custom engine: its six settings (a linear fit's polynomials are 0,0,0). */
export function engineSettings(engine) {
  return { engine: 'custom', ...Object.fromEntries(ENGINE_KEYS.map((k) => [k, engine[k] ?? (k.endsWith('_poly_ms') ? [0, 0, 0] : 0)])) };
}

/** Whether the fit's warnings say the engine would refuse its polynomial (src/calibrate/fit.rs engine_warnings). */
const refused = (fit) => fit.warnings.some((w) => /breaks the engine's rule/.test(w));

/** A coefficient as the CLI's table shows it: 6 decimals, or 6 significant digits below 0.01. */
export function shown(x) {
  return x !== 0 && Math.abs(x) < 0.01 ? x.toExponential(5) : x.toFixed(6);
}

/** Decimal places that keep two significant digits of `se` (0 for an error of 10 or more). */
function seDecimals(se) {
  return Math.max(0, 1 - Math.floor(Math.log10(se)));
}

/**
 * A coefficient and its error as far as the error supports them: the error to two significant
 * digits, the value to the same decimal place ("5,847" and "210" for 5846.82 ± 209.83). A value
 * without an error (at bound, or not identified) to four significant digits.
 */
export function rounded(c) {
  if (c.identified && c.se !== null && c.se > 0 && Number.isFinite(c.se)) {
    const d = seDecimals(c.se);
    const se = Number(c.se.toPrecision(2));
    return { value: num(c.value, d), se: num(se, Math.max(d, seDecimals(se))) };
  }
  const value = c.value === 0 ? '0' : num(Number(c.value.toPrecision(4)), Math.max(0, 3 - Math.floor(Math.log10(Math.abs(c.value)))));
  if (!c.identified) return { value, se: 'not identified' };
  return { value, se: c.se === null ? 'at bound' : shown(c.se) };
}

/** The CLI's summary line: "R² 0.998999, RMS residual 2686.7 µs over 600 steps". */
export function summaryLine(fit) {
  const r2 = fit.r2 === null ? 'undefined (every step took the same time)' : fit.r2.toFixed(6);
  return `R² ${r2}, RMS residual ${fit.rmse_us.toFixed(1)} µs over ${num(fit.steps)} steps`;
}

export class Calibrate {
  /**
   * els: samples (buttons, data-sample: the file), file, drop, form, kv, error, status, out, headline, table, warnings, chart, resid, use, useNote,
   *      plan, planCancel, planOut, planStatus.
   * opts: workerUrl; state() -> {config, source, presets, policies}; load(config); spec(config, presets) (the
   *       capacity panel's targets as a plan spec; throws a message).
   */
  constructor(els, { workerUrl, state, load, spec }) {
    this.els = els;
    this.workerUrl = workerUrl;
    this.state = state;
    this.load = load;
    this.worker = null;
    this.nextId = 1;
    this.log = null;   // the log last chosen: {name, url} | {name, file}
    this.shownLog = null; // the log of the fit on screen
    this.last = null;  // the last good fit on screen
    this.charts = { fitted: null, resid: null };
    this.plans = new PlanCompare({ run: els.plan, cancel: els.planCancel, out: els.planOut, status: els.planStatus },
      { workerUrl, state, spec, fitted: () => this.fittedConfig() });
    for (const b of els.samples) {
      const name = b.dataset.sample;
      b.addEventListener('click', () => this.fit({ name, url: new URL(`data/${name}`, document.baseURI).href }));
    }
    els.file.addEventListener('change', () => { const f = els.file.files?.[0]; if (f) this.fit({ name: f.name, file: f }); });
    this.watchDrop(els.drop);
    els.form.addEventListener('change', () => this.refit());
    els.kv.addEventListener('change', () => this.refit());
    els.use.addEventListener('click', () => this.use());
  }

  watchDrop(drop) {
    drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
    drop.addEventListener('dragleave', () => drop.classList.remove('over'));
    drop.addEventListener('drop', (e) => {
      e.preventDefault();
      drop.classList.remove('over');
      const f = e.dataTransfer?.files[0];
      if (f) this.fit({ name: f.name, file: f });
    });
  }

  /** The form's options: {form, kvCapacityTokens}; throws a plain message when the capacity is bad. */
  options() {
    const t = this.els.kv.value.trim();
    const kv = t === '' ? null : Number(t);
    if (kv !== null && !(Number.isFinite(kv) && kv >= 1)) {
      this.els.kv.setAttribute('aria-invalid', 'true');
      throw new Error('KV capacity: enter a number of tokens, 1 or more, or leave it empty');
    }
    this.els.kv.removeAttribute('aria-invalid');
    return { form: this.els.form.value, kvCapacityTokens: kv };
  }

  /** The form or capacity changed: fits the log on screen again (or the one that failed, if none is). */
  refit() { const log = this.shownLog ?? this.log; if (log) this.fit(log); }

  ensureWorker() {
    if (this.worker) return this.worker;
    this.worker = new Worker(this.workerUrl, { type: 'module' });
    this.worker.onerror = (ev) => { ev.preventDefault(); this.fail(`The fitting worker failed (${ev.message || 'no details'}).`); this.dropWorker(); };
    return this.worker;
  }

  dropWorker() { this.worker?.terminate(); this.worker = null; }

  /** Fits `log` in the worker (never on the page's thread); the answer replaces the fit on screen. */
  fit(log) {
    this.clearError();
    let opts;
    try { opts = this.options(); } catch (err) { this.showError(err.message); return; }
    this.log = log;
    const id = this.nextId++;
    const w = this.ensureWorker();
    this.els.status.textContent = `Fitting ${log.name} (${opts.form} form)…`;
    w.onmessage = (e) => {
      const m = e.data;
      if (m.id !== id) return;
      if (m.type === 'calibrate-result') { this.shownLog = log; this.show({ id, name: m.name, ...opts, fit: m.fit }); }
      else if (m.type === 'calibrate-error' || m.type === 'error') {
        this.fail(String(m.message).replace(/^(Error:\s*)+/, ''));
        if (m.trap) this.dropWorker();
      }
    };
    w.postMessage({ type: 'calibrate', id, log, ...opts });
  }

  showError(message) {
    this.els.error.textContent = message;
    this.els.error.hidden = false;
  }

  clearError() { this.els.error.hidden = true; this.els.error.textContent = ''; }

  /** A log that could not be fitted: its message; the last good fit stays. */
  fail(message) {
    this.showError(`Could not fit the log. ${message}`);
    this.els.status.textContent = this.last ? `The last good fit (${this.last.name}) is still shown.` : '';
    this.els.file.value = ''; // the same file can be chosen again once fixed
  }

  show(result) {
    this.last = result;
    window.kvfleet = window.kvfleet || {};
    window.kvfleet.lastCalibration = result;
    const { fit, name } = result;
    const sample = SAMPLES[name] ? ` (a sample: generated from ${SAMPLES[name]} with 2 % noise, not measured)` : '';
    this.els.status.textContent = `Fitted ${name}${sample}.`;
    this.els.out.hidden = false;
    this.els.headline.textContent = `${name}: ${fit.form} form. ${summaryLine(fit)}.`;
    this.renderTable(fit);
    this.renderWarnings(fit.warnings);
    this.draw();
    this.renderUse(fit);
    this.plans.reset(this.fittedConfig());
  }

  renderTable(fit) {
    const thead = document.createElement('thead');
    const hr = document.createElement('tr');
    for (const h of ['Coefficient', 'Value', '± SE']) { const th = document.createElement('th'); th.scope = 'col'; th.textContent = h; hr.append(th); }
    thead.append(hr);
    const tbody = document.createElement('tbody');
    for (const c of fit.coefficients) {
      const tr = document.createElement('tr');
      tr.dataset.name = c.name;
      const th = document.createElement('th');
      th.scope = 'row';
      const unit = document.createElement('span');
      unit.className = 'cal-unit';
      unit.textContent = c.unit;
      th.append(c.name, ' ', unit);
      tr.append(th);
      // Rounded to what the error supports; the exact figures (the CLI's table) in the tooltip.
      const r = rounded(c);
      const exact = c.identified && c.se !== null ? `${shown(c.value)} ± ${shown(c.se)}` : shown(c.value);
      for (const cell of [r.value, r.se]) {
        const td = document.createElement('td');
        td.textContent = cell;
        td.title = `Exact: ${exact} ${c.unit}`;
        tr.append(td);
      }
      if (!c.identified) tr.className = 'cal-unidentified';
      tbody.append(tr);
    }
    this.els.table.replaceChildren(thead, tbody);
  }

  renderWarnings(warnings) {
    this.els.warnings.replaceChildren(...warnings.map((w) => { const li = document.createElement('li'); li.textContent = `Warning: ${w}`; return li; }));
    this.els.warnings.hidden = warnings.length === 0;
  }

  draw() {
    if (!this.last || !window.Chart) return;
    const { fitted, resid } = fitPoints(this.last.fit);
    this.charts.fitted = drawChart(this.charts.fitted, this.els.chart, fittedConfig(fitted));
    this.charts.resid = drawChart(this.charts.resid, this.els.resid, residConfig(resid));
    const n = fitted.length;
    this.els.chart.setAttribute('aria-label', `Predicted against measured step time, ${num(n)} steps; ${summaryLine(this.last.fit)}`);
    this.els.resid.setAttribute('aria-label', `Residuals (measured − predicted) of ${num(n)} steps against measured step time`);
  }

  /** The page's config with the fit as its custom engine, its six settings (null when none, or one the engine refuses). */
  fittedConfig() {
    const fit = this.last?.fit;
    if (!fit || refused(fit)) return null;
    return { ...this.state().config, ...engineSettings(fit.engine) };
  }

  renderUse(fit) {
    this.els.use.disabled = refused(fit);
    if (refused(fit)) {
      this.els.useNote.textContent = 'The engine would refuse this polynomial (see the warnings): it cannot run as the engine.';
    } else if (fit.form === 'linear') {
      this.els.useNote.textContent = 'Sets Engine to custom with these four coefficients (no polynomial phases): every run, the planner and the link then use them.';
    } else {
      this.els.useNote.textContent = 'Sets Engine to custom with the two polynomial phases (the linear four at 0), as --des-engine-file does with this fit: '
        + `every run, the planner and the link then use them. Its decode phase is over the KV utilisation of the page's cache (KV cache × block size; unbounded: 0)${
          fit.kv_capacity_tokens ? `; the log's replica had ${num(fit.kv_capacity_tokens)} tokens` : ''}.`;
    }
  }

  use() {
    const config = this.fittedConfig();
    if (!config) return;
    this.load(config);
    this.els.useNote.textContent = `Engine set to custom with the ${this.last.fit.form} fit of ${this.last.name}: the charts at the top and the link now use it.`;
  }

  retheme() { this.draw(); }
}
