// www/js/story-speed.js: the sentences that compare the drawn policies at one replica count, from
// the hero's sweeps: what the most cache hits buy or cost in first-token time (each policy's median
// and p99), a policy that crowds one replica, and a router that gets the hits at almost no cost.
// Pure, no DOM; story.js puts them in the hero's detail.

import { at, countText, durationText, pct1, policyName, requestShare, smallPct, UNEVEN } from './story-words.js';
import { seedsApart } from './noise.js';

/**
 * False when the two points ({q}) carry spreads over seeds (the hero's band) and `key` is within
 * noise between them; true otherwise. Every comparison below needs it on top of its own threshold,
 * so with the band on no sentence calls one policy ahead where the seeds cannot tell them apart.
 */
const notNoise = (a, b, key) => seedsApart(a, b, key) !== false;

/** A p99 first-token time this many times another's is slower in a sentence (p99 of a few hundred requests is noisy). */
const SLOWER = 1.1;
/** From this many times another's p99, the trade-off sentence says how many times ("3.4 times"). */
const TIMES = 2;
/** From this many times, the answers are "far slower" and the factor is rounded ("about 550 times"). */
const FAR = 10;

/** The swept points of `policies` on `r` replicas with both a token hit rate and a p99: [{p, q}]. */
function pointsAt(sweeps, policies, r) {
  return policies.map((p) => ({ p, q: at(sweeps[p], r) }))
    .filter(({ q }) => q && Number.isFinite(q.hit_rate_tokens) && Number.isFinite(q.ttft_ms_p99));
}

/** A token hit rate as displayed, in tenths of a percent (the comparisons are made on these). */
const shownTenths = (x) => Math.round(1000 * x);

/** "3.4 times" under FAR, else two significant figures: "about 550 times". */
export function timesWords(ratio) {
  if (ratio < FAR) return `${ratio.toFixed(1)} times`;
  const step = 10 ** (Math.floor(Math.log10(ratio)) - 1);
  return `about ${countText(Math.round(ratio / step) * step)} times`;
}

/** A median (p50) first-token time at most this share of round robin's is "faster" in a sentence. */
const FASTER = 0.9;

/** `p`'s swept point on `r` replicas when it has a token hit rate and a p50, else null. */
function p50At(sweeps, p, r) {
  const q = at(sweeps[p], r);
  return q && Number.isFinite(q.hit_rate_tokens) && Number.isFinite(q.ttft_ms_p50) ? q : null;
}

/**
 * "More hits than round robin" needs this many displayed tenths of a point (2 points): a policy
 * within a point or so of round robin (least_loaded at 16 replicas, 25.0% against 24.3%) has the
 * same misses give or take a few, and a median that moves with them (the first-token times are two
 * clusters, hits and misses, and the median sits in whichever holds half) is not a speed it buys.
 */
const GAIN_TENTHS = 20;

/**
 * Of `names`, in order, the policies other than round robin with GAIN_TENTHS more hits than it
 * (displayed values) and a median first-token time at most FASTER times its, reading differently:
 * [{p, q}].
 */
function fasterThanRoundRobin(sweeps, names, r) {
  const rr = p50At(sweeps, 'round_robin', r);
  if (!rr) return [];
  return [...new Set(names)].filter((p) => p && p !== 'round_robin').map((p) => ({ p, q: p50At(sweeps, p, r) }))
    .filter((x) => x.q && notNoise(x, { q: rr }, 'hit_rate_tokens'))
    .filter(({ q }) => q && shownTenths(q.hit_rate_tokens) >= shownTenths(rr.hit_rate_tokens) + GAIN_TENTHS
      && q.ttft_ms_p50 <= FASTER * rr.ttft_ms_p50 && durationText(q.ttft_ms_p50) !== durationText(rr.ttft_ms_p50));
}

/** "prefix_aware's median first-token time is 75 ms, kv's 72 ms, round robin's 137 ms". */
function medianWords(gainers, sweeps, r) {
  const [first, ...rest] = gainers;
  const rr = at(sweeps.round_robin, r).ttft_ms_p50;
  return [`${policyName(first.p)}'s median first-token time is ${durationText(first.q.ttft_ms_p50)}`,
    ...rest.map((x) => `${policyName(x.p)}'s ${durationText(x.q.ttft_ms_p50)}`), `round robin's ${durationText(rr)}`].join(', ');
}

/** Whether each of `xs` ([{p, q}]) has both a median and a p99 first-token time. */
const hasBoth = (xs) => xs.every(({ q }) => q && Number.isFinite(q.ttft_ms_p50) && Number.isFinite(q.ttft_ms_p99));

/**
 * Both statistics of each of `xs` ([{p, q}], each with a p50 and a p99), so a sentence about speed
 * never gives one without the other: "prefix_aware's first-token time is 77 ms median and 188 ms
 * p99, round robin's 76 ms and 143 ms".
 */
function bothStatsWords(xs) {
  const two = ({ q }) => [durationText(q.ttft_ms_p50), durationText(q.ttft_ms_p99)];
  const [first, ...rest] = xs;
  const [m, t] = two(first);
  return [`${policyName(first.p)}'s first-token time is ${m} median and ${t} p99`,
    ...rest.map((x) => `${policyName(x.p)}'s ${two(x).join(' and ')}`)].join(', ');
}

/** The policy with the most hits on the displayed 0.1% values, when alone, of pointsAt's [{p, q}]; else null. */
function mostHits(pts) {
  const top = Math.max(...pts.map(({ q }) => shownTenths(q.hit_rate_tokens)));
  const best = pts.filter(({ q }) => shownTenths(q.hit_rate_tokens) === top);
  return best.length === 1 ? best[0] : null;
}

/**
 * What the most cache hits buy or cost on `r` replicas, from the swept points. Every sentence gives
 * both the median and the p99 of each policy it names, so its verdict can be checked on the spot.
 * The policy with the most hits (alone) buys faster answers when its median first-token time is at
 * most FASTER times round robin's: "More hits than round robin, faster answers: …" when its p99 is as
 * much faster too, "More hits than round robin, faster typical answers: …" (the median) when not, naming
 * `mine` too (the chosen policy) when it has more hits than round robin and is as much faster. It
 * costs when its p99 is at least SLOWER times that of the fastest policy with fewer hits, in words
 * that grow with the ratio: "not faster" under TIMES, "N times" from it, "far slower, about N times"
 * from FAR. When both, one sentence says both ("faster typical answers …; but its p99 …"), so the
 * two never contradict. `policies`: those drawn. Returns {words, slow, fast}: the sentence ('' for
 * none), the policy whose p99 it gave as the cost, and the one whose p99 it gave beside it.
 */
export function tradeoff(sweeps, policies, r, mine = null) {
  const none = { words: '', slow: null };
  const pts = pointsAt(sweeps, policies, r);
  const w = pts.length < 2 ? null : mostHits(pts);
  if (!w) return none;
  const gainers = fasterThanRoundRobin(sweeps, [w.p, mine], r);
  const gains = gainers.length > 0 && gainers[0].p === w.p;
  const fast = pts.filter((x) => x !== w).reduce((b, x) => (x.q.ttft_ms_p99 < b.q.ttft_ms_p99 ? x : b));
  const slow = w.q.ttft_ms_p99, quick = fast.q.ttft_ms_p99;
  // A cost needs the most hits and the slower p99 both beyond noise of the fastest's, when the seeds are known.
  const costs = notNoise(w, fast, 'hit_rate_tokens') && notNoise(w, fast, 'ttft_ms_p99');
  if (slow < SLOWER * quick || durationText(slow) === durationText(quick) || !costs) {
    return gainers.length ? { words: gainWords(gainers, sweeps, r), slow: null } : none;
  }
  const ratio = slow / quick, b = `${policyName(fast.p)}'s ${durationText(quick)}`;
  if (gains) {
    const p99 = `but its p99 first-token time is ${durationText(slow)}, ${ratio < TIMES ? '' : `${timesWords(ratio)} `}${b}`;
    return { words: `More hits than round robin, faster typical answers: ${medianWords([gainers[0]], sweeps, r)}; ${p99}.`, slow: w.p, fast: fast.p };
  }
  return { words: costWords(w, fast, ratio), slow: w.p, fast: fast.p };
}

/**
 * The gain's sentence: `gainers` ([{p, q}], fasterThanRoundRobin's) against round robin, both
 * statistics each. "faster answers" when every gainer's p99 is at most FASTER times round robin's, else
 * "faster typical answers" (the median's claim alone); the medians only when a p99 is missing.
 */
function gainWords(gainers, sweeps, r) {
  const rr = { p: 'round_robin', q: at(sweeps.round_robin, r) };
  if (!hasBoth([...gainers, rr])) return `More hits than round robin, faster answers: ${medianWords(gainers, sweeps, r)}.`;
  // "faster answers" only where every gainer's p99 is faster too, by the median's margin (at most
  // FASTER times round robin's); a p99 barely under it (139 against 141 ms at 16 replicas, a
  // reader found "faster" overclaimed) or equal ("137 ms and 137 ms" at 256) leaves the median's
  // claim alone: "faster typical answers".
  const all = gainers.every((g) => g.q.ttft_ms_p99 <= FASTER * rr.q.ttft_ms_p99 && notNoise(g, rr, 'ttft_ms_p99'));
  return `More hits than round robin, ${all ? 'faster' : 'faster typical'} answers: ${bothStatsWords([...gainers, rr])}.`;
}

/**
 * The cost's sentence: the most hits `w` at `ratio` times the p99 of `fast` ({p, q} each), with
 * both statistics of each when both have them. A `w` whose median is at most FASTER times `fast`'s
 * is "a slower p99", not "not faster answers", so the words never deny the median beside them.
 */
function costWords(w, fast, ratio) {
  const slow = durationText(w.q.ttft_ms_p99), quick = durationText(fast.q.ttft_ms_p99);
  const times = ratio < TIMES ? '' : `${timesWords(ratio)} `;
  // A lead under NEAR_HITS_TENTHS is named as such: "the most hits" over 12.2% for 12.5% read as
  // a gain a reviewer could not see.
  const near = shownTenths(w.q.hit_rate_tokens) - shownTenths(fast.q.hit_rate_tokens) < NEAR_HITS_TENTHS;
  const most = near ? `${policyName(w.p)}'s hits, barely more than ${policyName(fast.p)}'s (${pct1(w.q.hit_rate_tokens)} against ${pct1(fast.q.hit_rate_tokens)}),`
    : 'the most hits';
  const notFaster = (rest) => (near ? `${most} do not bring faster answers here: ${rest}.` : `The most hits do not bring faster answers here: ${rest}.`);
  if (!hasBoth([w, fast])) {
    const a = `${policyName(w.p)}'s p99 first-token time is ${slow}`;
    return ratio < TIMES ? notFaster(`${a}, ${policyName(fast.p)}'s ${quick}`)
      : `Here ${most} come with ${ratio < FAR ? 'much' : 'far'} slower answers: ${a}, ${times}${policyName(fast.p)}'s ${quick}.`;
  }
  const stats = bothStatsWords([w, fast]);
  const tail = times ? `; that p99 is ${times}${policyName(fast.p)}'s` : '';
  if (w.q.ttft_ms_p50 <= FASTER * fast.q.ttft_ms_p50 && durationText(w.q.ttft_ms_p50) !== durationText(fast.q.ttft_ms_p50)) {
    return `Here ${most} come with a ${times ? (ratio < FAR ? 'much ' : 'far ') : ''}slower p99: ${stats}${tail}.`;
  }
  return ratio < TIMES ? notFaster(stats)
    : `Here ${most} come with ${ratio < FAR ? 'much' : 'far'} slower answers: ${stats}${tail}.`;
}

/** The trade-off sentence alone (see tradeoff). */
export function tradeoffWords(sweeps, policies, r, mine = null) {
  return tradeoff(sweeps, policies, r, mine).words;
}

/** A policy's busiest replica taking more than this share of its requests is named in the lead. */
export const CROWDED_SHARE = 0.5;

/**
 * "prefix_aware sends every request (100%) to one replica, R0.", "llm_d sends 89% of the requests
 * to one replica, R2.": for each policy in `routed` ({policy: [{index, requests}]}, a
 * full run's per-replica request counts on the replicas on screen) whose busiest replica took more
 * than CROWDED_SHARE of its requests, in the order of `policies`; '' when none did.
 */
export function crowdedWords(routed, policies) {
  const out = [];
  for (const p of policies) {
    const c = crowdedTop(routed?.[p]);
    if (c) out.push(`${policyName(p)} sends ${requestShare(c.top.requests, c.total)} to one replica, R${c.top.index}.`);
  }
  return out.join(' ');
}

/** {top, total} when the busiest of `rows` ([{index, requests}]) took more than CROWDED_SHARE; else null. */
export function crowdedTop(rows) {
  if (!rows || rows.length < 2) return null;
  const total = rows.reduce((n, x) => n + x.requests, 0);
  const top = rows.reduce((b, x) => (x.requests > b.requests ? x : b));
  return total && top.requests / total > CROWDED_SHARE ? { top, total } : null;
}

/** Hit rates within this many tenths of a percent (as displayed) of the most are "the hits": 2 points. */
const NEAR_HITS_TENTHS = 20;
/** Routers whose choice weighs each replica's load as well as its cache (www/js/policies.js). */
const LOAD_AND_CACHE = new Set(['kv', 'dynamo', 'sglang', 'llm_d', 'aibrix']);

/**
 * The lesson of a router that escapes the trade-off, on `r` replicas: exactly one drawn policy has
 * a token hit rate within NEAR_HITS_TENTHS of the most AND a p99 first-token time under SLOWER times the
 * fastest, while of the others the one with the most hits is slower by that much and the fastest
 * has fewer hits by more than NEAR_HITS_TENTHS. '' otherwise. The hit rates are the lead's, so not
 * repeated. `said`: the policy (or policies) whose p99 the page already gives beside it (the trade-off
 * sentence's, the run's own figure), not repeated. `load` ({policy: [{index, requests,
 * prompt_tokens?}]}): where the router crowds one replica, see crowdedLesson.
 */
export function bothWords(sweeps, policies, r, said = null, load = {}, warned = null, autoscaled = false) {
  return bothLesson(sweeps, policies, r, said, load, warned, autoscaled).words;
}

/**
 * bothWords, and {crowded}: the policy whose busiest share the words gave (or the warning did);
 * {winner}: the policy the words are about.
 * `warned`: the run on screen's policy when its load warning (in the hero's findings) gives its
 * busiest share, which is then not repeated. `autoscaled`: the fleet grew and shrank, so no share
 * is even (see crowding).
 */
export function bothLesson(sweeps, policies, r, said = null, load = {}, warned = null, autoscaled = false) {
  const none = { words: '', crowded: null };
  const pts = pointsAt(sweeps, policies, r);
  if (pts.length < 3) return none;
  const hits = (x) => shownTenths(x.q.hit_rate_tokens), p99 = (x) => x.q.ttft_ms_p99;
  const top = Math.max(...pts.map(hits)), fastest = Math.min(...pts.map(p99));
  const hasHits = (x) => hits(x) >= top - NEAR_HITS_TENTHS, isFast = (x) => p99(x) < SLOWER * fastest;
  const both = pts.filter((x) => hasHits(x) && isFast(x));
  if (both.length !== 1) return none;
  const w = both[0], rest = pts.filter((x) => x !== w);
  const hitter = rest.reduce((b, x) => (hits(x) > hits(b) || (hits(x) === hits(b) && p99(x) < p99(b)) ? x : b));
  const runner = rest.reduce((b, x) => (p99(x) < p99(b) || (p99(x) === p99(b) && hits(x) > hits(b)) ? x : b));
  if (!hasHits(hitter) || !isFast(runner)) return none;
  // The trade-off it escapes must be beyond noise when the seeds are known: the hitter slower, the runner fewer hits.
  if (!notNoise(w, hitter, 'ttft_ms_p99') || !notNoise(w, runner, 'hit_rate_tokens')) return none;
  const who = LOAD_AND_CACHE.has(w.p) ? `${policyName(w.p)}, which weighs each replica's load as well as its cache,` : policyName(w.p);
  const told = new Set([].concat(said || []));
  const paren = told.has(hitter.p) ? '' : ` (${policyName(hitter.p)}'s is ${durationText(p99(hitter))})`;
  const mine = told.has(w.p) ? '' : ` of ${durationText(p99(w))},`;
  const numbers = `${hitsAgainst(w, hitter)}, with a p99 first-token time${mine} ${speedAgainst(p99(w), runner, told.has(runner.p))}${paren}`;
  const crowd = crowding(load[w.p], autoscaled);
  if (!crowd) return { words: `${who} gets the hits at almost no cost in latency: ${numbers}.`, crowded: null, winner: w.p };
  return { words: crowdedLesson(who, numbers, crowd, warned === w.p), crowded: w.p, winner: w.p };
}

/**
 * The lesson of a router that crowds one replica (crowding's {top, total, even, tokenShare, heavy}),
 * so that "at almost no cost in latency" never sits beside a crowded replica unexplained. When the
 * crowding is in requests only, it says so with the busiest replica's share of the prompt tokens
 * (its requests are short); when the tokens are crowded too, or unknown, no "almost no cost": the
 * busiest share comes first, then the numbers that show both. `shown`: the load warning gives the
 * busiest share already (not repeated).
 */
function crowdedLesson(who, numbers, crowd, shown) {
  const i = crowd.top.index;
  const even = crowd.even === null ? '' : ` (an even share is ${smallPct(crowd.even)})`;
  const share = `${requestShare(crowd.top.requests, crowd.total)}${even}`;
  if (crowd.heavy) return `${who} gets the hits ${shown ? 'despite the uneven load in the warning' : `though its busiest replica, R${i}, takes ${share}`}: ${numbers}.`;
  const tokens = `${crowd.even !== null && crowd.tokenShare < crowd.even ? 'only ' : ''}${pct1(crowd.tokenShare)}`;
  const why = shown ? `The uneven load in the warning is in requests, not in prompt tokens: R${i}'s requests carry ${tokens} of them.`
    : `Its busiest replica, R${i}, takes ${share}, but its requests carry ${tokens} of the prompt tokens: the load is uneven in requests, not in prompt tokens.`;
  return `${who} gets the hits at almost no cost in latency: ${numbers}. ${why}`;
}

/**
 * Whether `rows` ([{index, requests, prompt_tokens?}]) crowd one replica: {top, total, even,
 * tokenShare, heavy} when the busiest took UNEVEN times an even share of the requests or more, its
 * share of the prompt tokens as tokenShare; heavy unless the prompt tokens are known and no replica
 * has UNEVEN times an even share of them. Null when no replica is crowded. `autoscaled`: replicas
 * came and went, so no share is even (even is null, as the hero's per-replica words have none): the
 * busiest is crowded above CROWDED_SHARE of the requests, heavy unless no replica has more than
 * CROWDED_SHARE of the prompt tokens.
 */
function crowding(rows, autoscaled = false) {
  if (!rows || rows.length < 2) return null;
  const total = rows.reduce((n, x) => n + x.requests, 0);
  const top = rows.reduce((b, x) => (x.requests > b.requests ? x : b));
  const even = autoscaled ? null : 1 / rows.length;
  const crowded = (share) => (even === null ? share > CROWDED_SHARE : share >= UNEVEN * even);
  if (!total || !crowded(top.requests / total)) return null;
  const tokens = rows.every((x) => Number.isFinite(x.prompt_tokens)) ? rows.reduce((n, x) => n + x.prompt_tokens, 0) : 0;
  const most = tokens > 0 ? Math.max(...rows.map((x) => x.prompt_tokens)) / tokens : NaN;
  return { top, total, even, tokenShare: tokens > 0 ? top.prompt_tokens / tokens : NaN, heavy: !Number.isFinite(most) || crowded(most) };
}

/**
 * "as many as prefix_aware", "more than prefix_aware", "within 2.0 points of prefix_aware", on the
 * displayed values; the hit rates themselves are the lead's (it gives every drawn policy's).
 */
function hitsAgainst(mine, other) {
  const a = shownTenths(mine.q.hit_rate_tokens), b = shownTenths(other.q.hit_rate_tokens), name = policyName(other.p);
  if (a === b) return `as many as ${name}`;
  return a > b ? `more than ${name}` : `within ${((b - a) / 10).toFixed(1)} points of ${name}`;
}

/**
 * "the same as round robin's", "less than round robin's 150 ms", "within 1% of round robin's 143 ms";
 * without the time when `told` (the trade-off sentence gave it).
 */
function speedAgainst(mine, other, told = false) {
  const theirs = other.q.ttft_ms_p99, name = policyName(other.p), text = told ? '' : ` ${durationText(theirs)}`;
  if (durationText(mine) === durationText(theirs)) return `the same as ${name}'s`;
  if (mine < theirs) return `less than ${name}'s${text}`;
  return `within ${Math.ceil(100 * (mine / theirs - 1))}% of ${name}'s${text}`;
}

/** Round robin's median first-token time this many times an earlier one is a jump worth a sentence. */
const JUMP = 1.5;

/** Requests of a swept point that found no cached block, and those admitted: [missed, admitted], or null. */
function missesOf(q) {
  return q && q.admitted > 0 && Number.isFinite(q.hit_requests) ? [q.admitted - q.hit_requests, q.admitted] : null;
}

/**
 * Why round robin's median first-token time jumps as replicas are added: a miss computes its whole
 * prompt, and past half the requests missing the median is taken among the misses. Said on `r`
 * replicas when more than half of round robin's requests missed there, and at the largest swept
 * count below `r` where fewer than half did its median was at most 1 / JUMP of this one: "More than
 * half of round robin's requests found no cached prefix here (103 of 200; 99, under half, at 14
 * replicas), and a miss computes its whole prompt: its median first-token time is 137 ms here, 78
 * ms at 14." ''
 * otherwise. The numbers are the swept points'; the sentence does not claim which request is the
 * median.
 */
export function medianJump(sweeps, r) {
  const pts = sweeps.round_robin || [];
  const here = at(pts, r), m = missesOf(here);
  if (!m || !(2 * m[0] > m[1]) || !Number.isFinite(here.ttft_ms_p50)) return '';
  const before = pts.filter((q) => q.instances < r && missesOf(q) && 2 * missesOf(q)[0] < missesOf(q)[1] && Number.isFinite(q.ttft_ms_p50))
    .reduce((b, q) => (!b || q.instances > b.instances ? q : b), null);
  if (!before || here.ttft_ms_p50 < JUMP * before.ttft_ms_p50) return '';
  const [missed, admitted] = m, n = before.instances;
  return `More than half of round robin's requests found no cached prefix here (${countText(missed)} of ${countText(admitted)}; `
    + `${countText(missesOf(before)[0])}, under half, at ${n} replica${n === 1 ? '' : 's'}), and a miss computes its whole prompt: `
    + `its median first-token time is ${durationText(here.ttft_ms_p50)} here, ${durationText(before.ttft_ms_p50)} at ${n}.`;
}
