// www/js/lesson-settings.js: a lesson's "Its settings" list: each setting it uses, what it does, its
// value on the run on screen, its rule of thumb (shown once: a rule that says the same as the
// lesson's own is left to the box shown when the goal is met, see rulePlaces) and the rule checked
// on the run (liveRule); "Change it ↓" takes the reader to the setting's control in the lesson's
// workbench, beside the goal's checks.

import { num, countPct } from './format.js';
import { formatValue } from './controls.js';
import { el } from './page-bits.js';

/** The settings of a disaggregated fleet: hidden while the fleet is colocated. */
const DISAGG_KEYS = ['prefill_instances', 'decode_instances', 'decode_routing', 'kv_transfer_gbps', 'kv_transfer_base_us', 'kv_bytes_per_token', 'disagg_min_uncached_tokens'];

/**
 * The controls a lesson's exercise needs: its settings', with the fleet layout first when one of
 * them is a disaggregated fleet's (their controls are shown only once the layout is prefill + decode).
 */
export function controlNames(lesson) {
  const keys = (lesson?.settings || []).map((s) => s.key);
  return keys.some((k) => DISAGG_KEYS.includes(k)) ? ['fleet_layout', ...keys] : keys;
}

/**
 * A rule of thumb checked on the run on screen (the lesson's setting says which):
 * - timeout_above_p99: calls that timed out beyond 1% mean the timeout sits below p99 of first-token
 *   times (a run's own p99 cannot tell: the calls it cut off are not in it);
 * - slots_little: the busiest replica's calls per second times seconds each (admission to last
 *   token) is the concurrency it needs (Little's law), against its slots.
 * - vcpu_rule: the card's router rule, calls per second per router times CPU ms per request ÷ 1000
 *   (the CPU ms measured: the routers' busy core time over the requests they routed) is the cores a
 *   router needs, against 90% of its vCPU.
 * Returns {holds, text}, or null when the run cannot say.
 */
export function liveRule(kind, report) {
  const s = report.summary || {};
  const c = report.config || {};
  if (kind === 'timeout_above_p99') {
    if (c.timeout_ms === null || c.timeout_ms === undefined || !s.requests) return null;
    const share = s.timed_out / s.requests;
    const holds = share <= 0.01;
    return { holds, text: holds
      ? `On this run: ${countPct(share, 1)} of calls timed out, so the ${num(c.timeout_ms)} ms timeout sits above p99 of first-token times: the rule holds.`
      : `On this run: ${countPct(share, 1)} of calls timed out, so the ${num(c.timeout_ms)} ms timeout sits below p${+(100 * (1 - share)).toFixed(1)} of first-token times, under p99: the rule fails.` };
  }
  if (kind === 'slots_little') {
    const per = report.per_instance || [];
    if (!per.length || !(s.makespan_s > 0) || !Number.isFinite(s.e2e_ms_mean) || !Number.isFinite(s.queue_ms_mean)) return null;
    const top = per.reduce((b, r) => (r.requests > b.requests ? r : b));
    const rate = top.requests / s.makespan_s;
    const each = (s.e2e_ms_mean - s.queue_ms_mean) / 1000;
    const needed = rate * each;
    const holds = needed <= c.max_batch;
    return { holds, text: `On this run: the busiest replica, R${top.index}, takes ${num(rate, 1)} calls/s × ${num(each, 1)} s each ≈ ${num(Math.round(needed))} calls in flight, `
      + `against ${num(c.max_batch)} slots: the rule ${holds ? 'holds' : 'fails (the rest queue or are rejected)'}.` };
  }
  if (kind === 'vcpu_rule') return vcpuRule(report);
  return null;
}

/** The card's router rule on a run (see liveRule); null without router cores or routed requests. */
function vcpuRule(report) {
  const s = report.summary || {};
  const rc = report.router_cpu;
  if (!rc || !(rc.routed > 0) || !(s.makespan_s > 0) || !(s.offered_rate > 0)) return null;
  const routers = (rc.busy_share || []).length || 1;
  const busyCoreS = (rc.busy_share || []).reduce((a, b) => a + (b || 0), 0) * rc.vcpu * s.makespan_s;
  const cpuMs = 1000 * busyCoreS / rc.routed;
  const rate = s.offered_rate / routers;
  const needed = rate * cpuMs / 1000;
  const holds = needed <= 0.9 * rc.vcpu;
  const each = routers > 1 ? ' each' : '';
  return { holds, text: `On this run: ${num(rate)} calls/s${routers > 1 ? ' per router' : ''} × ${num(cpuMs, 3)} ms each ÷ 1000 ≈ ${num(needed, 2)} cores needed, `
    + `against ${num(rc.vcpu)} vCPU${each} (90%: ${num(0.9 * rc.vcpu, 1)}): the rule ${holds ? 'holds' : 'fails (requests queue for a core, and past the router queue they are refused)'}.` };
}

/** A sentence's words, lower-cased, without punctuation. */
function words(text) {
  return (text || '').toLowerCase().match(/[a-z0-9]+/g) || [];
}

/**
 * Whether two rules of thumb say the same thing: at least 80% of the shorter one's words are in the
 * other ("Rank policies under the cache you will run." and "Rank routing policies under the cache
 * size you will run, not on an unbounded one.").
 */
export function sameRule(a, b) {
  const [short, long] = [words(a), words(b)].sort((x, y) => x.length - y.length);
  if (!short.length) return false;
  const inLong = new Set(long);
  return short.filter((w) => inLong.has(w)).length >= 0.8 * short.length;
}

/**
 * Where a lesson shows its rule of thumb, once: a setting whose rule says the same as the lesson's
 * loses it to the box shown when the goal is met (the lesson's takeaway), unless that setting checks
 * the rule on the run ("the rule holds"): then the rule stays beside the check and the box leaves
 * it out. Returns {skip: setting keys whose rule is left out, inDone: the box shows the rule}.
 */
export function rulePlaces(lesson, exerciseOnly = false) {
  const twins = (lesson.settings || []).filter((s) => s.rule && sameRule(s.rule, lesson.rule_of_thumb));
  const live = exerciseOnly ? null : twins.find((s) => s.live);
  return { skip: new Set(twins.filter((s) => s !== live).map((s) => s.key)), inDone: !live };
}

/** A setting's value as the sidebar shows it ('1 replica', '4×', 'unbounded'); '' when not in the config. */
function settingText(p, v) {
  if (v === undefined) return '';
  if (p) return formatValue(p, v);
  return v === null ? 'none' : typeof v === 'number' ? num(v, Number.isInteger(v) ? 0 : 2) : String(v);
}

/**
 * "Its settings" in `box`: each setting lesson `l` uses, what it does, its value on this run
 * (`config`), its rule (unless `places.skip` has it: rulePlaces) and the rule checked on `report`.
 * params: the page's parameter table; exerciseOnly: no "Change it" buttons (an embed).
 */
export function renderSettingsList(box, l, { params, places, exerciseOnly }, config, report = null) {
  if (!l || !box) return;
  const dl = el('dl', 'settings-list');
  for (const s of l.settings || []) {
    const p = (params || []).find((x) => x.name === s.key);
    const v = config ? config[s.key] : undefined;
    const shown = settingText(p, v);
    const dt = el('dt', null, p?.label || s.key);
    if (shown) dt.append(el('span', 'setting-now', ` now ${shown}`));
    if (!exerciseOnly) {
      const go = el('button', 'btn small setting-go', 'Change it ↓');
      go.type = 'button';
      go.dataset.testid = `lesson-go-${s.key}`;
      go.addEventListener('click', () => goTo(s.key, dd));
      dt.append(document.createTextNode(' '), go);
    }
    const dd = el('dd', null, p?.help || '');
    if (s.rule && !places?.skip.has(s.key)) dd.append(el('span', 'setting-rule', ` Rule of thumb: ${s.rule}`));
    const live = report && s.live ? liveRule(s.live, report) : null;
    if (live) {
      const line = el('span', `setting-live ${live.holds ? 'holds' : 'fails'}`, ` ${live.text}`);
      line.dataset.testid = `lesson-live-${s.key}`;
      dd.append(line);
    }
    dl.append(dt, dd);
  }
  box.replaceChildren(el('h3', 'sub-h', 'Its settings'), dl);
}

/** The lesson workbench's element with test id `lesson-ID` (lessons.js builds its controls with that prefix). */
const benchPart = (id) => document.querySelector(`[data-testid=lesson-controls] [data-testid="lesson-${id}"]`);

/**
 * Scrolls to a setting's control in the lesson's workbench (beside the goal's checks) and focuses
 * it; says so when the current settings hide it.
 */
function goTo(key, dd) {
  const input = benchPart(`input-${key}`) || document.querySelector(`[data-testid=lesson-controls] [data-testid^="lesson-input-${key}-"]`);
  const field = benchPart(`field-${key}`) || input?.closest('.field');
  const hidden = !field || field.hidden || field.offsetParent === null;
  // A disaggregated fleet's setting, in a colocated fleet: the way there is the layout control.
  const layout = benchPart('field-fleet_layout');
  if (hidden && layout && DISAGG_KEYS.includes(key)) {
    let note = dd.querySelector('.setting-hidden');
    if (!note) { note = el('span', 'setting-hidden'); dd.append(note); }
    note.textContent = ' Shown once the fleet layout is prefill + decode: switch it there.';
    flash(layout);
    layout.querySelector('input')?.focus({ preventScroll: true });
    return;
  }
  if (hidden) {
    let note = dd.querySelector('.setting-hidden');
    if (!note) { note = el('span', 'setting-hidden'); dd.append(note); }
    note.textContent = ' This control is shown only for some settings (for example, the overlap weight once the routing is kv).';
    return;
  }
  flash(field);
  // The first control shown (a phone shows the policies as one drop-down, not as buttons).
  const shown = [input, ...field.querySelectorAll('input, select')].find((x) => x && x.getClientRects().length > 0);
  shown?.focus({ preventScroll: true });
}

/** Brings a workbench control into view (the workbench, checks included, when it fits) and outlines it a moment. */
function flash(field) {
  const bench = field.closest('[data-testid=lesson-bench]');
  const fits = bench && bench.getBoundingClientRect().height < window.innerHeight * 0.8;
  (fits ? bench : field).scrollIntoView({ block: fits ? 'nearest' : 'center', behavior: 'smooth' });
  field.classList.add('flash');
  setTimeout(() => field.classList.remove('flash'), 1600);
}
