// www/js/main.js: the page's conductor. Boots the worker, builds controls from the simulator's specs,
// keeps config <-> URL <-> controls in step, coalesces runs (one per frame, newest wins) and renders.

import { fitPools } from './layout.js';
import { Controls, REPLICA_MARKS } from './controls.js';
import { readUrl, writeUrl, flushUrl, urlPending, queryFor, fallbackNote } from './url-state.js';
import { Charts, applyChartDefaults } from './charts.js';
import { renderHeadline, renderFleetLines, renderFindings } from './headline.js';
import { orderPolicies, resetTheme, num } from './format.js';
import { Traces, BUILTIN, builtin } from './traces.js';
import { renderScenarios } from './scenarios.js';
import { Lessons } from './lessons.js';
import { Tasks } from './tasks.js';
import { ReplicaTable } from './replicas.js';
import { HeroPanel } from './hero-panel.js';
import { HeroChart, HeroShare } from './hero.js';
import { WorkerHost } from './worker-host.js';
import { EmbedView, embedOptions } from './embed.js';
import { marks, mark, markEpochs } from './timeline.js';
import { bringIntoView, showNotes, fieldOf, share } from './page-bits.js';
import { lazyDraw } from './lazy-draw.js';
import { buildLatePanels } from './late-panels.js';

const $ = (id) => document.getElementById(id);
const PROGRESS_AFTER_MS = 250;  // show the progress bar only for runs longer than this
const OPENING_ROUTING = 'round_robin';
const LATE_PANELS_AFTER_MS = 2000; // build the panels below the first screen by then even without a first chart

let resolveReady, rejectReady;
const hook = {
  ready: new Promise((res, rej) => { resolveReady = res; rejectReady = rej; }),
  lastReport: null, runCount: 0, lastRenderAt: 0, firstRenderAt: 0, lastRunMs: 0, config: null, version: null, errors: [],
  marks, lastTimes: null, // the cold load's steps (timeline.js); the last run's {refresh, wait, worker, parse, draw} ms
  lazyPending: () => lazyDraw.pending.size, // charts off the screen still waiting to be drawn (lazy-draw.js)
};
hook.ready.catch(() => {});
window.kvfleet = hook;

const st = {
  params: [], defaults: {}, config: {}, fromUrl: new Set(), embed: false,
  linkBase: {},      // what a setting the link gives is otherwise: the default, or the lesson's setup
  source: null,      // null = synthetic, else a trace {name, url|file}
  goodSource: null,  // the source of the result on screen
  nextId: 1, shownId: 0, inflight: null, dirty: false, raf: 0, userCancel: 0, progressTimer: 0,
  compareId: 0, lastKey: null, refreshMs: 0, // lastKey: the settings of the last run sent (null after a failure)
};
let early = null; // the full page's charts, made while the simulator boots (they need no settings)
let host, controls, charts, compare, capacity, traces, lessons, sweep, tasks, transfers, replicaTable, hero, embedView, decisions;
let comparePlan = null; // compare.js's planner, once the late panels are loaded
let late = null;        // the late panels' build (a promise), once started
const worker = { postMessage: (m) => host.post(m) };
const planWaiters = new Map();
const decisionWaiters = new Map();

// ---------------------------------------------------------------- boot

function fail(reason) {
  const box = $('boot');
  box.classList.add('failed');
  box.setAttribute('role', 'alert');
  $('boot-text').textContent = `The simulator could not start: ${reason}`;
  $('status-text').textContent = 'Simulator unavailable.';
  $('version').textContent = 'unavailable';
  document.body.classList.add('failed');
  rejectReady(new Error(reason));
}

function boot() {
  const q = new URLSearchParams(location.search);
  st.embed = q.get('embed') === '1' || q.get('embed') === 'true';
  document.body.classList.toggle('embed', st.embed);
  if (typeof WebAssembly !== 'object') return fail('this browser has WebAssembly turned off or does not support it. Try a current Chrome, Firefox, Safari or Edge, with WebAssembly enabled.');
  if (location.protocol === 'file:') return fail('the page was opened as a file. Browsers only run its WebAssembly worker over http: run `cargo xtask serve` and open the URL it prints.');
  if (!window.Chart) return fail('the charting library (vendor/chart.umd.js) did not load. Run `cargo xtask build`, which copies it into www/vendor/.');
  try {
    host = new WorkerHost(new URL('./worker.js', import.meta.url), {
      onMessage: onWorker,
      onReady: (msg) => { if (!hook.version) onReady(msg); else onReplaced(); },
      onFatal: (m) => onWorker({ type: 'fatal', message: m }),
      adopt: true,
    });
  } catch (err) {
    return fail(`this browser cannot start a module Web Worker (${err.message}).`);
  }
  hook.debugTrap = () => host.post({ type: 'debug-trap' });
  hook.workerReplacements = () => host.replacements;
  hook.drawAllCharts = () => lazyDraw.flush(); // the charts off the screen too (a full-page screenshot)
  hook.urlPending = urlPending; // the address bar catches up once the settings are still (url-state.js)
  // The hero's two charts in a task of their own: the main thread must also start boot.js's worker
  // (a task of its own once the worker's script is in), which should not wait behind Chart.js.
  if (!st.embed) setTimeout(() => { early ||= earlyCharts(); }, 0);
  if (!st.embed) document.addEventListener('kvfleet:hero-done', () => mark('heroDone'), { once: true });
  const slow = setTimeout(() => { $('boot-text').textContent = 'Still loading the simulator (WebAssembly)… a slow connection, or a very old browser.'; }, 8000);
  hook.ready.finally(() => clearTimeout(slow)).catch(() => {});
}

function earlyCharts() {
  applyChartDefaults();
  return {
    hero: new HeroChart($('chart-hero'), { onPick: (n) => onControl('instances', n) }),
    share: new HeroShare($('chart-hero-share')),
  };
}

function onReady(msg) {
  mark('ready');
  markEpochs(msg.marks);
  hook.version = msg.version;
  $('version').textContent = msg.version;
  st.params = msg.params;
  hook.params = msg.params;
  st.defaults = { ...msg.defaults };
  for (const p of st.params) if (!(p.name in st.defaults)) st.defaults[p.name] = p.default;
  const fromUrl = readUrl(location.search, st.params, st.defaults);
  st.config = fromUrl.config;
  st.fromUrl = fromUrl.fromUrl;
  st.linkBase = { ...st.defaults };
  if (fromUrl.trace) st.source = builtin(fromUrl.trace);
  // A bare link opens on the experiment the page is about: round robin losing hits as replicas grow.
  // (Every other value is the simulator's default, the seed's example; ?routing=kv reproduces it.)
  // A link that names any setting, even one dropped below, is the defaults plus its own values.
  if (!st.embed && fromUrl.named.size === 0 && !fromUrl.trace && !fromUrl.lesson) st.config.routing = OPENING_ROUTING;
  const lesson = openLesson(msg.lessons || [], fromUrl.lesson);
  // Each dropped value's note names what the page now runs with (settled above, a lesson's included).
  showNotes([...fromUrl.notes, ...fromUrl.rejected.map(({ p, error }) => fallbackNote(p, `was not valid: ${error}`, st.config[p.name], st.defaults))]);
  // The first run computes in the worker while the page builds its controls and charts.
  sendRun();
  mark('firstRunSent');
  applyChartDefaults();
  if (st.embed) initEmbed(msg, lesson); else initFull(msg, lesson);
  window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', retheme);
  $('share').addEventListener('click', () => { flushUrl(); share($('share'), st.source); });
  $('boot').hidden = true;
  refresh();
  mark('pageBuilt');
}

// A lesson link opens the lesson's broken setup; values the link also gives win over it.
function openLesson(list, id) {
  if (!id) return null;
  const lesson = list.find((l) => l.id === id);
  if (!lesson) { showNotes([`The link names a lesson the page does not have (“${id}”).`]); return null; }
  const own = {};
  for (const k of st.fromUrl) own[k] = st.config[k];
  st.linkBase = { ...st.defaults, ...lesson.broken };
  st.config = { ...st.linkBase, ...own };
  if (lesson.trace) st.source = builtin(lesson.trace);
  // (st.fromUrl keeps the link's own values: one the simulator rejects falls back to the lesson's.)
  return lesson;
}

function initEmbed(msg, lesson) {
  const opts = embedOptions(location.search, st.params, lesson);
  showNotes(opts.notes);
  embedView = new EmbedView(document.body, st.params, opts, {
    onControl, onPick: (n) => onControl('instances', n),
    workerUrl: new URL('./worker.js', import.meta.url),
    fullUrl: () => `./?${queryFor(st.config, st.params, { trace: st.source?.builtin ? st.source.name : null, lesson: lesson?.id ?? null })}`,
    compare: (configs) => { st.compareId = st.nextId++; worker.postMessage({ type: 'compare', id: st.compareId, configs, trace: st.source }); },
    lesson: lesson ? { lesson, params: st.params, fix: (changes) => { Object.assign(st.config, changes); refresh(); },
      restart: () => { st.config = { ...st.defaults, ...lesson.broken }; st.source = lesson.trace ? builtin(lesson.trace) : null; refresh(); } } : null,
  });
  controls = embedView.controls;
  hook.panelsBuilt = true; // an embed has no panels to build later
}

function initFull(msg, lesson) {
  early ||= earlyCharts(); // the simulator was ready before their task ran
  hero = new HeroPanel({
    chart: early.hero, shareChart: early.share, controls: $('hero-controls'), numbers: $('hero-numbers'), lead: $('takeaway'),
    detail: $('takeaway-detail'), why: $('why-rates'), findings: $('hero-findings'), caption: $('hero-caption'),
  }, st.params, { onControl, onPick: (n) => onControl('instances', n) }, { workerUrl: new URL('./worker.js', import.meta.url), hold: true });
  // Built here, not in index.html: the Tasks panel (sessions runs only) under the headline, the
  // per-replica table under the charts.
  tasks = new Tasks();
  $('fleet-lines').before(tasks.el);
  replicaTable = new ReplicaTable();
  document.querySelector('#results .charts').after(replicaTable.el);
  // The dashboard's controls (2,000 px down) are built with the late panels, after the first chart.
  traces = new Traces({ root: document.querySelector('.traces'), file: $('trace-file'), drop: $('drop'), error: $('trace-error') }, onTrace);
  renderScenarios($('scenarios'), $('scenario-note'), (set) => { lessons.close(); applyScenario(set); bringIntoView($('hero')); });
  lessons = new Lessons({ picks: $('lesson-picks'), picksWrap: $('lesson-picks-wrap'), panel: $('lesson'), index: $('course-index'), indexSummary: $('course-summary') }, {
    start: (broken, trace) => { applyScenario(broken, trace); bringIntoView($('lesson')); },
    fix: (changes) => { Object.assign(st.config, changes); for (const k of Object.keys(changes)) st.fromUrl.delete(k); refresh(); },
    stop: () => refresh(),
  }, new URL('./worker.js', import.meta.url), { progressLater: true });
  lessons.setParams(st.params);
  lessons.setLessons(msg.lessons || []);
  hook.lessons = (msg.lessons || []).map((l) => l.id);
  hook.lessonsList = msg.lessons || [];
  if (lesson) lessons.start(lesson.id, { loadConfig: false });
  $('source-reset').addEventListener('click', () => { st.source = null; refresh(); });
  $('cancel').addEventListener('click', cancelRun);
  st.readyMsg = msg;
  setTimeout(startLatePanels, LATE_PANELS_AFTER_MS); // a first run that fails still gets them
}

// The panels below the first screen: loaded and built once the first chart is on the screen (the
// frame after it), then brought up to the run on screen. window.kvfleet.panelsBuilt says they are.
function startLatePanels() {
  if (late || embedView) return;
  hero.release(); // (here too for a first run that failed)
  const msg = st.readyMsg;
  controls = new Controls($('controls'), st.params, onControl, { marks: { instances: REPLICA_MARKS, prefill_instances: REPLICA_MARKS, decode_instances: REPLICA_MARKS } });
  controls.setAll(st.config, traceLabel());
  mark('controlsBuilt');
  lessons.loadProgress(); // which lessons this browser completed (the first localStorage read is slow)
  // The dashboard's five charts, 2,000 px down: made while the simulator booted (Chart.js's code
  // still cold), they held up the page's handling of its `ready` message.
  charts = new Charts({ hit: 'chart-hit', load: 'chart-load', latency: 'chart-latency', queue: 'chart-queue', cache: 'chart-cache' });
  if (hook.lastReport) charts.update(hook.lastReport);
  late = buildLatePanels({
    before: replicaTable.el, runCompare, loadConfig, requestDecisions,
    plan: (config, spec) => new Promise((resolve, reject) => {
      const id = st.nextId++;
      planWaiters.set(id, { resolve, reject });
      worker.postMessage({ type: 'plan', id, config, spec });
    }),
    state: () => ({ config: { ...st.config }, params: st.params, source: st.source }),
    capacityState: () => ({ config: { ...st.config }, source: st.source, presets: msg.presets || [],
      policies: st.params.find((p) => p.name === 'routing')?.choices || ['round_robin', 'kv'] }),
  }).then((p) => {
    ({ compare, capacity, sweep, decisions, transfers } = p);
    comparePlan = p.comparePlan;
    sweep.setParams(st.params, st.config);
    if (hook.lastReport) {
      transfers.update(hook.lastReport, st.goodSource ?? st.source);
      decisions.followRun(hook.lastReport);
    }
    // The comparison runs once, when a reader first scrolls to it (the hero already runs a sweep).
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting) && hook.runCount > 0) { io.disconnect(); if (!compare.last) runCompare(); }
    });
    io.observe($('compare-h'));
    hook.panelsBuilt = true;
    mark('panelsBuilt');
  }).catch((err) => { hook.errors.push(`late panels: ${err.message}`); console.error(err); });
}

/** Where run errors are shown: beside the hero's controls, or in the embed's frame. */
function errBox() { return embedView ? embedView.errorEl : $('run-error'); }

// A fresh worker replaced one that trapped: say so; the result on screen stays.
function onReplaced() {
  $('status-text').textContent = hook.lastReport
    ? 'The simulator was restarted after an error; the previous result is still shown.'
    : 'The simulator was restarted after an error.';
}

// ---------------------------------------------------------------- state changes

function onControl(name, value) {
  if (!embedView) $('scenario-note').hidden = true; // a scenario's note is about the scenario only
  const before = st.config;
  st.config = fitPools(st.config, name, value);
  for (const k of Object.keys(st.config)) if (st.config[k] !== before[k]) st.fromUrl.delete(k);
  refresh();
}

function refresh({ run = true } = {}) {
  const t0 = performance.now();
  hook.config = st.config;
  controls?.clearErrors(); // (the dashboard's controls exist once the late panels started)
  // Cheap: puts every control at the config, and keeps visibility rules and readouts in step.
  controls?.setAll(st.config, traceLabel());
  const traceKey = st.source && st.source.builtin ? st.source.name : null;
  if (embedView) {
    writeUrl(st.config, st.params, { embed: true, trace: traceKey, extra: embedView.urlExtra() });
    embedView.sync(st.config, st.source);
  } else {
    const synthetic = st.config.workload === 'sessions' ? 'multi-turn sessions' : 'synthetic prefix pool';
    $('source-name').textContent = st.source ? `trace: ${traceLabel()}` : synthetic;
    $('source-reset').hidden = !st.source;
    writeUrl(st.config, st.params, { trace: traceKey, lesson: lessons.active?.id });
    compare?.markStale();
    hero.sync(st.config, st.source);
  }
  lazyDraw.postpone(); // a redraw is on its way: the charts off the screen wait for it
  st.refreshMs = performance.now() - t0;
  if (run) scheduleRun();
}

/** The trace being replayed, in words (false for the synthetic workload): the controls show it. */
function traceLabel() {
  return st.source ? BUILTIN[st.source.name] || st.source.name : false;
}

// A clicked sweep point: its whole configuration into the controls and URL, then run it.
function loadConfig(config) {
  st.config = configOf(config);
  for (const p of st.params) st.fromUrl.delete(p.name);
  refresh();
}

// A report's (or a sweep point's) config as page state: the simulator leaves out the keys of a
// disaggregated fleet when they hold their defaults, so a missing key is its default.
function configOf(config) {
  const out = { ...st.config };
  for (const p of st.params) out[p.name] = p.name in config ? config[p.name] : st.defaults[p.name];
  return out;
}

// A scenario's or a lesson's setup; a lesson on a built-in trace (file name) replays it.
function applyScenario(set, trace = null) {
  st.config = { ...st.defaults, ...set };
  st.fromUrl.clear();
  st.source = trace ? builtin(trace) : null;
  refresh();
}

function onTrace(trace) {
  st.source = trace;
  refresh();
}

// ---------------------------------------------------------------- runs

// Idle: run at once (no frame of delay). Busy: coalesce into one run per frame; sendRun then waits for
// a short run in flight, or supersedes a long one.
function scheduleRun() {
  if (!st.inflight && !st.raf) { sendRun(); return; }
  if (st.raf) return;
  st.raf = requestAnimationFrame(() => { st.raf = 0; sendRun(); });
}

/** What a run's result depends on: the settings and the workload's source. */
function runKey() {
  const f = st.source?.file;
  return JSON.stringify([st.config, st.source ? (st.source.url || `${st.source.name}:${f?.size}:${f?.lastModified}`) : null]);
}

function sendRun() {
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

function cancelRun() {
  if (!st.inflight) return;
  st.userCancel = st.inflight.id;
  st.dirty = false;
  st.lastKey = null;
  worker.postMessage({ type: 'cancel', lane: 'main' });
}

function onWorker(msg) {
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
  // Where a run's time went: the settings' refresh before it was sent, from sending to its result
  // arriving (of which the worker's own time), reading the report, drawing it.
  hook.lastTimes = { refresh: run.refreshMs ?? 0, wait: run.start ? got - run.start : 0, worker: msg.ms, parse: parsed - got, draw: hook.lastRenderAt - parsed };
}

function render(report, runMs) {
  const t0 = performance.now();
  const s = report.summary || {};
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
  const src = report.source && report.source !== 'synthetic' ? ` · ${report.source}` : '';
  $('status-text').textContent = `${num(s.requests)} requests on ${(report.per_instance || []).length} replica(s), routing=${report.config?.routing} · seed ${report.seed}${src} · simulated in ${Math.round(runMs)} ms`;
  document.dispatchEvent(new CustomEvent('kvfleet:rendered', { detail: { runCount: hook.runCount } }));
  if (hook.runCount === 1) {
    hook.firstRenderAt = hook.lastRenderAt; // ms since navigation start: the cold load
    hero?.release();
    mark('firstRender', hook.firstRenderAt);
    resolveReady();
    if (!embedView) requestAnimationFrame(() => setTimeout(startLatePanels, 0)); // after the first chart is painted
  }
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
function requestDecisions(first, count, shownConfig) {
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

function runCompare() {
  const maxInstances = st.params.find((p) => p.name === 'instances')?.max ?? 256;
  const routing = st.params.find((p) => p.name === 'routing');
  const plan = comparePlan(st.config, orderPolicies(routing?.choices || ['round_robin', 'random', 'prefix_aware', 'kv']), maxInstances);
  st.compareId = st.nextId++;
  st.comparePlan = { ...plan, policy: st.config.routing };
  compare.busy(true);
  worker.postMessage({ type: 'compare', id: st.compareId, configs: plan.configs, trace: st.source });
}

// ---------------------------------------------------------------- misc

function retheme() {
  resetTheme();
  applyChartDefaults();
  if (embedView) { embedView.retheme(); return; }
  hero.retheme();
  if (charts) {
    charts.destroy();
    charts.create();
    if (hook.lastReport) charts.update(hook.lastReport);
  }
  tasks.retheme();
  transfers?.retheme();
  if (hook.lastReport) replicaTable.update(hook.lastReport);
  compare?.retheme();
  capacity?.retheme();
  sweep?.retheme();
}

boot();
