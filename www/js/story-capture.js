// www/js/story-capture.js: the sentences on the routing capture (summary.routing_capture: at each
// pick, the cached blocks the picked replica held against the most any replica held), which say
// whether a policy lost hits because the fleet had none to give or because its picks went elsewhere,
// and explain a curve that dips and climbs back (kv on the conversation trace). Pure, no DOM.

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
 * climbs back by DIP_POINTS or more on both sides, with the last point: {low, last}; else null.
 */
export function findDip(points) {
  const ps = (points || []).filter((p) => Number.isFinite(p.hit_rate_tokens));
  if (ps.length < 3) return null;
  let i = 0;
  ps.forEach((p, k) => { if (shown(p.hit_rate_tokens) < shown(ps[i].hit_rate_tokens)) i = k; });
  const [low, first, last] = [ps[i], ps[0], ps.at(-1)];
  if (i === 0 || i === ps.length - 1) return null;
  const rise = (p) => shown(p.hit_rate_tokens) - shown(low.hit_rate_tokens);
  return rise(first) >= DIP_POINTS && rise(last) >= DIP_POINTS ? { low, last } : null;
}

/**
 * "kv's curve dips to 27.2% at 6 replicas and climbs back to 29.9% at 16. The best-placed replica
 * held as many cached blocks at both counts (105,583); what changed is how many of them kv's picks
 * found: 72.8% at 6, 80.0% at 16." Said only when the capture rises with the curve; else null.
 */
export function dipWords(points, policy) {
  const dip = findDip(points);
  if (!dip) return null;
  const { low, last } = dip;
  const [a, b] = [low.routing_capture, last.routing_capture];
  if (!Number.isFinite(a) || !Number.isFinite(b) || shown(b) <= shown(a)) return null;
  const name = policyName(policy);
  const curve = `${name}'s curve dips to ${pct1(low.hit_rate_tokens)} at ${plural(low.instances)} and climbs back to ${pct1(last.hit_rate_tokens)} at ${last.instances}.`;
  const same = low.best_hit_blocks === last.best_hit_blocks && Number.isFinite(low.best_hit_blocks);
  const found = `${pct1(a)} at ${low.instances}, ${pct1(b)} at ${last.instances}`;
  return same
    ? `${curve} The best-placed replica held as many cached blocks at both counts (${countText(low.best_hit_blocks)}); what changed is how many of them ${name}'s picks found: ${found}.`
    : `${curve} Its picks found more of the cached blocks the best-placed replica held: ${found}.`;
}
