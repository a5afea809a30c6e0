// www/js/runs.js: the page's runs, main.js's conductor continued: coalesces runs (one per frame,
// newest wins; a short run in flight is waited for, a long one superseded), shows progress, and
// handles the worker's replies: results (rendered into every panel), errors (a bad trace, a link's
// rejected value, a control's), traps (the worker replaced), cancels; also the decision-record and
// comparison requests. The page's state and panels are main.js's (imported from it: the two are one
// module split for size; nothing here runs before main.js has loaded).

import { st, hook, worker, planWaiters, resolveReady, host, controls, charts, compare, comparePlan, traces, lessons,
  tasks, transfers, replicaTable, hero, embedView, decisions, fail, onReady, refresh, configOf, errBox, startLatePanels } from './main.js';
import { fallbackNote } from './url-state.js';
import { renderHeadline, renderFleetLines, renderFindings } from './headline.js';
import { orderPolicies } from './format.js';
import { mark } from './timeline.js';
import { showNotes, fieldOf } from './page-bits.js';
import { statusLine } from './status-bar.js';

const $ = (id) => document.getElementById(id);
const PROGRESS_AFTER_MS = 250;  // show the progress bar only for runs longer than this
const decisionWaiters = new Map();

// Idle: run at once (no frame of delay). Busy: coalesce into one run per frame; sendRun then waits for
// a short run in flight, or supersedes a long one.
export function scheduleRun() {
  if (!st.inflight && !st.raf) { sendRun(); return; }
  if (st.raf) return;
  st.raf = requestAnimationFrame(() => { st.raf = 0; sendRun(); });
}

/** What a run's result depends on: the settings and the workload's source. */
function runKey() {
  const f = st.source?.file;
  return JSON.stringify([st.config, st.source ? (st.source.url || `${st.source.name}:${f?.size}:${f?.lastModified}`) : null]);
}

export function sendRun() {
  // The same settings as the run sent last (in flight or on screen): nothing to do.
  const key = runKey();
  if (key === st.lastKey) { st.dirty = false; return; }
  // A short run in flight finishes soon: wait for it rather than queueing behind it. A long one
  // (a trace) is superseded in the worker at its next slice boundary.
  if (st.inflight && performance.now() - st.inflight.start < PROGRESS_AFTER_MS) { st.dirty = true; return; }
  st.dirty = false;
  const id = st.nextId++;
  st.lastKey = key;
  st.inflight = { id, start: performance.now(), source: st.source, config: { ...st.config }, refreshMs: st.refreshMs };
  worker.postMessage({ type: 'run', lane: 'main', id, config: st.config, trace: st.source });
  clearTimeout(st.progressTimer);
  st.progressTimer = setTimeout(() => showProgress(true), PROGRESS_AFTER_MS);
}

function settle(id) {
  if (!st.inflight || st.inflight.id !== id) return false;
  const run = st.inflight;
  st.inflight = null;
  clearTimeout(st.progressTimer);
  showProgress(false);
  if (st.dirty) sendRun();
  return run;
}

function showProgress(on, p) {
  $('progress-wrap').hidden = !on;
  $('results').classList.toggle('stale', on);
  if (on && p !== undefined) { $('progress').value = p; $('progress').textContent = `${Math.round(p * 100)}%`; }
  if (on && st.inflight) $('status-text').textContent = st.inflight.source ? `Replaying ${st.inflight.source.name}…` : 'Simulating…';
}

export function cancelRun() {
  if (!st.inflight) return;
  st.userCancel = st.inflight.id;
  st.dirty = false;
  st.lastKey = null;
  worker.postMessage({ type: 'cancel', lane: 'main' });
}

export function onWorker(msg) {
  switch (msg.type) {
    case 'ready': return onReady(msg);
    case 'fatal': return fail(`${msg.message}.\nThe page needs a browser with WebAssembly and the built files in www/pkg/ (run \`cargo xtask build\`, then \`cargo xtask serve\`).`);
    case 'progress':
      if (msg.lane === 'compare') { if (msg.id === st.compareId) compare?.progress(msg.p); return; }
      if (st.inflight && msg.id === st.inflight.id && performance.now() - st.inflight.start > PROGRESS_AFTER_MS) showProgress(true, msg.p);
      return;
    case 'result': hook.traceParses = msg.parses; return onResult(msg);
    case 'plan-result':
    case 'plan-error': {
      const w = planWaiters.get(msg.id);
      planWaiters.delete(msg.id);
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
      if (msg.lane === 'compare') { if (msg.id === st.compareId) compare?.cancelled(); return; }
      if (msg.lane === 'decisions') { const w = decisionWaiters.get(msg.id); decisionWaiters.delete(msg.id); w?.resolve(null); return; }
      if (settle(msg.id) && msg.id === st.userCancel) onCancelled();
      return;
    case 'compare-result':
      if (msg.id !== st.compareId) return;
      if (embedView) embedView.showCompare(msg.reports.map((r) => JSON.parse(r)));
      else compare.show(msg.reports.map((r) => JSON.parse(r)), st.comparePlan, st.comparePlan.policy, msg.ms);
      return;
    default:
  }
}

// After a cancel, the settings go back to those of the result on screen, so the two agree.
function onCancelled() {
  st.source = st.goodSource;
  if (hook.lastReport) {
    st.config = configOf(hook.lastReport.config);
  }
  refresh({ run: false });
  st.dirty = false;
  $('status-text').textContent = hook.lastReport
    ? 'Cancelled. The previous result and its settings are back.'
    : 'Cancelled. Change any setting to run again.';
}

function onResult(msg) {
  const got = performance.now();
  mark('firstResult', got);
  const run = settle(msg.id) || { source: st.source };
  if (msg.id <= st.shownId) return;
  st.shownId = msg.id;
  const report = JSON.parse(msg.report);
  st.goodSource = run.source;
  errBox().hidden = true;
  const parsed = performance.now();
  render(report, msg.ms);
  showUnended(report);
  // Where a run's time went: the settings' refresh before it was sent, from sending to its result
  // arriving (of which the worker's own time), reading the report, drawing it.
  hook.lastTimes = { refresh: run.refreshMs ?? 0, wait: run.start ? got - run.start : 0, worker: msg.ms, parse: parsed - got, draw: hook.lastRenderAt - parsed };
}

function render(report, runMs) {
  const t0 = performance.now();
  if (embedView) {
    embedView.render(report);
  } else {
    charts?.update(report); // canvases first, then the DOM text (no style recalc in between)
    hero.showRun(report);
    renderHeadline($('headline'), report);
    renderFleetLines($('fleet-lines'), report);
    renderFindings($('hotspot'), report);
    tasks.update(report);
    replicaTable.update(report);
    transfers?.update(report, st.goodSource ?? st.source);
    traces?.shown(st.goodSource, report);
    lessons.update(report);
    decisions?.followRun(report);
  }
  hook.lastReport = report;
  hook.lastRunMs = runMs;
  hook.runCount += 1;
  hook.lastRenderAt = performance.now();
  hook.lastDrawMs = hook.lastRenderAt - t0;
  $('status-text').textContent = statusLine(report, runMs);
  document.dispatchEvent(new CustomEvent('kvfleet:rendered', { detail: { runCount: hook.runCount } }));
  if (hook.runCount === 1) {
    hook.firstRenderAt = hook.lastRenderAt; // ms since navigation start: the cold load
    hero?.release();
    mark('firstRender', hook.firstRenderAt);
    resolveReady();
    if (!embedView) requestAnimationFrame(() => setTimeout(startLatePanels, 0)); // after the first chart is painted
  }
}

/**
 * A run in which some request did not end exactly once (a simulator bug: src/sim/ledger.rs) carries
 * `unended`, and its sentence is the report's first warning: shown as an error, over the result,
 * as the CLI prints it ("ERROR: ..."). The other warnings are the findings, shown as such.
 */
function showUnended(report) {
  if (!report.unended) return;
  errBox().textContent = `Simulator error: this run's numbers cannot be trusted. ${report.warnings[0]}`;
  errBox().hidden = false;
}

function onError(msg) {
  if (msg.trap) return onTrap(msg);
  if (msg.lane === 'compare') { if (msg.id === st.compareId) compare?.error(msg.message); return; }
  if (msg.lane === 'decisions') {
    const w = decisionWaiters.get(msg.id);
    decisionWaiters.delete(msg.id);
    w?.reject(new Error(msg.message));
    return;
  }
  const run = settle(msg.id);
  if (!run) return;
  st.lastKey = null;
  hook.errors.push(msg.message);
  if (run.source && run.source !== st.goodSource) {
    // A bad trace: report it by line in the trace panel, go back to the workload on screen.
    traces.showError(msg.message);
    $('status-text').textContent = 'The trace could not be replayed; the previous result is still shown.';
    st.source = st.goodSource;
    refresh({ run: false });
    st.dirty = false;
    return;
  }
  const field = fieldOf(msg.message, st.params);
  if (field && st.fromUrl.has(field) && !hook.lastReport) {
    // A value from the link that the simulator rejects: fall back to what it is without the link's
    // value (the default, or the lesson's), say which, run again.
    const p = st.params.find((x) => x.name === field);
    st.config[field] = st.linkBase[field];
    showNotes([fallbackNote(p, `was rejected by the simulator: ${msg.message.replace(/\.$/, '')}`, st.config[field], st.defaults)]);
    st.fromUrl.delete(field);
    refresh();
    return;
  }
  if (!(field && controls?.showError(field, msg.message))) {
    errBox().textContent = msg.message;
    errBox().hidden = false;
  }
  $('status-text').textContent = hook.lastReport ? 'That setting was rejected; the previous result is still shown.' : 'That setting was rejected.';
}

// The module trapped (out of memory, a panic): say so in plain words, put the settings back to those
// of the result on screen, and replace the worker with a fresh one.
function onTrap(msg) {
  hook.errors.push(msg.message);
  hook.traps = (hook.traps || 0) + 1;
  st.inflight = null;
  st.dirty = false;
  st.lastKey = null;
  clearTimeout(st.progressTimer);
  showProgress(false);
  if (st.compareId) compare?.error('the simulator was restarted');
  st.source = st.goodSource;
  if (hook.lastReport) st.config = configOf(hook.lastReport.config);
  refresh({ run: false });
  errBox().textContent = `That run could not finish: ${msg.message}. ${hook.lastReport ? 'The previous result and its settings are back.' : ''}`;
  errBox().hidden = false;
  host.replace();
}

// The decision records of requests first..first+count-1 under the settings of the run on screen.
export function requestDecisions(first, count, shownConfig) {
  const config = { ...(shownConfig || hook.lastReport?.config || st.config) };
  const source = st.goodSource;
  return new Promise((resolve, reject) => {
    for (const w of decisionWaiters.values()) w.resolve(null); // a newer request supersedes
    decisionWaiters.clear();
    const id = st.nextId++;
    decisionWaiters.set(id, { resolve, reject, config });
    worker.postMessage({ type: 'decisions', id, config, trace: source, first, count });
  });
}

export function runCompare() {
  const maxInstances = st.params.find((p) => p.name === 'instances')?.max ?? 256;
  const routing = st.params.find((p) => p.name === 'routing');
  const plan = comparePlan(st.config, orderPolicies(routing?.choices || ['round_robin', 'random', 'prefix_aware', 'kv']), maxInstances);
  st.compareId = st.nextId++;
  st.comparePlan = { ...plan, policy: st.config.routing };
  compare.busy(true);
  worker.postMessage({ type: 'compare', id: st.compareId, configs: plan.configs, trace: st.source });
}