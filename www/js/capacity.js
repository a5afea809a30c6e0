// www/js/capacity.js: the GPU planner in the page (how many GPUs meet an SLO). Each routing
// policy is planned in a worker of its own pool (src/plan via plan_policy_json: the fewest replicas
// that meet the targets, checked against one fewer, then the goodput of the current fleet), so
// policies run in parallel; Cancel terminates the pool. Shows the headline (plan_headline, the CLI's
// words: its first line in bold, the details under it in plain text; when no policy meets the targets,
// one sentence for them all, naming this card's controls), notes (inversions; for a policy that never
// meets the targets, what it reached and, for llm_d's known case, why), a table (with a
// hint and edge shadows while it scrolls sideways) and a chart of cost against p99 TTFT with one
// point per (policy, replicas) evaluated (full size and colour where every target is met, small and
// faded where one is missed, whatever the marker) and the Pareto front of the points that meet every
// target; clicking a point loads that configuration. The chart's config and looks: capacity-chart.js.
//
// The "compare GPUs" mode (the cheapest mix of the presets checked) and the autoscaled-against-static
// comparison under a plan: capacity-more.js (its presets and prices: capacity-prices.js). With an autoscaler set, the plan sizes the static fleet
// (autoscaling off), as `kvfleet plan` does.
//
// Test hook on window.kvfleet: `lastCapacity` = {config, spec, plans (the parsed JSON, policy order),
// headline, cheapest (the policy the headline names, '' for none: the chart rings its answer), ms, workers}.

import { num, policyColor, orderPolicies, countPct } from './format.js';
import { fmtMs } from './charts.js';
import { poolSize } from './sweep.js';
import { money, count, chartSets, chartConfig, updateChart, describeChart } from './capacity-chart.js';
import { labelCells, scrollCue } from './page-bits.js';
import { runMix, runAutoscale } from './capacity-more.js';
import { neverMetWords } from './capacity-words.js';
import { fillMixPresets, mixLink, wireMixLink } from './capacity-prices.js';

export { paretoFront, logTicks } from './capacity-chart.js';
export { neverMetWords } from './capacity-words.js';

/** An error that names the input to mark invalid. */
function bad(input, message) {
  const err = new Error(message);
  err.input = input;
  return err;
}

/** The price of a GPU-hour of an engine without hardware (the simulator's DEFAULT_GPU_HOUR_USD). */
const NO_HARDWARE_USD = 2.5;

/** The price an empty price field stands for: the preset's GPU at its assumed list price (the simulator's; $2.50 for an engine without hardware). */
export function listPrice(config, presets) {
  return (presets || []).find((p) => p.name === config.engine)?.hardware?.gpu_hour_usd ?? NO_HARDWARE_USD;
}

/** A target input's value: null when empty, else a number > 0 (or the reason it is not). */
function target(input, label) {
  const t = input.value.trim();
  if (!t) return null;
  const x = Number(t);
  if (!Number.isFinite(x) || x <= 0) throw bad(input, `${label}: enter a number of ms above 0, or leave it empty`);
  return x;
}

/**
 * The table's $/M output tokens cell: two decimals, and, where the headline calls policies tied on
 * cost (the same $/h, $/M level with the lowest: plan_tied), "≈ tied" on each of them, so a row
 * that prints the same $/M but is not tied (more than 0.5% dearer) reads apart from them.
 */
function perMCell(a, policy, last) {
  const tied = last?.tied ?? [];
  if (tied.length < 2 || !tied.includes(policy)) return [money(a.cost.usd_per_m_tokens)];
  const first = tied[0];
  return [`${money(a.cost.usd_per_m_tokens)} ≈ tied`, policy === first
    ? `The headline's answer: ${tied.length - 1} other polic${tied.length === 2 ? 'y costs' : 'ies cost'} the same per hour and per million output tokens to within 0.5% (or within the noise over seeds)`
    : `Tied on cost with ${first}: the same $/hour, and a $/M output tokens level with the lowest (within 0.5%, or within the noise over seeds)`];
}

export class Capacity {
  /**
   * els: ttft, tpot, e2e, rejected, max, price, run, cancel, progress, status, error, out, headline, notes, canvas, table;
   * mode, mixPick, mixBoxes, mixOut, mixHeadline, mixWords, mixTable; auto, autoWords, autoTable.
   * opts: workerUrl; state() -> {config, source, policies, presets}; load(config); link: the address's
   * plan_mix (capacity-prices.js); onLink(): the mode, presets or prices changed (the address follows).
   */
  constructor(els, { workerUrl, state, load, link = null, onLink = null }) {
    this.els = els;
    this.workerUrl = workerUrl;
    this.state = state;
    this.load = load;
    this.pool = [];
    this.generation = 0;
    this.chart = null;
    this.last = null;
    els.run.addEventListener('click', () => (els.mode.value === 'mix' ? runMix(this) : this.run()));
    els.mode.addEventListener('change', () => this.showMode());
    this.showMode();
    this.followEngine();
    wireMixLink(this, link, onLink);
    els.cancel.addEventListener('click', () => this.cancel('Planning cancelled.'));
    // "on 1 seed", "on 2 seeds": the word after the input follows its value.
    const unit = els.seeds.parentElement?.querySelector('.cap-unit');
    if (unit) {
      const say = () => { unit.textContent = Number(els.seeds.value) === 1 ? 'seed' : 'seeds'; };
      els.seeds.addEventListener('input', say);
      say();
    }
  }

  /** The price field's placeholder names the list price an empty field uses, and the mix's boxes the model, for the engine on screen. */
  followEngine() {
    const { config, presets } = this.state();
    this.els.price.placeholder = `list: $${listPrice(config, presets).toFixed(2)}/GPU-h`;
    if (this.els.mode.value === 'mix') fillMixPresets(this.els, presets || [], config.engine);
  }

  /** The address's plan_mix for the form on screen (null outside "compare GPUs"). */
  link() { return mixLink(this.els); }

  /** Shows the preset pickers (each with its price, so the single price field hides) in the mix mode, and the mode's last answer. */
  showMode() {
    const mix = this.els.mode.value === 'mix';
    this.els.mixPick.hidden = !mix;
    this.els.price.closest('label').hidden = mix;
    if (mix) fillMixPresets(this.els, this.state().presets || [], this.state().config.engine);
    this.els.mixOut.hidden = !(mix && this.lastMix);
    this.els.out.hidden = mix || !this.last;
    this.els.run.textContent = mix ? 'Plan the mix' : 'Plan';
  }

  /**
   * The plain paragraph of the headline's details (how ties were broken), behind a "why" disclosure
   * under the one-line answer (made once, after the headline; closed until the reader opens it).
   */
  details() {
    if (!this.detailsEl) {
      this.whyEl = document.createElement('details');
      this.whyEl.className = 'cap-why';
      this.whyEl.dataset.testid = 'cap-why';
      const summary = document.createElement('summary');
      summary.textContent = 'Why this one?';
      this.detailsEl = document.createElement('p');
      this.detailsEl.className = 'cap-details';
      this.detailsEl.dataset.testid = 'cap-details';
      this.whyEl.append(summary, this.detailsEl);
      this.els.headline.after(this.whyEl);
    }
    return this.detailsEl;
  }

  /** The targets and limits of the form, as plan::PlanSpec (`mix`: each preset has its own price, the single field is not read); throws a plain message when one is bad. */
  spec(config, presets, { mix = false } = {}) {
    const e = this.els;
    const slo = {
      ttft_p99_ms: target(e.ttft, 'TTFT p99'),
      tpot_p99_ms: target(e.tpot, 'TPOT p99'),
      e2e_p99_ms: target(e.e2e, 'End-to-end p99'),
      max_rejected: 0,
    };
    const rej = e.rejected.value.trim() === '' ? 0 : Number(e.rejected.value);
    if (!Number.isFinite(rej) || rej < 0 || rej > 100) throw bad(e.rejected, 'Unserved: enter a share from 0 to 100%');
    slo.max_rejected = rej / 100;
    slo.sustained = e.sustained.checked;
    if (slo.ttft_p99_ms === null && slo.tpot_p99_ms === null && slo.e2e_p99_ms === null && e.rejected.value.trim() === '') {
      throw bad(e.ttft, 'Give at least one target');
    }
    const max = Number(e.max.value);
    if (!Number.isInteger(max) || max < 1 || max > 256) throw bad(e.max, 'Up to: enter a whole number of replicas from 1 to 256');
    const listed = listPrice(config, presets);
    const price = mix || e.price.value.trim() === '' ? listed : Number(e.price.value);
    if (!Number.isFinite(price) || price < 0) throw bad(e.price, 'Price: enter a number of dollars per GPU-hour, 0 or more, or leave it empty for the GPU\'s list price');
    const seeds = Number(e.seeds.value);
    if (!Number.isInteger(seeds) || seeds < 1 || seeds > 16) throw bad(e.seeds, 'Seeds: enter a whole number from 1 to 16');
    const preset = (presets || []).find((p) => p.name === config.engine);
    return { slo, limits: { max_replicas: max, seeds, exhaustive: false, gpus_per_replica: preset?.gpus ?? 1, gpu_hour_usd: price } };
  }

  ensurePool(n) {
    while (this.pool.length > n) this.pool.pop().terminate();
    while (this.pool.length < n) {
      const w = new Worker(this.workerUrl, { type: 'module' });
      w.onerror = (ev) => { ev.preventDefault(); this.fail(`A planning worker failed (${ev.message || 'no details'}).`); };
      this.pool.push(w);
    }
  }

  /** Stops everything in flight: the plans are blocking calls, so the workers are terminated. */
  stop() {
    this.generation += 1;
    this.abandon?.();
    this.abandon = null;
    for (const w of this.pool) w.terminate();
    this.pool = [];
  }

  setBusy(on) {
    this.els.cancel.hidden = !on;
    this.els.progress.hidden = !on;
    this.els.run.textContent = on ? 'Restart' : (this.els.mode.value === 'mix' ? 'Plan the mix' : 'Plan');
  }

  showError(message, input = null) {
    this.els.error.textContent = message;
    this.els.error.hidden = false;
    if (input) input.setAttribute('aria-invalid', 'true');
  }

  clearError() {
    this.els.error.hidden = true;
    const inputs = [...['ttft', 'tpot', 'e2e', 'rejected', 'max', 'price', 'seeds', 'mixBoxes'].map((k) => this.els[k]), ...this.els.mixBoxes.querySelectorAll('input')];
    for (const input of inputs) input.removeAttribute('aria-invalid');
  }

  fail(message) {
    this.stop();
    this.setBusy(false);
    this.showError(message);
    this.els.status.textContent = this.last ? 'The last finished plan is still shown.' : '';
  }

  cancel(message) {
    if (this.els.cancel.hidden) return;
    this.stop();
    this.setBusy(false);
    this.els.status.textContent = this.last ? `${message} The last finished plan is still shown.` : message;
  }

  async run() {
    const { config: page, source, policies, presets } = this.state();
    // The plan sizes a static fleet: an autoscaler set on the page is what the plan is compared with.
    const config = (page.autoscale ?? 'off') === 'off' ? page : { ...page, autoscale: 'off' };
    this.clearError();
    let spec;
    try { spec = this.spec(config, presets); } catch (err) { this.showError(err.message, err.input); return; }
    this.stop();
    const gen = this.generation;
    const order = orderPolicies(policies);
    const n = Math.min(poolSize(), order.length);
    this.ensurePool(n);
    this.setBusy(true);
    const plans = new Array(order.length);
    let next = 0, done = 0;
    const t0 = performance.now();
    const progress = () => {
      this.els.progress.value = done / order.length;
      this.els.progress.textContent = `${done}/${order.length}`;
      this.els.status.textContent = `Planning ${order.length} policies on ${count(n, 'worker')}… ${done}/${order.length} done`;
    };
    progress();
    const ok = await new Promise((resolve) => {
      const feed = (w) => {
        if (gen !== this.generation) return resolve(false);
        if (next >= order.length) { if (done === order.length) resolve(true); return; }
        const i = next++;
        w.onmessage = (e) => {
          const m = e.data;
          if (gen !== this.generation) return resolve(false);
          if (m.type === 'ready') return;
          if (m.type === 'capacity-result') {
            plans[i] = JSON.parse(m.plan);
            done += 1;
            progress();
            feed(w);
          } else if (m.type === 'capacity-error' || m.type === 'error' || m.type === 'fatal') {
            this.fail(`Can't plan ${order[i]}: ${String(m.message).replace(/^(Error:\s*)+/, '')}`);
            resolve(false);
          }
        };
        w.postMessage({ type: 'capacity', id: i + 1, config, policy: order[i], spec, trace: source || undefined });
      };
      for (const w of this.pool) feed(w);
    });
    if (!ok || gen !== this.generation) return;
    const { headline, cheapest, tied } = await this.headline(plans, spec);
    if (gen !== this.generation) return;
    this.setBusy(false);
    const ms = performance.now() - t0;
    this.last = { config, spec, plans, headline, cheapest, tied, ms, workers: n };
    window.kvfleet = window.kvfleet || {};
    window.kvfleet.lastCapacity = this.last;
    this.els.status.textContent = `Done in ${(ms / 1000).toFixed(1)} s on ${count(n, 'worker')} · seed ${config.seed} · ${source ? source.name : 'synthetic'}.`;
    this.render();
    await runAutoscale(this, gen, { config: page, spec, plans, source });
  }

  /**
   * The CLI's headline and its details, and the policy it names, from the simulator (plan_headline
   * and plan_cheapest in a pool worker): {headline, cheapest}. When no policy met `spec`'s targets,
   * the headline is one sentence on the best reached, naming this card's controls.
   */
  headline(plans, spec) {
    const w = this.pool[0];
    return new Promise((resolve) => {
      w.onmessage = (e) => {
        if (e.data.type === 'capacity-headline') resolve({ headline: e.data.headline, cheapest: e.data.cheapest, tied: e.data.tied });
        else if (e.data.type === 'capacity-error') resolve({ headline: `(${e.data.message})`, cheapest: '', tied: [] });
      };
      w.postMessage({ type: 'capacity-headline', plans: JSON.stringify(plans), spec });
    });
  }

  render() {
    const { plans, headline, config, spec } = this.last;
    this.els.out.hidden = false;
    this.els.mixOut.hidden = true;
    // plan_headline's first line is the headline, the rest its details. When no policy met the
    // targets, it is one sentence for all of them, with the best reached and what to change.
    const none = plans.every((p) => p.min_replicas === null);
    const [head, ...rest] = headline.split('\n');
    this.els.headline.textContent = head;
    this.details().textContent = rest.join(' ');
    this.whyEl.hidden = rest.length === 0;
    const notes = [];
    for (const p of plans) {
      for (const [a, b] of p.non_monotone) {
        const miss = p.points.find((x) => x.instances === b)?.misses.join(', ');
        notes.push(`${p.policy} meets the targets at ${count(a, 'replica')} but misses them at ${b} (${miss}): more replicas did worse.`);
      }
    }
    if (!none) for (const p of plans) if (p.min_replicas === null) notes.push(neverMetWords(p, spec, config));
    this.els.notes.textContent = notes.join(' ');
    this.renderTable(plans, config);
    this.draw();
  }

  renderTable(plans, config) {
    const max = this.last.spec.limits.max_replicas;
    const head = ['Policy', 'Replicas', 'GPUs', '$/hour', '$/M output tokens', 'TTFT p99', 'TPOT p99', 'Unserved', `Goodput on your ${count(config.instances, 'replica')}`];
    const thead = document.createElement('thead');
    const hr = document.createElement('tr');
    for (const h of head) { const th = document.createElement('th'); th.scope = 'col'; th.textContent = h; hr.append(th); }
    thead.append(hr);
    const tbody = document.createElement('tbody');
    for (const p of plans) {
      const tr = document.createElement('tr');
      tr.dataset.policy = p.policy;
      const th = document.createElement('th');
      th.scope = 'row';
      const sw = document.createElement('span'); sw.className = 'swatch'; sw.style.background = policyColor(p.policy);
      th.append(sw, document.createTextNode(p.policy));
      tr.append(th);
      const a = p.at_min;
      const m = a?.measured;
      const g = p.goodput;
      const goodput = g ? `${g.at_limit ? '≥ ' : ''}${num(g.rate, 2)} ${g.rate_unit}` : 'not met';
      const split = a?.prefill_instances != null ? ` (${a.prefill_instances}:${a.decode_instances})` : '';
      const least = split ? 2 : 1;
      const cells = a
        ? [[`${a.instances}${split} ✓`, (a.instances === least ? `${count(a.instances, 'replica')} meet every target, the smallest fleet` : `${a.instances} replicas meet every target, ${count(a.instances - 1, 'replica')} do not (both simulated)`) + (split ? `; prefill:decode ${split.slice(2, -1)}, the best split of ${a.instances}` : '')],
          [a.cost.gpus], [money(a.cost.usd_per_hour)], perMCell(a, p.policy, this.last), [fmtMs(m.ttft_ms_p99)], [fmtMs(m.tpot_ms_p99)], [countPct(m.rejected_share)], [goodput]]
        : [[`> ${max}`, neverMetWords(p, this.last.spec, config)], ['–'], ['–'], ['–'], ['–'], ['–'], ['–'], [goodput]];
      for (const [c, title] of cells) {
        const td = document.createElement('td');
        td.textContent = String(c);
        if (title) td.title = title;
        tr.append(td);
      }
      if (a) {
        tr.className = 'loadable';
        tr.title = `Load ${p.policy} on ${count(a.instances, 'replica')}`;
        tr.addEventListener('click', () => this.loadPoint(p.policy, a));
      }
      tbody.append(tr);
    }
    this.els.table.replaceChildren(thead, tbody);
    labelCells(this.els.table);
    this.watchOverflow();
  }

  /** Shows a hint above the table while it is wider than its box (a phone), and keeps it current. */
  watchOverflow() {
    this.fitHint ||= scrollCue(this.els.table.parentElement, 'cap-scroll-hint');
    this.fitHint();
  }

  /** Loads a policy's answer (its replicas, and its prefill:decode split if any) into the page and says so. */
  loadPoint(policy, { instances, prefill_instances, decode_instances }) {
    const pools = prefill_instances != null ? { prefill_instances, decode_instances } : {};
    this.load({ ...this.last.config, routing: policy, instances, ...pools });
    this.els.status.textContent = `Loaded ${policy} on ${count(instances, 'replica')}: the charts at the top now show that run.`;
  }

  draw() {
    if (!this.last) return;
    const { sets, front, y } = chartSets(this.last);
    const C = window.Chart;
    if (!this.chart) {
      this.chart = new C(this.els.canvas, chartConfig(sets, y, (evt, els) => this.click(els)));
    } else {
      updateChart(this.chart, sets, y);
    }
    describeChart(this.els.canvas, front);
  }

  click(els) {
    const hit = els.find((e) => this.chart.data.datasets[e.datasetIndex].data[e.index]?.policy);
    if (!hit) return;
    const q = this.chart.data.datasets[hit.datasetIndex].data[hit.index];
    const plan = this.last.plans.find((p) => p.policy === q.policy);
    this.loadPoint(q.policy, plan?.points.find((x) => x.instances === q.n) ?? { instances: q.n });
  }

  retheme() {
    if (this.chart) { this.chart.destroy(); this.chart = null; }
    this.draw();
  }
}
