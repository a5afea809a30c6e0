// www/js/story-words.js: the small words the page's sentences share (shares, counts, durations,
// policy names), so story.js and story-speed.js write every figure the same way. Pure, no DOM.

import { num, seconds, countPct } from './format.js';

export const pctText = (x) => countPct(x, 0);
export const pct1 = (x) => countPct(x, 1);
const COUNT = new Intl.NumberFormat('en-US'); // one formatter (toLocaleString makes one per call)
export const countText = (x) => (Number.isFinite(x) ? COUNT.format(Math.round(x)) : '–');
/** Two rates closer than this read as "the same" in a sentence (half a percentage point). */
export const SAME = 0.005;

/**
 * A duration in ms as the hero writes it, in its numbers and its sentences alike, so the two always
 * agree: "7.5 ms", "143 ms", "3.84 s", from 100 s whole seconds ("105 s"), and from format.js's
 * threshold (120 s) in minutes or hours as the rest of the page writes them ("35.5 min", "1.25 h").
 */
export function durationText(ms) {
  if (!Number.isFinite(ms)) return '–';
  if (Math.round(ms) < 1000) return `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
  if (ms < 99_995) return `${(ms / 1000).toFixed(2)} s`;
  if (ms < 120_000) return `${num(ms / 1000)} s`;
  return seconds(ms / 1000).join(' ');
}

/** "the same as", "more than" or "less than" for two rates, with SAME as the margin; null without both. */
export function compareWord(a, b) {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return null;
  if (Math.abs(a - b) < SAME) return 'the same as';
  return a > b ? 'more than' : 'less than';
}

/** The swept point at `replicas` of `points`, or null. */
export function at(points, replicas) {
  return (points || []).find((p) => p.instances === replicas) || null;
}

/** "every request (100%)", "43% of the requests", "99.8% of the requests (1,995 of 2,000)" where 100% would mislead. */
export function requestShare(top, total) {
  if (top === total) return 'every request (100%)';
  const share = top / total;
  return Math.round(100 * share) === 100 ? `${pctText(share)} of the requests (${countText(top)} of ${countText(total)})` : `${pctText(share)} of the requests`;
}

/** A replica with this many times an even share of the requests (or of the prompt tokens) is crowded in a sentence. */
export const UNEVEN = 1.5;
/** A share with a decimal under 10% ("4.3%"), whole from there ("43%"). */
export const smallPct = (x) => (x < 0.1 ? pct1(x) : pctText(x));

/** The policy as the sentences name it. */
export const policyName = (p) => (p === 'round_robin' ? 'round robin' : p);
