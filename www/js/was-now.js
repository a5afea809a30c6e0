// www/js/was-now.js: the hero's "was X with <settings> → now Y": the figure of the run the reader
// compares with, and that run's settings where they differ from the run on screen, in words.

import { fleetGroups } from './layout.js';

/**
 * "was 36% → now 48%" for a headline figure, or '' when there is no earlier run to compare; with
 * `where` ("at 256 replicas"), "was 36% at 256 replicas → now 48%", or "same as at 256 replicas".
 */
export function wasNow(prev, now, fmt, where = '') {
  if (!Number.isFinite(prev) || !Number.isFinite(now)) return '';
  return wasNowText(fmt(prev), fmt(now), where);
}

/** wasNow on two values already written ("76 ms · 143 ms"); '' when either is missing. */
export function wasNowText(a, b, where = '') {
  if (!a || !b) return '';
  if (a === b) return where ? `same as ${where}` : `unchanged at ${b}`;
  return `was ${a}${where ? ` ${where}` : ''} → now ${b}`;
}

/** Settings with a count as their last word ("Replicas", "Prefill replicas", "Requests") read "256 replicas". */
function settingWords(p, v, fmt) {
  if (p.name === 'routing') return String(v);
  const shown = fmt(p, v);
  const label = (p.label || p.name).toLowerCase();
  const words = label.split(' '), last = words[words.length - 1];
  if (typeof v === 'number' && p.unit && last.startsWith(p.unit)) {
    const [n, ...unit] = shown.split(' ');
    return [n, ...words.slice(0, -1), last === p.unit ? unit.join(' ') : last].join(' ');
  }
  return `${label} ${shown}`;
}

/**
 * The GPUs of a run's fleet: its mixed fleet's groups ("2 × llama3-8b-h100 + 2 × llama3-8b-mi300x"),
 * or, with none set, its replica count of its one engine ("4 × llama3-8b-h100"). `value(name)`: the
 * run's setting (its default when the report leaves it out).
 */
function fleetWords(value) {
  const groups = fleetGroups({ fleet: value('fleet') });
  if (groups) return groups.map((g) => `${g.count} × ${g.preset}`).join(' + ');
  const text = String(value('fleet') ?? '').trim();
  return text ? `mixed fleet ${text}` : `${value('instances')} × ${value('engine')}`;
}

const traceName = (source) => (source && source !== 'synthetic' && source !== 'sessions' ? source : null);

/**
 * The settings run `before` had where it differs from run `after`, from their configs (a key a
 * report leaves out holds its default): "at 256 replicas", "with round_robin", "with 8 replicas,
 * kv", "with 4 × llama3-8b-h100" (a mixed fleet set or changed: the GPUs before), "with 3 settings
 * different"; '' when they ran the same settings. fmt(param, value): the controls' readout ("256
 * replicas").
 */
export function changeWords(before, after, params, fmt) {
  const a = before?.config || {}, b = after?.config || {};
  const value = (c, p) => (p.name in c ? c[p.name] : p.default ?? null);
  const of = (c, p) => JSON.stringify(value(c, p));
  let changed = params.filter((p) => of(a, p) !== of(b, p));
  // A disaggregated fleet's replica step moves both counts: the prefill pool names it.
  if (changed.some((p) => p.name === 'prefill_instances')) changed = changed.filter((p) => p.name !== 'instances');
  // A mixed fleet sets the replica count and the engine: its GPUs name all three.
  if (changed.some((p) => p.name === 'fleet')) changed = changed.filter((p) => p.name !== 'instances' && p.name !== 'engine');
  const byName = (name) => { const p = params.find((q) => q.name === name); return p ? value(a, p) : a[name] ?? null; };
  const items = changed.map((p) => (p.name === 'fleet' ? fleetWords(byName) : settingWords(p, value(a, p), fmt)));
  const ta = traceName(before?.source), tb = traceName(after?.source);
  if (ta !== tb) items.push(ta ? `the ${ta} trace` : 'the synthetic workload');
  if (!items.length) return '';
  if (items.length > 2) return `with ${items.length} settings different`;
  const counts = changed.length === items.length && changed.every((p) => p.name === 'instances' || p.name === 'prefill_instances');
  return `${counts ? 'at' : 'with'} ${items.join(', ')}`;
}
