// www/js/story.js: the sentences the page says about a run, computed from its numbers (pure, no DOM),
// so a takeaway can never disagree with the chart beside it. Every comparison word ("falls",
// "stays", "more than") is chosen by the figures it describes.

import { predictedMisses, modelApplies } from './predict.js';

const pctText = (x) => (Number.isFinite(x) ? `${(100 * x).toFixed(0)}%` : '–');
const countText = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '–');
/** Two rates closer than this read as "the same" in a sentence (half a percentage point). */
const SAME = 0.005;

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
  if (last < first - SAME) return `falls from ${pctText(first)} to ${pctText(last)}`;
  if (last > first + SAME) return `rises from ${pctText(first)} to ${pctText(last)}`;
  return `moves between ${pctText(lo)} and ${pctText(hi)}`;
}

function compareWord(a, b) {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return null;
  if (Math.abs(a - b) < SAME) return 'the same as';
  return a > b ? 'more than' : 'less than';
}

function at(points, replicas) {
  return (points || []).find((p) => p.instances === replicas) || null;
}

/**
 * The hero's takeaway for the run on screen. ctx: {config, traced, report, sweeps: {policy: points[]}}.
 * Returns {lead, detail}: the one sentence to notice, and the sentence that explains it.
 */
export function heroTakeaway({ config, traced, report, sweeps = {} }) {
  const s = report?.summary;
  if (!s) return { lead: '', detail: '' };
  const r = config.instances;
  const policy = config.routing;
  const own = s.hit_rate_tokens;
  const name = policy === 'round_robin' ? 'round robin' : policy;
  if (!Number.isFinite(own)) {
    return { lead: `No request was admitted, so there is no hit rate to show.`, detail: '' };
  }
  const rr = at(sweeps.round_robin, r)?.hit_rate_tokens;
  const pa = at(sweeps.prefix_aware, r)?.hit_rate_tokens;
  let lead;
  if (r === 1) {
    lead = `With one replica there is nothing to route: ${pctText(own)} of prompt tokens come from cache, the most this traffic allows without a bigger cache.`;
  } else {
    const parts = [`On ${r} replicas, ${name} serves ${pctText(own)} of prompt tokens from cache`];
    const others = [];
    if (policy !== 'round_robin' && Number.isFinite(rr)) others.push(`round robin ${pctText(rr)}`);
    if (policy !== 'prefix_aware' && Number.isFinite(pa)) others.push(`prefix_aware ${pctText(pa)}`);
    lead = `${parts[0]}${others.length ? ` (${others.join(', ')})` : ''}.`;
  }
  return { lead, detail: explain({ config, traced, report, sweeps }) };
}

function explain({ config, traced, report, sweeps }) {
  const s = report.summary;
  const r = config.instances;
  const policy = config.routing;
  const out = [];
  const m = misses(s);
  if (modelApplies(config, traced) && (policy === 'round_robin' || policy === 'prefix_aware') && Number.isFinite(m)) {
    const predicted = predictedMisses(config, policy, r);
    const rule = policy === 'round_robin'
      ? `${config.num_prefixes} prefixes × ${r} replicas = ${countText(predicted)}`
      : `one per prefix, ${countText(predicted)}`;
    out.push(`${countText(m)} of ${countText(s.admitted)} requests found no cached prefix; the model predicts ${rule}.`);
    if (policy === 'round_robin' && r > 1) out.push('Each replica starts cold and must warm every prefix itself.');
  } else if (Number.isFinite(m)) {
    out.push(`${countText(m)} of ${countText(s.admitted)} requests found no cached prefix.`);
  }
  const rrTrend = sweeps.round_robin && trendWords(sweeps.round_robin);
  const paTrend = sweeps.prefix_aware && trendWords(sweeps.prefix_aware);
  const xs = (sweeps.round_robin || sweeps.prefix_aware || []).map((p) => p.instances);
  if (xs.length > 1 && (rrTrend || paTrend)) {
    const span = `From ${xs[0]} to ${xs[xs.length - 1]} replicas`;
    const bits = [];
    if (rrTrend) bits.push(`round robin ${rrTrend}`);
    if (paTrend) bits.push(`prefix_aware ${paTrend}`);
    out.push(`${span}, ${bits.join('; ')}.`);
  }
  return out.join(' ');
}

/** "was 36% → now 48%" for a headline figure, or '' when there is no earlier run to compare. */
export function wasNow(prev, now, fmt) {
  if (!Number.isFinite(prev) || !Number.isFinite(now)) return '';
  const a = fmt(prev), b = fmt(now);
  return a === b ? `unchanged at ${b}` : `was ${a} → now ${b}`;
}

/**
 * Why the request-level and token-level hit rates differ, when they differ by more than 20 points;
 * '' otherwise.
 */
export function whyRatesDiffer(summary) {
  const req = summary?.hit_rate_requests, tok = summary?.hit_rate_tokens;
  if (!Number.isFinite(req) || !Number.isFinite(tok) || Math.abs(req - tok) <= 0.2) return '';
  if (req > tok) {
    return `${pctText(req)} of requests reuse at least one cached block, but only ${pctText(tok)} of prompt tokens come from cache: a shared opening (a system prompt) hits almost every time, while the rest of each prompt is new or lives on another replica.`;
  }
  return `Only ${pctText(req)} of requests reuse anything, but those that do reuse long prefixes: ${pctText(tok)} of all prompt tokens come from cache.`;
}

export { compareWord, pctText };
