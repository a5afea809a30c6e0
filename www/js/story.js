// www/js/story.js: the sentences the page says about a run, computed from its numbers (pure, no DOM),
// so a takeaway can never disagree with the chart beside it. Every comparison word ("falls",
// "stays", "more than") is chosen by the figures it describes; "was X at 256 replicas" names the
// settings it compares with, from the two runs' configs. Shares are written with format.js's
// countPct, so a share of requests or tokens that is not all never reads "100%" (nor "0%" when some).

import { seedsApart } from './noise.js';
import { cacheReplicas, isDisagg, startBounds } from './layout.js';
import { autoscaled, expectedRepeats, predictedMisses, modelApplies, predictionCurves } from './predict.js';
import { at, compareWord, countText, durationText, pct1, pctText, policyName, SAME, smallPct, UNEVEN } from './story-words.js';
import { captureWords, dipWords } from './story-capture.js';
import { mixWords } from './fleet-words.js';
import { bothLesson, bothWords, crowdedTop, crowdedWords, CROWDED_SHARE, medianJump, timesWords, tradeoff, tradeoffWords } from './story-speed.js';

export { bothWords, crowdedWords, CROWDED_SHARE, durationText, timesWords, tradeoff, tradeoffWords };


/** Requests that found no cached block: admitted minus those with at least one hit. */
export function misses(summary) {
  if (!summary || !Number.isFinite(summary.admitted) || !Number.isFinite(summary.hit_requests)) return NaN;
  return summary.admitted - summary.hit_requests;
}

/** "falls from 48% to 17%", "rises from 20% to 31%" or "stays near 48%" over a sweep's points. */
export function trendWords(points, key = 'hit_rate_tokens') {
  const ys = points.map((p) => p[key]).filter(Number.isFinite);
  if (ys.length < 2) return null;
  const first = ys[0], last = ys[ys.length - 1];
  const lo = Math.min(...ys), hi = Math.max(...ys);
  if (hi - lo < 0.02) return `stays near ${pctText((lo + hi) / 2)}`;
  // Words only for a change that survives rounding ("falls from 7% to 7%" says nothing).
  if (pctText(first) !== pctText(last) && last < first - SAME) return `falls from ${pctText(first)} to ${pctText(last)}`;
  if (pctText(first) !== pctText(last) && last > first + SAME) return `rises from ${pctText(first)} to ${pctText(last)}`;
  return `moves between ${pctText(lo)} and ${pctText(hi)}`;
}



/**
 * The hero's takeaway for the run on screen. ctx: {config, traced, report, sweeps: {policy: points[]},
 * routed: {policy: [{index, requests}]}, drawn: the policies on screen}, routed holding other policies' full runs on these replicas.
 * Returns {lead, detail}: the one short sentence to notice (the hit rate the figure plots, beside the
 * other drawn policies'), and the plainer sentences that explain it: the misses, then what the hits
 * cost or buy in latency and any crowded replica, then why, then the trend.
 */
export function heroTakeaway({ config, traced, report, sweeps = {}, routed = {}, drawn = null }) {
  const s = report?.summary;
  if (!s) return { lead: '', detail: '' };
  if (!Number.isFinite(s.hit_rate_tokens)) {
    return { lead: `No request was admitted, so there is no hit rate to show.`, detail: '' };
  }
  if (cacheReplicas(config) === 1) return { lead: oneReplicaLead(s, config), detail: explain({ config, traced, report, sweeps }) };
  const { latency, lesson, shareSaid } = fleetLatency({ config, report, sweeps, routed, drawn });
  return { lead: fleetLead({ config, report, sweeps, drawn }), detail: explain({ config, traced, report, sweeps, shareSaid, latency, lesson }) };
}

/** With one replica: the hit rate is what the traffic allows (or the admitted part of it). */
function oneReplicaLead(s, config) {
  const away = turnedAway(s);
  const limit = away
    ? `counting only the ${countText(s.admitted)} admitted requests (${pctText(s.admitted / s.requests)} of ${countText(s.requests)}), since ${away}`
    : config.kv_blocks === null || config.kv_blocks === undefined
      ? 'the most this traffic allows with an unbounded cache (only what prompts share can be reused)'
      : 'the most this traffic allows with this cache size';
  return `With one replica there is nothing to route: ${pct1(s.hit_rate_tokens)} of prompt tokens come from cache, ${limit}.`;
}

/**
 * On a fleet, the lead: the policy's token hit rate beside the other drawn policies' at these
 * replicas (about 20 words). Latency and crowding are the detail's (fleetLatency); the busiest
 * replica's share is the run's load warning's (the hero's findings), when it has one.
 */
function fleetLead({ config, report, sweeps, drawn }) {
  const s = report.summary, r = cacheReplicas(config), policy = config.routing;
  const unit = isDisagg(config) ? `prefill replicas (and ${config.decode_instances} decode)` : 'replicas';
  // A mixed fleet is named by its GPUs ("On 2 H100 + 2 B200 replicas"), as its bars are.
  const mix = mixWords(report.config ?? config);
  // Every other curve on screen at this count: round robin, prefix_aware, then the policy chosen before.
  const others = [...new Set(['round_robin', 'prefix_aware', ...(drawn || [])])].filter((p) => p !== policy)
    .map((p) => [p, at(sweeps[p], r)?.hit_rate_tokens]).filter(([, y]) => Number.isFinite(y))
    .map(([p, y]) => `${policyName(p)} ${pct1(y)}`);
  const held = heldEqual(config);
  const compared = others.length ? ` (${held ? `with the same ${held}: ` : ''}${others.join(', ')})` : '';
  // Autoscaled, the count is where the run started (the load-over-time card draws the rest).
  const ready = report.series?.replicas || [];
  const on = ready.length
    ? `Starting on ${r} ${unit} (${report.autoscale?.scaler} autoscaled, ${Math.min(...ready)}–${Math.max(...ready)} ready)`
    : `On ${mix ?? r} ${unit}`;
  return `${on}, ${policyName(policy)} serves ${pct1(s.hit_rate_tokens)} of prompt tokens from cache${compared}.`;
}

/**
 * On a fleet, for the detail: what the most hits buy or cost, any drawn policy that crowds one
 * replica, and any that escapes both. Returns {latency, lesson, shareSaid}: lesson, the chosen
 * policy's own "gets the hits" sentence when it opens the detail; shareSaid when the page already
 * gives this run's busiest share (the run's load warning, or these words).
 */
function fleetLatency({ config, report, sweeps, routed, drawn: shown }) {
  const r = cacheReplicas(config), policy = config.routing;
  // The curves on screen: round robin, prefix_aware, this run's, and the policy chosen before it.
  const drawn = [...new Set(['round_robin', 'prefix_aware', policy, ...(shown || [])])];
  const cost = tradeoff(sweeps, drawn, r, policy);
  const warned = loadWarning(report);
  // This run's crowding is named by its warning when it has one; else its own rows say whether it crowds.
  const rows = { ...routed, [policy]: warned ? null : routedRows(report, config) };
  const load = { ...routed, [policy]: loadRows(report, config) };
  // p99s on screen already: the trade-off sentence's, and this run's (the hero's TTFT figure).
  const both = bothLesson(sweeps, drawn, r, [cost.slow, cost.fast, policy].filter(Boolean), load, warned ? policy : null, !!report.autoscale);
  // The chosen policy's own lesson ("sglang ... gets the hits at almost no cost") opens the detail,
  // when no trade-off sentence came before it (its numbers then lean on nothing said earlier).
  const lesson = both.winner === policy && !cost.words ? both.words : '';
  const latency = [cost.words, medianJump(sweeps, r), crowdedWords(rows, drawn), lesson ? '' : both.words].filter(Boolean).join(' ');
  return { latency, lesson, shareSaid: !!warned || !!crowdedTop(rows[policy]) || both.crowded === policy };
}

/** The run's one-replica load warning (a Rust finding, shown in the hero's findings), as its per-replica row; else null. */
function loadWarning(report) {
  const f = (report.findings || []).find((x) => x.kind === 'load_uneven' && x.replicas.length === 1);
  return (f && (report.per_instance || [])[f.replicas[0]]) || null;
}

/** A run's requests per replica of the pool the router spreads them over: [{index, requests}]. */
export function routedRows(report, config) {
  const all = report?.per_instance || [];
  return (isDisagg(config) ? all.filter((p) => p.pool === 'prefill') : all).map(({ index, requests }) => ({ index, requests }));
}

/** As routedRows, with each replica's prompt tokens: [{index, requests, prompt_tokens}]. */
function loadRows(report, config) {
  const all = report?.per_instance || [];
  return (isDisagg(config) ? all.filter((p) => p.pool === 'prefill') : all)
    .map(({ index, requests, prompt_tokens }) => ({ index, requests, prompt_tokens }));
}


/**
 * "7,790 were rejected", "12 timed out", "30 were turned away (20 rejected, 10 timed out)": the
 * requests the hit rate leaves out; '' when every request was served.
 */
export function turnedAway(summary) {
  const rej = Number(summary?.rejected) || 0, late = Number(summary?.timed_out) || 0;
  if (rej && late) return `${countText(rej + late)} were turned away (${countText(rej)} rejected, ${countText(late)} timed out)`;
  if (rej) return `${countText(rej)} ${rej === 1 ? 'was' : 'were'} rejected`;
  return late ? `${countText(late)} timed out` : '';
}

/** "a", "a and b", "a, b and c". */
function listWords(items) {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/**
 * The settings away from their defaults that change how round robin and prefix_aware route, in
 * words ("100% session affinity", "spill at 8 waiting", "4 routers"); '' when there are none. The
 * comparison runs (hero-panel.js) keep every setting but the replica count and the policy, so
 * "round robin 92%" is round robin with these, not the plain policy.
 */
export function heldEqual(config) {
  const out = [];
  const aff = config.session_affinity;
  if (typeof aff === 'number' && aff > 0) out.push(`${+aff.toFixed(1)}% session affinity`);
  if (config.spill_queue > 0) out.push(`spill at ${countText(config.spill_queue)} waiting`);
  if (config.routers > 1) out.push(`${countText(config.routers)} routers`);
  return listWords(out);
}

/** "1 replica", "4 replicas". */
const counted = (n, one, many) => `${countText(n)} ${n === 1 ? one : many}`;

/**
 * "8 prefixes × 64 replicas = 512, more than the 200 requests: every request a miss", and when
 * fewer missed (`m`), why: a replica with a few requests can draw one prefix twice.
 */
function cappedRule(config, r, m, admitted) {
  const head = `${counted(config.num_prefixes, 'prefix', 'prefixes')} × ${counted(r, 'replica', 'replicas')} = ${countText(config.num_prefixes * r)}, more than the ${countText(config.num_requests)} requests: every request a miss`;
  if (!(m < config.num_requests)) return head;
  const each = Math.round(config.num_requests / r);
  // The hits said as a count: "Fewer missed" beside "every request a miss" read as a contradiction.
  const hit = admitted - m;
  const why = `The ${countText(hit)} that hit ${hit === 1 ? 'was' : 'were'} sent a prefix their replica had already been sent: with about ${counted(each, 'request', 'requests')} per replica (${countText(config.num_requests)} / ${countText(r)})`;
  // How many such repeats chance gives, so "now and then" is a number a reader can check (53 of 200 at 32 replicas).
  const expected = expectedRepeats(config, r);
  if (expected === null) return `${head}. ${why}, that happens now and then, and the model does not count it`;
  return `${head}. ${why}, each drawing its prefix at random, about ${countText(Math.round(expected))} such repeats are expected, and the model does not count them`;
}

/**
 * The detail under the lead: the misses (against the simple model where it applies), `latency` (the
 * fleet's trade-off words), the busiest replica and why, kv's share of the locality gain, the trend.
 */
function explain({ config, traced, report, sweeps, shareSaid = false, latency = '', lesson = '' }) {
  const s = report.summary;
  const r = cacheReplicas(config);
  const policy = config.routing;
  const out = [];
  const m = misses(s);
  const modelSaid = modelApplies(config, traced) && (policy === 'round_robin' || policy === 'prefix_aware') && Number.isFinite(m);
  if (modelSaid) {
    const predicted = predictedMisses(config, policy, r);
    const product = config.num_prefixes * r;
    const rule = policy !== 'round_robin'
      ? `one per prefix, ${countText(predicted)}`
      : product > config.num_requests
        ? cappedRule(config, r, m, s.admitted)
        : `${counted(config.num_prefixes, 'prefix', 'prefixes')} × ${counted(r, 'replica', 'replicas')} = ${countText(predicted)}`;
    out.push(`${countText(m)} of ${countText(s.admitted)} requests found no cached prefix; the model predicts ${rule}.`);
    if (policy === 'round_robin' && r > 1) out.push('Each replica starts cold and must warm, by itself, every prefix it is sent.');
  }
  // A policy other than the two the model covers: its own sentences (kv's share of the gain, what
  // its picks found) open the detail, before the comparisons (a reader who chose llm_d was first
  // told about sticky).
  const first = !modelSaid && policy !== 'round_robin' && policy !== 'prefix_aware';
  const blind = first && r > 1 ? blindWords(s, policy, at(sweeps.round_robin, r)) : '';
  const own = [blind, ...ownWords(s, config, sweeps, r, first)].filter(Boolean);
  if (lesson) out.push(lesson);
  if (first) out.push(...own);
  if (latency) out.push(latency);
  const busy = busiestWords(report, config, policy, traced, shareSaid);
  if (busy) out.push(busy);
  // Without the model to check, the miss count follows the trade-off and the crowding (a reader
  // found "4 of 12,031 requests found no cached prefix" a trivial opener on the trace).
  if (!modelSaid && !blind && Number.isFinite(m)) out.push(`${countText(m)} of ${countText(s.admitted)} requests found no cached prefix.`);
  if (!first) out.push(...own);
  // Over the counts both curves have reached (mid-sweep one may run ahead of the other), so "from 1
  // to 16" is never said of a curve drawn only to 12.
  const reach = Math.min(...[sweeps.round_robin, sweeps.prefix_aware].filter((c) => c?.length).map((c) => c.at(-1).instances));
  const upTo = (c) => c && c.filter((p) => p.instances <= reach);
  const rrTrend = sweeps.round_robin && trendWords(upTo(sweeps.round_robin));
  const paTrend = sweeps.prefix_aware && trendWords(upTo(sweeps.prefix_aware));
  const xs = (upTo(sweeps.round_robin) || upTo(sweeps.prefix_aware) || []).map((p) => p.instances);
  if (xs.length > 1 && (rrTrend || paTrend)) {
    const held = heldEqual(config);
    const span = `From ${xs[0]} to ${xs[xs.length - 1]} ${isDisagg(config) ? 'prefill ' : ''}replicas${held ? `, with the same ${held}` : ''}`;
    const bits = [];
    if (rrTrend) bits.push(`round robin ${rrTrend}`);
    if (paTrend) bits.push(`prefix_aware ${paTrend}`);
    out.push(`${span}, ${bits.join('; ')}.`);
  }
  return out.join(' ');
}


/** Policies that pick a replica without looking at any cache (src/router.rs). */
const BLIND = new Set(['random', 'least_loaded', 'p2c']);

/**
 * For a policy blind to the caches, as round robin is, the sentence that opens the detail: its cold
 * misses beside round robin's at this count (a reader who chose random was first told about sglang).
 */
function blindWords(s, policy, rr) {
  const m = misses(s);
  if (!BLIND.has(policy) || !Number.isFinite(m)) return '';
  const theirs = misses(rr);
  const against = Number.isFinite(theirs) ? ` (round robin: ${countText(theirs)})` : '';
  return `${policyName(policy)} picks replicas blind to the caches, as round robin does: ${countText(m)} of ${countText(s.admitted)} requests found no cached prefix${against}.`;
}

/**
 * The chosen policy's own sentences: for kv, how much of prefix_aware's gain over round robin it
 * keeps; then why its hits are what they are: a dip in its curve, else how much its picks found
 * (all of it too when `first`: the sentences open the detail).
 */
function ownWords(s, config, sweeps, r, first) {
  const out = [], policy = config.routing;
  // On the displayed (0.1%) values, so the sentence's arithmetic can be checked by eye.
  const shown = (x) => Math.round(1000 * x) / 10;
  const rrAt = at(sweeps.round_robin, r)?.hit_rate_tokens, paAt = at(sweeps.prefix_aware, r)?.hit_rate_tokens;
  // The gain is prefix_aware's over round robin: beyond noise too when the hero's band gives their seeds.
  const gainReal = seedsApart({ q: at(sweeps.prefix_aware, r) }, { q: at(sweeps.round_robin, r) }, 'hit_rate_tokens') !== false;
  if (policy === 'kv' && r > 1 && Number.isFinite(rrAt) && Number.isFinite(paAt) && shown(paAt) - shown(rrAt) >= 2 && gainReal) {
    const gain = shown(paAt) - shown(rrAt);
    const got = Math.round(10 * Math.min(gain, Math.max(0, shown(s.hit_rate_tokens) - shown(rrAt)))) / 10;
    // With the band's seeds, a part of the gain within noise of round robin's hit rate is not kept.
    const noise = got > 0 && seedsApart({ q: at(sweeps.kv, r) }, { q: at(sweeps.round_robin, r) }, 'hit_rate_tokens') === false;
    const part = got === 0 || noise ? 'none' : got.toFixed(1) === gain.toFixed(1) ? 'all' : got.toFixed(1);
    const why = noise ? ' beyond noise: over the seeds its hit rate is within noise of round robin\'s' : '';
    out.push(`kv weighs a replica's missed blocks against its load (overlap weight ${config.overlap_weight}), so it keeps ${part} of the ${gain.toFixed(1)} percentage points prefix_aware gains over round robin${why}.`);
  }
  const found = dipWords(sweeps[policy], policy) || captureWords(s, policy, r, first);
  if (found) out.push(found);
  return out;
}

/**
 * The busiest replica's share, as a plain fact, whenever it is UNEVEN (1.5) times an even share or more
 * (a finding, with its sample rules, is separate); for prefix_aware and sticky, why, from the run's
 * own counts: how many equally popular prefixes' worth of requests the busiest replica took. With
 * `shareSaid` (the page gives the share already: the run's load warning, or the detail's crowded
 * words), only the why.
 */
export function busiestWords(report, config, policy, traced = false, shareSaid = false) {
  // Under an autoscaler replicas came and went: no share is even (the per-replica chart's head names
  // the busiest replica and its share, with no even one).
  if (report.autoscale) return '';
  // In a disaggregated fleet the router's policy spreads requests over the prefill pool only.
  const per = routedRows(report, config);
  const n = report.summary?.requests;
  if (per.length < 2 || !n) return '';
  const top = per.reduce((b, p) => (p.requests > b.requests ? p : b));
  const share = top.requests / n, even = 1 / per.length;
  if (share < UNEVEN * even || !beyondChance(top.requests, per)) return '';
  const why = policy === 'prefix_aware' || policy === 'sticky' ? homeWords({ config, policy, traced, per, top, n, shareSaid }) : '';
  if (shareSaid) return why;
  const said = `The busiest replica, R${top.index}, took ${smallPct(share)} of the requests (an even share is ${smallPct(even)}).`;
  return [said, why, silentWarning(report, n / per.length)].filter(Boolean).join(' ');
}

/** src/findings.rs CHANCE_SIGMAS: a busiest replica within this many √mean of the mean is chance. */
export const CHANCE_SIGMAS = 3;

/**
 * Whether `top` requests on one replica of `per` ([{requests}]) stand out beyond chance, by the
 * findings' own test (src/findings.rs load_finding): top − mean > CHANCE_SIGMAS × √mean. At 64
 * replicas and 200 requests (mean 3.1), a busiest replica with 7 is chance, not crowding.
 */
function beyondChance(top, per) {
  const mean = per.reduce((a, p) => a + p.requests, 0) / per.length;
  return top - mean > CHANCE_SIGMAS * Math.sqrt(mean);
}

/** src/findings.rs MIN_REQUESTS_PER_REPLICA: below this many requests per replica on average, no load warning. */
export const WARNING_MIN_PER_REPLICA = 30;

/**
 * Why a crowded run shows no uneven-load warning, when the reason is its sample rule: "No ⚠
 * uneven-load warning shows for it: that warning needs 30 requests per replica on average, and
 * here there are 12.5."
 * '' when a load warning fired or the sample is large enough (then the warning's other tests ruled).
 */
function silentWarning(report, perReplica) {
  if ((report.findings || []).some((f) => f.kind === 'load_uneven') || !(perReplica < WARNING_MIN_PER_REPLICA)) return '';
  return `No ⚠ uneven-load warning shows for it: that warning needs ${WARNING_MIN_PER_REPLICA} requests per replica on average, and here there are ${+perReplica.toFixed(1)}.`;
}


/**
 * Why prefix_aware or sticky piled requests on replica `top`: each prefix has one home, so a replica
 * takes every request of the prefixes homed there. With equally popular synthetic prefixes, the
 * busiest replica's share in prefixes' worth ("R0's 43% is about 3 prefixes' worth, where an even
 * split is 2 per replica"); with one hot prefix, that it takes it all; on a trace or sessions, where
 * every prompt's first block went.
 */
function homeWords({ config, policy, traced, per, top, n, shareSaid = false }) {
  const how = policy === 'prefix_aware' ? 'prefix_aware sends each prompt to the home replica its first block hashes to'
    : 'sticky sends each prompt back to the replica that holds its prefix';
  const [lay, laid] = policy === 'prefix_aware' ? ['the hash spreads ', ''] : ['', ' settled'];
  const idle = per.filter((p) => p.requests === 0).length;
  const none = idle ? `, and ${counted(idle, 'replica', 'replicas')} got none` : '';
  const popularity = config.prefix_popularity || 'uniform';
  const pool = !traced && config.workload !== 'sessions' && config.num_prefixes > 0;
  if (pool && /^hot:/.test(popularity)) {
    return `${how}, and one prefix carries ${+(popularity.slice(4) * 100).toFixed(1)}% of the traffic: its replica takes it all.`;
  }
  if (pool && popularity === 'uniform') {
    const p = config.num_prefixes, r = per.length;
    if (p < r) return `${how}: ${counted(p, 'prefix', 'prefixes')} can keep at most ${countText(p)} of the ${countText(r)} replicas busy${none}.`;
    const worth = Math.round((top.requests / n) * p);
    const took = shareSaid ? `R${top.index} took about` : `R${top.index}'s ${smallPct(top.requests / n)} is about`;
    return `${how}, and ${lay}the ${countText(p)} equally popular prefixes (about ${pct1(1 / p)} of the requests each)${laid} unevenly: `
      + `${took} ${countText(worth)} prefixes' worth, where an even split is ${+(p / r).toFixed(1)} per replica${none}.`;
  }
  if (policy === 'prefix_aware' && top.requests === n) return `${how}: here every prompt's first block hashes to R${top.index}.`;
  return `${how}${none}.`;
}

/** Why the simple model draws no line for these settings (modelApplies is false), true of each case. */
export function noModelWhy(config, traced) {
  if (traced) return 'it counts the pool\'s shared prefixes, and a trace has no pool';
  if (autoscaled(config)) return 'it counts a fixed fleet, and the autoscaler adds and removes replicas during the run';
  if (config.workload === 'sessions') return 'sessions have no prefix pool: each reuses its own earlier turns';
  if (!(config.num_prefixes > 0)) return 'with 0 prefixes no prompt shares one: there is nothing to predict';
  if (!(config.prefix_len > 0)) return 'with 0-token prefixes no prompt shares anything: there is nothing to predict';
  return 'it assumes caches that never evict';
}

/** ", each laid out in the mixed fleet's proportions (here 2 H100 + 2 B200)", or '' without a fleet. */
function mixedLayout(config) {
  const mix = mixWords(config);
  return mix ? `, each laid out in the mixed fleet's proportions (here ${mix})` : '';
}

/**
 * The hero's caption: how to read the figure, and what the model line assumes. Where round robin
 * sits 2 points or more above its model line (fewer misses than prefixes x replicas), it says so.
 */
export function heroCaption({ config, traced, sweeps = {}, xs = [] }) {
  const b = startBounds(config);
  const head = b
    ? `Points: your settings simulated from each starting replica count the autoscaler's bounds allow (${b.hi === null ? `${countText(b.lo)} or more` : `${countText(b.lo)} to ${countText(b.hi)}`}); click one to load it.`
    : `Points: your settings simulated at each replica count${mixedLayout(config)}; click one to load it.`;
  if (!modelApplies(config, traced)) {
    return `${head} No prediction line: the simple model (misses ≈ prefixes × replicas) draws none here, as ${noModelWhy(config, traced)}.`;
  }
  const curves = predictionCurves(config, traced, xs);
  const above = (policy) => (sweeps[policy] || []).some((q) => {
    const m = curves[policy].find((d) => d.x === q.instances);
    return m && Number.isFinite(q.hit_rate_tokens) && q.hit_rate_tokens >= m.y + 0.02;
  });
  // prefix_aware above its line: the requests never drew every prefix (more prefixes than requests
  // floor the line at 0), so fewer first misses than the model's one per prefix.
  if (above('prefix_aware')) {
    return `${head} Black lines: the simple model, which counts a first miss for each prefix; ${countText(config.num_requests)} requests drew only some of the ${countText(config.num_prefixes)}, so points sit above it.`;
  }
  const gap = above('round_robin') ? ' Where round robin\'s points sit above its line, some replicas never drew some prefixes.' : '';
  return `${head} Black lines: the simple model, which assumes every replica sees every prefix.${gap}`;
}

/**
 * Why the request-level and token-level hit rates differ, when they differ by more than 20 points;
 * '' otherwise.
 */
export function whyRatesDiffer(summary, config = {}, traced = false) {
  const req = summary?.hit_rate_requests, tok = summary?.hit_rate_tokens;
  if (!Number.isFinite(req) || !Number.isFinite(tok) || Math.abs(req - tok) <= 0.2) return '';
  if (req < tok) {
    return `Only ${pct1(req)} of requests reuse anything, but those that do reuse long prefixes: ${pct1(tok)} of all prompt tokens come from cache.`;
  }
  const head = `${pct1(req)} of requests reuse at least one cached block, but only ${pct1(tok)} of prompt tokens come from cache`;
  if (!traced && config.workload === 'sessions') {
    return `${head}: every turn finds the shared ${countText(config.system_prompt_len)}-token system prompt, but the conversation after it is cached only on the replica that served the task's previous turn.`;
  }
  if (!traced && config.num_prefixes > 0 && config.input_len > 0) {
    const share = Math.min(config.prefix_len, config.input_len) / config.input_len;
    return `${head}: one shared block is enough to count a request, while each prompt shares at most its prefix (${countText(config.prefix_len)} of ${countText(config.input_len)} tokens, ${pctText(share)}), and only where its replica already holds it.`;
  }
  return `${head}: one cached block is enough to count a request, while ${pct1(1 - tok)} of prompt tokens had to be computed afresh.`;
}

export { compareWord, pctText };
export { changeWords, wasNow, wasNowText } from './was-now.js';
