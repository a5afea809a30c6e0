// www/js/sweep-table.js: the sweep's table, one row per point (a button that loads it), one column
// per figure, and a Routing (or Line) column when several lines were swept. The hit rates lead with the
// token hit rate, the page's headline figure; the share of requests with any cached block comes after,
// named as what it counts.

import { pct, num, policyColor } from './format.js';
import { fmtMs } from './charts.js';
import { valueLabel } from './sweep-presets.js';

/** Fills `table` with the points of `last` (the drawn sweep); `pick(s, i)` loads point i of line s. */
export function renderTable(table, last, pick) {
  const { series, param } = last;
  const multi = series.length > 1;
  const head = ['Value', ...(multi ? [series.some((se) => se.style) ? 'Line' : 'Routing'] : []), 'Token hit rate', 'Any cached block', 'TTFT p50', 'TTFT p99', 'TPOT p99', 'Makespan', 'Load spread', 'Rejected', 'Evictions'];
  const thead = document.createElement('thead');
  const tr = document.createElement('tr');
  for (const h of head) { const th = document.createElement('th'); th.scope = 'col'; th.textContent = h; tr.append(th); }
  thead.append(tr);
  const tbody = document.createElement('tbody');
  series.forEach((se, s) => se.plan.points.forEach((pt, i) => {
    const x = se.summaries[i];
    const row = document.createElement('tr');
    row.dataset.s = s;
    row.dataset.i = i;
    const th = document.createElement('th');
    th.scope = 'row';
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'point-load';
    b.textContent = valueLabel(pt.value);
    b.setAttribute('aria-label', `Load ${param} = ${valueLabel(pt.value)}${multi ? ` with ${se.style ? se.label : se.routing}` : ''}`);
    b.addEventListener('click', () => pick(s, i));
    th.append(b);
    row.append(th);
    if (multi) {
      const td = document.createElement('td');
      td.className = 'routing';
      const sw = document.createElement('span'); sw.className = 'swatch'; sw.style.background = policyColor(se.routing);
      td.append(sw, document.createTextNode(se.style ? se.label : se.routing));
      row.append(td);
    }
    for (const c of [pct(x.hit_rate_tokens), pct(x.hit_rate_requests), fmtMs(x.ttft_ms_p50), fmtMs(x.ttft_ms_p99),
      fmtMs(x.tpot_ms_p99), `${num(x.makespan_s, 1)} s`, num(x.load_spread, 2), num(x.rejected), num(x.evictions)]) {
      const td = document.createElement('td'); td.textContent = c; row.append(td);
    }
    tbody.append(row);
  }));
  table.replaceChildren(thead, tbody);
}
