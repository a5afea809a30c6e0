// www/js/runs.js: the page's runs, main.js's conductor continued: coalesces runs (one per frame,
// newest wins; a short run in flight is waited for, a long one superseded), shows progress, and
// handles the worker's replies: results (rendered into every panel), errors (a bad trace, a link's
// rejected value, a control's), traps (the worker replaced), cancels; also the decision-record and
// comparison requests. The page's state and panels are main.js's, handed over by main.js (`connect`) so
// that only main.js imports this module, not the other way round.

import { fallbackNote } from './url-state.js';
import { renderHeadline, renderFleetLines, renderFindings } from './headline.js';
import { orderPolicies } from './format.js';
import { mark } from './timeline.js';
import { showNotes, fieldOf } from './page-bits.js';
import { statusLine } from './status-bar.js';
import { formatValue } from './controls.js';

// What main.js shares (`connect`, called once as main.js loads, before any run): its state,
// its panels (getters: they are made at boot) and the callbacks the replies need.
let app;
export function connect(shared) { app = shared; }

const $ = (id) => document.getElementById(id);
const PROGRESS_AFTER_MS = 250;  // show the progress bar only for runs longer than this
const decisionWaiters = new Map();

// Idle: run at once (no frame of delay). Busy: coalesce into one run per frame; sendRun then waits for
// a short run in flight, or supersedes a long one.
export function scheduleRun() {
  if (!app.st.inflight && !app.st.raf) { sendRun(); return; }
  if (app.st.raf) return;
  app.st.raf = requestAnimationFrame(() => { app.st.raf = 0; sendRun(); });
}

/** What a run's result depends on: the settings and the workload's source. */
function runKey() {
  const f = app.st.source?.file;
  return JSON.stringify([app.st.config, app.st.source ? (app.st.source.url || `${app.st.source.name}:${f?.size}:${f?.lastModified}`) : null]);
}

export function sendRun() {
  // The same settings as the run sent last (in flight or on screen): nothing to do.
  const key = runKey();
  if (key === app.st.lastKey) { app.st.dirty = false; return; }
  // A short run in flight finishes soon: wait for it rather than queueing behind it. A long one
  // (a trace) is superseded in the worker at its next slice boundary.
  if (app.st.inflight && performance.now() - app.st.inflight.start < PROGRESS_AFTER_MS) { app.st.dirty = true; return; }
  app.st.dirty = false;
  const id = app.st.nextId++;
  app.st.lastKey = key;
  app.st.inflight = { id, start: performance.now(), source: app.st.source, config: { ...app.st.config }, refreshMs: app.st.refreshMs };
  app.worker.postMessage({ type: 'run', lane: 'main', id, config: app.st.config, trace: app.st.source });
  clearTimeout(app.st.progressTimer);
  app.st.progressTimer = setTimeout(() => showProgress(true), PROGRESS_AFTER_MS);
}

function settle(id) {
  if (!app.st.inflight || app.st.inflight.id !== id) return false;
  const run = app.st.inflight;
  app.st.inflight = null;
  clearTimeout(app.st.progressTimer);
  showProgress(false);
  if (app.st.dirty) sendRun();
  return run;
}

function showProgress(on, p) {
  $('progress-wrap').hidden = !on;
  $('results').classList.toggle('stale', on);
  if (on && p !== undefined) { $('progress').value = p; $('progress').textContent = `${Math.round(p * 100)}%`; }
  if (on && app.st.inflight) $('status-text').textContent = app.st.inflight.source ? `Replaying ${app.st.inflight.source.name}…` : 'Simulating…';
}

export function cancelRun() {
  if (!app.st.inflight) return;
  app.st.userCancel = app.st.inflight.id;
  app.st.dirty = false;
  app.st.lastKey = null;
  app.worker.postMessage({ type: 'cancel', lane: 'main' });
}

export function onWorker(msg) {
  switch (msg.type) {
    case 'ready': return app.onReady(msg);
    case 'fatal': return app.fail(`${msg.message}.\nThe page needs a browser with WebAssembly and the built files in www/pkg/ (run \`cargo xtask build\`, then \`cargo xtask serve\`).`);
    case 'progress':
      if (msg.lane === 'compare') { if (msg.id === app.st.compareId) app.compare?.progress(msg.p); return; }
      if (app.st.inflight && msg.id === app.st.inflight.id && performance.now() - app.st.inflight.start > PROGRESS_AFTER_MS) showProgress(true, msg.p);
      return;
    case 'result': app.hook.traceParses = msg.parses; return onResult(msg);
    case 'plan-result':
    case 'plan-error': {
      const w = app.planWaiters.get(msg.id);
      app.planWaiters.delete(msg.id);
      if (w) { if (msg.type === 'plan-result') w.resolve(msg.plan); else w.reject(new Error(msg.message)); }
      return;
    }
    case 'decisions-result': {
      const w = decisionWaiters.get(msg.id);
      decisionWaiters.delete(msg.id);
      if (w) w.resolve({ records: JSON.parse(msg.decisions), config: w.config });
      return;
    }
    case 'error': return onError(msg);
    case 'cancelled':
      if (msg.lane === 'compare') { if (msg.id === app.st.compareId) app.compare?.cancelled(); return; }
      if (msg.lane === 'decisions') { const w = decisionWaiters.get(msg.id); decisionWaiters.delete(msg.id); w?.resolve(null); return; }
      if (settle(msg.id) && msg.id === app.st.userCancel) onCancelled();
      return;
    case 'compare-result':
      if (msg.id !== app.st.compareId) return;
      if (app.embedView) app.embedView.showCompare(msg.reports.map((r) => JSON.parse(r)));
      else app.compare.show(msg.reports.map((r) => JSON.parse(r)), app.st.comparePlan, app.st.comparePlan.policy, msg.ms);
      return;
    default:
  }
}

// After a cancel, the settings go back to those of the result on screen, so the two agree.
function onCancelled() {
  app.st.source = app.st.goodSource;
  if (app.hook.lastReport) {
    app.st.config = app.configOf(app.hook.lastReport.config);
  }
  app.refresh({ run: false });
  app.st.dirty = false;
  $('status-text').textContent = app.hook.lastReport
    ? 'Cancelled. The previous result and its settings are back.'
    : 'Cancelled. Change any setting to run again.';
}

function onResult(msg) {
  const got = performance.now();
  mark('firstResult', got);
  const run = settle(msg.id) || { source: app.st.source };
  if (msg.id <= app.st.shownId) return;
  app.st.shownId = msg.id;
  const report = JSON.parse(msg.report);
  app.st.goodSource = run.source;
  app.errBox().hidden = true;
  const parsed = performance.now();
  render(report, msg.ms, run);
  showUnended(report);
  // Where a run's time went: the settings' refresh before it was sent, from sending to its result
  // arriving (of which the worker's own time), reading the report, drawing it.
  app.hook.lastTimes = { refresh: run.refreshMs ?? 0, wait: run.start ? got - run.start : 0, worker: msg.ms, parse: parsed - got, draw: app.hook.lastRenderAt - parsed };
}

function render(report, runMs, run) {
  const t0 = performance.now();
  if (app.embedView) {
    app.embedView.render(report);
  } else {
    app.charts?.update(report); // canvases first, then the DOM text (no style recalc in between)
    app.timeSeries?.update(report);
    app.hero.showRun(report, run.config ? run : null);
    renderHeadline($('headline'), report);
    renderFleetLines($('fleet-lines'), report);
    renderFindings($('hotspot'), report);
    app.tasks.update(report);
    app.replicaTable.update(report);
    app.transfers?.update(report, app.st.goodSource ?? app.st.source);
    app.traces?.shown(app.st.goodSource, report);
    app.lessons.update(report);
    app.decisions?.followRun(report);
    app.capacity?.followEngine();
  }
  app.hook.lastReport = report;
  app.hook.lastRunMs = runMs;
  app.hook.runCount += 1;
  app.hook.lastRenderAt = performance.now();
  app.hook.lastDrawMs = app.hook.lastRenderAt - t0;
  $('status-text').textContent = statusLine(report, runMs);
  document.dispatchEvent(new CustomEvent('kvfleet:rendered', { detail: { runCount: app.hook.runCount } }));
  if (app.hook.runCount === 1) {
    app.hook.firstRenderAt = app.hook.lastRenderAt; // ms since navigation start: the cold load
    app.hero?.release();
    mark('firstRender', app.hook.firstRenderAt);
    app.resolveReady();
    if (!app.embedView) requestAnimationFrame(() => setTimeout(app.startLatePanels, 0)); // after the first chart is painted
  }
}

/**
 * A run in which some request did not end exactly once (a simulator bug: src/sim/ledger.rs) carries
 * `unended`, and its sentence is the report's first warning: shown as an error, over the result,
 * as the CLI prints it ("ERROR: ..."). The other warnings are the findings, shown as such.
 */
function showUnended(report) {
  if (!report.unended) return;
  app.errBox().textContent = `Simulator error: this run's numbers cannot be trusted. ${report.warnings[0]}`;
  app.errBox().hidden = false;
}

/**
 * A rejected setting in plain words, from the simulator's message ("invalid kv_blocks: got 1;
 * allowed: at least 9 blocks: ...", or "got banana ('banana' is not TIME:RATE); allowed: ..." with what
 * is wrong): the setting by its label, its value, what is wrong, what it must be, and that
 * what is shown is still the last accepted run's, with that run's value.
 */
export function rejectedWords(message, p, lastReport) {
  // The value, what is wrong with it when the simulator says (in parentheses), what is allowed.
  const m = /^invalid [a-z0-9_]+: got (.*?)(?: \((.*)\))?; allowed: (.*)$/s.exec(message);
  const rule = m ? plainRule(m[3]) : '';
  const said = !(p && m)
    ? `That setting was rejected: ${message.replace(/\.$/, '')}.`
    : m[2]
      ? `${p.label} ${formatValue(p, parseGot(m[1]))} was rejected: ${m[2]}. It must be ${rule}.`
      : `${p.label} ${formatValue(p, parseGot(m[1]))} was rejected: it must be ${rule}.`;
  if (!lastReport) return said;
  const was = p && p.name in (lastReport.config || {}) ? ` (${p.label.toLowerCase()} ${formatValue(p, lastReport.config[p.name])})` : '';
  return `${said} The figure, numbers and sentences still show the last accepted settings${was}.`;
}

/** A rule as the simulator states it, for reading: 1,000,000 not 1000000, "block size" not block_size. */
function plainRule(text) {
  return text.replace(/\.$/, '').replace(/\b\d{4,}\b/g, (d) => Number(d).toLocaleString('en-US')).replace(/\b([a-z]+)_([a-z]+)\b/g, '$1 $2');
}

/** The value a message quotes: a number where it reads as one. */
function parseGot(text) {
  const n = Number(text);
  return text.trim() !== '' && Number.isFinite(n) ? n : text;
}

function onError(msg) {
  if (msg.trap) return onTrap(msg);
  if (msg.lane === 'compare') { if (msg.id === app.st.compareId) app.compare?.error(msg.message); return; }
  if (msg.lane === 'decisions') {
    const w = decisionWaiters.get(msg.id);
    decisionWaiters.delete(msg.id);
    w?.reject(new Error(msg.message));
    return;
  }
  const run = settle(msg.id);
  if (!run) return;
  app.st.lastKey = null;
  app.hook.errors.push(msg.message);
  if (run.source && run.source !== app.st.goodSource) {
    // A bad trace: report it by line in the trace panel, go back to the workload on screen.
    app.traces.showError(msg.message);
    $('status-text').textContent = 'The trace could not be replayed; the previous result is still shown.';
    app.st.source = app.st.goodSource;
    app.refresh({ run: false });
    app.st.dirty = false;
    return;
  }
  const field = fieldOf(msg.message, app.st.params);
  if (field && app.st.fromUrl.has(field) && !app.hook.lastReport) {
    // A value from the link that the simulator rejects: fall back to what it is without the link's
    // value (the default, or the lesson's), say which, run again.
    const p = app.st.params.find((x) => x.name === field);
    app.st.config[field] = app.st.linkBase[field];
    showNotes([fallbackNote(p, `was rejected by the simulator: ${msg.message.replace(/\.$/, '')}`, app.st.config[field], app.st.defaults)]);
    app.st.fromUrl.delete(field);
    app.refresh();
    return;
  }
  // A rejected rate schedule or mixed fleet goes back to the run on screen's (or none), with the
  // settings it sets, so its readout and the controls it greys while in force follow the result
  // shown; the box keeps the text typed.
  const reverted = REVERTED.has(field);
  if (reverted) {
    const shown = app.hook.lastReport ? app.configOf(app.hook.lastReport.config) : null;
    app.st.config[field] = shown?.[field] ?? '';
    if (shown) for (const name of REVERTED.get(field)) app.st.config[name] = shown[name];
    app.refresh({ run: false });
    app.controls?.keepTyped(field, run.config?.[field]);
  }
  // Said at the field (the settings panel's, when built) and beside the hero's controls, on the
  // first screen; the result on screen, its figure and the address stay the last accepted run's.
  if (field) app.controls?.showError(field, msg.message);
  if (field) app.lessons?.showError(field, msg.message); // and under the open lesson's workbench control
  const p = app.st.params.find((x) => x.name === field);
  app.errBox().textContent = rejectedWords(msg.message, p, app.hook.lastReport);
  app.errBox().hidden = false;
  app.keepGoodLink();
  app.hero?.rejected();
  $('status-text').textContent = reverted
    ? revertedStatus(p, run.config, app.st.config)
    : rejectedStatus(p, run.config, !!app.hook.lastReport);
}

/**
 * Settings put back to the run on screen's when rejected, each with the settings it sets (put back
 * too): the rate schedule, which greys the rates it sets, and the mixed fleet, which sets the replicas
 * and the engine (greyed while one is in force).
 */
const REVERTED = new Map([
  ['request_rate_schedule', []],
  ['fleet', ['instances', 'engine', 'prefill_instances', 'decode_instances']],
]);

/** The status bar under a rejected setting put back: the value rejected, and the one in force. */
export function revertedStatus(p, rejected, config) {
  const kept = String(config[p.name] ?? '').trim();
  const now = kept ? `${p.label.toLowerCase()} ${formatValue(p, kept)} is still in force` : `no ${p.label.toLowerCase()} is in force`;
  return `${p.label} ${formatValue(p, rejected[p.name])} was rejected; ${now}, and the previous result is still shown.`;
}

/**
 * The status bar under a rejected run: the setting by name and the value it still holds (a rejected
 * value stays set, so every later change, of any setting, is rejected for it until it changes).
 */
export function rejectedStatus(p, config, shown) {
  const what = p && config && p.name in config
    ? `${p.label} ${formatValue(p, config[p.name])} was rejected (change it to run again)`
    : 'That setting was rejected';
  return shown ? `${what}; the previous result is still shown.` : `${what}.`;
}

// The module trapped (out of memory, a panic): say so in plain words, put the settings back to those
// of the result on screen, and replace the worker with a fresh one.
function onTrap(msg) {
  app.hook.errors.push(msg.message);
  app.hook.traps = (app.hook.traps || 0) + 1;
  app.st.inflight = null;
  app.st.dirty = false;
  app.st.lastKey = null;
  clearTimeout(app.st.progressTimer);
  showProgress(false);
  if (app.st.compareId) app.compare?.error('the simulator was restarted');
  app.st.source = app.st.goodSource;
  if (app.hook.lastReport) app.st.config = app.configOf(app.hook.lastReport.config);
  app.refresh({ run: false });
  app.errBox().textContent = `That run could not finish: ${msg.message}. ${app.hook.lastReport ? 'The previous result and its settings are back.' : ''}`;
  app.errBox().hidden = false;
  $('status-text').textContent = app.hook.lastReport
    ? 'That run could not finish; the previous result and its settings are back.'
    : 'That run could not finish. Change any setting to run again.';
  app.host.replace();
}

// The decision records of requests first..first+count-1 under the settings of the run on screen.
export function requestDecisions(first, count, shownConfig) {
  const config = { ...(shownConfig || app.hook.lastReport?.config || app.st.config) };
  const source = app.st.goodSource;
  return new Promise((resolve, reject) => {
    for (const w of decisionWaiters.values()) w.resolve(null); // a newer request supersedes
    decisionWaiters.clear();
    const id = app.st.nextId++;
    decisionWaiters.set(id, { resolve, reject, config });
    app.worker.postMessage({ type: 'decisions', id, config, trace: source, first, count });
  });
}

export function runCompare() {
  const maxInstances = app.st.params.find((p) => p.name === 'instances')?.max ?? 256;
  const routing = app.st.params.find((p) => p.name === 'routing');
  const plan = app.comparePlan(app.st.config, orderPolicies(routing?.choices || ['round_robin', 'random', 'prefix_aware', 'kv']), maxInstances);
  app.st.compareId = app.st.nextId++;
  app.st.comparePlan = { ...plan, policy: app.st.config.routing };
  app.compare.busy(true);
  app.worker.postMessage({ type: 'compare', id: app.st.compareId, configs: plan.configs, trace: app.st.source });
}