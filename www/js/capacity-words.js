// www/js/capacity-words.js: the planner's sentences for policies that never met the targets: one
// per policy (what it reached on the largest fleets tried, and llm_d's known reason), and, when no
// policy met them, one sentence for the whole plan: the best each missed target reached over every
// policy and size, and what to change (the target, or the most replicas tried).

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

/** "a", "a or b", "a, b or c". */
const orList = (xs) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} or ${xs.at(-1)}`);

/** The point of `pts` lowest in `value` (the smaller fleet on a tie), or null when none is finite. */
function lowestBy(pts, value) {
  const finite = pts.filter((q) => Number.isFinite(value(q)));
  return finite.length ? finite.reduce((a, b) => (value(b) < value(a) || (value(b) === value(a) && b.instances < a.instances) ? b : a)) : null;
}

/**
 * One sentence for a plan in which no policy met the targets: no fleet meets them within the search's
 * bounds; for each target every point tried missed, the best any policy and size reached; and what to
 * change (that target, and Up to while it is below its most, 256). `plans`: the policies' plans;
 * `spec`: their targets and limits.
 */
export function noneMetWords(plans, spec) {
  const pts = plans.flatMap((p) => p.points.map((q) => ({ ...q, policy: p.policy })));
  const max = spec.limits.max_replicas;
  const everywhere = (miss) => pts.length > 0 && pts.every((q) => q.misses.includes(miss));
  const by = (q) => `${q.policy} on ${count(q.instances, 'replica')}`;
  const parts = [], raise = [];
  for (const [miss, key, target, words] of LATENCY) {
    if (!everywhere(miss)) continue;
    const best = lowestBy(pts, (q) => q.measured[key]);
    parts.push(best ? `the lowest ${words} reached was ${fmtMs(best.measured[key])} (${by(best)}) against a target of ${fmtMs(spec.slo[target])}` : `no request finished on any fleet tried`);
    raise.push(`the ${words} target`);
  }
  if (everywhere('rejected')) {
    const best = lowestBy(pts, (q) => q.measured.rejected_share);
    parts.push(`the fewest unserved were ${countPct(best.measured.rejected_share)} of requests (${by(best)}) against at most ${countPct(spec.slo.max_rejected)}`);
    raise.push('Unserved');
  }
  const grew = everywhere('overloaded');
  if (grew) parts.push('every fleet\'s backlog grew through its run');
  if (!parts.length) parts.push('each target was met on some fleet tried, never all of them at once');
  if (max < 256) raise.push(`Up to above ${count(max, 'replica')}`);
  const change = [raise.length ? `raise ${orList(raise)}` : 'relax a target', ...(grew ? ['untick "a growing backlog misses"'] : [])].join(', or ');
  return `No policy meets the targets on up to ${count(max, 'replica')}: ${parts.join('; ')}; ${change}.`;
}
