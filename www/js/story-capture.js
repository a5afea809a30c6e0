// www/js/story-capture.js: the sentences on the routing capture (summary.routing_capture: at each
// pick, the cached blocks the picked replica held against the most any replica held), which say
// whether a policy lost hits because the fleet had none to give or because its picks went elsewhere,
// and explain a curve that dips and climbs again (kv on the conversation trace). Pure, no DOM.

import { countText, pct1, policyName } from './story-words.js';

/** A dip reads as one when both sides rise above its bottom by this much, in shown points (0.1%). */
const DIP_POINTS = 0.5;

const shown = (x) => Math.round(1000 * x) / 10;
const plural = (n) => `${n} replica${n === 1 ? '' : 's'}`;

/**
 * "kv's picks found 88.5% of the cached blocks that the best-placed replica held at each pick": for a policy that
 * chooses by what it sees (not round robin or random), where it missed some; with `whole`, also
 * where it found every one ("found every cached block …"); else null.
 */
export function captureWords(summary, policy, replicas, whole = false) {
  const c = summary?.routing_capture;
  if (replicas < 2 || policy === 'round_robin' || policy === 'random' || !Number.isFinite(c)) return null;
  // All of them: said only where it opens the detail (`whole`), as the chosen policy's own sentence.
  if (shown(c) >= 100) return whole && c === 1 ? `${policyName(policy)}'s picks found every cached block that the best-placed replica held at each pick.` : null;
  return `${policyName(policy)}'s picks found ${pct1(c)} of the cached blocks that the best-placed replica held at each pick.`;
}

/**
 * The lowest point of `points` (one policy's sweep, by replicas) when the curve falls to it and
 * climbs again by DIP_POINTS or more on both sides, with the first and last points:
 * {first, low, last}; else null.
 */
export function findDip(points) {
  const ps = (points || []).filter((p) => Number.isFinite(p.hit_rate_tokens));
  if (ps.length < 3) return null;
  let i = 0;
  ps.forEach((p, k) => { if (shown(p.hit_rate_tokens) < shown(ps[i].hit_rate_tokens)) i = k; });
  const [low, first, last] = [ps[i], ps[0], ps.at(-1)];
  if (i === 0 || i === ps.length - 1) return null;
  const rise = (p) => shown(p.hit_rate_tokens) - shown(low.hit_rate_tokens);
  return rise(first) >= DIP_POINTS && rise(last) >= DIP_POINTS ? { first, low, last } : null;
}

/**
 * The curve's words: "kv's curve dips from 37.0% at 1 replica to 27.2% at 6 and climbs to 29.9% at
 * 16, short of where it started." It "climbs back" only where the last point is at least the first
 * (as shown): "…climbs back to where it started, 1.6% at 256" or "…then climbs back past where it
 * started, to 30.5% at 256".
 */
export function curveWords({ first, low, last }, name) {
  const head = `${name}'s curve dips from ${pct1(first.hit_rate_tokens)} at ${plural(first.instances)} to ${pct1(low.hit_rate_tokens)} at ${low.instances}`;
  const [a, z] = [shown(first.hit_rate_tokens), shown(last.hit_rate_tokens)];
  if (z > a) return `${head}, then climbs back past where it started, to ${pct1(last.hit_rate_tokens)} at ${last.instances}.`;
  if (z === a) return `${head} and climbs back to where it started, ${pct1(last.hit_rate_tokens)} at ${last.instances}.`;
  return `${head} and climbs to ${pct1(last.hit_rate_tokens)} at ${last.instances}, short of where it started.`;
}

/**
 * The curve's words (curveWords), then why it climbs: "At both counts the fleet had the same
 * 105,583 cached blocks ready for the requests (each request counted on the replica that held most
 * of its prompt); what changed is the share of them kv's picks found: 72.8% at 6 replicas, 80.0% at
 * 16." Said only when that share rises with the curve; else null.
 */
export function dipWords(points, policy) {
  const dip = findDip(points);
  if (!dip) return null;
  const { low, last } = dip;
  const [a, b] = [low.routing_capture, last.routing_capture];
  if (!Number.isFinite(a) || !Number.isFinite(b) || shown(b) <= shown(a)) return null;
  const name = policyName(policy);
  const curve = curveWords(dip, name);
  const same = low.best_hit_blocks === last.best_hit_blocks && Number.isFinite(low.best_hit_blocks);
  const found = `${pct1(a)} at ${plural(low.instances)}, ${pct1(b)} at ${last.instances}`;
  const ready = 'cached blocks ready for the requests (each request counted on the replica that held most of its prompt)';
  return same
    ? `${curve} At both counts the fleet had the same ${countText(low.best_hit_blocks)} ${ready}; what changed is the share of them ${name}'s picks found: ${found}.`
    : `${curve} ${name}'s picks found a larger share of the ${ready}: ${found}.`;
}
