// www/js/capacity-more.js: the capacity panel's two further answers, both from the simulator in a
// pool worker. "Compare GPUs": the cheapest mix of the presets checked (two or more of one model)
// that meets the targets under the current routing policy (src/plan/mix.rs via plan_mix_json, the
// search `kvfleet plan --plan-mix A,B,... --plan-routing POLICY` runs: every pair's staircase, for
// each count of the first preset the fewest of the second that meets; the cheapest of those; local
// moves to cheaper mixes of three or more; verified against one replica fewer of each), shown as the
// CLI's headline and a table of every mix simulated. "Autoscaled against static": after a plan,
// the fleet it sized for the current policy against the page's autoscaler on the same workload
// (src/plan/autoscale.rs via plan_autoscale_json, as `--plan-autoscale`), or what to set for it.
//
// Test hooks on window.kvfleet: `lastCapacityMix` = {config, spec, mix, headline, ms};
// `lastCapacityAutoscale` = {config, spec, replicas, comparison} (comparison null with `why` when
// none was run).

import { countPct } from './format.js';
import { fmtMs } from './charts.js';
import { money, count } from './capacity-chart.js';
import { labelCells, scrollCue } from './page-bits.js';
import { chosenPresets, gpuOf } from './capacity-prices.js';

/** Labels the table's cells for the phone's cards, and a scroll hint above it while it is wider than its box, made once per table. */
function cue(els, key, table, testid) {
  labelCells(table);
  els[key] ||= scrollCue(table.parentElement, testid);
  els[key]();
}

/** The mix search's spec: the form's targets and bounds, the presets checked (in the model's order), each at the price beside it. */
export function mixSpec(cap, config, presets) {
  const { slo, limits } = cap.spec(config, presets, { mix: true });
  const e = cap.els;
  const chosen = chosenPresets(e);
  if (chosen.length < 2) {
    const err = new Error(`Compare GPUs: check at least two presets (${chosen.length} checked)`);
    err.input = e.mixBoxes;
    throw err;
  }
  return { slo, limits, presets: chosen };
}

/** "A, B and C". */
function listed(words) {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

/** Posts one job to the first pool worker and resolves with its answer, or null when stopped or failed. */
function ask(cap, gen, job, resultType) {
  cap.ensurePool(Math.max(1, cap.pool.length));
  const w = cap.pool[0];
  return new Promise((resolve) => {
    cap.abandon = () => resolve(null); // Capacity.stop() terminates the worker, so nothing answers
    w.onmessage = (e) => {
      const m = e.data;
      if (gen !== cap.generation) return resolve(null);
      if (m.type === 'ready') return;
      if (m.type === resultType) resolve(m);
      else if (m.type === 'capacity-error' || m.type === 'error' || m.type === 'fatal') resolve({ error: String(m.message).replace(/^(Error:\s*)+/, '') });
    };
    w.postMessage(job);
  });
}

/** Runs the mix search for the current policy; keeps the last answer on bad input or failure. */
export async function runMix(cap) {
  const { config: page, source, presets } = cap.state();
  // A mix is a static fleet (the autoscaler would not know which preset a new replica takes).
  const config = (page.autoscale ?? 'off') === 'off' ? page : { ...page, autoscale: 'off' };
  cap.clearError();
  let spec;
  try { spec = mixSpec(cap, config, presets); } catch (err) { cap.showError(err.message, err.input); return; }
  cap.stop();
  const gen = cap.generation;
  cap.ensurePool(1);
  cap.setBusy(true);
  cap.els.progress.removeAttribute('value');
  cap.els.status.textContent = `Searching mixes of ${listed(spec.presets.map((p) => p.preset))} under ${config.routing}…`;
  const t0 = performance.now();
  const job = { type: 'capacity-mix', id: gen, config, policy: config.routing, spec, trace: source || undefined };
  const m = await ask(cap, gen, job, 'capacity-mix-result');
  if (!m || gen !== cap.generation) return;
  if (m.error) { cap.fail(`Can't plan the mix: ${m.error}`); return; }
  cap.setBusy(false);
  const ms = performance.now() - t0;
  cap.lastMix = { config, spec, mix: m.result.mix, headline: m.result.headline, ms };
  window.kvfleet = window.kvfleet || {};
  window.kvfleet.lastCapacityMix = cap.lastMix;
  cap.els.status.textContent = `Done in ${(ms / 1000).toFixed(1)} s: ${m.result.mix.points.length} ${m.result.mix.points.length === 1 ? 'mix' : 'mixes'} simulated · seed ${config.seed} · ${source ? source.name : 'synthetic'}.`;
  renderMix(cap.els, cap.lastMix);
}

/** "2 x A + 3 x B", as the CLI writes a mix. */
function countsText(mix, c) {
  return c.map((n, i) => [n, i]).filter(([n]) => n > 0).map(([n, i]) => `${n} x ${mix.presets[i].preset}`).join(' + ');
}

/**
 * The sentences under the mix headline: the walk, the local moves, the verification, inversions (the
 * CLI's words). With no answer the headline itself says what the mixes reached.
 */
function mixWords({ mix, spec }) {
  const priced = listed(mix.presets.map((p) => `${p.preset} at ${money(p.gpu_hour_usd)}`));
  const two = mix.presets.length === 2;
  const walk = two ? 'for each count of the first, the fewest of the second that meets the targets (◆ in the table), then the cheapest of those'
    : 'for each pair of presets, for each count of the first, the fewest of the second that meets the targets (◆ in the table), then the cheapest of those,'
      + ' then moves that trade or drop one replica to reach a cheaper mix of three or more (◇)';
  const out = [`${mix.policy}, ${priced} per GPU-hour (up to ${count(spec.limits.max_replicas, 'replica')} in all, on ${count(spec.limits.seeds, 'seed')}): ${walk}.`];
  if (mix.local_moves.length) out.push(`Local moves: ${mix.local_moves.map((c) => countsText(mix, c)).join(', then ')}.`);
  else if (!two && mix.answer) out.push('No local move found a cheaper mix.');
  const fewer = two ? 'either preset' : 'any preset it has';
  if (mix.answer && mix.verified) out.push(`Verified: ${countsText(mix, mix.answer)} meets; one replica fewer of ${fewer} misses.`);
  else if (mix.answer) out.push(`Not verified: ${countsText(mix, mix.answer)} meets, but one replica fewer of a preset also met (more replicas did worse somewhere on the walk).`);
  for (const [p, q] of mix.non_monotone) out.push(`Not monotone: ${countsText(mix, p)} meets the targets but ${countsText(mix, q)} misses them: more replicas did worse.`);
  return out.join(' ');
}

function cellRow(cells, cls = '') {
  const tr = document.createElement('tr');
  if (cls) tr.className = cls;
  for (const [i, c] of cells.entries()) {
    const td = document.createElement(i === 0 ? 'th' : 'td');
    if (i === 0) td.scope = 'row';
    td.textContent = String(c);
    if (i > 0 && i === cells.length - 1) td.className = 'cap-targets'; // "misses ttft_p99, overloaded" may wrap
    tr.append(td);
  }
  return tr;
}

/** A header row; a cell given as [text, title] carries a title (a preset's whole name over its GPU's). */
function head(names) {
  const thead = document.createElement('thead');
  const tr = document.createElement('tr');
  for (const h of names) {
    const th = document.createElement('th');
    th.scope = 'col';
    [th.textContent, th.title] = Array.isArray(h) ? h : [h, ''];
    if (!th.title) th.removeAttribute('title');
    tr.append(th);
  }
  thead.append(tr);
  return thead;
}

/** "meets" or "misses ttft_p99, rejected". */
const verdict = (misses) => (misses.length ? `misses ${misses.join(', ')}` : 'meets');

/** Orders count vectors: by the first count, then the second, ... */
function byCounts(p, q) {
  for (let i = 0; i < p.length; i++) if (p[i] !== q[i]) return p[i] - q[i];
  return 0;
}

/** The mix answer: the CLI's headline, the walk in words, and every mix simulated (a count column per preset) with its cost and verdict. */
export function renderMix(els, last) {
  const { mix, headline } = last;
  els.mixOut.hidden = false;
  els.out.hidden = true;
  els.mixHeadline.textContent = headline;
  els.mixWords.textContent = mixWords(last);
  const key = (c) => c.join(',');
  const front = new Set(mix.frontier.map(key));
  const local = new Set(mix.local_moves.map(key));
  const pts = [...mix.points].sort((p, q) => byCounts(p.counts, q.counts));
  const tbody = document.createElement('tbody');
  for (const p of pts) {
    const isAnswer = mix.answer && key(mix.answer) === key(p.counts);
    const found = `${front.has(key(p.counts)) ? '◆' : ''}${local.has(key(p.counts)) ? '◇' : ''}${isAnswer ? ' ← cheapest' : ''}`.trim();
    const m = p.measured;
    tbody.append(cellRow([...p.counts, p.gpus, money(p.usd_per_hour), fmtMs(m.ttft_ms_p99), fmtMs(m.tpot_ms_p99), countPct(m.rejected_share), found, verdict(p.misses)],
      isAnswer ? 'cap-answer' : (p.meets ? '' : 'cap-miss-row')));
  }
  // A mix is of one model: each count column is headed by its preset's GPU, the whole name in its title.
  const names = mix.presets.map((p) => [gpuOf(p.preset), `${p.preset}: replicas of this preset`]);
  els.mixTable.replaceChildren(head([...names, 'GPUs', '$/hour', 'TTFT p99', 'TPOT p99', 'Unserved', 'Walk', 'Targets']), tbody);
  cue(els, 'mixFit', els.mixTable, 'cap-mix-scroll-hint');
}

/** Why no comparison runs, or null when one can: the page needs an autoscaler, and a plan that met. */
function autoscaleWhy(config, plans) {
  if ((config.autoscale ?? 'off') === 'off') {
    return 'To compare the fleet this plan sized with an autoscaled one on the same workload, set Autoscaler to kpa or slo'
      + ' (under Traffic; a rate schedule gives it a load that changes) and plan again.';
  }
  const plan = plans.find((p) => p.policy === config.routing);
  if (!plan) return `The autoscaled comparison runs the current policy (${config.routing}), which was not planned.`;
  if (plan.min_replicas === null) return `${config.routing} met the targets on no fleet tried, so there is no static fleet to compare with the ${config.autoscale} autoscaler.`;
  return null;
}

/** After a plan: the static fleet it sized for the current policy against the page's autoscaler, or what to set. */
export async function runAutoscale(cap, gen, { config, spec, plans, source }) {
  const box = cap.els.auto;
  const why = autoscaleWhy(config, plans);
  window.kvfleet = window.kvfleet || {};
  if (why) {
    box.hidden = false;
    cap.els.autoWords.textContent = why;
    cap.els.autoTable.replaceChildren();
    window.kvfleet.lastCapacityAutoscale = { config, spec, replicas: null, comparison: null, why };
    return;
  }
  const replicas = plans.find((p) => p.policy === config.routing).min_replicas;
  cap.els.autoWords.textContent = `Running ${config.routing} on the static ${replicas} replicas and under the ${config.autoscale} autoscaler…`;
  cap.els.autoTable.replaceChildren();
  box.hidden = false;
  const job = { type: 'capacity-autoscale', id: gen, config, replicas, spec, trace: source || undefined };
  const m = await ask(cap, gen, job, 'capacity-autoscale-result');
  if (!m || gen !== cap.generation) {
    cap.els.autoWords.textContent = 'Stopped before the comparison finished: plan again to run it.';
    return;
  }
  if (m.error) { cap.els.autoWords.textContent = `Can't compare with the autoscaled fleet: ${m.error}`; return; }
  window.kvfleet.lastCapacityAutoscale = { config, spec, replicas, comparison: m.comparison };
  renderAutoscale(cap.els, m.comparison, spec.limits.gpu_hour_usd, config);
}

/** The run on screen's autoscaler bounds (the simulator's defaults: fewest 1, most 4 x the starting replicas, at most 256, never below them). */
export function screenBounds(config) {
  const min = config.min_instances ?? 1;
  const max = Math.max(config.max_instances ?? Math.min(4 * config.instances, 256), config.instances);
  return [min, max];
}

/**
 * Why the comparison's autoscaler runs other bounds than the run on screen (src/plan/autoscale.rs
 * comparison_configs: its fewest is Fewest replicas, unset 1, at most the static fleet's size; its
 * most is Most replicas, unset the static fleet's size), or that it runs the same.
 */
export function boundsWords(config, c) {
  const [sMin, sMax] = screenBounds(config);
  const { min_replicas: aMin, max_replicas: aMax } = c.autoscaled;
  const n = c.static.max_replicas;
  const range = (lo, hi) => (lo === hi ? count(hi, 'replica') : `${lo}–${hi} replicas`);
  if (aMin === sMin && aMax === sMax) return `The autoscaler here has the same bounds as the run on screen's, ${range(aMin, aMax)}.`;
  const why = [];
  if (aMax !== sMax && config.max_instances == null) {
    why.push(`with Most replicas unset, the planner lets it grow only to the static fleet's ${count(n, 'replica')}, so it never runs more than the fleet it is compared with (the run on screen may grow to 4 x its ${count(config.instances, 'starting replica')})`);
  } else if (aMax !== sMax) {
    why.push(`its most is Most replicas, ${config.max_instances}, or its fewest when that is more, where the run on screen's is never below its ${count(config.instances, 'starting replica')}`);
  }
  if (aMin !== sMin) why.push(`its fewest is cut to the static fleet's ${count(n, 'replica')}`);
  return `The autoscaler here may run ${range(aMin, aMax)}, where the run on screen's bounds are ${range(sMin, sMax)} (the replicas it may use, not those it kept ready): ${why.join('; and ')}.`;
}

/** "kpa, 1–4 replicas" or "static, 4 replicas" (the CLI's words). */
function fleetWords(f) {
  return f.min_replicas === f.max_replicas ? `${f.fleet}, ${count(f.max_replicas, 'replica')}` : `${f.fleet}, ${f.min_replicas}–${f.max_replicas} replicas`;
}

/** The comparison: what each column counts, one row per fleet, and the simulator's answer. */
export function renderAutoscale(els, c, usd, config) {
  const held = [['TTFT', c.slo_ttft_ms], ['TPOT', c.slo_itl_ms]].filter(([, ms]) => ms != null).map(([n, ms]) => `${n} ≤ ${fmtMs(ms)}`);
  const met = held.length ? `SLO met: completed requests with ${held.join(' and ')}` : 'SLO met: – (no TTFT or TPOT target)';
  els.autoWords.textContent = `${c.policy} on the same workload and seed. ${boundsWords(config, c)} GPU-h: replica time from 0 to the run's end; $ at ${money(usd)} per GPU-hour; ${met}. ${c.answer}`;
  const share = (x) => (x == null ? '–' : `${(100 * x).toFixed(1)}%`);
  const tbody = document.createElement('tbody');
  for (const f of [c.static, c.autoscaled]) {
    tbody.append(cellRow([fleetWords(f), f.gpu_hours.toFixed(3), `$${f.cost_usd.toFixed(3)}`, fmtMs(f.ttft_ms_p99 ?? NaN), share(f.slo_attained), share(f.hit_rate_tokens), f.misses.length ? `missed: ${f.misses.join(', ')}` : 'met']));
  }
  els.autoTable.replaceChildren(head(['Fleet', 'GPU-h', '$', 'TTFT p99', 'SLO met', 'Token hit', 'Targets']), tbody);
  cue(els, 'autoFit', els.autoTable, 'cap-autoscale-scroll-hint');
}
