// www/js/embed-sweep.js: the sweep figure of an embed (?embed=1&show=sweep): the sweep panel's own
// planning, worker pool and charts (sweep.js, sweep-figure.js), its form kept out of sight, set from the
// address (embed-sweep-opts.js reads it). The embed's controls re-run the sweep.

import { Sweep, PRESETS } from './sweep.js';
import { el } from './page-bits.js';
import { ALLOWED, DEFAULT_SWEEP, presetBase } from './embed-sweep-opts.js';

export class EmbedSweep {
  /** box: the figure's box; hooks: {plan, workerUrl, state, note(text), error(text), fallback(base), done()}; sw: sweepOptions(). */
  constructor(box, sw, hooks) {
    this.sw = sw;
    this.hooks = hooks;
    const canvas = (id, label) => {
      const c = el('canvas');
      c.id = id;
      c.dataset.testid = `embed-chart-${id.replace(/^embed-/, '')}`;
      c.setAttribute('role', 'img');
      c.setAttribute('aria-label', label);
      const wrap = el('div', 'embed-canvas');
      wrap.append(c);
      box.append(wrap);
      return c;
    };
    const chart1 = canvas('embed-sweep', 'The sweep: first chart');
    const ttft = canvas('embed-sweep-ttft', 'The sweep: time to first token');
    // The panel's form, out of sight: the address sets it.
    const form = el('div', 'embed-sweep-form');
    const node = (tag) => document.createElement(tag);
    const els = {
      param: node('select'), spec: node('input'), series: node('select'), presets: node('div'), run: node('button'), cancel: node('button'),
      progress: node('progress'), status: node('p'), error: node('p'), out: node('div'), table: node('table'), canvas: chart1, ttft,
    };
    const tableWrap = node('div');
    tableWrap.append(els.table);
    els.out.append(tableWrap);
    form.append(els.param, els.spec, els.series, els.presets, els.run, els.cancel, els.progress, els.status, els.error, els.out);
    box.append(form);
    this.els = els;
    this.sweep = new Sweep(els, { plan: hooks.plan, workerUrl: hooks.workerUrl, state: hooks.state, load: () => {} });
    this.ready = false;
  }

  /** Sets the panel's form to the address's sweep (once the parameter table is known). */
  setup(params, config) {
    this.sweep.setParams(params, config);
    const { preset, param, spec, series } = this.sw;
    if (preset) {
      // The preset's lines, reference and charts; its workload is already in the embed's settings.
      this.sweep.preset(preset, { run: false, keepBase: false });
      if (!Array.isArray(series)) this.setSeries(series);
    } else {
      this.els.param.value = param;
      this.els.spec.value = spec;
      this.setSeries(series);
      this.sweep.syncSeries();
    }
    this.ready = true;
  }

  setSeries(v) {
    if (![...this.els.series.options].some((o) => o.value === v)) {
      const o = document.createElement('option');
      o.value = v;
      o.textContent = v;
      this.els.series.append(o);
    }
    this.els.series.value = v;
  }

  /** Runs the sweep at the embed's settings; a spec the planner rejects falls back to the default, once. */
  async run() {
    if (!this.ready) return;
    const seq = this.sweep.seq;
    this.hooks.error('');
    await this.sweep.run();
    const err = this.els.error;
    if (this.sweep.seq !== seq) { this.firstDone = true; this.compact(); this.hooks.done(); return; }
    if (err.hidden) return;   // superseded by a newer run
    if (this.firstDone || !this.sw.given.sweep) { this.hooks.error(err.textContent); return; }
    // The address's sweep cannot be planned: said once, then the default sweep.
    this.firstDone = true;
    this.hooks.note(`The link's sweep: ${err.textContent.replace(/\.$/, '')}; allowed: ${ALLOWED}. Showing the ${DEFAULT_SWEEP} sweep.`);
    const p = PRESETS.find((x) => x.id === DEFAULT_SWEEP);
    this.sw = { preset: p.id, param: p.param, spec: p.spec, series: p.series, given: { sweep: null, routing: null } };
    const { params, config } = this.hooks.state();
    this.setup(params, config);
    this.hooks.fallback(presetBase(p.id));
  }

  get last() { return this.sweep.last; }

  /** Fits the panel's two charts to a small frame: one legend and one x title for both, short y titles. */
  compact() {
    const { first, ttft } = this.sweep.charts;
    const short = (ch, what) => {
      if (!ch) return;
      const y = ch.options.scales.y;
      y.title.text = `${what}${y.type === 'logarithmic' ? ' (log)' : /%/.test(y.title.text) ? ' (%)' : ' (ms)'}`;
    };
    const metric = (this.sweep.last.metrics || ['hit'])[0];
    short(first, { hit: 'Hit rate', spread: 'Load spread', tpot: 'TPOT' }[metric]);
    short(ttft, 'TTFT');
    if (metric === 'spread' && first) first.options.scales.y.title.text = 'Load spread';
    if (first) { first.options.scales.x.title.display = false; first.update('none'); }
    if (ttft) { ttft.options.plugins.legend.display = metric === 'hit'; ttft.update('none'); }
  }

  retheme() {
    this.sweep.retheme();
    if (this.sweep.last) this.compact();
  }
}
