// www/js/url-state.js: the config in the query string: only the settings that differ from what a link
// leaves out stands for (the page's defaults, or a lesson's setup), so a link names what was changed.
// Reading validates every value against the parameter specs; a bad one is dropped, and the note
// (plain text only) names the value the page then uses (fallbackNote), so the note and the run agree.

import { BUILTIN } from './traces.js';
import { num } from './format.js';
import { parsePoly, polyText } from './poly-params.js';
import { noneWords } from './unset-words.js';

// plan_mix: the planner's "compare GPUs" presets and prices (capacity-prices.js).
const PAGE_KEYS = new Set(['embed', 'trace', 'lesson', 'show', 'controls', 'caption', 'sweep', 'sweep_routing', 'plan_mix']);
const BUILTIN_TRACES = Object.keys(BUILTIN);
/** A limit or a value in a note, with thousands separators (100,000,000). */
const big = (v) => (Number.isInteger(v) ? num(v) : String(v));

/**
 * The routing a link that names none runs, on the page and in every embed: round robin, the page's
 * opening experiment (it loses hits as replicas grow). The simulator's own default is kv; a lesson's
 * link starts from the lesson's setup instead.
 */
export const PAGE_ROUTING = 'round_robin';

/** The page's defaults: the simulator's (`simDefaults`), with the page's routing. */
export function pageDefaults(simDefaults) {
  return { ...simDefaults, routing: PAGE_ROUTING };
}

/** Whether two values of a setting are the same (a missing value is no value: null). */
const same = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

function checkNumber(p, raw) {
  const text = raw.trim();
  if (p.kind === 'int' || p.kind === 'optional_int') {
    if (!/^-?\d+$/.test(text)) return `“${raw}” is not a whole number`;
  } else if (!/^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text)) {
    return `“${raw}” is not a number`;
  }
  const v = Number(text);
  if (!Number.isFinite(v)) return `“${raw}” is not a finite number`;
  if ((p.kind === 'int' || p.kind === 'optional_int') && !Number.isSafeInteger(v)) return `“${raw}” is too large`;
  if (Number.isFinite(p.min) && v < p.min) return `${big(v)} is below the minimum ${big(p.min)}`;
  if (Number.isFinite(p.max) && v > p.max) return `${big(v)} is above the maximum ${big(p.max)}`;
  return null;
}

/** Parses one URL value for parameter p: {value} or {error}. `emptyOk`: an empty text is the
 *  parameter's default (e.g. no rate schedule), not a mistake. */
export function parseValue(p, raw, emptyOk = false) {
  switch (p.kind) {
    case 'int':
    case 'float': {
      const err = checkNumber(p, raw);
      return err ? { error: err } : { value: Number(raw.trim()) };
    }
    case 'optional_int':
    case 'optional_float': {
      const t = raw.trim().toLowerCase();
      if (t === '' || t === 'unbounded' || t === 'null' || t === 'none') return { value: null };
      const err = checkNumber(p, raw);
      return err ? { error: err } : { value: Number(raw.trim()) };
    }
    case 'poly':
      return parsePoly(raw);
    case 'choice':
      return p.choices.includes(raw) ? { value: raw } : { error: `“${raw}” is not one of ${p.choices.join(', ')}` };
    default:
      if (raw.length > 200) return { error: 'the value is too long' };
      if (!raw.trim() && emptyOk) return { value: '' };
      return raw.trim() ? { value: raw.trim() } : { error: 'the value is empty' };
  }
}

/**
 * Reads the query string over `defaults` (the page's: pageDefaults). Returns {config, notes, fromUrl, named, rejected, embed, trace, lesson}:
 * `fromUrl` lists the parameters the URL set (so a later simulator error on one of them can fall back
 * too), `named` every parameter it named, valid or not, and `rejected` the dropped values as {p, error}.
 * `notes` holds only the notes that name no fallback value: the caller settles the config (a lesson's
 * setup) and then adds fallbackNote() for each rejected value.
 */
export function readUrl(search, params, defaults) {
  const q = new URLSearchParams(search);
  const byName = new Map(params.map((p) => [p.name, p]));
  const config = { ...defaults };
  const notes = [];
  const fromUrl = new Set();
  const named = new Set();
  const rejected = [];
  for (const [key, raw] of q) {
    if (PAGE_KEYS.has(key)) continue;
    const p = byName.get(key);
    if (!p) { notes.push(`Ignored an unknown setting in the link: “${key}”.`); continue; }
    named.add(key);
    const r = parseValue(p, raw, defaults[p.name] === '');
    if (r.error) rejected.push({ p, error: r.error });
    else { config[key] = r.value; fromUrl.add(key); }
  }
  let trace = q.get('trace');
  if (trace !== null && !BUILTIN_TRACES.includes(trace)) {
    notes.push(`The link names a trace the page does not have (“${trace}”); using the synthetic workload.`);
    trace = null;
  }
  const embed = q.get('embed') === '1' || q.get('embed') === 'true';
  return { config, notes, fromUrl, named, rejected, embed, trace, lesson: q.get('lesson') };
}

/** A value as the link writes it (null is "unbounded"; an empty text, such as no rate schedule, "none"). */
export function fmtValue(v) {
  if (v === '') return 'none';
  if (Array.isArray(v)) return polyText(v);
  return v === null || v === undefined ? 'unbounded' : typeof v === 'number' ? big(v) : String(v);
}

/**
 * The note for a link value the page dropped: `why` it was dropped ("was not valid: …"), and `used`,
 * the value the page runs with instead, named as the default when it is the default.
 */
export function fallbackNote(p, why, used, defaults) {
  const isDefault = JSON.stringify(used) === JSON.stringify(defaults[p.name]);
  // No value reads as the control reads it ("1" for no minimum replica count), not "unbounded".
  const shown = (used === null || used === undefined) && p.kind?.startsWith('optional') ? noneWords(p)[0] : fmtValue(used);
  return `The link's value for ${p.label} (${p.name}) ${why}. Using ${isDefault ? 'the default, ' : ''}${shown}${isDefault ? '' : ' instead'}.`;
}

/**
 * The query string for a config: the settings that differ from `base` (what the link's reader starts
 * from: the page's defaults, or a lesson's setup), so reading it back over the same base gives the
 * same config; every setting when no base is given.
 */
export function queryFor(config, params, { base = null, embed = false, trace = null, lesson = null, extra = null } = {}) {
  const q = new URLSearchParams();
  for (const p of params) {
    const v = config[p.name];
    if (base && same(v, base[p.name])) continue;
    q.set(p.name, v === null || v === undefined ? 'unbounded' : Array.isArray(v) ? polyText(v) : String(v));
  }
  if (trace) q.set('trace', trace);
  if (lesson) q.set('lesson', lesson);
  if (embed) q.set('embed', '1');
  for (const [k, v] of Object.entries(extra || {})) if (v !== null && v !== undefined && v !== '') q.set(k, v);
  return q.toString();
}

const URL_QUIET_MS = 300;   // the address bar is written once the settings have been still this long...
const URL_IDLE_WAIT_MS = 1000; // ...and then at most this long for an idle moment
const url = { next: null, quiet: 0, idle: 0 };

/**
 * Updates the address bar without adding history entries, once the settings have stopped changing
 * and the page is idle: `history.replaceState` makes the browser lay out the page at once (4 to 42
 * ms a call in a Chrome trace), which in a slider step's frame held up the run's result.
 */
export function writeUrl(config, params, opts) {
  const query = queryFor(config, params, opts);
  url.next = query ? `${location.pathname}?${query}` : location.pathname;
  clearTimeout(url.quiet);
  if (url.idle) { (typeof cancelIdleCallback === 'function' ? cancelIdleCallback : clearTimeout)(url.idle); url.idle = 0; }
  url.quiet = setTimeout(() => {
    url.idle = typeof requestIdleCallback === 'function' ? requestIdleCallback(flushUrl, { timeout: URL_IDLE_WAIT_MS }) : setTimeout(flushUrl, 0);
  }, URL_QUIET_MS);
}

/** Writes a pending address now (before the page's link is shared or copied). */
export function flushUrl() {
  clearTimeout(url.quiet);
  url.idle = 0;
  if (url.next === null) return;
  const next = `${url.next}${location.hash}`;
  url.next = null;
  if (next !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(null, '', next);
}

/** Whether the address bar is still to catch up with the settings. */
export function urlPending() {
  return url.next !== null;
}
