// www/js/hero-band.js: the hero's "spread over K seeds" option, off by default. When on, a worker of its
// own runs every drawn point of the figure on seeds seed .. seed + K − 1 (the seed's own run is the
// sweep's point) and gets each point's spread from the simulator (spread_json: the CLI's --des-seeds
// definition, a 95 % interval by Student t); the figure draws the intervals as a band around each curve,
// and one sentence compares the chosen policy with the others at the current count, "beyond noise" only
// where the intervals do not overlap. The run can be cancelled and resumed.

import { WorkerHost } from './worker-host.js';
import { cacheReplicas, withCacheReplicas } from './layout.js';
import { pct1, policyName } from './story-words.js';
import { apartAsShown } from './noise.js';

/** Seeds the band runs unless the reader picks another count (2 to 16). */
export const DEFAULT_SEEDS = 5;
const MAX_SEEDS = 16;

const range = (s) => `${pct1(s.ci95_low)}–${pct1(s.ci95_high)}`;
/** "(95% interval 44.0%–46.4%)", or "(the same on every seed)" for an interval of no width. */
const interval = (s, head = false) => (s.ci95_low === s.ci95_high ? '(the same on every seed)' : `(${head ? '95% interval ' : ''}${range(s)})`);
/**
 * The sentence on the seeds at one count: `mine` and `others` ({policy, spread} of the token hit
 * rate). "Over 5 seeds, kv serves 45.2% of prompt tokens from cache (95% interval 44.0–46.4%): more
 * than round robin's 30.1% (29.5–30.7%), beyond noise; within noise of prefix_aware's 44.9% (43.8–46.0%)."
 */
export function noiseWords(k, mine, others) {
  const s = mine?.spread;
  if (!s || !Number.isFinite(s.ci95_low)) return '';
  const head = `Over ${k} seeds, ${policyName(mine.policy)} serves ${pct1(s.mean)} of prompt tokens from cache ${interval(s, true)}`;
  const parts = others.filter((o) => o.spread && Number.isFinite(o.spread.ci95_low)).map(({ policy, spread: t }) => {
    const theirs = `${policyName(policy)}'s ${pct1(t.mean)} ${interval(t)}`;
    if (!apartAsShown(s, t)) return `within noise of ${theirs}`;
    return `${s.mean > t.mean ? 'more' : 'less'} than ${theirs}, beyond noise`;
  });
  return parts.length ? `${head}: ${parts.join('; ')}.` : `${head}.`;
}

export class HeroBand {
  /** parent: the element the option is appended to; workerUrl: the simulator's worker; onChange(): redraw. */
  constructor(parent, { workerUrl, onChange }) {
    this.workerUrl = workerUrl;
    this.onChange = onChange;
    this.host = null;
    this.nextId = 1;
    this.pending = null;  // {id, total}
    this.key = null;      // the settings (and K) the spreads are of
    this.spreads = new Map(); // `${policy}|${x}` -> {hit_rate_tokens, ttft_ms_p99} spreads
    this.stopped = false;
    this.ctx = null;
    this.el = this.build();
    parent.append(this.el);
    window.kvfleet = Object.assign(window.kvfleet || {}, { heroBand: this });
  }

  build() {
    const box = document.createElement('div');
    box.className = 'hero-band';
    box.dataset.testid = 'hero-band';
    box.innerHTML = `<label class="hero-band-on"><input type="checkbox" data-testid="hero-band-on"> Spread over seeds</label>
      <label class="hero-band-on">Seeds <input type="number" class="hero-band-k" data-testid="hero-band-k" min="2" max="${MAX_SEEDS}" step="1" value="${DEFAULT_SEEDS}"></label>
      <button type="button" class="hero-band-stop" data-testid="hero-band-stop" hidden>Cancel</button>
      <span class="hero-band-status" data-testid="hero-band-status" role="status"></span>
      <p class="hero-noise" data-testid="hero-noise" hidden></p>`;
    this.on = box.querySelector('[data-testid="hero-band-on"]');
    this.kInput = box.querySelector('[data-testid="hero-band-k"]');
    this.stopBtn = box.querySelector('[data-testid="hero-band-stop"]');
    this.status = box.querySelector('[data-testid="hero-band-status"]');
    this.noise = box.querySelector('[data-testid="hero-noise"]');
    this.on.addEventListener('change', () => { this.stopped = false; this.refresh(); });
    this.kInput.addEventListener('change', () => { this.stopped = false; this.refresh(); });
    this.stopBtn.addEventListener('click', () => (this.pending ? this.cancel() : this.resume()));
    return box;
  }

  /** The count asked for, or null (with the reason shown) when it is not a whole number from 2 to 16. */
  seeds() {
    const k = Number(this.kInput.value);
    if (Number.isInteger(k) && k >= 2 && k <= MAX_SEEDS) { this.kInput.removeAttribute('aria-invalid'); return k; }
    this.kInput.setAttribute('aria-invalid', 'true');
    return null;
  }

  /** The figure's settings changed (or were redrawn): ctx {key, config, source, policies, xs, sweeps}. */
  want(ctx) {
    this.ctx = ctx;
    if (this.on.checked) this.refresh(false);
  }

  /** Starts (or restarts) what the band still needs; off: cancels and clears it. */
  refresh(redraw = true) {
    if (!this.on.checked) {
      this.cancel(false);
      this.spreads.clear();
      this.key = null;
      this.say('');
      if (redraw) this.onChange();
      return;
    }
    const k = this.seeds();
    if (!k) { this.cancel(false); this.say(`Seeds: enter a whole number from 2 to ${MAX_SEEDS}.`); return; }
    if (!this.ctx) return;
    const key = `${k}|${this.ctx.key}`;
    if (key !== this.key) { this.key = key; this.spreads.clear(); this.pending = null; this.stopped = false; }
    const jobs = this.jobs();
    // The run in flight already covers every point still missing (they shrink as its parts arrive).
    if (this.pending && this.pending.key === key && jobs.every((j) => this.pending.ids.has(j.id))) return;
    if (!jobs.length || this.stopped) { this.pending = null; this.show(); if (redraw) this.onChange(); return; }
    const id = this.nextId++;
    this.pending = { id, key, ids: new Set(jobs.map((j) => j.id)) };
    this.post({ type: 'seeds', id, k, jobs: jobs.map(({ config, base }) => ({ config, base })), trace: this.ctx.source });
    this.show();
    if (redraw) this.onChange();
  }

  /** Every drawn point without its spread yet: the current count first, the policies interleaved. */
  jobs() {
    const { config, policies, xs, sweeps } = this.ctx;
    const here = cacheReplicas(config);
    const out = [];
    for (const x of [here, ...xs.filter((v) => v !== here)]) for (const routing of policies) {
      const id = `${routing}|${x}`;
      if (this.spreads.has(id)) continue;
      const pt = (sweeps[routing] || []).find((q) => q.instances === x);
      const base = pt ? { hit_rate_tokens: pt.hit_rate_tokens ?? NaN, ttft_ms_p99: pt.ttft_ms_p99 ?? NaN } : undefined;
      out.push({ id, config: { ...withCacheReplicas(config, x), routing }, base });
    }
    return out;
  }

  post(msg) {
    if (!this.host) this.host = new WorkerHost(this.workerUrl, { onMessage: (m) => this.onWorker(m), onFatal: (m) => this.onFatal(m) });
    this.host.post(msg);
  }

  onFatal(message) {
    this.pending = null;
    this.host.terminate();
    this.host = null;
    this.say(`The seeds could not run: its worker could not start (${message}).`);
  }

  onWorker(msg) {
    // The worker stopped the run cancelled (window.kvfleet.heroBand.stoppedId: the page's tests wait for it).
    if (msg.type === 'cancelled' && msg.id === this.cancelledId) { this.stoppedId = msg.id; return; }
    if (!this.pending || msg.id !== this.pending.id) return;
    if (msg.type === 'seeds-part') {
      this.spreads.set(`${msg.point.routing}|${msg.point.instances}`, msg.point);
      this.show();
      this.onChange();
    } else if (msg.type === 'seeds-done') {
      this.pending = null;
      this.show();
      this.onChange();
      document.dispatchEvent(new CustomEvent('kvfleet:band-done'));
    } else if (msg.type === 'error') {
      this.pending = null;
      if (msg.trap) this.host.replace();
      this.say(`The seeds could not run: ${msg.message}`);
    }
  }

  /** Stops the seeds' runs; the points done keep their band. */
  cancel(stop = true) {
    if (!this.pending) return;
    this.cancelledId = this.pending.id;
    this.host?.post({ type: 'cancel', lane: 'seeds' });
    this.pending = null;
    this.stopped = stop;
    this.show();
  }

  resume() {
    this.stopped = false;
    this.refresh();
  }

  /** The status, the button and the sentence, from the spreads of the figure's points. */
  show() {
    const total = this.ctx ? this.ctx.policies.length * this.ctx.xs.length : 0;
    const done = this.ctx ? this.ctx.policies.reduce((n, p) => n + this.ctx.xs.filter((x) => this.spreads.has(`${p}|${x}`)).length, 0) : 0;
    const k = this.seeds();
    // A trace fixes arrivals, lengths and content: its seeds vary only the router's random draws.
    const trace = this.ctx?.source ? '; a trace\'s seeds vary only the router\'s random draws' : '';
    const what = `the shaded bands are 95% intervals of the token hit rate over ${k} seeds (seed ${this.ctx?.config.seed} up${trace})`;
    if (this.pending) this.say(`Running seeds: ${done} of ${total} points; ${what}.`);
    else if (this.stopped) this.say(`Cancelled at ${done} of ${total} points; ${what}.`);
    else this.say(done ? `${done} of ${total} points; ${what}.` : '');
    this.stopBtn.hidden = !this.pending && !(this.stopped && done < total);
    this.stopBtn.textContent = this.pending ? 'Cancel' : 'Resume';
    this.words();
  }

  say(text) {
    if (this.status.textContent !== text) this.status.textContent = text;
    if (!text) { this.noise.hidden = true; this.stopBtn.hidden = true; }
  }

  /** The sentence on the seeds at the current count (hidden until the chosen policy's spread is in). */
  words() {
    const c = this.ctx;
    const text = c && this.on.checked ? noiseWords(this.seeds(), this.at(c.config.routing, cacheReplicas(c.config)),
      c.policies.filter((p) => p !== c.config.routing).map((p) => this.at(p, cacheReplicas(c.config))).filter(Boolean)) : '';
    if (this.noise.textContent !== text) this.noise.textContent = text;
    this.noise.hidden = !text;
  }

  at(policy, x) {
    const s = this.spreads.get(`${policy}|${x}`)?.hit_rate_tokens;
    return s ? { policy, spread: s } : null;
  }

  /**
   * `sweeps` ({policy: points}) with each point that has its spread over the seeds carrying it as
   * `seeds` ({hit_rate_tokens, ttft_ms_p99}): the comparison sentences then say "more" only beyond noise.
   */
  annotate(sweeps, key) {
    if (!this.bands(key)) return sweeps;
    const out = {};
    for (const [p, pts] of Object.entries(sweeps)) {
      out[p] = pts.map((q) => {
        const s = this.spreads.get(`${p}|${q.instances}`);
        return s ? { ...q, seeds: { hit_rate_tokens: s.hit_rate_tokens, ttft_ms_p99: s.ttft_ms_p99 } } : q;
      });
    }
    return out;
  }

  /** The bands to draw for `key`'s figure: {policy: [{x, lo, hi}]} (token hit rate, 0 to 1), or null. */
  bands(key) {
    if (!this.on.checked || !this.key || this.key.slice(this.key.indexOf('|') + 1) !== key) return null;
    const out = {};
    for (const pt of this.spreads.values()) {
      const s = pt.hit_rate_tokens;
      if (!Number.isFinite(s?.ci95_low)) continue;
      (out[pt.routing] ||= []).push({ x: pt.instances, lo: Math.max(0, s.ci95_low), hi: Math.min(1, s.ci95_high) });
    }
    for (const p of Object.keys(out)) out[p].sort((a, b) => a.x - b.x);
    return out;
  }
}
