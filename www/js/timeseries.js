// www/js/timeseries.js: the "Load over time" card, shown for a run under a rate schedule or an
// autoscaler: the schedule, the offered and served rates (and, autoscaled, the ready replicas on the
// right axis), the share of the requests admitted with any cached block (and, with an SLO target, the
// share of completions that met it) and the mean TTFT per interval (the report's sampling windows merged
// into at most 48), as three charts on one time axis, with a caption computed from the same numbers
// and a warning when the run's arrivals end before the schedule's later changes.

import { themeInk, num, countPct, msText } from './format.js';
import { lazyDraw } from './lazy-draw.js';
import { axisTitle, hexAlpha } from './charts.js';
import { unreachedWords } from './schedule-reach.js';
import { earlyDrainWords } from './kpa-words.js';

const finite = (xs) => xs.filter(Number.isFinite);
const fixed1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '–');
/** A measured duration in the card's words: seconds to one decimal, as its times and rates ("101.7 s"), else "85 ms". */
export const cardMs = (x) => (x >= 1000 ? `${fixed1(x / 1000)} s` : `${x.toFixed(x < 10 ? 1 : 0)} ms`);

/** Points {x: t, y} of a column, a gap where it is null. */
const points = (ts, col, scale = 1) => (col || []).map((v, j) => ({ x: ts[j], y: Number.isFinite(v) ? v * scale : null }));

/** The charts' left axis width, and the rates chart's right (ready replicas) axis width, px. */
export const TS_Y_PX = 64;
export const TS_Y2_PX = 48;

/** Most bins the charts draw: the grid's windows (up to 240) merged in runs, so a rate counts enough arrivals. */
export const MAX_BINS = 48;

/**
 * The series' windows merged into at most `maxBins` runs of consecutive windows, exactly: arrivals and
 * completions are rate × length, hits are hit rate × admitted, TTFT sums are mean × completions, SLO
 * met is share × completions. A last bin shorter than the others is merged into the one before, so
 * every bin spans at least `binS` (the last, which ends with the run, up to twice that).
 * Each bin is {start, end: its first and last samples' times, offered, served (per s), hit (0–1), ttft
 * (ms), slo (0–1; null without `series.slo_attained`)}, null where empty.
 */
export function mergeWindows(series, maxBins = MAX_BINS) {
  const t = series.t_s || [];
  const windows = Math.max(0, t.length - 1);
  const per = Math.max(1, Math.ceil(windows / maxBins));
  const binS = per * (series.interval_s ?? 0);
  const runs = [];
  for (let first = 1; first <= windows; first += per) runs.push([first, Math.min(windows, first + per - 1)]);
  // The run ends between two samples, at its last completion: its last bin is short, and ends on a
  // burst (the last batch finishing). Alone, it reads as a rate over an interval shorter than the
  // words say (one completion in 0.03 s reads as 33 req/s; 150 finishing together in 1.7 s, as 88
  // req/s where no 2.56 s served more than 25). A last bin shorter than the others joins the one before.
  const tail = runs.at(-1);
  if (runs.length > 1 && t[tail[1]] - t[tail[0] - 1] < binS - 1e-6) runs.splice(-2, 2, [runs.at(-2)[0], tail[1]]);
  const bins = [];
  for (const [first, last] of runs) {
    let arrivals = 0, done = 0, admitted = 0, hits = 0, ttft = 0, met = 0;
    for (let k = first; k <= last; k++) {
      const span = t[k] - t[k - 1];
      const served = (series.served_rate?.[k] ?? 0) * span;
      arrivals += (series.offered_rate?.[k] ?? 0) * span;
      done += served;
      const a = series.admitted?.[k] ?? 0;
      admitted += a;
      hits += (series.hit_rate_fleet?.[k] ?? 0) * a;
      ttft += (series.ttft_ms_mean?.[k] ?? 0) * Math.round(served);
      met += Math.round((series.slo_attained?.[k] ?? 0) * Math.round(served));
    }
    const len = t[last] - t[first - 1];
    const completed = Math.round(done);
    bins.push({ start: t[first - 1], end: t[last], offered: len > 0 ? arrivals / len : null, served: len > 0 ? done / len : null,
      hit: admitted > 0 ? hits / admitted : null, ttft: completed > 0 ? ttft / completed : null,
      slo: series.slo_attained?.length && completed > 0 ? met / completed : null });
  }
  return { bins, binS };
}

/** The autoscaler's sentence: the ready replicas' range on the chart, the changes and the GPU-hours. */
export function replicaWords(series, autoscale) {
  const ready = finite(series.replicas || []);
  if (!ready.length || !autoscale) return '';
  const starts = (autoscale.changes || []).filter((c) => c.kind === 'start').length;
  const drains = (autoscale.changes || []).filter((c) => c.kind === 'drain').length;
  const cost = Number.isFinite(autoscale.cost_usd) ? ` ($${autoscale.cost_usd.toFixed(2)})` : '';
  return `The ${autoscale.scaler} autoscaler kept ${Math.min(...ready)} to ${Math.max(...ready)} replicas ready`
    + ` (${starts} started, ${drains} drained; each ready ${autoscale.startup_s.toFixed(0)} s after its start, cache empty),`
    + ` ${autoscale.gpu_hours.toFixed(3)} GPU-hours${cost}.`;
}

/** "TTFT ≤ 300 ms and TPOT ≤ 50 ms" from the config's targets, or the slo scaler's (its defaults when unset). */
export function sloTargetWords(config, autoscale) {
  const scaler = autoscale?.scaler === 'slo';
  const parts = [['TTFT', config?.slo_ttft_ms], ['TPOT', config?.slo_itl_ms]]
    .filter(([, v]) => Number.isFinite(v)).map(([name, v]) => `${name} ≤ ${msText(v)}`);
  if (scaler && parts.length < 2) parts.push(parts.length ? 'the slo scaler\'s default for the other' : 'the slo scaler\'s default targets');
  return parts.join(' and ');
}

/** The SLO sentence: the range of the share of completions that met the targets per interval. */
export function sloWords(bins, config, autoscale) {
  const met = finite(bins.map((b) => b.slo));
  if (!met.length) return '';
  return `Requests completed within the SLO (${sloTargetWords(config, autoscale)}) per interval: `
    + `${(100 * Math.min(...met)).toFixed(0)}–${(100 * Math.max(...met)).toFixed(0)}%.`;
}

/** The hit chart's series: what the summary calls hit_rate_requests, per interval (not the token hit rate). */
export const ANY_HIT_LABEL = 'requests with any cached block';

/**
 * The sentence of the requests with any cached block per interval, and how it differs from the
 * headline's token hit rate (`summary`: the run's, for both over the whole run).
 */
export function anyHitWords(bins, summary) {
  const hit = finite(bins.map((b) => b.hit));
  if (!hit.length) return '';
  const range = `${(100 * Math.min(...hit)).toFixed(0)}–${(100 * Math.max(...hit)).toFixed(0)}%`;
  const whole = Number.isFinite(summary?.hit_rate_requests) && Number.isFinite(summary?.hit_rate_tokens)
    ? ` (${countPct(summary.hit_rate_requests)} over the run; the token hit rate, ${countPct(summary.hit_rate_tokens)}, counts the prompt tokens served from cache instead)`
    : '';
  return `Requests with any cached block per interval: ${range}${whole}.`;
}

/** A bin completes almost nothing when its served rate is under this share of its offered rate. */
export const STALL_SHARE = 0.1;

/**
 * The longest stretch of at least two bins in which requests arrived but the fleet completed under a
 * tenth of them, in words: served counts completions, and the requests were in flight (the most at once,
 * from the samples' waiting and running requests); '' when there is none.
 */
export function stallWords(series, bins, binS) {
  let best = null;
  let from = -1;
  for (let j = 0; j <= bins.length; j++) {
    const b = bins[j];
    const stalled = b && b.offered > 0 && b.served !== null && b.served < STALL_SHARE * b.offered;
    if (stalled && from < 0) from = j;
    if (!stalled && from >= 0) {
      if (j - from >= 2 && (!best || j - from > best[1] - best[0])) best = [from, j];
      from = -1;
    }
  }
  if (!best) return '';
  const run = bins.slice(best[0], best[1]);
  const [start, end] = [run[0].start, run.at(-1).end];
  const t = series.t_s || [];
  let most = 0;
  for (let k = 0; k < t.length; k++) {
    if (t[k] < start || t[k] > end) continue;
    const inFlight = (series.queue || []).reduce((a, q) => a + (q[k] ?? 0), 0) + (series.running || []).reduce((a, r) => a + (r[k] ?? 0), 0);
    most = Math.max(most, inFlight);
  }
  const offered = run.map((b) => b.offered);
  return `From ${fixed1(Math.max(0, start))} to ${fixed1(end)} s the fleet completed at most ${fixed1(Math.max(...run.map((b) => b.served)))} req/s`
    + ` while ${fixed1(Math.min(...offered))}–${fixed1(Math.max(...offered))} req/s arrived: served counts completions, and up to`
    + ` ${num(most)} requests were in flight at once (waiting, or running in batches too long to finish yet).`;
}

/** A queue counts as stranded from this many requests waiting when the first added replica is ready. */
export const STRANDED_MIN = 10;

/**
 * When the first replica the autoscaler added became ready while an older replica still had at least
 * STRANDED_MIN requests waiting, in words: that queue stays on its replica (each replica keeps its own
 * queue, as vLLM does; a new replica takes only new arrivals), and when it emptied (from the samples'
 * waiting requests); '' otherwise.
 */
export function strandedWords(series, autoscale) {
  const ready = (autoscale?.changes || []).find((c) => c.kind === 'ready');
  const t = series.t_s || [];
  const k = ready ? t.findIndex((x) => x >= ready.t_s) : -1;
  if (k < 0) return '';
  const added = new Set((autoscale.changes || []).filter((c) => c.kind === 'start' && c.t_s <= ready.t_s).map((c) => c.replica));
  let r = -1;
  (series.queue || []).forEach((q, i) => {
    if (!added.has(i) && (q[k] ?? 0) >= STRANDED_MIN && (r < 0 || q[k] > series.queue[r][k])) r = i;
  });
  if (r < 0) return '';
  const q = series.queue[r];
  const empty = q.findIndex((n, j) => j > k && n === 0);
  const until = empty < 0 ? ` and still ${num(q.at(-1))} at the run's end (${fixed1(t.at(-1))} s)` : `; R${r}'s queue emptied at ${fixed1(t[empty])} s`;
  return `When the first added replica became ready (${fixed1(ready.t_s)} s), R${r} still had ${num(q[k])} requests waiting`
    + ` and kept them: each replica keeps its own queue, as vLLM does, and a new replica takes only new arrivals${until}.`;
}

/** The TTFT chart's unit: seconds when its largest value is 1 s or more, else ms. */
export function ttftUnit(bins) {
  const most = Math.max(0, ...finite(bins.map((b) => b.ttft)));
  return most >= 1000 ? { name: 's', scale: 1 / 1000 } : { name: 'ms', scale: 1 };
}

/** The caption, from the merged bins the charts draw: the schedule's range, the most served, hit share and TTFT. */
export function timeSeriesWords(series, sessions, autoscale, config = null, summary = null, defaults = null) {
  const { bins, binS } = mergeWindows(series);
  const sched = finite(series.schedule_rate || []);
  const served = finite(bins.map((b) => b.served));
  const ttft = finite(bins.map((b) => b.ttft));
  if (!served.length || (!sched.length && !autoscale)) return '';
  const unit = sessions ? 'tasks/s started' : 'req/s';
  const last = bins.at(-1), lastS = last.end - last.start;
  const ends = bins.length > 1 && lastS > binS + 0.005 ? ` (the last, ${lastS.toFixed(2)} s, ends with the run)` : '';
  const most = `over intervals of ${binS.toFixed(2)} s${ends} the fleet served up to ${fixed1(Math.max(...served))} req/s.`;
  const parts = [sched.length
    ? `The schedule ran from ${fixed1(Math.min(...sched))} to ${fixed1(Math.max(...sched))} ${unit}; ${most}`
    : `At a constant offered rate, ${most}`];
  const stall = stallWords(series, bins, binS);
  if (stall) parts.push(stall);
  const scaled = replicaWords(series, autoscale);
  if (scaled) parts.push(scaled);
  // The report's config leaves out settings at their defaults (the KPA's stable window among them).
  const early = earlyDrainWords(autoscale, config?.kpa_stable_window_s ?? defaults?.kpa_stable_window_s);
  if (early) parts.push(early);
  const stranded = strandedWords(series, autoscale);
  if (stranded) parts.push(stranded);
  const anyHit = anyHitWords(bins, summary);
  if (anyHit) parts.push(anyHit);
  if (ttft.length) parts.push(`Mean TTFT per interval: ${cardMs(Math.min(...ttft))} to ${cardMs(Math.max(...ttft))}.`);
  const slo = sloWords(bins, config, autoscale);
  if (slo) parts.push(slo);
  return parts.join(' ');
}

export class TimeSeries {
  /**
   * `card`: the figure holding canvases #ts-rate, #ts-hit, #ts-ttft, a caption #ts-words and a warning
   * #ts-unreached; `defaults`: the simulator's settings, for those a report's config leaves out.
   */
  constructor(card, defaults = null) {
    this.card = card;
    this.defaults = defaults;
    this.charts = null;
  }

  create() {
    const C = window.Chart;
    // Every chart's left axis is as wide, and the charts without the right axis keep its room free:
    // their plot areas line up, so one time sits at one x on all three.
    const leftAxis = (axis) => { axis.width = TS_Y_PX; };
    const rightAxis = (axis) => { axis.width = axis.options.display ? TS_Y2_PX : 0; };
    const get = (id) => this.card.querySelector(`#${id}`);
    const chart = (id, yTitle, extra = {}, right = null) => new C(get(id), {
      type: 'line',
      data: { datasets: [] },
      options: {
        parsing: false,
        normalized: true,
        spanGaps: false,
        interaction: { mode: 'nearest', axis: 'x', intersect: false },
        plugins: { legend: { position: 'top', labels: { boxWidth: 12, boxHeight: 12, font: { size: 12 } } },
          tooltip: { callbacks: { title: (items) => (items.length ? `t = ${items[0].parsed.x.toFixed(1)} s` : '') } } },
        scales: {
          x: { type: 'linear', min: 0, title: axisTitle('Time (s)'), ticks: { includeBounds: false } },
          y: { beginAtZero: true, title: axisTitle(yTitle), afterFit: leftAxis, ...extra },
          ...(right ? { y2: { position: 'right', beginAtZero: true, display: 'auto', grid: { drawOnChartArea: false },
            title: axisTitle(right), ticks: { precision: 0 }, afterFit: rightAxis } } : {}),
        },
      },
    });
    this.charts = {
      rate: chart('ts-rate', 'Rate (per s)', {}, 'Ready replicas'),
      hit: chart('ts-hit', 'Share of requests (%)', { max: 100 }),
      ttft: chart('ts-ttft', 'Mean TTFT (ms)'),
    };
    for (const c of Object.values(this.charts)) lazyDraw.watch(c);
  }

  destroy() {
    for (const c of Object.values(this.charts || {})) { lazyDraw.forget(c); c.destroy(); }
    this.charts = null;
  }

  update(report) {
    const s = report.series || {};
    const scaled = Array.isArray(s.replicas) && s.replicas.length > 0;
    const on = scaled || (Array.isArray(s.schedule_rate) && s.schedule_rate.length > 0);
    this.card.hidden = !on;
    if (!on) return;
    if (!this.charts) this.create();
    const t = themeInk();
    const ts = s.t_s || [];
    const sessions = report.source === 'sessions';
    const line = (label, data, color, more = {}) => ({ label, data, borderColor: color, backgroundColor: color,
      borderWidth: 1.75, pointRadius: 0, ...more });
    const { rate, hit, ttft } = this.charts;
    // Each bin's value holds over the whole bin, from its start to its end: a point at each end, and
    // the first bin's start too, drawn stepped 'after' (Chart.js's `true` would hold the bin before's).
    const { bins } = mergeWindows(s);
    const at = (key, scale = 1) => {
      const y = (b) => (b[key] === null ? null : b[key] * scale);
      return bins.length ? [{ x: bins[0].start, y: y(bins[0]) }, ...bins.map((b) => ({ x: b.end, y: y(b) }))] : [];
    };
    rate.data.datasets = [
      line('offered', at('offered'), t.accent, { stepped: 'after' }),
      line('served', at('served'), t.warn, { stepped: 'after' }),
    ];
    if (s.schedule_rate?.length) {
      rate.data.datasets.push(line(sessions ? 'schedule (tasks/s)' : 'schedule', points(ts, s.schedule_rate), t.ink,
        { borderDash: [6, 4], borderWidth: 2 }));
    }
    // The ready replicas at each sample, held until the next (stepped), on the right axis: a solid
    // line over a pale fill, drawn under the rates (order), so it reads beside them at any width.
    if (scaled) {
      rate.data.datasets.push(line('ready replicas', points(ts, s.replicas), t.muted,
        { stepped: 'after', yAxisID: 'y2', borderWidth: 2.5, fill: 'origin', backgroundColor: hexAlpha(t.muted, 0.14), order: 5 }));
    }
    hit.data.datasets = [line(ANY_HIT_LABEL, at('hit', 100), t.accent, { stepped: 'after' })];
    if (s.slo_attained?.length) {
      hit.data.datasets.push(line('SLO attained', at('slo', 100), t.ink, { stepped: 'after', borderDash: [5, 3] }));
    }
    // Seconds when the TTFT reaches a second ("50 s", not "50,000 ms").
    const unit = ttftUnit(bins);
    ttft.data.datasets = [line('mean TTFT', at('ttft', unit.scale), t.err, { stepped: 'after' })];
    ttft.options.scales.y.title.text = `Mean TTFT (${unit.name})`;
    ttft.options.plugins.tooltip.callbacks.label = (item) => ` mean TTFT: ${unit.name === 's' ? item.parsed.y.toFixed(2) : item.parsed.y.toFixed(0)} ${unit.name}`;
    const end = ts.length ? ts[ts.length - 1] : undefined;
    // One time range on all three; the room of the rates chart's right axis (shown when autoscaled)
    // left free on the other two.
    rate.options.scales.y2.display = scaled;
    for (const c of [rate, hit, ttft]) {
      c.options.scales.x.min = 0;
      c.options.scales.x.max = end;
      if (c !== rate) c.options.layout = { padding: { right: scaled ? TS_Y2_PX : 0 } };
      lazyDraw.draw(c);
    }
    const words = timeSeriesWords(s, sessions, report.autoscale, report.config, report.summary, this.defaults);
    this.card.querySelector('#ts-words').textContent = words;
    const unreached = this.card.querySelector('#ts-unreached');
    unreached.textContent = unreachedWords(report);
    unreached.hidden = !unreached.textContent;
    rate.canvas.setAttribute('aria-label', `Rates over time. ${words}`);
    hit.canvas.setAttribute('aria-label', `Share of the requests admitted with any cached block${s.slo_attained?.length ? ' and SLO attainment' : ''} per interval, ${num(bins.length)} intervals.`);
    ttft.canvas.setAttribute('aria-label', 'Mean TTFT of the requests completed in each interval.');
  }
}
