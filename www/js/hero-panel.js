// www/js/hero-panel.js: runs the hero's experiment. Owns workers of its own (two to four) that sweep
// the replica count for round robin, prefix_aware and the chosen policy (points arrive one by one and
// the curves fill in), keeps the sweeps of the current settings, and redraws the figure, numbers and sentences.
// Keeps the run "was X → now Y" compares with: the last one the reader had time to read. Its sliders
// (replicas, prefixes, cache size) step as the settings panel's do; beside them, the run's per-replica
// chart (hero-replicas.js).

import { Controls, formatValue } from './controls.js';
export { replicaStops } from './controls.js';
import { WorkerHost } from './worker-host.js';
import { HeroChart, heroReplicaCounts, heroPolicies, renderHeroNumbers, renderTakeaway } from './hero.js';
import { HeroMini, SHARE_METRIC, TTFT_METRIC } from './hero-share.js';
import { findingText } from './format.js';
import { cacheReplicas, startBounds, withCacheReplicas } from './layout.js';
import { patchChildren, setText } from './page-bits.js';
import { linkTerms } from './terms.js';
import { changeWords, heroCaption } from './story.js';
import { workloadWords } from './workload-words.js';
import { mark } from './timeline.js';
import { HeroBand } from './hero-band.js';
import { pointOf, sameSettings } from './sweep-point.js';

/** The settings a sweep depends on: everything but the replica count and the policy. */
export function sweepKey(config, source) {
  const rest = { ...config };
  delete rest.instances;
  delete rest.prefill_instances;
  delete rest.routing;
  const src = source ? `${source.name}:${source.file ? `${source.file.size}:${source.file.lastModified}` : source.url}` : '';
  return `${src}|${JSON.stringify(rest, Object.keys(rest).sort())}`;
}

/** The sweep's workers at most (each holds the simulator and the parsed trace). */
const MAX_WORKERS = 4;

/** The sweep's points a worker holds at once: the one it runs and the next. */
const QUEUED_POINTS = 2;

/** How long a changed setting's sweep waits for the setting's run to be drawn before it starts anyway. */
const RUN_FIRST_MS = 1000;

/** While a sweep runs, the figure is redrawn at most this often as its points come in. */
const SWEEP_DRAW_MS = 200;

/** How long a changed setting waits for its run's result to draw the figure before drawing it alone. */
const RESULT_WAIT_MS = 120;

/**
 * A result on screen this long when the reader changes a setting is what "was X -> now Y" compares
 * with; one replaced sooner (a step of a drag, a run of key presses) was not read, and is skipped.
 * Measured from the reader's inputs, not from results arriving: a slow run does not split a drag.
 */
export const READ_MS = 1000;

/** A key press or pointer action this recent is taken as the cause of a settings change. */
const ACT_MS = 5000;

/** The hero's controls: the card's four (replicas, prefixes, cache size per replica, routing). */
export const HERO_CONTROLS = ['instances', 'prefill_instances', 'num_prefixes', 'kv_blocks', 'routing'];

const FINDING_TITLE = { load_uneven: 'Uneven load', hit_uneven: 'Uneven hit rate', overloaded: 'Overloaded', kv_bound: 'KV-bound' };

export class HeroPanel {
  /**
   * els: {canvas or chart, share? and ttft? (canvases) or minis? (their charts), replicas? (a HeroReplicas: the
   * run's per-replica chart), controls, numbers, lead, detail, why, findings, caption};
   * hooks: {onControl(name, value), onPick(replicas)}; names: the controls shown beside the figure.
   */
  constructor(els, params, hooks, { names = HERO_CONTROLS, workerUrl, hold = false, band = false } = {}) {
    this.els = els;
    this.params = params;
    this.hooks = hooks;
    this.choices = params.find((p) => p.name === 'routing')?.choices || ['round_robin', 'prefix_aware', 'kv'];
    this.maxInstances = params.find((p) => p.name === 'instances')?.max ?? 256;
    // Its sliders step as the settings panel's do (controls.js's scales: replica counts along the
    // figure's log axis); a count between stops (a link's, a clicked point's) joins them, shown
    // exactly, and the keys step on from it to the stops either side.
    this.controls = els.controls ? new Controls(els.controls, params, hooks.onControl, { names, prefix: 'hero-' }) : null;
    // The charts, or the canvases to make them on.
    this.chart = els.chart || new HeroChart(els.canvas, { onPick: hooks.onPick });
    // The small multiples under it: the busiest replica's share, the p99 time to first token.
    this.minis = els.minis || [[els.share, SHARE_METRIC], [els.ttft, TTFT_METRIC]].filter(([c]) => c).map(([c, m]) => new HeroMini(c, m));
    this.key = null;
    this.syncedRouting = null; // the policy of the last settings synced
    this.sweeps = {};      // policy -> points, for this.key
    this.timing = null;    // the last sweep's {requested, started, done} times
    this.pending = null;   // {id, key, jobs, dealt, next (the first job not handed out), left (points not in), source, after}
    this.nextId = 1;
    this.config = null;
    this.source = null;
    this.report = null;
    this.shownAt = 0;    // when this.report was first painted
    this.prev = null;    // the run "was X" describes: the last one on screen READ_MS before an input
    this.inputKey = null; // the settings the reader last chose
    this.actAt = -Infinity; // the reader's last key press or pointer action (its event's time)
    const act = (e) => { if (e.type !== 'pointermove' || e.buttons) this.actAt = e.timeStamp; };
    for (const t of ['pointerdown', 'pointermove', 'keydown']) document.addEventListener(t, act, { capture: true, passive: true });
    this.frame = 0;      // a draw waiting for the next animation frame
    this.drawnAt = -Infinity; // when the figure was last drawn
    this.late = 0;       // a draw waiting for the run's result (drawLater)
    this.workerUrl = workerUrl;
    this.hosts = [];     // the sweep's workers ({host, points, parses}), started with the first request once not held
    this.hold = hold;    // requests wait for release() (the page's first run has the cores to itself)
    this.held = null;    // a request was made while held
    // The "spread over K seeds" option, last in the hero (off until asked for: the first screen stays one seed).
    const root = band ? this.chart.canvas?.closest('.hero') : null;
    this.band = root ? new HeroBand(root, { workerUrl, onChange: () => { this.drawSoon(); this.words(); } }) : null;
    window.kvfleet = Object.assign(window.kvfleet || {}, { hero: this });
  }

  /**
   * A scenario or a lesson is set: the next settings keep no policy chosen before drawn beside them,
   * only `keep` (a lesson's fix: sticky beside round robin's scattered agent steps).
   */
  startAfresh(keep = null) {
    this.kept = keep;
    this.afresh = true;
  }

  /** The settings changed: put the controls at them and sweep what is missing. */
  sync(config, source) {
    const afresh = this.afresh;
    this.afresh = false;
    const input = `${sweepKey(config, source)}|${config.instances}|${config.prefill_instances}|${config.routing}`;
    // A scenario or a lesson has no "was": the run before it was of another setup ("was 38.3% with
    // 5 settings different" read as noise).
    if (input !== this.inputKey) { if (afresh) this.prev = null; else this.noteInput(); }
    this.inputKey = input;
    // The policy chosen before this one stays drawn beside it (heroPolicies), until another is
    // chosen; a scenario or a lesson starts afresh (its figure the same whatever was clicked before).
    if (!afresh && this.config && this.config.routing !== config.routing) this.kept = this.config.routing;
    this.config = { ...config };
    this.source = source;
    if (this.controls) this.controls.setAll(config, !!source);
    const key = sweepKey(config, source);
    // New settings or a new policy: this run's result comes before their sweep (request).
    const runFirst = key !== this.key || config.routing !== this.syncedRouting;
    this.syncedRouting = config.routing;
    if (key !== this.key) {
      this.key = key;
      this.sweeps = {};
    }
    const policies = heroPolicies(config.routing, this.choices, this.kept);
    const xs = this.span();
    const missing = policies.filter((p) => !this.complete(p, xs));
    if (missing.length) this.request(missing, xs, runFirst);
    this.drawLater(); // the run's result, due within a few ms for most settings, draws it sooner
  }

  /** The largest x: the fleet's limit, less the decode pool when there is one. */
  maxX(config) {
    return this.maxInstances - (cacheReplicas(config) === config.instances ? 0 : config.decode_instances);
  }

  complete(policy, xs) {
    const pts = this.sweeps[policy];
    return !!pts && xs.every((x) => pts.some((q) => q.instances === x));
  }

  request(policies, xs, runFirst = false) {
    const id = this.nextId++;
    const jobs = [];
    // Interleave the policies so the curves grow together, the current replica count first.
    const here = cacheReplicas(this.config);
    const order = [here, ...xs.filter((x) => x !== here)];
    for (const x of order) for (const routing of policies) {
      if (!(this.sweeps[routing] || []).some((q) => q.instances === x)) jobs.push({ ...withCacheReplicas(this.config, x), routing });
    }
    if (this.pending) clearTimeout(this.pending.after);
    this.pending = { id, key: this.key, jobs, source: this.source, dealt: false };
    // When this sweep was asked for, its first point handed out, its last one in (performance.now()).
    this.timing = { requested: performance.now(), started: null, done: null };
    // A changed setting's sweep waits for its run's result (the run on screen is drawn first),
    // or RUN_FIRST_MS at most; the page's first sweep is held until its first run is drawn.
    if (runFirst && this.report && !this.hold) this.pending.after = setTimeout(() => this.feed(), RUN_FIRST_MS);
    else this.feed();
  }

  /**
   * Hands the pending sweep's points out to the workers, QUEUED_POINTS to each, then one more to a
   * worker each time one of its points comes in: a worker never waits on the page between points (on
   * a busy machine that wait outlasted the points), and the last points go to whichever worker is
   * free, so neither is left with a long tail while the other idles.
   */
  feed() {
    const p = this.pending;
    if (!p || p.dealt) return;
    clearTimeout(p.after);
    p.after = 0;
    if (this.hold) { this.held = true; return; }
    this.takeRunOnScreen(p);
    this.startHosts();
    this.timing.started = performance.now();
    p.dealt = true;
    p.next = 0;              // the first job not yet handed out
    p.left = p.jobs.length;  // the points not yet in
    // A worker still on an earlier sweep drops it at once: for this one's points (a newer batch
    // supersedes), or, with no point of this one, by a cancel.
    for (const h of this.hosts) {
      h.queued = 0;
      this.handOut(h, p);
      if (!h.queued) h.host.post({ type: 'cancel', lane: 'batch' });
    }
    if (!p.left) this.done(); // the run on screen was the one point missing
  }

  /** Gives worker `h` the sweep's next points until it holds QUEUED_POINTS (or none are left). */
  handOut(h, p) {
    const configs = p.jobs.slice(p.next, p.next + QUEUED_POINTS - h.queued);
    if (!configs.length) return;
    p.next += configs.length;
    h.queued += configs.length;
    h.host.post({ type: 'batch', id: p.id, configs, trace: p.source });
  }

  /**
   * The run on screen is one of the sweep's points when it replayed the same trace under the same
   * settings: its point is taken from its report (the figures a worker would send back, from the same
   * run) and dropped from the jobs.
   */
  takeRunOnScreen(p) {
    const sent = this.reportSent;
    if (!this.report || !sent) return;
    const same = (job) => sameSettings(sent.config, job) && sweepKey(job, sent.source) === sweepKey(job, p.source);
    const at = p.jobs.findIndex(same);
    if (at < 0) return;
    p.jobs.splice(at, 1);
    this.addPoint(pointOf(this.report));
  }

  /** A point of the current sweep, in its policy's list (ordered by replica count). */
  addPoint(pt) {
    const list = (this.sweeps[pt.routing] ||= []);
    if (!list.some((q) => q.instances === pt.instances)) list.push(pt);
    list.sort((a, b) => a.instances - b.instances);
  }

  /** The sweep's workers: as many as the machine has cores to spare, from 2 to MAX_WORKERS. */
  startHosts() {
    if (this.hosts.length) return;
    const n = Math.min(MAX_WORKERS, Math.max(2, (navigator.hardwareConcurrency || 2) - 1));
    for (let i = 0; i < n; i++) {
      const h = { points: 0, parses: 0, queued: 0 }; // queued: the points it holds, not yet sent back
      h.host = new WorkerHost(this.workerUrl, { onMessage: (m) => this.onWorker(m, h), onFatal: (m) => this.onFatal(m) });
      this.hosts.push(h);
    }
    mark('heroWorker'); // (the page's cold-load test checks it comes after the first chart)
  }

  /**
   * Starts the sweep's workers with the request made while held, if any. A page test that never
   * looks at the first screen's figure sets window.kvfleetHeroHeld before the page loads
   * (tests/e2e/harness.mjs, heroSweep: false): the sweep stays held, its CPU spared.
   */
  release() {
    if (!this.hold || window.kvfleetHeroHeld === true) return;
    this.hold = false;
    if (this.held) this.feed();
    this.held = null;
  }

  /** The sweep's workers could not load the simulator: say so; the next request starts new ones. */
  onFatal(message) {
    this.pending = null;
    for (const h of this.hosts) h.host.terminate();
    this.hosts = [];
    this.els.caption.textContent = `The replica sweep could not run: its worker could not start (${message}).`;
  }

  onWorker(msg, h) {
    if (msg.parses !== undefined) h.parses = msg.parses;
    if (msg.type === 'error' && msg.trap) h.host.replace();
    const p = this.pending;
    if (!p || msg.id !== p.id) return;
    if (msg.type === 'batch-part') {
      h.points += 1;
      h.queued -= 1;
      p.left -= 1;
      this.handOut(h, p);
      this.addPoint(msg.point);
      this.words();
      if (p.left) this.drawSoon();
      else this.done();
    } else if (msg.type === 'error') {
      this.pending = null;
      this.els.caption.textContent = `The replica sweep could not run: ${msg.message}`;
    }
  }

  /** The pending sweep is whole: draw it and say so. */
  done() {
    this.pending = null;
    this.timing.done = performance.now();
    this.good = { key: this.key, sweeps: this.sweeps, config: { ...this.config }, source: this.source };
    this.draw();
    window.kvfleet.heroDone = (window.kvfleet.heroDone || 0) + 1;
    // The traces a sweep worker has parsed, the most of any (each worker parses each one once).
    window.kvfleet.heroTraceParses = Math.max(...this.hosts.map((x) => x.parses));
    document.dispatchEvent(new CustomEvent('kvfleet:hero-done'));
  }

  /**
   * The page's run of the current settings was rejected: the figure, its caption and the sentences go
   * back to the last settings whose sweep finished (those of the result on screen), not an empty
   * figure beside a "this run" ring; the rejected settings' sweep is dropped.
   */
  rejected() {
    if (!this.good) return;
    if (this.pending) clearTimeout(this.pending.after);
    this.pending = null;
    this.key = this.good.key;
    this.sweeps = this.good.sweeps;
    this.config = { ...this.good.config };
    this.source = this.good.source;
    this.draw();
    this.words();
  }

  /** The swept policies' requests per replica at the current count: {policy: [{index, requests}]}. */
  routedHere() {
    const x = cacheReplicas(this.config);
    const out = {};
    for (const [p, pts] of Object.entries(this.sweeps)) {
      const q = pts.find((pt) => pt.instances === x);
      if (q?.routed) out[p] = q.routed;
    }
    return out;
  }

  /**
   * The reader changed a setting: the result on screen becomes the one "was X" describes if it was
   * there READ_MS or longer, or is the first; else the one before it stays (four quick steps read
   * as one change).
   */
  noteInput(now = performance.now()) {
    // When the reader acted, not when the page got to it: a busy page handles a key press late.
    const at = now - this.actAt < ACT_MS ? Math.min(now, this.actAt) : now;
    // The page's first result is the reader's starting point however soon they act on it.
    if (this.report && (at - this.shownAt >= READ_MS || !this.prev)) this.prev = this.report;
  }

  /**
   * The run on screen (the main lane's report) arrived; `sent`, the {config, source} it was run with,
   * when the caller knows them (a sweep then takes the run as its point instead of running it again).
   */
  showRun(report, sent = null) {
    this.reportSent = sent;
    // On screen from the frame that paints it (never, in a hidden tab, until the reader returns).
    this.shownAt = Infinity;
    requestAnimationFrame(() => { if (this.report === report) this.shownAt = performance.now(); });
    this.report = report;
    // A changed setting's sweep waited for this run: it starts once the run is painted.
    if (this.pending?.after) requestAnimationFrame(() => setTimeout(() => this.feed(), 0));
    const prev = this.baseline();
    const where = prev ? changeWords(prev, report, this.params, formatValue) : '';
    renderHeroNumbers(this.els.numbers, report, prev, where);
    this.els.replicas?.update(report); // the run's per-replica view (the full page's hero only)
    this.findings(report);
    this.draw();
    this.words();
  }

  baseline() { return this.prev; }

  words() {
    if (!this.report || !this.config) return;
    renderTakeaway({ lead: this.els.lead, detail: this.els.detail, why: this.els.why },
      { config: this.config, traced: !!this.source, report: this.report, sweeps: this.band ? this.band.annotate(this.onScreen(), this.key) : this.onScreen(), routed: this.routedHere(),
        drawn: heroPolicies(this.config.routing, this.choices, this.kept) });
    if (this.els.workload) setText(this.els.workload, workloadWords(this.config, this.source, this.report.summary));
  }

  /**
   * The replica counts on the figure: every one of heroReplicaCounts's up to the axis's end (the
   * fleet's limit), so the curves span the whole axis; 1 to 16 come first (the order `request`
   * posts), then 24 to 256, each far cheaper than a reader's wait (the page's timings in the
   * README). The current count is added when it is not one of them. Under an autoscaler, only the
   * starting counts its bounds accept.
   */
  span() {
    const here = cacheReplicas(this.config), max = this.maxX(this.config);
    const xs = heroReplicaCounts(max, max);
    const all = xs.includes(here) || here > max ? xs : [...xs, here].sort((a, b) => a - b);
    // Under an autoscaler a count is where the fleet starts: only those its bounds accept run.
    const b = startBounds(this.config);
    return b ? all.filter((x) => x >= b.lo && (b.hi === null || x <= b.hi)) : all;
  }

  /**
   * The swept points the figure shows and the sentences describe: those at span's counts. The
   * sweeps may hold others (a count the fleet limit has since cut off), which neither may use.
   */
  onScreen() {
    const xs = new Set(this.span());
    return Object.fromEntries(Object.entries(this.sweeps).map(([p, pts]) => [p, pts.filter((q) => xs.has(q.instances))]));
  }

  findings(report) {
    const box = this.els.findings;
    const items = (report.findings || []).map((f) => {
      const d = document.createElement('p');
      d.className = `finding ${f.kind}`;
      d.dataset.testid = `hero-finding-${f.kind}`;
      const b = document.createElement('strong');
      b.textContent = `⚠ ${FINDING_TITLE[f.kind] || f.kind}: `;
      d.append(b, document.createTextNode(findingText(f).replace(/^[^:]+:\s*/, '')));
      linkTerms(d);
      return d;
    });
    patchChildren(box, items);
  }

  /** Draws at the next frame, once for however many points and settings arrive before it. */
  drawSoon() {
    // Before the first run's result (the cold load) its draw comes first: none to spend before it.
    if (!this.report || this.frame) return;
    // While a sweep runs, its points are drawn every SWEEP_DRAW_MS at most: a draw of the three
    // charts takes the main thread tens of ms, a core the sweep's workers could use.
    const wait = this.pending ? this.drawnAt + SWEEP_DRAW_MS - performance.now() : 0;
    if (wait > 0) {
      if (!this.late) this.late = setTimeout(() => { this.late = 0; this.drawSoon(); }, wait);
      return;
    }
    this.frame = requestAnimationFrame(() => { this.frame = 0; this.draw(); });
  }

  /** Draws in RESULT_WAIT_MS unless the run's result (or a sweep point) draws it before. */
  drawLater() {
    if (!this.report || this.frame || this.late) return;
    this.late = setTimeout(() => { this.late = 0; this.drawSoon(); }, RESULT_WAIT_MS);
  }

  draw() {
    if (this.frame) { cancelAnimationFrame(this.frame); this.frame = 0; }
    if (this.late) { clearTimeout(this.late); this.late = 0; }
    if (!this.config) return;
    this.drawnAt = performance.now();
    const policies = heroPolicies(this.config.routing, this.choices, this.kept);
    const x = cacheReplicas(this.config);
    const xs = this.span();
    const r = this.report;
    const here = r && r.config?.instances === this.config.instances && r.config?.routing === this.config.routing
      && (r.config?.prefill_instances ?? null) === (this.config.prefill_instances ?? null)
      ? { x, y: 100 * r.summary?.hit_rate_tokens } : null;
    const sweeps = this.onScreen();
    const max = this.maxX(this.config);
    this.band?.want({ key: this.key, config: this.config, source: this.source, policies, xs, sweeps });
    const bands = this.band?.bands(this.key);
    this.chart.update({ sweeps, policies, xs, max, config: this.config, traced: !!this.source, current: here, bands });
    for (const mini of this.minis) mini.update({ sweeps, policies, xs, max, config: this.config, padRight: this.chart.padRight });
    setText(this.els.caption, heroCaption({ config: this.config, traced: !!this.source, sweeps, xs }));
  }

  retheme() {
    this.chart.destroy();
    this.chart.create();
    for (const mini of this.minis) { mini.destroy(); mini.create(); }
    this.els.replicas?.retheme();
    this.draw();
  }
}
