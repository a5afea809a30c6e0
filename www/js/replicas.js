// www/js/replicas.js: the per-replica table (requests, rejected, timed out, saturated, peak queue, hit
// rates, evictions), with a fleet row. Builds its own DOM; every value goes in with textContent.
// Non-zero rejections and timeouts are marked as symptoms.

import { pct, num, replicaColor, replicaName, countPct } from './format.js';
import { patchChildren, setText, el } from './page-bits.js';

/** A saturated share at or above this is highlighted: the replica had work waiting half the run. */
export const SATURATED = 0.5;

/** On a phone, up to this many replicas' cards show in full; more scroll inside the list. */
export const FEW_CARDS = 8;

const COLUMNS = [
  ['Replica', 'Replica'],
  ['Requests', 'Requests routed to the replica (served + rejected + timed out)'],
  ['Rejected', 'Turned away because the queue was full'],
  ['Timed out', 'Dropped: no first token within the caller timeout'],
  ['Saturated', 'Share of the run spent in steps that began with more work than they could start: a request waiting for a slot or KV room, or prefill beyond the step budget. Highlighted from 50%. An overloaded replica can read low: its backlog running in a batch that grew, every step slower.'],
  ['Peak queue', 'Most requests waiting for a slot at once'],
  ['Token hit', 'Prompt tokens found in the cache'],
  ['Any hit', 'Admitted requests that reused at least one cached block'],
  ['Evictions', 'KV blocks pushed out of a full cache'],
];

export class ReplicaTable {
  constructor() {
    const root = el('section', 'card replica-table');
    root.dataset.testid = 'replica-table';
    root.setAttribute('aria-labelledby', 'replica-table-h');
    const head = el('div', 'section-head');
    const h = el('h2', null, 'Per replica');
    h.id = 'replica-table-h';
    this.note = el('p', 'hint');
    this.note.dataset.testid = 'replica-table-note';
    head.append(h);
    const wrap = el('div', 'table-wrap replica-wrap');
    this.wrap = wrap;
    // A phone stacks the replicas as cards: up to FEW_CARDS they all show; past that the list
    // scrolls inside its box, which this line says (a phone draws no scroll bar until touched).
    this.scrollHint = el('p', 'hint replica-scroll-hint');
    this.scrollHint.dataset.testid = 'replica-scroll-hint';
    this.table = el('table');
    this.table.dataset.testid = 'replica-rows';
    const thead = el('thead');
    const tr = el('tr');
    for (const [name, title] of COLUMNS) {
      const th = el('th', null, name);
      th.scope = 'col';
      th.title = title;
      tr.append(th);
    }
    thead.append(tr);
    this.tbody = el('tbody');
    this.tfoot = el('tfoot');
    this.table.append(thead, this.tbody, this.tfoot);
    wrap.append(this.table);
    root.append(head, this.note, this.scrollHint, wrap);
    this.el = root;
  }

  update(report) {
    const per = report.per_instance || [];
    const s = report.summary || {};
    const cfg = report.config || {};
    const rows = per.map((r) => {
      const tr = el('tr');
      const bad = (r.rejected || 0) + (r.timed_out || 0) > 0;
      if (bad) tr.className = 'dropping';
      const name = el('th', null);
      name.scope = 'row';
      const sw = el('span', 'swatch');
      sw.style.background = replicaColor(r.index ?? 0);
      name.append(sw, document.createTextNode(r.pool ? `R${r.index} · ${r.pool}` : replicaName(r)));
      const full = cfg.queue_capacity !== null && cfg.queue_capacity !== undefined && r.peak_queue >= cfg.queue_capacity && cfg.queue_capacity > 0;
      tr.append(name,
        el('td', null, num(r.requests)),
        cell(r.rejected, 'rejected'),
        cell(r.timed_out, 'timed-out'),
        el('td', (r.saturated_share ?? 0) >= SATURATED ? 'hot' : null, pct(r.saturated_share, 0)),
        el('td', full ? 'hot' : null, `${num(r.peak_queue)}${full ? ' (full)' : ''}`),
        el('td', null, countPct(r.hit_rate_tokens)),
        el('td', null, countPct(r.hit_rate_requests)),
        el('td', null, num(r.evictions)));
      return labelled(tr);
    });
    patchChildren(this.tbody, rows);
    const few = per.length <= FEW_CARDS;
    this.wrap.classList.toggle('few', few);
    setText(this.scrollHint, few ? '' : `${num(per.length)} replicas: scroll inside the list for each one, and the fleet's row at its end ↓`);
    const fleet = el('tr');
    const fname = el('th', null, 'Fleet');
    fname.scope = 'row';
    const sum = (k) => per.reduce((a, r) => a + (r[k] || 0), 0);
    const meanSaturated = per.length ? sum('saturated_share') / per.length : NaN;
    fleet.append(fname,
      el('td', null, num(s.requests)),
      cell(s.rejected, 'rejected-total'),
      cell(s.timed_out, 'timed-out-total'),
      el('td', null, `${pct(meanSaturated, 0)} avg`),
      el('td', null, num(Math.max(0, ...per.map((r) => r.peak_queue || 0)))),
      el('td', null, countPct(s.hit_rate_tokens)),
      el('td', null, countPct(s.hit_rate_requests)),
      el('td', null, num(s.evictions)));
    patchChildren(this.tfoot, [labelled(fleet)]);

    const rejected = s.rejected || 0;
    const timedOut = s.timed_out || 0;
    const worst = per.filter((r) => (r.rejected || 0) + (r.timed_out || 0) > 0).map((r) => `R${r.index}`);
    if (rejected + timedOut > 0) {
      const what = [rejected ? `${num(rejected)} rejected` : '', timedOut ? `${num(timedOut)} timed out` : ''].filter(Boolean).join(' and ');
      const list = worst.length > 8 ? `${worst.slice(0, 8).join(', ')} and ${worst.length - 8} more` : worst.join(', ');
      const others = per.length - worst.length;
      setText(this.note, others > 0
        ? `⚠ ${what} of ${num(s.requests)} requests, all on ${list}; the other ${others} replica${others === 1 ? '' : 's'} turned nobody away.`
        : `⚠ ${what} of ${num(s.requests)} requests, on every replica: the whole fleet is saturated.`);
      this.note.classList.add('alarm-note');
    } else {
      setText(this.note, `Every request was answered: no replica rejected one${cfg.queue_capacity != null ? ` (queue capacity ${num(cfg.queue_capacity)})` : ' (queues unbounded)'}`
        + `${cfg.timeout_ms != null ? ` or timed one out (caller timeout ${num(cfg.timeout_ms)} ms)` : ''}.`);
      this.note.classList.remove('alarm-note');
    }
  }
}

/** Gives each cell its column's name (data-label): a phone shows the rows stacked, each value named. */
function labelled(tr) {
  [...tr.children].forEach((c, i) => { if (i > 0) c.dataset.label = COLUMNS[i][0]; });
  return tr;
}

function cell(v, testid) {
  const td = el('td', v > 0 ? 'bad' : 'zero', num(v ?? 0));
  td.dataset.testid = testid;
  return td;
}
