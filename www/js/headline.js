// www/js/headline.js: the headline figures, the report's three fleet lines (verbatim, and the CLI's
// preemption line under admission=preempt) with a note on
// what their "of requests" and block-reuse count, and the run's findings in plain words. Everything
// is written with textContent. Shares of counts go through countPct (never "100.0%" unless all). Why
// the two hit rates differ is said on the first screen (story.js whyRatesDiffer) and in the note under
// the fleet lines, not a third time here.

import { countPct, findingText, num, ms, seconds } from './format.js';
import { patchChildren, setText } from './page-bits.js';

function figure(cls, testid, label, value, unit, sub) {
  const d = document.createElement('div');
  d.className = `figure ${cls}`;
  d.dataset.testid = testid;
  const l = document.createElement('div'); l.className = 'label'; l.textContent = label;
  const v = document.createElement('div'); v.className = 'value'; v.textContent = value;
  // The unit starts with a space, so the text read aloud or copied says "1,720 tok", "7,790 of 12,031".
  if (unit) { const u = document.createElement('small'); u.textContent = ` ${unit}`; v.append(u); }
  const s = document.createElement('div'); s.className = 'sub'; s.textContent = sub;
  d.append(l, v, s);
  return d;
}

/**
 * Why requests were rejected, in words with their counts (the report's split, never a guess):
 * 'queue full', 'too large for a 9-block cache', or both with each count. '' when the report does
 * not say why (no rejection, or a report without the split).
 */
export function rejectionReasons(rejected, queueFull, tooLarge, kvBlocks) {
  const q = queueFull || 0;
  const t = tooLarge || 0;
  const cache = kvBlocks == null ? 'the cache' : `a ${num(kvBlocks)}-block cache`;
  const parts = [[q, 'queue full'], [t, `too large for ${cache}`]];
  const rest = (rejected || 0) - q - t;
  if (rest > 0 && (q || t)) parts.push([rest, 'reason not recorded']);
  const given = parts.filter(([n]) => n > 0);
  if (given.length === 1) return given[0][1];
  return given.map(([n, why]) => `${num(n)} ${why}`).join(', ');
}

/** 'N rejected' with its reasons: '7,790 rejected: too large for a 9-block cache', or both counts. */
export function rejectedWords(rejected, queueFull, tooLarge, kvBlocks) {
  const why = rejectionReasons(rejected, queueFull, tooLarge, kvBlocks);
  const n = `${num(rejected)} rejected`;
  if (!why) return n;
  return why.includes(',') ? `${n} (${why})` : `${n}: ${why}`;
}

export function renderHeadline(root, report) {
  const s = report.summary || {};
  const [p50, p50u] = ms(s.ttft_ms_p50);
  const [p99, p99u] = ms(s.ttft_ms_p99);
  const [mk, mku] = seconds(s.makespan_s);
  const group = (title, ...figs) => {
    const g = document.createElement('div'); g.className = 'fig-group';
    const h = document.createElement('h3'); h.textContent = title;
    const row = document.createElement('div'); row.className = 'fig-row'; row.style.setProperty('--n', String(figs.length)); row.append(...figs);
    g.append(h, row);
    return g;
  };
  const rejected = s.rejected || 0;
  const timedOut = s.timed_out || 0;
  const dropped = rejected + timedOut;
  const done = [`${num(s.completed)} done`];
  if (rejected) done.push(`${num(rejected)} rejected`);
  if (timedOut) done.push(`${num(timedOut)} timed out`);
  const latency = [
    figure('latency', 'fig-ttft-p50', 'TTFT p50', p50, p50u, 'typical time to first token'),
    figure('latency', 'fig-ttft-p99', 'TTFT p99', p99, p99u, 'slowest 1% wait this long'),
    figure('latency', 'fig-makespan', 'Makespan', mk, mku, `${done.join(', ')} · ${num(s.throughput_tok_s)} tok/s`),
  ];
  if (dropped) {
    // A symptom, not a statistic: callers got no answer. Shown only when it happens.
    const why = [];
    // Refused at a full router queue (a router with cores): their own reason, apart from the replicas'.
    const atRouter = report.router_cpu?.rejected || 0;
    const atReplicas = rejected - atRouter;
    if (atReplicas) why.push(rejectedWords(atReplicas, s.rejected_queue_full, s.rejected_too_large, (report.config || {}).kv_blocks));
    if (atRouter) why.push(`${num(atRouter)} rejected: router queue full`);
    // Timed out while waiting at the router (a router with cores): said apart from the replicas'.
    const lateAtRouter = report.router_cpu?.timed_out || 0;
    if (timedOut) why.push(`${num(timedOut)} timed out${lateAtRouter ? ` (${num(lateAtRouter)} at the router)` : ''}`);
    const share = s.requests ? dropped / s.requests : NaN;
    const f = figure('alarm', 'fig-dropped', 'Turned away', num(dropped), `of ${num(s.requests)}`,
      `⚠ ${countPct(share, share < 0.1 ? 1 : 0)} got no answer: ${why.join(', ')}`);
    f.setAttribute('role', 'status');
    latency.push(f);
  }
  const cache = group('Prefix cache',
    figure('cache', 'fig-hit-rate', 'Token hit rate', countPct(s.hit_rate_tokens), '',
      `prompt tokens served from cache · ${num(s.cached_tokens)} of ${num(s.prompt_tokens)}`),
    figure('cache secondary', 'fig-any-hit', 'Requests with any cached block', countPct(s.hit_rate_requests), '',
      'one shared block is enough to count'),
    figure('cache', 'fig-cached-avg', 'Cached tok / request', num(s.cached_tokens_avg), 'tok',
      'average prompt tokens not recomputed'),
    figure('cache', 'fig-evictions', 'Evictions', num(s.evictions), '',
      s.evictions ? 'blocks pushed out of full caches' : 'no cache filled up'),
    figure('cache secondary', 'fig-capture', 'Routing capture', countPct(s.routing_capture), '',
      Number.isFinite(s.routing_capture)
        ? `picks found ${num(s.pick_hit_blocks)} of the ${num(s.best_hit_blocks)} blocks the best-placed replica held${lostWords(s)}`
        : 'no replica held a block of any request when it was routed'));
  patchChildren(root, [cache, group(dropped ? 'Latency and admission' : 'Latency', ...latency)]);
}

/**
 * Why the picks found more blocks than admissions reused, when they did and evictions are the
 * reason: "; evictions while requests waited cost 76 of them, and admissions reused 64". '' otherwise
 * (also when the picks found more only because a prompt's last token is always recomputed).
 */
export function lostWords(s) {
  const lost = s.evicted_after_pick_blocks;
  if (!(s.pick_hit_blocks > s.cached_blocks) || !(lost > 0)) return '';
  return `; evictions while requests waited cost ${num(lost)} of them, and admissions reused ${num(s.cached_blocks)}`;
}

/** A duration in ms as the CLI's text report writes it (src/numbers.rs duration). */
function cliDuration(x) {
  if (!Number.isFinite(x)) return '–';
  if (x >= 1000) return `${(x / 1000).toFixed(2)} s`;
  return `${x.toFixed(x >= 100 ? 0 : x >= 10 ? 1 : 2)} ms`;
}

/** The CLI's preemption line (src/report/text.rs preemption_line), or null under `reserve`
 * and where no replica's cache is bounded (a replica preempts only for want of a block). */
export function preemptionLine(report) {
  const p = report.summary?.preemption;
  if (!p) return null;
  const cfg = report.config || {};
  if (p.preemptions === 0 && cfg.kv_blocks == null && !(cfg.fleet || '').trim()) return null;
  const per = (report.per_instance || []).map((r) => r.preemption?.preemptions ?? 0).join('/');
  return `  Preemptions (admission=preempt): ${p.preemptions} (per replica ${per}), `
    + `recomputed ${p.recomputed_tokens} tok, time lost ${cliDuration(p.time_lost_ms)}`;
}

/** The CLI's CPU tier line (src/report/text.rs tier_line), or null without a tier. */
export function cpuTierLine(report) {
  const t = report.summary?.cpu_tier;
  if (!t) return null;
  return `  CPU tier: ${t.hbm_hit_tokens} tok from HBM, ${t.cpu_hit_tokens} tok loaded from CPU `
    + `(${(t.cpu_hit_rate_tokens * 100).toFixed(1)}% of prompt tokens) in ${t.loads} loads `
    + `(${(t.loaded_bytes / 1e9).toFixed(2)} GB, ${cliDuration(t.load_ms)} on the link, ${cliDuration(t.load_wait_ms)} queued); `
    + `demoted ${(t.demoted_bytes / 1e9).toFixed(2)} GB; evictions HBM ${t.hbm_evictions}, CPU ${t.cpu_evictions}`;
}

/** The CLI's shared tier line (src/report/text.rs shared_line), or null without a shared tier. */
export function sharedTierLine(report) {
  const t = report.summary?.shared_tier;
  if (!t) return null;
  return `  Shared tier: ${t.hbm_hit_tokens} tok from HBM, ${t.cpu_hit_tokens} from CPU, ${t.shared_hit_tokens} loaded from the shared tier `
    + `(${(t.shared_hit_rate_tokens * 100).toFixed(1)}% of prompt tokens) in ${t.loads} loads `
    + `(${(t.loaded_bytes / 1e9).toFixed(2)} GB, ${cliDuration(t.load_ms)} on the links, ${cliDuration(t.load_wait_ms)} queued); `
    + `written ${(t.demoted_bytes / 1e9).toFixed(2)} GB; shared evictions ${t.shared_evictions}`;
}

/** The CLI's router CPU line (src/report/text.rs router_cpu_line), or null for a free router. */
export function routerCpuLine(report) {
  const x = report.router_cpu;
  if (!x) return null;
  const pct0 = (b) => (Number.isFinite(b) ? `${(100 * b).toFixed(0)}%` : '–');
  const queue = report.config?.router_queue ?? 'unbounded';
  return `  Router CPU: ${x.vcpu} vCPU x ${x.busy_share.length} router(s), busy ${x.busy_share.map(pct0).join('/')}`
    + ` | routing delay (in TTFT) mean ${cliDuration(x.routing_delay_ms_mean)}, p99 ${cliDuration(x.routing_delay_ms_p99)}`
    + ` | router queue ${queue}, rejected ${x.rejected}${x.timed_out ? `, timed out ${x.timed_out}` : ''}`;
}

export function renderFleetLines(pre, report) {
  // A disaggregated run: the seed's three lines describe the prefill pool; the pools line follows,
  // then, under admission=preempt, the preemptions, then with a CPU tier its line, then with a
  // shared tier its line, then a router with cores.
  const preempt = preemptionLine(report);
  const tier = cpuTierLine(report);
  const shared = sharedTierLine(report);
  const routerCpu = routerCpuLine(report);
  const lines = [...(report.fleet_lines || []), ...(report.pools ? [report.pools.line] : []), ...(preempt ? [preempt] : []),
    ...(tier ? [tier] : []), ...(shared ? [shared] : []), ...(routerCpu ? [routerCpu] : [])];
  setText(pre, lines.join('\n'));
  const note = fleetNote(pre);
  const s = report.summary || {};
  const hit = requestRateWords(s, lines);
  const reuse = blockReuseWords(s);
  setText(note.hitLead, hit ? hit[0] : '');
  setText(note.hitRest, hit ? hit[1] : '');
  note.hit.hidden = !hit;
  note.br.hidden = !(hit && reuse);
  setText(note.reuse, reuse || '');
  if (note.el.hidden !== !(hit || reuse)) note.el.hidden = !(hit || reuse);
}

/**
 * The note under the fleet lines (made once): what the hit-rate line's "of requests" counts
 * (data-testid=fleet-hit-note), then what its block-reuse counts.
 */
const fleetNotes = new WeakMap(); // the fleet lines' <pre> -> its note's parts

function fleetNote(pre) {
  if (fleetNotes.has(pre)) return fleetNotes.get(pre);
  const span = (testid) => { const e = document.createElement('span'); if (testid) e.dataset.testid = testid; return e; };
  const el = document.createElement('p');
  el.className = 'fig-note';
  el.dataset.testid = 'fleet-note';
  const hit = span('fleet-hit-note');
  const hitLead = document.createElement('strong');
  const hitRest = span();
  hit.append(hitLead, hitRest);
  const br = document.createElement('br');
  const reuse = span('fleet-reuse-note');
  el.append(hit, br, reuse);
  pre.after(el);
  const parts = { el, hit, hitLead, hitRest, br, reuse };
  fleetNotes.set(pre, parts);
  return parts;
}

/**
 * The hit-rate line's "X of requests" against the token hit rate, in words from the run: [the
 * line's own words, in bold; what they count, and the token hit rate]. The share is quoted as the
 * line prints it; where the line rounds a share that is not all (or not none) to 100.0% (or 0.0%),
 * the counts follow (roundedWords). Null when no request was admitted.
 */
export function requestRateWords(s, lines = []) {
  if (!Number.isFinite(s.hit_rate_requests) || !Number.isFinite(s.hit_rate_tokens)) return null;
  const printed = lines.map((l) => l.match(/hit rate: (\S+%) of requests/)).find(Boolean);
  const req = printed ? printed[1] : countPct(s.hit_rate_requests);
  const tok = countPct(s.hit_rate_tokens);
  const counts = ` counts requests with at least one cached block (one is enough)${roundedWords(s, req)}.`;
  const tokens = req === tok
    ? ` The token hit rate, the share of prompt tokens served from cache, is also ${tok} on this run.`
    : ` It is not the token hit rate: ${tok} of prompt tokens were served from cache.`;
  return [`“${req} of requests”`, counts + tokens];
}

/**
 * "; here 12,027 of 12,031 (99.97%), which the line rounds up" when the printed share `req` reads
 * 100% (or 0%) and the counts say otherwise; '' when it says what the counts say.
 */
function roundedWords(s, req) {
  const hit = s.hit_requests, all = s.admitted;
  if (!Number.isFinite(hit) || !Number.isFinite(all) || !(all > 0) || hit === 0 || hit === all) return '';
  const v = parseFloat(req);
  if (v !== 100 && v !== 0) return '';
  return `; here ${num(hit)} of ${num(all)} (${countPct(hit / all)}), which the line rounds ${v === 100 ? 'up' : 'down'}`;
}

/**
 * Why the report's block-reuse differs from the token hit rate, from the run's counts: the first
 * divides cached blocks by prompt blocks, where a prompt's partly filled last block counts whole;
 * the second divides the cached blocks' tokens by prompt tokens. Null when nothing was admitted.
 */
export function blockReuseWords(s) {
  if (!(s.prompt_blocks > 0) || !(s.prompt_tokens > 0)) return null;
  const blocks = `The report's block-reuse counts blocks: ${num(s.cached_blocks)} of ${num(s.prompt_blocks)} prompt blocks came from a cache (${countPct(s.block_reuse)}).`;
  const same = countPct(s.block_reuse) === countPct(s.hit_rate_tokens);
  if (same) return `${blocks} The token hit rate, ${countPct(s.hit_rate_tokens)}, counts the same reuse in tokens.`;
  const tokens = `The token hit rate, ${countPct(s.hit_rate_tokens)}, counts tokens (${num(s.cached_tokens)} of ${num(s.prompt_tokens)})`;
  return s.hit_rate_tokens > s.block_reuse
    ? `${blocks} ${tokens}; it reads higher because a prompt's last block is usually only partly filled, yet counts as a whole prompt block.`
    : `${blocks} ${tokens}.`;
}

const FINDING_TITLE = {
  load_uneven: '⚠ Uneven load: the replicas are not sharing the work evenly.',
  hit_uneven: '⚠ Uneven hit rate: some replicas reuse their cache far more than others.',
  overloaded: '⚠ Overloaded: more work arrives than replicas can serve.',
  kv_bound: '⚠ KV-bound: requests wait for room in the KV cache while batch slots sit free.',
};

/**
 * Shows the run's findings (each with its own words), or hides the box when there are none. Findings
 * fire only on evidence (see src/findings.rs), so an even round-robin split never shows one.
 */
export function renderFindings(box, report) {
  const findings = report.findings || [];
  if (findings.length === 0) { box.hidden = true; box.replaceChildren(); return; }
  const nodes = [];
  for (const f of findings) {
    const d = document.createElement('div');
    d.className = `finding-block ${f.kind}`;
    d.dataset.testid = `finding-${f.kind}`;
    const t = document.createElement('strong');
    t.textContent = FINDING_TITLE[f.kind] || `⚠ ${f.kind}`;
    const p = document.createElement('p');
    p.textContent = findingText(f);
    d.append(t, p);
    nodes.push(d);
  }
  patchChildren(box, nodes);
  box.hidden = false;
}
