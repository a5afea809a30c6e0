// www/js/embed.js: ?embed=1 builds a figure for documentation, not the app in a box: one figure
// (show=), a few controls (controls=), a caption (caption=, plus a sentence computed from the run)
// and a link to the full playground, laid out to fit a 600x500 frame (or smaller) without scrolling. A
// lesson's exercise (?lesson=ID) scrolls what does not fit inside its own region, its controls and the
// link kept in view under it.

import { Controls } from './controls.js';
import { Charts, fmtMs } from './charts.js';
import { HeroPanel } from './hero-panel.js';
import { heroTakeaway } from './story.js';
import { pct, num, policyColor, orderPolicies, themeInk, countPct } from './format.js';
import { Lessons } from './lessons.js';
import { el } from './page-bits.js';
import { controlNames } from './lesson-settings.js';
import { sweepOptions, sweepSentence } from './embed-sweep-opts.js';

/** The figures an embed can show, with the controls each gets when controls= is absent. */
export const SHOWS = {
  'replicas-sweep': { controls: ['instances', 'routing'], title: 'Prompt tokens from cache as replicas grow' },
  hitrate: { controls: ['instances', 'routing'], title: 'Token hit rate per replica' },
  load: { controls: ['routing', 'prefix_popularity'], title: 'Requests per replica' },
  latency: { controls: ['routing', 'request_rate'], title: 'Latency distribution' },
  timeline: { controls: ['routing', 'request_rate'], title: 'Queues and cache over time' },
  compare: { controls: ['instances', 'num_prefixes'], title: 'Every policy on the same workload' },
  sweep: { controls: ['request_rate', 'output_len'], title: 'A setting swept, per routing policy' },
};
const MAX_CONTROLS = 4;
const MAX_CAPTION = 280;

/** Reads show=, controls= and caption= (bad values fall back, with a note). With a lesson
 * (?lesson=ID) the embed is the lesson's exercise, its controls the lesson's settings. */
export function embedOptions(search, params, lesson = null) {
  const q = new URLSearchParams(search);
  const notes = [];
  if (lesson) {
    const known = new Set([...params.map((p) => p.name), 'fleet_layout']);
    const controls = controlNames(lesson).filter((k) => known.has(k)).slice(0, MAX_CONTROLS);
    return { show: 'lesson', controls, caption: '', controlsGiven: false, notes, lesson: lesson.id };
  }
  let show = q.get('show') || 'replicas-sweep';
  if (!SHOWS[show]) {
    notes.push(`Unknown figure show=“${show.slice(0, 40)}”; allowed: ${Object.keys(SHOWS).join(', ')}. Showing replicas-sweep.`);
    show = 'replicas-sweep';
  }
  const known = new Set(params.map((p) => p.name));
  let controls = SHOWS[show].controls;
  const given = q.get('controls');
  if (given !== null) {
    const names = given.split(',').map((n) => n.trim()).filter(Boolean);
    const bad = names.filter((n) => !known.has(n));
    if (bad.length) notes.push(`Ignored unknown controls: ${bad.map((b) => b.slice(0, 30)).join(', ')}.`);
    controls = [...new Set(names.filter((n) => known.has(n)))];
    if (controls.length > MAX_CONTROLS) {
      notes.push(`An embed shows at most ${MAX_CONTROLS} controls; kept ${controls.slice(0, MAX_CONTROLS).join(', ')}.`);
      controls = controls.slice(0, MAX_CONTROLS);
    }
  }
  const caption = (q.get('caption') || '').slice(0, MAX_CAPTION);
  const sweep = show === 'sweep' ? sweepOptions(q, params, notes) : null;
  return { show, controls, caption, controlsGiven: given !== null, notes, sweep };
}

/** The computed sentence under an embedded figure (`sweeps`: the hero's, or show=sweep's drawn sweep). */
export function embedSentence(show, report, config, sweeps) {
  if (show === 'sweep') return sweepSentence(sweeps);
  const s = report.summary || {};
  const per = report.per_instance || [];
  switch (show) {
    case 'replicas-sweep': return heroTakeaway({ config, traced: report.source !== 'synthetic' && report.source !== 'sessions', report, sweeps }).lead;
    case 'hitrate': {
      const r = per.map((p) => p.hit_rate_tokens).filter(Number.isFinite);
      return `${countPct(s.hit_rate_tokens)} of prompt tokens came from cache; per replica ${pct(Math.min(...r), 0)}–${pct(Math.max(...r), 0)}.`;
    }
    case 'load': {
      const top = per.reduce((b, p) => (p.requests > (b?.requests ?? -1) ? p : b), null);
      const share = top && s.requests ? top.requests / s.requests : NaN;
      const f = (report.findings || []).find((x) => x.kind === 'load_uneven');
      const even = pct(1 / Math.max(1, per.length), 0);
      return f
        ? `Uneven load: replica R${top?.index ?? '?'} took ${countPct(share, 0)} of requests, against an even share of ${even}.`
        : `The load is shared within chance: the busiest replica took ${countPct(share, 0)} of requests, against an even share of ${even}.`;
    }
    case 'latency': return `First token p50 ${fmtMs(s.ttft_ms_p50)}, p99 ${fmtMs(s.ttft_ms_p99)}; whole answer p99 ${fmtMs(s.e2e_ms_p99)}.`;
    case 'timeline': {
      const q = report.series?.queue_peak || [];
      let peak = 0, at = 0;
      q.forEach((row, i) => { const m = Math.max(0, ...row); if (m > peak) { peak = m; at = i; } });
      return peak > 0 ? `The deepest queue: ${num(peak)} request${peak === 1 ? '' : 's'} waiting on R${at}.` : 'No request ever waited for a slot.';
    }
    default: return '';
  }
}

export class EmbedView {
  /** hooks: {onControl, onPick, workerUrl, fullUrl(), compare(configs), and for show=sweep: plan, state, note, fallback}. */
  constructor(body, params, opts, hooks) {
    this.params = params;
    this.opts = opts;
    this.hooks = hooks;
    this.config = null;
    body.classList.add('embed');
    const root = el('div', 'embed-root');
    root.id = 'embed';
    root.dataset.testid = 'embed';
    root.dataset.show = opts.show;
    if (hooks.lesson) { this.buildLesson(body, root, params, opts, hooks); return; }
    const fig = el('figure', 'embed-fig');
    this.box = el('div', `embed-box show-${opts.show}`);
    fig.append(this.box);
    this.form = el('form', 'embed-controls');
    this.form.dataset.testid = 'embed-controls';
    this.form.setAttribute('aria-label', 'Settings');
    this.controls = new Controls(this.form, params, hooks.onControl, { names: opts.controls, prefix: 'embed-' });
    this.errorEl = el('p', 'run-error');
    this.errorEl.setAttribute('role', 'alert');
    this.errorEl.dataset.testid = 'run-error';
    this.errorEl.hidden = true;
    const cap = el('figcaption', 'embed-caption');
    cap.dataset.testid = 'embed-caption';
    if (opts.caption) cap.append(el('span', 'embed-user-caption', opts.caption), document.createTextNode(' '));
    this.sentence = el('span', 'embed-sentence');
    this.sentence.dataset.testid = 'embed-sentence';
    this.sentence.setAttribute('aria-live', 'polite');
    cap.append(this.sentence);
    fig.append(cap);
    const foot = el('div', 'embed-foot');
    this.link = el('a', 'embed-open', 'Open in the kvfleet playground ↗');
    this.link.target = '_blank';
    this.link.rel = 'noopener';
    foot.append(this.link);
    root.append(fig, this.form, this.errorEl, foot);
    body.append(root);
    this.build(opts.show);
  }

  /** The lesson's exercise alone: title, goal, live checks, its settings' controls, hints and fixes. */
  buildLesson(body, root, params, opts, hooks) {
    const panel = el('section', 'embed-lesson lesson');
    panel.dataset.testid = 'embed-lesson';
    this.form = el('form', 'embed-controls');
    this.form.dataset.testid = 'embed-controls';
    this.form.setAttribute('aria-label', 'Settings');
    this.controls = new Controls(this.form, params, hooks.onControl, { names: opts.controls, prefix: 'embed-' });
    this.errorEl = el('p', 'run-error');
    this.errorEl.setAttribute('role', 'alert');
    this.errorEl.dataset.testid = 'run-error';
    this.errorEl.hidden = true;
    const foot = el('div', 'embed-foot');
    this.link = el('a', 'embed-open', 'Open the whole lesson in the kvfleet playground ↗');
    this.link.target = '_blank';
    this.link.rel = 'noopener';
    foot.append(this.link);
    root.append(panel, this.form, this.errorEl, foot);
    body.append(root);
    this.sentence = el('span');
    const { lesson } = hooks.lesson;
    this.lessons = new Lessons({ picks: el('div'), picksWrap: el('div'), panel }, {
      start: () => hooks.lesson.restart(), fix: (changes) => hooks.lesson.fix(changes), stop: () => hooks.lesson.restart(),
    }, null, { exerciseOnly: true });
    this.lessons.setParams(params);
    this.lessons.setLessons([lesson]);
    this.lessons.start(lesson.id, { loadConfig: false });
  }

  canvas(id, label) {
    const c = el('canvas');
    c.id = id;
    c.dataset.testid = `embed-chart-${id.replace(/^embed-/, '')}`;
    c.setAttribute('role', 'img');
    c.setAttribute('aria-label', label);
    const wrap = el('div', 'embed-canvas');
    wrap.append(c);
    this.box.append(wrap);
    return c;
  }

  build(show) {
    const title = SHOWS[show].title;
    if (show === 'replicas-sweep') {
      const c = this.canvas('embed-hero', title);
      const sink = { numbers: el('div'), lead: el('p'), detail: el('p'), why: el('p'), findings: el('div'), caption: el('p') };
      this.hero = new HeroPanel({ canvas: c, controls: null, ...sink }, this.params, { onControl: this.hooks.onControl, onPick: this.hooks.onPick },
        { workerUrl: this.hooks.workerUrl });
      document.addEventListener('kvfleet:hero-done', () => this.words());
    } else if (show === 'sweep') {
      // The sweep panel's code, loaded on demand (the first run computes meanwhile).
      const h = this.hooks;
      import('./embed-sweep.js').then(({ EmbedSweep }) => {
        this.sweepFig = new EmbedSweep(this.box, this.opts.sweep, {
          plan: h.plan, workerUrl: h.workerUrl, state: h.state, note: h.note, fallback: h.fallback,
          error: (text) => { this.errorEl.textContent = text; this.errorEl.hidden = !text; },
          done: () => this.words(),
        });
        if (this.config) this.sync(this.config, this.source);
      }).catch((err) => { this.errorEl.textContent = `The sweep could not load: ${err.message}`; this.errorEl.hidden = false; });
    } else if (show === 'compare') {
      this.cmpCanvas = this.canvas('embed-compare', title);
    } else {
      const ids = { hitrate: ['hit'], load: ['load'], latency: ['latency'], timeline: ['queue', 'cache'] }[show];
      const map = {};
      for (const k of ids) { this.canvas(`embed-${k}`, title); map[k] = `embed-${k}`; }
      this.charts = new Charts(map);
    }
  }

  urlExtra() {
    if (this.lessons) return {};
    const sw = (this.sweepFig?.sw ?? this.opts.sweep)?.given;
    return { show: this.opts.show, controls: this.opts.controlsGiven ? this.opts.controls.join(',') : null, caption: this.opts.caption || null,
      sweep: sw?.sweep ?? null, sweep_routing: sw?.routing ?? null };
  }

  sync(config, source) {
    this.config = { ...config };
    this.source = source;
    this.link.href = this.hooks.fullUrl();
    if (this.hero) this.hero.sync(config, source);
    if (this.sweepFig) {
      if (!this.sweepFig.ready) this.sweepFig.setup(this.params, config);
      this.sweepFig.run();
    }
    if (this.cmpCanvas) {
      const policies = orderPolicies(this.params.find((p) => p.name === 'routing')?.choices || []);
      this.policies = policies;
      this.hooks.compare(policies.map((routing) => ({ ...config, routing })));
    }
  }

  render(report) {
    this.report = report;
    if (this.lessons) { this.lessons.update(report); return; }
    if (this.charts) this.charts.update(report);
    if (this.hero) this.hero.showRun(report);
    this.words();
  }

  words() {
    if (!this.report || this.cmpCanvas || this.lessons) return;
    if (this.opts.show === 'sweep') { this.sentence.textContent = sweepSentence(this.sweepFig?.last); return; }
    this.sentence.textContent = embedSentence(this.opts.show, this.report, this.config || this.report.config, this.hero?.sweeps || {});
  }

  /** Every policy's report at the current settings: token hit rate bars, p99 TTFT dots. */
  showCompare(reports) {
    const t = themeInk();
    const names = reports.map((r) => r.config?.routing);
    const hit = reports.map((r) => 100 * (r.summary?.hit_rate_tokens ?? NaN));
    const p99 = reports.map((r) => r.summary?.ttft_ms_p99 ?? null);
    if (!this.cmp) {
      this.cmp = new window.Chart(this.cmpCanvas, {
        data: { labels: [], datasets: [
          { type: 'bar', label: 'Token hit rate (%)', data: [], backgroundColor: [], yAxisID: 'y', order: 2, maxBarThickness: 48 },
          { type: 'line', label: 'TTFT p99', data: [], yAxisID: 'y1', showLine: false, pointStyle: 'rectRot', pointRadius: 6, borderColor: t.ink, backgroundColor: t.ink, order: 1 },
        ] },
        options: {
          plugins: { legend: { display: false }, tooltip: { callbacks: {
            label: (c) => (c.datasetIndex === 0 ? ` ${c.parsed.y.toFixed(1)}% of prompt tokens from cache` : ` p99 TTFT ${fmtMs(c.parsed.y)}`) } } },
          scales: {
            x: { ticks: { font: { family: 'ui-monospace, monospace', size: 10.5 }, maxRotation: 0, autoSkip: false } },
            y: { min: 0, max: 100, title: { display: true, text: 'Tokens from cache (bars)' }, ticks: { callback: (v) => `${v}%` } },
            // Linear from 0: a log axis over 137-184 ms would make a 1.3x gap look like 10x.
            y1: { position: 'right', beginAtZero: true, title: { display: true, text: 'TTFT p99 (◆)' }, grid: { display: false },
              ticks: { maxTicksLimit: 5, callback: (v) => fmtMs(v) } },
          },
        },
      });
    }
    // Two-line labels ("round_" / "robin") so five policies fit a 320 px frame; more than six are one line
    // each, turned when they do not fit side by side (Chart.js turns them only as far as it must).
    const many = names.length > 6;
    this.cmp.data.labels = names.map((n) => (!many && n.includes('_') ? [n.slice(0, n.indexOf('_') + 1), n.slice(n.indexOf('_') + 1)] : n));
    this.cmp.options.scales.x.ticks.maxRotation = many ? 90 : 0;
    this.cmp.data.datasets[0].data = hit;
    this.cmp.data.datasets[0].backgroundColor = names.map((n) => policyColor(n));
    this.cmp.data.datasets[1].data = p99;
    this.cmp.update('none');
    this.cmpCanvas.setAttribute('aria-label', `Every policy: ${names.map((n, i) => `${n} ${pct(hit[i] / 100, 0)} of tokens cached, p99 TTFT ${fmtMs(p99[i])}`).join('; ')}.`);
    // Ties (equal when rounded as shown) are named together.
    const top = Math.max(...hit.filter(Number.isFinite));
    const best = names.filter((n, i) => pct(hit[i] / 100, 0) === pct(top / 100, 0));
    const lows = p99.filter((v) => v !== null);
    const low = lows.length ? Math.min(...lows) : null;
    const fast = names.filter((n, i) => p99[i] !== null && fmtMs(p99[i]) === fmtMs(low));
    const join = (xs) => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]} tie` : xs[0]);
    this.sentence.textContent = `Most tokens from cache: ${join(best)} (${pct(top / 100, 0)}); fastest p99 first token: ${join(fast)} (${fmtMs(low)}).`;
  }

  retheme() {
    if (this.lessons) return;
    if (this.charts) { this.charts.destroy(); this.charts.create(); if (this.report) this.charts.update(this.report); }
    if (this.hero) this.hero.retheme();
    if (this.sweepFig) this.sweepFig.retheme();
    if (this.cmp) { this.cmp.destroy(); this.cmp = null; }
  }
}
