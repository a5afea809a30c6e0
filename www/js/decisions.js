// www/js/decisions.js: "What the router saw": the decision log of a range of requests of the run on
// screen, one row per candidate replica, with the value the router saw beside the true value at that
// instant (they differ under the offline view, a stale snapshot, speculative entries, several routers).
// The records are the CLI's --des-decisions records, logged by the worker for that range only.
// The range follows the run loaded: "to" stays on its last request (199 of the default 200, 12,030 of
// a 12,031-request trace) until the reader picks another; a range past a shorter run's end is cut to it.
//
// Test hook: window.kvfleet.lastDecisions = {seq, first, count, records} (the records as drawn).

import { num } from './format.js';

const MAX_SHOWN = 50;   // decisions per table
const MAX_ROWS = 800;   // candidate rows per table (decisions x replicas)

// The signals a candidate carries twice: [label, seen key, true key].
const SIGNALS = [
  ['Hit blocks', 'hit_blocks', 'true_hit_blocks'],
  ['Active blocks', 'active_blocks', 'true_active_blocks'],
  ['Waiting', 'waiting', 'true_waiting'],
  ['Running', 'running', 'true_running'],
];

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') e.textContent = v;
    else if (k === 'class') e.className = v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

/** The range to log: the last `count` requests of from..to (inclusive), or an error in words. */
export function rangeOf(fromText, toText, countText) {
  const whole = (t) => (/^\s*\d+\s*$/.test(t) ? Number(t) : NaN);
  const [from, to, count] = [whole(fromText), whole(toText), whole(countText)];
  if (!Number.isSafeInteger(from)) return { error: `“From request” must be a whole number from 0, got “${fromText}”.` };
  if (!Number.isSafeInteger(to) || to < from) return { error: `“To” must be a whole number from ${from} (the first request), got “${toText}”.` };
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_SHOWN) return { error: `“Show the last” must be from 1 to ${MAX_SHOWN} decisions, got “${countText}”.` };
  const n = Math.min(count, to - from + 1);
  return { first: to - n + 1, count: n };
}

/**
 * The range after a run of `requests` requests is loaded: {from, to} (numbers), from the range typed
 * and whether "to" was following the last request. Null when the run says nothing (no requests).
 */
export function followRange(fromText, toText, following, requests) {
  if (!Number.isInteger(requests) || requests < 1) return null;
  const last = requests - 1;
  const whole = (t) => (/^\s*\d+\s*$/.test(t) ? Number(t) : NaN);
  const typedTo = whole(toText);
  const to = following || !Number.isSafeInteger(typedTo) ? last : Math.min(typedTo, last);
  const typedFrom = whole(fromText);
  const from = Number.isSafeInteger(typedFrom) ? Math.min(typedFrom, to) : 0;
  return { from, to };
}

export class Decisions {
  /**
   * els: from, to, count, show, status, error, table. request(first, count, config) sends the range for
   * the settings of the run on screen and resolves with {records, config} (or rejects with the
   * simulator's message); null when superseded.
   */
  constructor(els, { request }) {
    this.els = els;
    this.request = request;
    this.active = false;  // once shown, the table follows every new run
    this.ticket = 0;
    this.seq = 0;
    this.config = null;   // the settings of the run on screen
    this.last = null;     // the last request of the run on screen
    this.following = true; // "to" is on the run's last request (the page opens there), so it moves with it
    els.to.addEventListener('input', () => { this.following = this.last !== null && Number(els.to.value) === this.last; });
    els.show.addEventListener('click', () => { this.active = true; this.refresh(); });
    for (const input of [els.from, els.to, els.count]) {
      input.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); this.active = true; this.refresh(); } });
    }
  }

  /** After a new run on screen: keep the table in step once the reader asked for it. */
  followRun(report) {
    this.config = report?.config ?? null;
    const n = report?.summary?.requests;
    const range = followRange(this.els.from.value, this.els.to.value, this.following, n);
    if (range) {
      this.last = n - 1;
      this.els.to.max = String(this.last);
      this.els.from.max = String(this.last);
      if (this.els.to.value !== String(range.to)) this.els.to.value = String(range.to);
      if (this.els.from.value !== String(range.from)) this.els.from.value = String(range.from);
      this.following = range.to === this.last;
    }
    if (this.active) this.refresh();
  }

  async refresh() {
    const r = rangeOf(this.els.from.value, this.els.to.value, this.els.count.value);
    this.els.error.hidden = true;
    if (r.error) { this.els.error.textContent = r.error; this.els.error.hidden = false; return; }
    const ticket = ++this.ticket;
    this.els.status.textContent = `Logging requests ${r.first} to ${r.first + r.count - 1}…`;
    let out;
    try {
      out = await this.request(r.first, r.count, this.config);
    } catch (err) {
      if (ticket !== this.ticket) return;
      this.els.error.textContent = `The decisions could not be logged: ${err.message}`;
      this.els.error.hidden = false;
      this.els.status.textContent = '';
      return;
    }
    if (ticket !== this.ticket || !out) return;
    this.show(out.records, out.config, r);
  }

  show(records, config, range) {
    const replicas = records[0]?.candidates.length ?? 0;
    const fit = replicas ? Math.max(1, Math.floor(MAX_ROWS / replicas)) : records.length;
    const shown = records.slice(-fit);
    this.seq += 1;
    if (window.kvfleet) window.kvfleet.lastDecisions = { seq: this.seq, first: range.first, count: range.count, records: shown };
    this.render(shown, config);
    const stale = shown.reduce((a, d) => a + d.candidates.filter((c) => SIGNALS.some(([, s, t]) => c[s] !== c[t])).length, 0);
    const none = records.length === 0 ? ' The run has no request in that range.' : '';
    const cut = shown.length < records.length ? ` Only the last ${shown.length} fit in the table (${replicas} replicas each).` : '';
    this.els.status.textContent = `Requests ${range.first} to ${range.first + range.count - 1} · ${config.routing} routing, view ${config.router_view}`
      + `${config.router_view === 'snapshot' ? ` (refresh ${num(config.router_refresh_ms)} ms, KV events ${num(config.kv_event_lag_ms)} ms late)` : ''}`
      + `, ${config.routers} router(s). ${stale} of ${shown.length * replicas} candidate rows saw a value other than the truth.${cut}${none}`
      + (shown.some((d) => d.candidates.some((c) => c.terms?.length))
        ? ` The columns after Running are ${config.routing}'s own terms, by its source's names (hover a heading for what it is); a pick names its rule's branch.` : '');
  }

  render(records, config) {
    const routing = config.routing;
    // The zoo policies name their own terms (src/router/zoo/*.rs); the simple ones have kv's `recent`.
    const terms = [...new Set(records.flatMap((d) => d.candidates.flatMap((c) => (c.terms || []).map((t) => t.name))))];
    const scored = records.some((d) => d.candidates.some((c) => c.score !== undefined));
    const cols = [...SIGNALS.map(([l]) => [l]), ...(terms.length ? terms.map((t) => [t, TERM_HELP[t], 'term']) : [['Recent misses', 'Misses routed here lately, decayed: the last term of kv\'s cost']]),
      ...(scored ? [['Score', 'Highest wins (when the rule picks by score)']] : []), ['Cost', 'Lowest wins; “–” when the rule picked by score or by a plain rule'], ['Pick']];
    const head = el('tr', {}, el('th', { scope: 'col', text: 'Request' }), el('th', { scope: 'col', text: 'Replica' }),
      ...cols.map(([h, title, kind]) => el('th', { scope: 'col', title, class: kind === 'term' ? 'term' : null }, kind === 'term' ? el('code', { text: h.replace(/_/g, '_\u200b') }) : h)));
    const tbody = el('tbody');
    for (const d of records) {
      const marked = markedCost(d, routing);
      d.candidates.forEach((c, i) => {
        const cls = [c.replica === d.chosen ? 'chosen' : null, c.excluded ? 'excluded' : null].filter(Boolean).join(' ') || null;
        const row = el('tr', { class: cls, 'data-request': d.id, 'data-replica': c.replica, title: c.excluded ? EXCLUDED[routing] || 'Not a candidate of this pick' : null });
        if (i === 0) {
          const at = `${num(d.arrival_s, 3)} s`;
          row.append(el('th', { scope: 'rowgroup', rowspan: d.candidates.length, class: 'req' },
            el('span', { class: 'req-id', text: `#${d.id}` }), el('span', { class: 'thin', text: ` ${at}` }),
            config.routers > 1 ? el('span', { class: 'thin', text: ` · router ${d.router}` }) : null));
        }
        row.append(el('td', { text: String(c.replica) }));
        for (const [label, seenKey, trueKey] of SIGNALS) {
          const seen = c[seenKey], truth = c[trueKey];
          const own = seenKey === 'hit_blocks' && OWN_INDEX[routing];
          const td = el('td', { class: seen !== truth ? 'stale' : null,
            title: seen !== truth ? `${label}: the router${own ? ` (${OWN_INDEX[routing]})` : ''} saw ${seen}, the truth was ${truth}` : null });
          td.append(String(seen));
          if (seen !== truth) td.append(el('span', { class: 'truth', text: ` true ${truth}` }));
          row.append(td);
        }
        if (terms.length) {
          const byName = new Map((c.terms || []).map((t) => [t.name, t.value]));
          for (const t of terms) row.append(el('td', { text: byName.has(t) ? termValue(byName.get(t)) : '–' }));
        } else row.append(el('td', { text: num(c.recent, 1) }));
        if (scored) row.append(el('td', { text: c.score === undefined ? '–' : termValue(c.score) }));
        row.append(el('td', { text: marked ? '–' : num(c.cost, 2) }));
        const why = [d.reason, d.rule].filter(Boolean).join(' · ');
        row.append(el('td', { class: 'pick', text: c.replica === d.chosen ? `✓ ${why}` : c.excluded ? 'not a candidate' : '' }));
        tbody.append(row);
      });
    }
    this.els.table.replaceChildren(el('thead', {}, head), tbody);
  }
}

// Where sglang and aibrix get their hit blocks: their own index of past picks, not the engines' caches.
const OWN_INDEX = { sglang: 'its own prefix tree', aibrix: 'its own prefix table' };
const EXCLUDED = { p2c: 'Not drawn: p2c compares only the two replicas it drew', aibrix: 'Not a candidate: no prefix match, or loaded above mean + 1σ' };

// What each zoo term is (the names are the sources'; src/router/zoo/*.rs).
const TERM_HELP = {
  in_flight: 'Requests in flight: waiting + running',
  active_prefill_tokens: 'Prompt tokens routed here and not yet past their first token, less the blocks seen cached',
  raw_prefill_blocks: '(active prefill tokens + this prompt) / block size',
  prefill_cost_blocks: 'max(0, raw prefill blocks − overlap credit × cached blocks)',
  new_blocks: 'This request\'s full blocks not already in flight here',
  decode_blocks: 'Blocks in flight + new blocks (potential decode blocks)',
  match_rate: 'Leading blocks in its tree / the request\'s full blocks',
  tree_blocks: 'Blocks in its approximate tree',
  prefix: 'Precise-prefix score: leading blocks held, min–max over the replicas holding any',
  queue: 'Queue score: (max waiting − waiting) / (max − min)',
  kv_cache: 'KV-cache score: 1 − used / capacity',
  match_percent: 'Whole percent of the request\'s blocks its prefix table holds',
  mean_plus_sigma: 'Load limit: mean + 1σ of every replica\'s in-flight count',
};

/** Whether a decision's costs are only 0 for the pick and 1 for the rest (a rule or a score picked). */
function markedCost(d, routing) {
  if (d.reason !== 'policy') return true;
  if (['round_robin', 'random', 'prefix_aware', 'sticky', 'llm_d'].includes(routing)) return true;
  return ['sglang', 'aibrix'].includes(routing) && d.rule === 'match';
}

function termValue(v) {
  return Number.isInteger(v) ? num(v) : num(v, 2);
}
