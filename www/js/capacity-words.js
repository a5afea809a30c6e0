// www/js/capacity-words.js: the planner's sentence for a policy that never met the targets while
// another did: what it reached on the largest fleets tried, and llm_d's known reason. (When no
// policy met them, the one sentence for the whole plan is the simulator's headline,
// src/plan/headline/none_met.rs.)

import { countPct } from './format.js';
import { fmtMs } from './charts.js';
import { count } from './capacity-chart.js';

// The latency targets a point can miss: its name in `misses`, the measured field, the words.
export const LATENCY = [
  ['ttft_p99', 'ttft_ms_p99', 'ttft_p99_ms', 'p99 TTFT'],
  ['tpot_p99', 'tpot_ms_p99', 'tpot_p99_ms', 'p99 TPOT'],
  ['e2e_p99', 'e2e_ms_p99', 'e2e_p99_ms', 'p99 end-to-end latency'],
];

/** "at 347 ms" or "between 347 ms and 362 ms" for latencies `xs`. */
function span(xs) {
  const lo = fmtMs(Math.min(...xs)), hi = fmtMs(Math.max(...xs));
  return lo === hi ? `at ${lo}` : `between ${lo} and ${hi}`;
}

/**
 * What a latency `key` reached over `pts` (sorted by size): the sizes at the end where it stayed
 * within 10 %, or the best it did when it kept moving.
 */
function reached(pts, key, words, target) {
  const xs = pts.map((q) => q.measured[key]);
  let i = xs.length - 1;
  while (i > 0 && Number.isFinite(xs[i - 1]) && Math.max(...xs.slice(i - 1)) <= 1.1 * Math.min(...xs.slice(i - 1))) i -= 1;
  const goal = `against a target of ${fmtMs(target)}`;
  if (i < xs.length - 1) return `its ${words} stayed ${span(xs.slice(i))} from ${pts[i].instances} to ${count(pts.at(-1).instances, 'replica')}, ${goal}`;
  const finite = pts.filter((q) => Number.isFinite(q.measured[key]));
  if (!finite.length) return `no request finished on any fleet tried`;
  const best = finite.reduce((a, b) => (b.measured[key] < a.measured[key] ? b : a));
  return `its best ${words} was ${fmtMs(best.measured[key])}, on ${count(best.instances, 'replica')}, ${goal}`;
}

/** The smallest size from which every evaluated run came out the same as the largest's (or null). */
function sameFrom(pts) {
  const last = JSON.stringify(pts.at(-1).measured);
  let i = pts.length - 1;
  while (i > 0 && JSON.stringify(pts[i - 1].measured) === last) i -= 1;
  return i < pts.length - 1 ? pts[i].instances : null;
}

/**
 * Why llm_d cannot use added replicas, when the plan shows it (every run the same from some size
 * on, so the added replicas got no requests) and the config is the case the model explains: an
 * unbounded KV cache makes the KV-cache score equal everywhere, and a prefix weight above the queue
 * weight then lets a replica holding the start of a prompt beat any empty one.
 */
function llmdWhy(plan, pts, config) {
  if (plan.policy !== 'llm_d' || (config.kv_blocks !== null && config.kv_blocks !== undefined)) return '';
  const from = sameFrom(pts);
  const [prefix, queue] = String(config.llmd_weights ?? '3,2,2').split(',').map(Number);
  if (from === null || !(prefix > queue)) return '';
  return ` From ${from} to ${count(pts.at(-1).instances, 'replica')} every run came out the same: the replicas added got no requests.`
    + ` With an unbounded KV cache llm-d's KV-cache score is the same on every replica, and its prefix weight (${prefix}) is above its queue weight (${queue}),`
    + ' so the replica holding the most of a prompt\'s leading blocks always wins over an empty one, however long its queue.';
}

/**
 * A sentence for a policy that never met the targets: what it reached on the largest fleets tried
 * (the first latency target it still missed, else the other misses), and llm_d's known reason.
 */
export function neverMetWords(plan, spec, config) {
  const pts = [...plan.points].sort((a, b) => a.instances - b.instances);
  if (!pts.length) return `${plan.policy} was not evaluated.`;
  const last = pts.at(-1);
  const max = count(last.instances, 'replica');
  const lat = LATENCY.find(([miss]) => last.misses.includes(miss));
  const parts = [];
  if (lat) parts.push(reached(pts, lat[1], lat[3], spec.slo[lat[2]]));
  if (last.misses.includes('rejected')) parts.push(`${countPct(last.measured.rejected_share)} of requests went unserved on ${max}`);
  if (last.misses.includes('overloaded')) parts.push(`its backlog still grew through the run on ${max}`);
  return `${plan.policy} never met the targets within ${max}: ${parts.join('; ')}.${llmdWhy(plan, pts, config)}`;
}
