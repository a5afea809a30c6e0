// www/js/schedule-reach.js: whether a run reaches its rate schedule's changes. A schedule's points
// after the run's last arrival change nothing (the run had drawn all its requests by then); the load
// card says which it never reached, when the arrivals ended, and about how many requests reach them.

/** A time with its unit (ms, s, m, h), in seconds; NaN when unreadable (the simulator's grammar). */
function timeS(text) {
  const t = text.trim();
  const unit = /(ms|s|m|h)$/.exec(t)?.[1];
  if (!unit) return NaN;
  const x = Number(t.slice(0, t.length - unit.length));
  return x * { ms: 1e-3, s: 1, m: 60, h: 3600 }[unit];
}

/**
 * The points of a schedule of TIME:RATE points joined by ',' (a step) or '~' (a ramp): [{t_s, rate,
 * ramp (the piece after it ramps)}]; null for a daily shape or what does not read (the simulator has
 * already rejected it then).
 */
export function schedulePoints(text) {
  const s = String(text ?? '').trim();
  if (!s || s.startsWith('daily:')) return null;
  const parts = s.split(/([,~])/);
  const points = [];
  for (let i = 0; i < parts.length; i += 2) {
    const [t, r] = parts[i].split(':');
    const pt = { t_s: timeS(t ?? ''), rate: Number(r), ramp: parts[i + 1] === '~' };
    if (!Number.isFinite(pt.t_s) || !Number.isFinite(pt.rate) || r === undefined) return null;
    points.push(pt);
  }
  return points;
}

/** Expected arrivals from 0 to `t_s` under the points: the integral of the rate. */
export function expectedArrivals(points, t_s) {
  let total = 0;
  points.forEach((p, i) => {
    const next = points[i + 1];
    if (p.t_s >= t_s) return;
    const len = (next ? next.t_s : Infinity) - p.t_s;
    const slope = p.ramp && next ? (next.rate - p.rate) / len : 0;
    const x = Math.min(t_s - p.t_s, len);
    total += p.rate * x + (slope * x * x) / 2;
  });
  return total;
}

/** "60 s", "46.9 s", "3,600 s": seconds, to a tenth. */
const secs = (t) => `${Number(t.toFixed(1)).toLocaleString('en-US')} s`;

/** "a", "a and b", "a, b and c". */
const listed = (xs) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);

/** Arrivals (tasks, for sessions) a run needs to reach `t_s` on the schedule, a tenth to spare, rounded up to two figures. */
export function requestsToReach(points, t_s) {
  const n = 1.1 * expectedArrivals(points, t_s);
  const step = 10 ** Math.max(0, Math.floor(Math.log10(n)) - 1);
  return Math.ceil(n / step) * step;
}

/**
 * The warning for a run whose arrivals ended before some of its schedule's changes (points after the
 * first), or '' when it reached them all. `report`: the run's (config.request_rate_schedule; its
 * summary's requests and offered_rate, arrivals over the span from the first, at 0 s, to the last).
 */
export function unreachedWords(report) {
  const points = schedulePoints(report?.config?.request_rate_schedule);
  const s = report?.summary;
  if (!points || points.length < 2 || !s || report.source === 'trace') return '';
  if (!(s.requests > 1) || !(s.offered_rate > 0)) return '';
  const lastS = (s.requests - 1) / s.offered_rate;
  const missed = points.slice(1).filter((p) => p.t_s > lastS);
  if (!missed.length) return '';
  // Sessions: the schedule starts tasks, so its expected arrivals are tasks.
  const setting = report.source === 'sessions' ? 'Tasks' : 'Requests';
  const what = missed.length === 1 ? 'change' : 'changes';
  const lastT = missed.at(-1).t_s;
  const expected = Math.round(expectedArrivals(points, lastT)).toLocaleString('en-US');
  const raise = `raise ${setting} to about ${requestsToReach(points, lastT).toLocaleString('en-US')} to reach ${missed.length === 1 ? 'it' : 'them'}`
    + ` (${expected} arrive by ${secs(lastT)} on average; a tenth more, as arrivals are random)`;
  return `⚠ The run's ${s.requests.toLocaleString('en-US')} requests arrived by ${secs(lastS)}; the schedule's ${what} at `
    + `${listed(missed.map((p) => secs(p.t_s)))} ${missed.length === 1 ? 'is' : 'are'} never reached: ${raise}.`;
}
