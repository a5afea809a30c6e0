// www/js/hero-panel.js: runs the hero's experiment. Owns a worker of its own that sweeps the replica
// count for round robin, prefix_aware and the chosen policy (points arrive one by one and the curves
// fill in), keeps the sweeps of the current settings, and redraws the figure, numbers and sentences.

import { Controls } from './controls.js';
import { WorkerHost } from './worker-host.js';
import { HeroChart, HeroShare, heroReplicaCounts, heroPolicies, renderHeroNumbers, renderTakeaway } from './hero.js';
import { modelApplies } from './predict.js';
import { cacheReplicas, withCacheReplicas } from './layout.js';
import { patchChildren, setText } from './page-bits.js';
import { mark } from './timeline.js';

/** The settings a sweep depends on: everything but the replica count and the policy. */
export function sweepKey(config, source) {
  const rest = { ...config };
  delete rest.instances;
  delete rest.prefill_instances;
  delete rest.routing;
  const src = source ? `${source.name}:${source.file ? `${source.file.size}:${source.file.lastModified}` : source.url}` : '';
  return `${src}|${JSON.stringify(rest, Object.keys(rest).sort())}`;
}

/** How long a changed setting waits for its run's result to draw the figure before drawing it alone. */
const RESULT_WAIT_MS = 120;

/** Runs shown closer together than this are one change for "was X -> now Y". */
const BURST_MS = 1500;

const FINDING_TITLE = { load_uneven: 'Uneven load', hit_uneven: 'Uneven hit rate', overloaded: 'Overloaded' };

export class HeroPanel {
  /**
   * els: {canvas or chart, share? or shareChart?, controls, numbers, lead, detail, why, findings, caption};
   * hooks: {onControl(name, value), onPick(replicas)}; names: the controls shown beside the figure.
   */
  constructor(els, params, hooks, { names = ['instances', 'prefill_instances', 'routing'], workerUrl, hold = false } = {}) {
    this.els = els;
    this.params = params;
    this.hooks = hooks;
    this.choices = params.find((p) => p.name === 'routing')?.choices || ['round_robin', 'prefix_aware', 'kv'];
    this.maxInstances = params.find((p) => p.name === 'instances')?.max ?? 256;
    this.controls = els.controls ? new Controls(els.controls, params, hooks.onControl, { names, prefix: 'hero-' }) : null;
    // The charts, or the canvases to make them on.
    this.chart = els.chart || new HeroChart(els.canvas, { onPick: hooks.onPick });
    this.share = els.shareChart || (els.share ? new HeroShare(els.share) : null);
    this.key = null;
    this.sweeps = {};      // policy -> points, for this.key
    this.pending = null;   // {id, policies, xs}
    this.nextId = 1;
    this.config = null;
    this.source = null;
    this.report = null;
    this.prev = null;
    this.frame = 0;      // a draw waiting for the next animation frame
    this.late = 0;       // a draw waiting for the run's result (drawLater)
    this.workerUrl = workerUrl;
    this.host = null;    // the sweep's worker, started with the first request once not held
    this.hold = hold;    // requests wait for release() (the page's first run has the cores to itself)
    this.held = null;    // the newest request made while held
    window.kvfleet = Object.assign(window.kvfleet || {}, { hero: this });
  }

  /** The settings changed: put the controls at them and sweep what is missing. */
  sync(config, source) {
    this.config = { ...config };
    this.source = source;
    if (this.controls) this.controls.setAll(config, !!source);
    const key = sweepKey(config, source);
    if (key !== this.key) {
      this.key = key;
      this.sweeps = {};
    }
    const policies = heroPolicies(config.routing, this.choices);
    const xs = heroReplicaCounts(cacheReplicas(config), this.maxX(config));
    const missing = policies.filter((p) => !this.complete(p, xs));
    if (missing.length) this.request(missing, xs);
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

  request(policies, xs) {
    const id = this.nextId++;
    const jobs = [];
    // Interleave the policies so the curves grow together, the current replica count first.
    const here = cacheReplicas(this.config);
    const order = [here, ...xs.filter((x) => x !== here)];
    for (const x of order) for (const routing of policies) {
      if (!(this.sweeps[routing] || []).some((q) => q.instances === x)) jobs.push({ ...withCacheReplicas(this.config, x), routing });
    }
    this.pending = { id, key: this.key };
    this.post({ type: 'batch', id, configs: jobs, trace: this.source });
  }

  post(msg) {
    if (this.hold) { this.held = msg; return; }
    if (!this.host) {
      this.host = new WorkerHost(this.workerUrl, { onMessage: (m) => this.onWorker(m), onFatal: (m) => this.onFatal(m) });
      mark('heroWorker'); // (the page's cold-load test checks it comes after the first chart)
    }
    this.host.post(msg);
  }

  /** Starts the sweep's worker with the request made while held, if any. */
  release() {
    if (!this.hold) return;
    this.hold = false;
    if (this.held) this.post(this.held);
    this.held = null;
  }

  /** The sweep's worker could not load the simulator: say so; the next request starts a new one. */
  onFatal(message) {
    this.pending = null;
    this.host.terminate();
    this.host = null;
    this.els.caption.textContent = `The replica sweep could not run: its worker could not start (${message}).`;
  }

  onWorker(msg) {
    if (!this.pending || msg.id !== this.pending.id) return;
    if (msg.type === 'batch-part') {
      const pt = msg.point;
      const list = (this.sweeps[pt.routing] ||= []);
      if (!list.some((q) => q.instances === pt.instances)) list.push(pt);
      list.sort((a, b) => a.instances - b.instances);
      this.drawSoon();
      this.words();
    } else if (msg.type === 'batch-done') {
      this.pending = null;
      this.draw();
      window.kvfleet.heroDone = (window.kvfleet.heroDone || 0) + 1;
      window.kvfleet.heroTraceParses = msg.parses; // traces this worker has parsed (each one once)
      document.dispatchEvent(new CustomEvent('kvfleet:hero-done'));
    } else if (msg.type === 'error') {
      this.pending = null;
      if (msg.trap) this.host.replace();
      this.els.caption.textContent = `The replica sweep could not run: ${msg.message}`;
    }
  }

  /** The run on screen (the main lane's report) arrived. */
  showRun(report) {
    // "was X -> now Y" compares with the result shown before the current burst of changes (a drag
    // or a run of key presses within BURST_MS), so four steps of the slider read as one change.
    const now = performance.now();
    if (!this.prev || now - this.lastShownAt > BURST_MS) this.prev = this.report;
    this.lastShownAt = now;
    this.report = report;
    renderHeroNumbers(this.els.numbers, report, this.baseline());
    this.findings(report);
    this.draw();
    this.words();
  }

  baseline() { return this.prev; }

  words() {
    if (!this.report || !this.config) return;
    renderTakeaway({ lead: this.els.lead, detail: this.els.detail, why: this.els.why },
      { config: this.config, traced: !!this.source, report: this.report, sweeps: this.onScreen() });
  }

  /**
   * The swept points the figure shows: those at the current replica counts. The sweeps keep points
   * past them (a visit to 256 replicas, then back to 4), which neither the charts nor the sentences
   * may describe.
   */
  onScreen() {
    const xs = new Set(heroReplicaCounts(cacheReplicas(this.config), this.maxX(this.config)));
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
      d.append(b, document.createTextNode(f.text.replace(/^[^:]+:\s*/, '')));
      return d;
    });
    patchChildren(box, items);
  }

  /** Draws at the next frame, once for however many points and settings arrive before it. */
  drawSoon() {
    // Before the first run's result (the cold load) its draw comes first: none to spend before it.
    if (!this.report) return;
    if (!this.frame) this.frame = requestAnimationFrame(() => { this.frame = 0; this.draw(); });
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
    const policies = heroPolicies(this.config.routing, this.choices);
    const x = cacheReplicas(this.config);
    const xs = heroReplicaCounts(x, this.maxX(this.config));
    const r = this.report;
    const here = r && r.config?.instances === this.config.instances && r.config?.routing === this.config.routing
      && (r.config?.prefill_instances ?? null) === (this.config.prefill_instances ?? null)
      ? { x, y: 100 * r.summary?.hit_rate_tokens } : null;
    const sweeps = this.onScreen();
    this.chart.update({ sweeps, policies, xs, config: this.config, traced: !!this.source, current: here });
    if (this.share) this.share.update({ sweeps, policies, xs, config: this.config });
    const model = modelApplies(this.config, !!this.source);
    const why = this.config.kv_blocks !== null && this.config.kv_blocks !== undefined
      ? 'the simple model assumes caches that never evict' : 'the simple model covers the synthetic prefix pool only';
    setText(this.els.caption, model
      ? 'Prompt tokens from cache: the share of prompt tokens whose KV blocks the chosen replica already held (their prefill is skipped). Lines with markers: your settings simulated at each replica count. Dotted: the simple model, misses ≈ prefixes × replicas for round robin and ≈ prefixes for prefix_aware (hidden where the simulation sits on it); it assumes every replica sees every prefix, so with fewer requests per replica than prefixes the real misses fall below it. Below: the busiest replica\'s share of requests; dotted, an even share. The ring is the run in the numbers beside it; click a point to load it.'
      : `Prompt tokens from cache: the share of prompt tokens whose KV blocks the chosen replica already held. Lines with markers: your settings simulated at each replica count; below, the busiest replica's share of requests (dotted: an even share). No model line: ${why}. Click a point to load it.`);
  }

  retheme() {
    this.chart.destroy();
    this.chart.create();
    if (this.share) { this.share.destroy(); this.share.create(); }
    this.draw();
  }
}
