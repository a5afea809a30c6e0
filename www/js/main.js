// www/js/main.js: the page's conductor. Boots the worker, builds controls from the simulator's specs,
// keeps config <-> URL <-> controls in step; runs.js coalesces the runs (one per frame, newest wins)
// and renders them.

import { fitPools, withFleet } from './layout.js';
import { fleetEngine, hasFleet, layoutNote, showLayoutNote } from './fleet-words.js';
import { Controls } from './controls.js';
import { readUrl, writeUrl, flushUrl, urlPending, queryFor, fallbackNote, pageDefaults } from './url-state.js';
import { Charts, applyChartDefaults } from './charts.js';
import { TimeSeries } from './timeseries.js';
import { resetTheme, orderPolicies } from './format.js';
import { Traces, BUILTIN, builtin } from './traces.js';
import { renderScenarios } from './scenarios.js';
import { Lessons } from './lessons.js';
import { Tasks } from './tasks.js';
import { ReplicaTable } from './replicas.js';
import { HeroPanel } from './hero-panel.js';
import { HeroChart } from './hero.js';
import { HeroMini, SHARE_METRIC, TTFT_METRIC } from './hero-share.js';
import { HeroReplicas } from './hero-replicas.js';
import { WorkerHost } from './worker-host.js';
import { EmbedView, embedOptions } from './embed.js';
import { presetBase } from './embed-sweep-opts.js';
import { marks, mark, markEpochs } from './timeline.js';
import { bringIntoView, showNotes, share } from './page-bits.js';
import { heldForPress } from './press.js';
import { lazyDraw } from './lazy-draw.js';
import { buildLatePanels } from './late-panels.js';
import { onWorker, sendRun, scheduleRun, cancelRun, requestDecisions, runCompare, connect } from './runs.js';
import { watchStatusHeight } from './status-bar.js';
import { watchTermClicks } from './terms.js';
import { POLY_PARAMS } from './poly-params.js';

const $ = (id) => document.getElementById(id);
const LATE_PANELS_AFTER_MS = 2000; // build the panels below the first screen by then even without a first chart
const PLAN_MIX = new URLSearchParams(location.search).get('plan_mix'); // the planner's mix, kept in the address until it is built

let resolveReady, rejectReady;
const hook = {
  ready: new Promise((res, rej) => { resolveReady = res; rejectReady = rej; }),
  lastReport: null, runCount: 0, lastRenderAt: 0, firstRenderAt: 0, lastRunMs: 0, config: null, version: null, errors: [],
  marks, lastTimes: null, // the cold load's steps (timeline.js); the last run's {refresh, wait, worker, parse, draw} ms
  lazyPending: () => lazyDraw.pending.size, // charts off the screen still waiting to be drawn (lazy-draw.js)
  lazyInView: (el) => lazyDraw.isInView(el), // whether the page, from its observers' last report, counts a canvas in view
};
hook.ready.catch(() => {});
window.kvfleet = hook;

const st = {
  params: [], config: {}, fromUrl: new Set(), embed: false,
  simDefaults: {},   // the simulator's defaults (a lesson's setup is on top of them)
  defaults: {},      // the page's: the simulator's with the page's routing (url-state.js PAGE_ROUTING)
  lesson: null,      // the embed's lesson (the full page's is lessons.active)
  linkBase: {},      // what a setting the link gives is otherwise: the default, or the lesson's setup
  source: null,      // null = synthetic, else a trace {name, url|file}
  goodSource: null,  // the source of the result on screen
  nextId: 1, shownId: 0, inflight: null, dirty: false, raf: 0, userCancel: 0, progressTimer: 0,
  compareId: 0, lastKey: null, refreshMs: 0, // lastKey: the settings of the last run sent (null after a failure)
  engineBeforeFleet: null, // the Engine in force when a mixed fleet was set, given back when it is cleared
  fleetLaid: null,         // {text, fleet}: the Replicas slider's note after it laid a mixed fleet out again
};
let early = null; // the full page's charts, made while the simulator boots (they need no settings)
let timeSeries = null; // the load-over-time card (a rate schedule's runs), made with the charts
let host, controls, charts, compare, capacity, calibrate, traces, lessons, sweep, tasks, transfers, replicaTable, hero, embedView, decisions;
let comparePlan = null; // compare.js's planner, once the late panels are loaded
let late = null;        // the late panels' build (a promise), once started
const worker = { postMessage: (m) => host.post(m) };
const planWaiters = new Map();
// Shared with runs.js, which sends the runs and handles the worker's replies (getters: the
// panels are made at boot).
connect({ st, hook, worker, planWaiters, fail, onReady, refresh, configOf, errBox, startLatePanels, keepGoodLink,
  get resolveReady() { return resolveReady; }, get host() { return host; },
  get controls() { return controls; }, get charts() { return charts; }, get timeSeries() { return timeSeries; },
  get compare() { return compare; }, get comparePlan() { return comparePlan; }, get capacity() { return capacity; },
  get traces() { return traces; }, get lessons() { return lessons; },
  get tasks() { return tasks; }, get transfers() { return transfers; },
  get replicaTable() { return replicaTable; }, get hero() { return hero; },
  get embedView() { return embedView; }, get decisions() { return decisions; } });


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
  hook.workerStart = () => ({ viaBlob: host.viaBlob, fallbacks: host.fallbacks }); // how the worker was started (worker-host.js)
  hook.drawAllCharts = () => lazyDraw.flush(); // the charts off the screen too (a full-page screenshot)
  hook.heldForPress = heldForPress; // worker messages waiting for a press's release (press.js)
  hook.urlPending = urlPending; // the address bar catches up once the settings are still (url-state.js)
  // The hero's two charts in a task of their own: the main thread must also start the worker that
  // index.html's first script created (a task of its own once the worker's script is in), which
  // should not wait behind Chart.js.
  if (!st.embed) setTimeout(() => { early ||= earlyCharts(); }, 0);
  if (!st.embed) document.addEventListener('kvfleet:hero-done', () => mark('heroDone'), { once: true });
  const slow = setTimeout(() => { $('boot-text').textContent = 'Still loading the simulator (WebAssembly)… a slow connection, or a very old browser.'; }, 8000);
  hook.ready.finally(() => clearTimeout(slow)).catch(() => {});
}

function earlyCharts() {
  applyChartDefaults();
  return {
    hero: new HeroChart($('chart-hero'), { onPick: (n) => onControl('instances', n) }),
    minis: [new HeroMini($('chart-hero-share'), SHARE_METRIC), new HeroMini($('chart-hero-ttft'), TTFT_METRIC)],
    replicas: new HeroReplicas($('chart-hero-reps'), $('hero-reps-head')),
  };
}

function onReady(msg) {
  mark('ready');
  markEpochs(msg.marks);
  hook.version = msg.version;
  $('version').textContent = msg.version;
  st.params = [...msg.params, ...POLY_PARAMS]; // (the polynomial phases: described by the page)
  hook.params = st.params;
  st.simDefaults = { ...msg.defaults };
  for (const p of st.params) if (!(p.name in st.simDefaults)) st.simDefaults[p.name] = p.default;
  // A link is the page's defaults plus its own values: a bare link opens on the experiment the page
  // is about (round robin losing hits as replicas grow), and so does any link or embed that names no
  // routing; ?routing=kv is the simulator's default, the seed's example.
  st.defaults = pageDefaults(st.simDefaults);
  const fromUrl = readUrl(location.search, st.params, st.defaults);
  st.config = fromUrl.config;
  st.fromUrl = fromUrl.fromUrl;
  st.linkBase = { ...st.defaults };
  if (fromUrl.trace) st.source = builtin(fromUrl.trace);
  const lesson = openLesson(msg.lessons || [], fromUrl.lesson);
  // A link's mixed fleet replaces its Engine, which clearing the fleet gives back.
  if (hasFleet(st.config)) st.engineBeforeFleet = st.config.engine;
  st.config = withFleet(st.config, enginePresets());
  // Each dropped value's note names what the page now runs with (settled above, a lesson's included).
  showNotes([...fromUrl.notes, ...fromUrl.rejected.map(({ p, error }) => fallbackNote(p, `was not valid: ${error}`, st.config[p.name], st.defaults))]);
  // The first run computes in the worker while the page builds its controls and charts.
  sendRun();
  mark('firstRunSent');
  applyChartDefaults();
  if (st.embed) initEmbed(msg, lesson); else initFull(msg, lesson);
  window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', retheme);
  $('share').addEventListener('click', () => { flushUrl(); share($('share'), st.source); });
  $('planner-link').addEventListener('click', (e) => { e.preventDefault(); $('capacity').scrollIntoView({ block: 'start' }); $('capacity').focus({ preventScroll: true }); });
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
  st.linkBase = lessonBase(lesson);
  st.config = { ...st.linkBase, ...own };
  if (lesson.trace) st.source = builtin(lesson.trace);
  // (st.fromUrl keeps the link's own values: one the simulator rejects falls back to the lesson's.)
  return lesson;
}

function initEmbed(msg, lesson) {
  st.lesson = lesson;
  const opts = embedOptions(location.search, st.params, lesson);
  showNotes(opts.notes);
  // A sweep preset's workload (the P:D split's 8 replicas at 24 req/s), under the address's own values.
  const fill = (base) => { for (const [k, v] of Object.entries(base)) if (!st.fromUrl.has(k)) st.config[k] = v; };
  if (opts.sweep?.preset) fill(presetBase(opts.sweep.preset));
  embedView = new EmbedView(document.body, st.params, opts, {
    onControl, onPick: (n) => onControl('instances', n),
    workerUrl: new URL('./worker.js', import.meta.url),
    fullUrl: () => {
      const q = queryFor(st.config, st.params, { base: linkBase(), trace: st.source?.builtin ? st.source.name : null, lesson: lesson?.id ?? null });
      return q ? `./?${q}` : './';
    },
    compare: (configs) => { st.compareId = st.nextId++; worker.postMessage({ type: 'compare', id: st.compareId, configs, trace: st.source }); },
    plan: planSweep,
    state: () => ({ config: { ...st.config }, params: st.params, source: st.source }),
    note: (text) => showNotes([text]),
    fallback: (base) => { fill(base); refresh(); },
    lesson: lesson ? { lesson, params: st.params, fix: (changes) => { Object.assign(st.config, changes); refresh(); },
      restart: () => { st.config = lessonBase(lesson); st.source = lesson.trace ? builtin(lesson.trace) : null; refresh(); } } : null,
  });
  controls = embedView.controls;
  hook.panelsBuilt = true; // an embed has no panels to build later
}

function initFull(msg, lesson) {
  early ||= earlyCharts(); // the simulator was ready before their task ran
  hero = new HeroPanel({
    chart: early.hero, minis: early.minis, replicas: early.replicas, controls: $('hero-controls'), numbers: $('hero-numbers'), lead: $('takeaway'),
    detail: $('takeaway-detail'), workload: $('workload'), why: $('why-rates'), findings: $('hero-findings'), caption: $('hero-caption'),
  }, st.params, { onControl, onPick: (n) => onControl('instances', n) }, { workerUrl: new URL('./worker.js', import.meta.url), hold: true, band: true });
  if (lesson) hero.startAfresh(lessonFix(lesson)); // a lesson's link: its fix drawn beside the setup
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
    start: (broken, trace) => { applyScenario(broken, trace, lessonFix(lessons.active)); bringIntoView($('lesson')); },
    fix: (changes) => { Object.assign(st.config, changes); for (const k of Object.keys(changes)) st.fromUrl.delete(k); refresh(); },
    stop: () => { hideScenarioNote(); refresh(); },
    control: onControl, // the lesson's own controls, beside its goal's checks
  }, new URL('./worker.js', import.meta.url), { progressLater: true });
  lessons.setParams(st.params);
  lessons.setDefaults(st.simDefaults);
  lessons.setLessons(msg.lessons || []);
  hook.lessons = (msg.lessons || []).map((l) => l.id);
  hook.lessonsList = msg.lessons || [];
  if (lesson) lessons.start(lesson.id, { loadConfig: false });
  $('source-reset').addEventListener('click', () => { st.source = null; refresh(); });
  $('cancel').addEventListener('click', cancelRun);
  watchStatusHeight();
  watchTermClicks();
  st.readyMsg = msg;
  setTimeout(startLatePanels, LATE_PANELS_AFTER_MS); // a first run that fails still gets them
}

// The panels below the first screen: loaded and built once the first chart is on the screen (the
// frame after it), then brought up to the run on screen. window.kvfleet.panelsBuilt says they are.
function startLatePanels() {
  if (late || embedView) return;
  hero.release(); // (here too for a first run that failed)
  const msg = st.readyMsg;
  controls = new Controls($('controls'), st.params, onControl);
  controls.setAll(st.config, traceLabel());
  mark('controlsBuilt');
  lessons.loadProgress(); // which lessons this browser completed (the first localStorage read is slow)
  // The dashboard's five charts, 2,000 px down: made while the simulator booted (Chart.js's code
  // still cold), they held up the page's handling of its `ready` message.
  charts = new Charts({ hit: 'chart-hit', load: 'chart-load', latency: 'chart-latency', queue: 'chart-queue', cache: 'chart-cache' });
  timeSeries = new TimeSeries($('timeseries'), st.simDefaults);
  if (hook.lastReport) { charts.update(hook.lastReport); timeSeries.update(hook.lastReport); }
  late = buildLatePanels({
    before: replicaTable.el, runCompare, loadConfig, requestDecisions,
    plan: planSweep,
    state: () => ({ config: { ...st.config }, params: st.params, source: st.source }),
    planMix: PLAN_MIX, onPlanMix: () => writeLink(st.config),
    capacityState: () => ({ config: { ...st.config }, source: st.source, presets: msg.presets || [],
      policies: st.params.find((p) => p.name === 'routing')?.choices || ['round_robin', 'kv'] }),
  }).then((p) => {
    ({ compare, capacity, calibrate, sweep, decisions, transfers } = p);
    comparePlan = p.comparePlan;
    sweep.setParams(st.params, st.config);
    if (hook.lastReport) {
      transfers.update(hook.lastReport, st.goodSource ?? st.source);
      decisions.followRun(hook.lastReport);
    }
    // The comparison runs once, when a reader first scrolls to it (the hero already runs a sweep);
    // until then its space is held, so its filling moves nothing below it.
    compare.reserve(orderPolicies(st.params.find((p) => p.name === 'routing')?.choices || ['round_robin', 'kv']));
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting) && hook.runCount > 0) { io.disconnect(); if (!compare.last) runCompare(); }
    });
    io.observe($('compare-h').closest('section')); // (any of it: the held space is taller than a screen)
    hook.panelsBuilt = true;
    mark('panelsBuilt');
  }).catch((err) => { hook.errors.push(`late panels: ${err.message}`); console.error(err); });
}

/** The simulator's plan of a sweep spec at `config` (the main worker): {param, points}. */
function planSweep(config, spec) {
  return new Promise((resolve, reject) => {
    const id = st.nextId++;
    planWaiters.set(id, { resolve, reject });
    worker.postMessage({ type: 'plan', id, config, spec });
  });
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

/** The engine presets' names (a mixed fleet's groups must name them). */
const enginePresets = () => st.params.find((p) => p.name === 'engine')?.choices ?? [];

function onControl(name, value) {
  hideScenarioNote();
  const before = st.config;
  const fitted = fleetEngine(before, fitPools(st.config, name, value), st.engineBeforeFleet, st.linkBase.engine ?? st.defaults.engine);
  st.engineBeforeFleet = fitted.engineBefore;
  st.config = withFleet(fitted.config, enginePresets());
  // The slider resized a mixed fleet: said beside it while that fleet is the one set (refresh).
  if (name === 'instances') {
    const text = layoutNote(before, st.config);
    st.fleetLaid = text ? { text, fleet: st.config.fleet } : null;
  }
  for (const k of Object.keys(st.config)) if (st.config[k] !== before[k]) st.fromUrl.delete(k);
  refresh();
}

function refresh({ run = true } = {}) {
  const t0 = performance.now();
  hook.config = st.config;
  controls?.clearErrors(); // (the dashboard's controls exist once the late panels started)
  // Cheap: puts every control at the config, and keeps visibility rules and readouts in step.
  controls?.setAll(st.config, traceLabel());
  lessons?.syncControls(st.config, traceLabel());
  // The note of the last layout, while its fleet is the one set.
  const laid = hasFleet(st.config) && st.fleetLaid?.fleet === st.config.fleet ? st.fleetLaid.text : '';
  const traceKey = st.source && st.source.builtin ? st.source.name : null;
  if (embedView) {
    writeLink(st.config);
    embedView.sync(st.config, st.source);
  } else {
    const synthetic = st.config.workload === 'sessions' ? 'multi-turn sessions' : 'synthetic prefix pool';
    $('source-name').textContent = st.source ? `trace: ${traceLabel()}` : synthetic;
    $('source-reset').hidden = !st.source;
    writeLink(st.config);
    compare?.markStale();
    hero.sync(st.config, st.source);
    showLayoutNote(hero.controls, laid);
    showLayoutNote(controls, laid);
  }
  lazyDraw.postpone(); // a redraw is on its way: the charts off the screen wait for it
  st.refreshMs = performance.now() - t0;
  if (run) scheduleRun();
}

/** The address bar (and so Copy link) for these settings, once they are still. */
function writeLink(config) {
  const traceKey = st.source && st.source.builtin ? st.source.name : null;
  if (embedView) writeUrl(config, st.params, { base: linkBase(), embed: true, trace: traceKey, extra: embedView.urlExtra() });
  else writeUrl(config, st.params, { base: linkBase(), trace: traceKey, lesson: lessons.active?.id, extra: { plan_mix: capacity ? capacity.link() : PLAN_MIX } });
}

/** A rejected setting: the address keeps the last accepted settings (those of the result on screen). */
function keepGoodLink() {
  if (hook.lastReport) writeLink(configOf(hook.lastReport.config));
}

/** The trace being replayed, in words (false for the synthetic workload): the controls show it. */
function traceLabel() {
  return st.source ? BUILTIN[st.source.name] || st.source.name : false;
}

/** A scenario's note is about that scenario only: gone once the settings leave it (a control, a lesson, another scenario). */
function hideScenarioNote() {
  const note = embedView ? null : $('scenario-note');
  if (note) { note.hidden = true; note.textContent = ''; }
}

// A clicked sweep point: its whole configuration into the controls and URL, then run it.
function loadConfig(config) {
  hideScenarioNote();
  st.config = configOf(config);
  for (const p of st.params) st.fromUrl.delete(p.name);
  refresh();
}

// A report's (or a sweep point's) config as page state: the simulator leaves out the keys of a
// disaggregated fleet when they hold their defaults, so a missing key is its default.
function configOf(config) {
  const out = { ...st.config };
  for (const p of st.params) out[p.name] = p.name in config ? config[p.name] : st.simDefaults[p.name];
  return out;
}

// A scenario's or a lesson's setup, on the simulator's defaults (the seed's example is the empty
// one); a lesson on a built-in trace (file name) replays it. The hero starts afresh, drawing `keep`
// (a lesson's fix) beside the setup's policy. (A link then names the routing where it is not the
// page's: linkBase.)
function applyScenario(set, trace = null, keep = null) {
  hideScenarioNote(); // (a scenario's click shows its own note after this)
  st.config = { ...st.simDefaults, ...set };
  st.fromUrl.clear();
  st.source = trace ? builtin(trace) : null;
  hero?.startAfresh(keep);
  refresh();
}

/** A lesson's setup: its broken settings on the simulator's defaults (what its checks run). */
function lessonBase(lesson) {
  return { ...st.simDefaults, ...lesson.broken };
}

/** What a setting the page's link leaves out stands for: the lesson's setup in a lesson, else the page's defaults. */
function linkBase() {
  const lesson = embedView ? st.lesson : lessons?.active;
  return lesson ? lessonBase(lesson) : st.defaults;
}

/** The policy a lesson's fix routes by, where it changes the broken setup's (sticky for round robin). */
function lessonFix(lesson) {
  return (lesson?.fixes || []).map((f) => f.config?.routing).find((p) => p && p !== lesson.broken?.routing) || null;
}

function onTrace(trace) {
  hideScenarioNote();
  st.source = trace;
  refresh();
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
    timeSeries?.destroy();
    if (hook.lastReport) timeSeries?.update(hook.lastReport);
  }
  tasks.retheme();
  transfers?.retheme();
  if (hook.lastReport) replicaTable.update(hook.lastReport);
  compare?.retheme();
  capacity?.retheme();
  calibrate?.retheme();
  sweep?.retheme();
}

boot();
