// www/js/calibrate-plan.js: "Is the preset right for my GPU?": the capacity planner's answer (the
// fewest replicas that meet the targets of the GPU planner, for the routing on screen)
// on the page's engine and on the fitted one, side by side, each from a real planner run
// (plan_policy_json, one worker each, in parallel; Cancel terminates them).
//
// Test hook on window.kvfleet: `lastCalibrationPlans` = {policy, spec, sides: [{label, config, plan}]}.

import { money, count } from './capacity-chart.js';
import { fmtMs } from './charts.js';

/** "3 replicas (3 GPUs) at $7.50/h, p99 TTFT 212 ms", or why none met the targets. */
export function answerWords(plan, spec) {
  const a = plan.at_min;
  if (!a) return `no fleet of up to ${count(spec.limits.max_replicas, 'replica')} meets the targets`;
  return `${count(a.instances, 'replica')} (${count(a.cost.gpus, 'GPU')}) at ${money(a.cost.usd_per_hour)}/h, p99 TTFT ${fmtMs(a.measured.ttft_ms_p99)}`;
}

const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/** The sentence that compares the two answers (`labels[0]` names the page's engine). */
export function moveWords(preset, fitted, labels) {
  const a = preset.at_min?.instances, b = fitted.at_min?.instances;
  if (a === undefined && b === undefined) return 'Neither engine meets the targets within the replicas allowed.';
  if (a === undefined) return `The fit meets the targets on ${count(b, 'replica')}; ${labels[0]} does not within the replicas allowed.`;
  if (b === undefined) return `${cap(labels[0])} meets the targets on ${count(a, 'replica')}; the fit does not within the replicas allowed.`;
  if (a === b) return `The same answer on both: ${count(a, 'replica')}.`;
  const d = Math.abs(a - b);
  return `The fit needs ${count(d, 'replica')} ${b < a ? 'fewer' : 'more'} than ${labels[0]} (${b} against ${a}).`;
}

export class PlanCompare {
  /**
   * els: run, cancel, out, status. opts: workerUrl; state() -> {config, source, presets}; spec(config,
   * presets) (throws a message); fitted() -> the page's config on the fitted engine, or null.
   */
  constructor(els, { workerUrl, state, spec, fitted }) {
    this.els = els;
    this.workerUrl = workerUrl;
    this.state = state;
    this.spec = spec;
    this.fitted = fitted;
    this.workers = [];
    this.generation = 0;
    els.run.addEventListener('click', () => this.run());
    els.cancel.addEventListener('click', () => { this.stop(); this.els.status.textContent = 'Planning cancelled.'; });
  }

  /** A new fit: the comparison on screen was of the old one. */
  reset(fittedConfig) {
    this.stop();
    this.els.out.hidden = true;
    this.els.out.replaceChildren();
    this.els.run.disabled = !fittedConfig;
    this.els.status.textContent = fittedConfig ? '' : 'The comparison needs a fit the engine can run (see the warnings).';
  }

  stop() {
    this.generation += 1;
    for (const w of this.workers) w.terminate();
    this.workers = [];
    this.els.cancel.hidden = true;
  }

  /** One plan in a worker of its own: resolves to the plan (parsed) or rejects with the message. */
  planIn(config, policy, spec, source) {
    const w = new Worker(this.workerUrl, { type: 'module' });
    this.workers.push(w);
    return new Promise((resolve, reject) => {
      w.onerror = (ev) => { ev.preventDefault(); reject(new Error(ev.message || 'a planning worker failed')); };
      w.onmessage = (e) => {
        const m = e.data;
        if (m.type === 'capacity-result') resolve(JSON.parse(m.plan));
        else if (m.type === 'capacity-error' || m.type === 'error' || m.type === 'fatal') reject(new Error(String(m.message).replace(/^(Error:\s*)+/, '')));
      };
      w.postMessage({ type: 'capacity', id: 1, config, policy, spec, trace: source || undefined });
    });
  }

  async run() {
    const fittedConfig = this.fitted();
    if (!fittedConfig) return;
    const { config, source, presets } = this.state();
    const label = config.engine === 'custom' ? 'the page\'s custom engine' : `the ${config.engine} preset`;
    const sides = [{ label, config }, { label: 'the fit', config: fittedConfig }];
    let specs;
    try { specs = sides.map((s) => this.spec(s.config, presets)); } catch (err) { this.els.status.textContent = `Can't plan: ${err.message} (in the GPU planner above).`; return; }
    this.stop();
    const gen = this.generation;
    const policy = config.routing;
    this.els.cancel.hidden = false;
    this.els.status.textContent = `Planning ${policy} on ${label} and on the fit…`;
    let plans;
    try {
      plans = await Promise.all(sides.map((s, i) => this.planIn(s.config, policy, specs[i], source)));
    } catch (err) {
      if (gen === this.generation) { this.stop(); this.els.status.textContent = `Can't plan: ${err.message}`; }
      return;
    }
    if (gen !== this.generation) return;
    this.stop();
    sides.forEach((s, i) => { s.plan = plans[i]; });
    window.kvfleet = window.kvfleet || {};
    window.kvfleet.lastCalibrationPlans = { policy, spec: specs[0], sides };
    this.render(policy, specs[0], sides, source);
  }

  render(policy, spec, sides, source) {
    const cols = sides.map((s) => {
      const div = document.createElement('div');
      div.className = 'cal-plan';
      div.dataset.testid = s.label === 'the fit' ? 'cal-plan-fit' : 'cal-plan-preset';
      const h = document.createElement('h4');
      h.textContent = s.label === 'the fit' ? 'On the fit' : `On ${s.label}`;
      const p = document.createElement('p');
      p.textContent = answerWords(s.plan, spec);
      div.append(h, p);
      return div;
    });
    const move = document.createElement('p');
    move.className = 'cal-move';
    move.dataset.testid = 'cal-plan-move';
    move.textContent = moveWords(sides[0].plan, sides[1].plan, [sides[0].label]);
    this.els.out.replaceChildren(...cols, move);
    this.els.out.hidden = false;
    this.els.status.textContent = `The planner's answer for ${policy} on ${source ? source.name : 'the synthetic workload'}, with the targets above, on each engine.`;
  }
}
