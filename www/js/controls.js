// www/js/controls.js: builds the settings panel from the simulator's params_json (label, live readout
// with unit, help on hover and focus, per-field error slot), and keeps it in step with the config.

import { compact } from './format.js';
import { groupPolicies, describePolicy, followsNote, policyInfo } from './policies.js';
import { linkTerms } from './terms.js';
import { isDisagg, fleetGroups } from './layout.js';
import { SCALES, cacheFloor } from './scales.js';
import { parsePoly, polyText } from './poly-params.js';
import { noneWords } from './unset-words.js';

/** The autoscaler's settings, beside the rate schedule (a load that changes is what it answers). */
const AUTOSCALE = ['autoscale', 'min_instances', 'max_instances', 'startup_s', 'kpa_target', 'kpa_stable_window_s',
  'kpa_panic_window_pct', 'kpa_panic_threshold_pct', 'kpa_max_scale_up_rate', 'kpa_max_scale_down_rate',
  'slo_ttft_ms', 'slo_itl_ms', 'slo_interval_s', 'slo_scale_down_pct'];

/** The latency targets: the slo scaler's, and what the Load over time card's SLO attained counts on any run. */
const SLO_TARGETS = ['slo_ttft_ms', 'slo_itl_ms'];

// Presentation only: which group a parameter sits in and which groups start open. Parameters the
// simulator adds later land in "More" with a generic control, so the page never needs to know them all.
const GROUPS = [
  { id: 'fleet', title: 'Fleet and routing', open: true, essential: true, names: ['instances', 'fleet', 'prefill_instances', 'decode_instances', 'routing', 'overlap_weight',
    'dynamo_temperature', 'dynamo_overlap_credit', 'sglang_miss', 'llmd_weights', 'session_affinity', 'spill_queue'] },
  { id: 'cache', title: 'KV cache', open: true, essential: true, names: ['kv_blocks', 'block_size', 'admission',
    'cpu_kv_blocks', 'cpu_load_gbps', 'cpu_load_base_us', 'shared_kv_blocks', 'shared_gbps', 'shared_latency_us', 'router_tiers'] },
  { id: 'workload', title: 'Workload', open: true, essential: true, names: ['workload', 'num_prefixes', 'prefix_len', 'prefix_popularity',
    'system_prompt_len', 'turns', 'turn_input_len', 'turn_output_len', 'think_time_ms'] },
  { id: 'traffic', title: 'Traffic', open: false, names: ['request_rate', 'request_rate_schedule', 'num_requests', 'session_rate', 'num_sessions', 'arrival_model', 'burstiness',
    'input_len', 'output_len', 'range_ratio', ...AUTOSCALE] },
  { id: 'engine', title: 'Engine and overload', open: false, names: ['engine', 'max_batch', 'max_batched_tokens', 'queue_capacity', 'timeout_ms',
    'step_fixed_us', 'prefill_token_us', 'decode_seq_us', 'kv_read_token_ns', 'prefill_poly_ms', 'decode_poly_ms'] },
  { id: 'disagg', title: 'Prefill + decode: the KV link', open: true, names: ['decode_routing', 'kv_transfer_gbps', 'kv_transfer_base_us',
    'kv_bytes_per_token', 'disagg_min_uncached_tokens'] },
  { id: 'router', title: 'Advanced: what the router knows', open: false, names: ['router_view', 'router_refresh_ms', 'kv_event_lag_ms',
    'router_predict_ttl_ms', 'routers', 'router_vcpu', 'router_cpu_us_fixed', 'router_cpu_us_per_block', 'router_queue'] },
  { id: 'run', title: 'Randomness', open: true, names: ['seed'] },
];

const POOL_ONLY = ['num_prefixes', 'prefix_len', 'prefix_popularity', 'request_rate', 'num_requests', 'input_len', 'output_len'];
const SESSIONS_ONLY = ['session_rate', 'num_sessions', 'turns', 'turn_input_len', 'turn_output_len', 'think_time_ms', 'system_prompt_len'];

/** Rates a rate schedule replaces (disabled, with a note, while one is set; the CLI warns of them). */
const SET_BY_SCHEDULE = ['request_rate', 'session_rate'];
const SCHEDULE_NOTE = 'Set by the rate schedule: clear the schedule to use this rate.';
const scheduleSet = (config) => String(config.request_rate_schedule ?? '').trim() !== '';
/** The engine a mixed fleet sets (disabled, with a note, while one is set). */
const FLEET_NOTE = 'Set by the mixed fleet: its first group\'s preset. Clear the fleet to run one engine.';
const fleetSet = (config) => String(config.fleet ?? '').trim() !== '';

/** Parameters a trace replaces (disabled while a trace is the workload). */
export const SYNTHETIC_ONLY = ['workload', 'arrival_model', 'burstiness', 'range_ratio', 'request_rate_schedule', ...POOL_ONLY, ...SESSIONS_ONLY];

const isPool = (c) => c.workload === undefined || c.workload === 'pool';
/** The settings of a disaggregated fleet (shown only in one). */
const DISAGG_ONLY = ['prefill_instances', 'decode_instances', 'decode_routing', 'kv_transfer_gbps', 'kv_transfer_base_us',
  'kv_bytes_per_token', 'disagg_min_uncached_tokens'];
/** Pool sizes: plain sliders (the layout control sets and clears them). */
const POOL_SIZES = ['prefill_instances', 'decode_instances'];
/** A router's CPU times and queue (shown only once it has cores). */
const ROUTER_CPU = ['router_cpu_us_fixed', 'router_cpu_us_per_block', 'router_queue'];
const HASHES_BLOCKS = ['kv', 'dynamo', 'sglang', 'llm_d', 'aibrix', 'prefix_aware'];
const SHOWN_WHEN = {
  instances: (c) => !isDisagg(c),
  ...Object.fromEntries(DISAGG_ONLY.map((n) => [n, isDisagg])),
  overlap_weight: (c) => c.routing === 'kv',
  dynamo_temperature: (c) => c.routing === 'dynamo',
  dynamo_overlap_credit: (c) => c.routing === 'dynamo',
  sglang_miss: (c) => c.routing === 'sglang',
  llmd_weights: (c) => c.routing === 'llm_d',
  burstiness: (c) => c.arrival_model === 'gamma',
  step_fixed_us: (c) => c.engine === 'custom',
  prefill_token_us: (c) => c.engine === 'custom',
  decode_seq_us: (c) => c.engine === 'custom',
  kv_read_token_ns: (c) => c.engine === 'custom',
  prefill_poly_ms: (c) => c.engine === 'custom',
  decode_poly_ms: (c) => c.engine === 'custom',
  router_refresh_ms: (c) => c.router_view === 'snapshot',
  kv_event_lag_ms: (c) => c.router_view === 'snapshot',
  router_predict_ttl_ms: (c) => c.router_view !== 'offline',
  cpu_load_gbps: (c) => c.cpu_kv_blocks > 0,
  cpu_load_base_us: (c) => c.cpu_kv_blocks > 0,
  shared_gbps: (c) => c.shared_kv_blocks > 0,
  shared_latency_us: (c) => c.shared_kv_blocks > 0,
  // Only the policies that score the engines' caches (src/params/inert.rs reads_engine_cache).
  router_tiers: (c) => (c.cpu_kv_blocks > 0 || c.shared_kv_blocks > 0) && ['kv', 'dynamo', 'llm_d', 'sticky'].includes(c.routing),
  ...Object.fromEntries(ROUTER_CPU.map((n) => [n, (c) => c.router_vcpu != null])),
  // The per-block CPU only where the router hashes prompt blocks (src/config/router_cpu.rs Hashed):
  // the cache-aware policies, prefix_aware's leading block, and session affinity's longest-prefix look-up.
  router_cpu_us_per_block: (c) => c.router_vcpu != null
    && (HASHES_BLOCKS.includes(c.routing) || (c.session_affinity ?? (c.routing === 'sticky' ? 100 : 0)) > 0),
  ...Object.fromEntries(AUTOSCALE.slice(1, 4).map((n) => [n, (c) => (c.autoscale ?? 'off') !== 'off'])),
  ...Object.fromEntries(AUTOSCALE.filter((n) => n.startsWith('kpa_')).map((n) => [n, (c) => c.autoscale === 'kpa'])),
  // The SLO rule's own knobs; its targets (SLO_TARGETS) count on any run (the SLO attained), so always shown.
  ...Object.fromEntries(AUTOSCALE.filter((n) => n.startsWith('slo_') && !SLO_TARGETS.includes(n)).map((n) => [n, (c) => c.autoscale === 'slo'])),
  ...Object.fromEntries(POOL_ONLY.map((n) => [n, isPool])),
  ...Object.fromEntries(SESSIONS_ONLY.map((n) => [n, (c) => !isPool(c)])),
};

// What "no value" means for each optional parameter: the readout and the checkbox's words.
// A bounded value to start from when the checkbox is cleared.
const FIRST_VALUE = { queue_capacity: 16, timeout_ms: 5000, kv_bytes_per_token: 131072, cpu_kv_blocks: 1024, shared_kv_blocks: 8192, router_vcpu: 2, router_queue: 256,
  min_instances: 1, max_instances: 16, startup_s: 30, slo_ttft_ms: 500, slo_itl_ms: 50 };
// Where "no value" is a value on the slider (the simulator's rule, src/config.rs affinity_share): the
// thumb sits there while the checkbox is on, and clearing the checkbox starts from it.
const NONE_AT = { session_affinity: (c) => (c.routing === 'sticky' ? 100 : 0) };
/** The value an unset `p` stands for under `config`, or null when it is no point on the slider. */
const noneAt = (p, config) => (NONE_AT[p.name] ? NONE_AT[p.name](config || {}) : null);
/** The workload's readout while a trace replaces it: the trace's name when the page gives one. */
const traceWords = (trace) => (typeof trace === 'string' ? `trace: ${trace}` : 'trace');

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

// A seed below 2^53 (what the CLI's `--seed random` draws too) from the browser's random source.
function randomSeed() {
  const [high, low] = crypto.getRandomValues(new Uint32Array(2));
  return (high % 2 ** 21) * 2 ** 32 + low;
}

const TRACE_OPTION = '(trace)'; // the workload picker's entry while a trace is replayed (no simulator value)

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'text') e.textContent = v;
    else if (k === 'class') e.className = v;
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

function decimals(step) {
  const s = String(step);
  return s.includes('.') ? s.length - s.indexOf('.') - 1 : 0;
}

// Multiples of the step (from 0, so block sizes read 16, 32, 512 even when the minimum is 1),
// kept inside the limits.
function snap(v, p) {
  const step = p.step || (p.kind.includes('float') ? 0.01 : 1);
  let out = +(Math.round(v / step) * step).toFixed(decimals(step));
  if (Number.isFinite(p.min) && out < p.min) out = p.min;
  if (Number.isFinite(p.max) && out > p.max) out = p.max;
  return out;
}

/** The values a slider steps through: null for a plain linear slider, else a sorted "nice" list. */
function valueList(p) {
  const step = p.step || (p.kind.includes('float') ? 0.01 : 1);
  const span = (p.max - p.min) / step;
  // A plain slider when every position is reachable by mouse; else nice values (all small integers,
  // then 1-1.5-2-2.5-3-4-5-6-8 steps and powers of two), so 1 to 16 replicas is not a 50 px sliver.
  if (!p.log && span <= (p.kind.includes('float') ? 400 : 64)) return null;
  const lo = p.min, hi = Math.min(p.max, MAX_SAFE);
  const set = new Set();
  const add = (v) => { if (v >= lo && v <= hi) set.add(snap(v, p)); };
  add(lo); add(hi);
  if (typeof p.default === 'number') set.add(p.default);
  if (!p.kind.includes('float')) for (let v = Math.max(lo, 1); v <= Math.min(hi, 16); v++) add(v);
  for (let e = -3; e <= 15; e++) for (const m of [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8]) add(m * 10 ** e);
  for (let e = 0; e < 50; e++) add(2 ** e);
  return [...set].filter((v) => v >= lo && v <= hi).sort((a, b) => a - b);
}

// Units that read wrong after 1 ("1 replicas").
const SINGULAR = { replicas: 'replica', requests: 'request', prefixes: 'prefix', blocks: 'block', tokens: 'token', tasks: 'task', turns: 'turn', 'req/s': 'req/s' };

export function formatValue(p, v) {
  if (v === null || v === undefined) return p.kind.startsWith('optional') ? noneWords(p)[0] : '–';
  if (Array.isArray(v)) return `${polyText(v)} ${p.unit}`;
  if (typeof v !== 'number') return String(v);
  if (p.name === 'seed') return String(v); // a name for a run, not a quantity: every digit counts
  const u = v === 1 && SINGULAR[p.unit] ? SINGULAR[p.unit] : p.unit;
  const unit = u === 'x' ? '×' : u === '%' ? '%' : u ? ` ${u}` : '';
  return `${compact(v)}${unit}`;
}

// A write that changes nothing still makes the browser restyle (and lay out) what it touched: the
// controls are put at the settings on every change, so only what differs is written.
function setText(node, text) { if (node.textContent !== text) node.textContent = text; }
function setProp(node, key, v) { if (node[key] !== v) node[key] = v; }
function setAttr(node, key, v) { if (node.getAttribute(key) !== v) node.setAttribute(key, v); }

export { REPLICA_MARKS, replicaStops } from './scales.js';

/** Optional settings whose unset value is the slider's last stop (the ceiling), not a checkbox. */
const CEILING = new Set(['kv_blocks']);
/** A stop's label under the track: its value, or what no value means ("unbounded"). */
const markText = (p, v) => (v === null ? noneWords(p)[0] : compact(v));

/** Ascending, with null (no value: the ceiling) last. */
const byValue = (a, b) => (a ?? Infinity) - (b ?? Infinity);

class Slider {
  /**
   * marks: values to label under the track (those on it), so its uneven steps show; or null.
   * stops: the values the slider steps through (else valueList's); a value set between them joins them.
   */
  constructor(p, onInput, pre = '', marks = null, stops = null) {
    this.p = p;
    this.stops = stops ? [...stops] : valueList(p);
    this.list = this.stops;
    const attrs = { type: 'range', id: `${pre}in-${p.name}`, name: `${pre}${p.name}`, 'data-testid': `${pre}input-${p.name}` };
    if (this.list) Object.assign(attrs, { min: 0, max: this.list.length - 1, step: 1 });
    else Object.assign(attrs, { min: p.min, max: p.max, step: p.step || 'any' });
    this.input = el('input', attrs);
    this.input.addEventListener('input', () => onInput(this.value()));
    this.marks = marks;
    this.scale = marks && this.list ? el('div', { class: 'slider-marks', 'aria-hidden': 'true', 'data-testid': `${pre}marks-${p.name}` }) : null;
    // A click on a stop's label picks its value, as a click on the track under it does (the keys
    // and the track stay the accessible way; the labels are hidden from screen readers).
    this.scale?.addEventListener('click', (e) => {
      const at = e.target.closest('span')?.dataset.value;
      const v = at === 'none' ? null : Number(at);
      if (at === undefined || !this.list.includes(v) || v === this.value()) return;
      this.set(v);
      onInput(v);
    });
    this.placeMarks();
  }
  /**
   * The labelled stops, each under the thumb's place at its value: on a list of nice values the
   * track is even in positions, not in values (1 to 16 one by one, then 20, 25, ... 256).
   */
  placeMarks() {
    if (!this.scale) return;
    const last = this.list.length - 1;
    this.scale.replaceChildren(...this.marks.filter((v) => this.list.includes(v)).map((v) => {
      const s = el('span', { text: markText(this.p, v), 'data-value': v === null ? 'none' : v });
      s.style.setProperty('--at', String(this.list.indexOf(v) / last));
      return s;
    }));
  }
  /**
   * The lowest stop becomes `floor` (the smallest value the settings allow): the stops below it go, it
   * joins them, and it is labelled in place of the marks too near it to read. The value set, if
   * below it (a link's), joins them again at set().
   */
  setFloor(floor) {
    if (this.floor === floor || !this.list) return;
    if (this.allStops === undefined) { this.allStops = this.stops; this.allMarks = this.marks; }
    this.floor = floor;
    this.stops = [floor, ...this.allStops.filter((v) => v === null || v > floor)];
    const near = this.stops.filter((v) => v !== null).slice(0, 6);
    this.marks = this.allMarks && [floor, ...this.allMarks.filter((v) => v === null || (v > floor && !near.includes(v)))];
    const v = this.list[Number(this.input.value)];
    this.list = this.stops;
    this.input.max = String(this.list.length - 1);
    this.set(v);
    this.placeMarks();
  }
  value() {
    const raw = Number(this.input.value);
    return this.list ? this.list[raw] : snap(raw, this.p);
  }
  set(v) {
    if (this.list) {
      // A value between the stops (a link's, a clicked point's) joins them until another replaces it,
      // so the keys step from it to the stops either side and back.
      const list = this.list.includes(v) || !Number.isFinite(v) ? this.list : [...this.stops, v].sort(byValue);
      if (list !== this.list) {
        this.list = list;
        this.input.max = String(this.list.length - 1);
        this.placeMarks();
      }
      setProp(this.input, 'value', String(Math.max(0, this.list.indexOf(v))));
    } else {
      setProp(this.input, 'value', String(v));
    }
    setAttr(this.input, 'aria-valuetext', formatValue(this.p, v));
  }
}

/** The mixed fleet's readout: its groups' counts ("3 + 1 replicas"), "one engine" when unset. */
function fleetWords(config) {
  if (!fleetSet(config)) return 'one engine';
  const groups = fleetGroups(config);
  return groups ? `${groups.map((g) => g.count).join(' + ')} replicas` : 'not groups';
}

/** A readout: the value, what an unset value stands for, or the trace that replaces the workload. */
function readoutText(p, v, config, trace) {
  if (trace && p.name === 'workload') return traceWords(trace);
  // A mixed fleet's replicas hold their presets' own KV (the simulator's rule when unset).
  if (p.name === 'kv_blocks' && v === null && fleetSet(config || {})) return 'each GPU\'s own';
  if (p.name === 'fleet') return fleetWords(config || {});
  const at = v === null ? noneAt(p, config) : null;
  return at === null ? formatValue(p, v) : `${formatValue(p, null)} (${formatValue(p, at)})`;
}

export class Controls {
  /**
   * form: where the controls go; params: the simulator's specs; onChange(name, value).
   * options.names: only these parameters, in this order, without groups (the hero and embeds);
   * options.prefix: prepended to every id and test id, so a subset can live beside the full panel;
   * options.marks: {name: values} labelled under those sliders' tracks;
   * options.stops: {name: values} those sliders step through (the hero's replica counts).
   */
  constructor(form, params, onChange, { names = null, prefix = '', marks = {}, stops = {} } = {}) {
    this.marks = marks;
    this.stops = stops;
    this.form = form;
    this.params = params;
    this.byName = new Map(params.map((p) => [p.name, p]));
    this.onChange = onChange;
    this.pre = prefix;
    this.fields = new Map(); // name -> {root, readout, error, set(v), inputs: []}
    this.flat = !!names;
    if (names) this.buildFlat(names); else this.build();
  }

  buildFlat(names) {
    for (const name of names) {
      // The fleet layout is not a simulator parameter (a lesson on a disaggregated fleet asks for it).
      if (name === 'fleet_layout' && this.byName.has('prefill_instances') && !this.layout) { this.form.append(this.layoutField()); continue; }
      const p = this.byName.get(name);
      if (p && !this.fields.has(name)) this.form.append(this.field(p));
    }
    this.form.addEventListener('submit', (e) => e.preventDefault());
  }

  build() {
    const placed = new Set();
    const groups = GROUPS.map((g) => ({ ...g, names: g.names.filter((n) => this.byName.has(n)) }));
    const rest = this.params.map((p) => p.name).filter((n) => !GROUPS.some((g) => g.names.includes(n)));
    if (rest.length) groups.push({ id: 'more', title: 'More', open: false, names: rest });
    for (const g of groups) {
      if (!g.names.length) continue;
      const body = el('div', { class: 'group-body' });
      const det = el('details', { class: `group${g.essential ? ' essential' : ''}`, id: `group-${g.id}`, open: g.open },
        el('summary', { text: g.title }), body);
      for (const name of g.names) {
        if (placed.has(name)) continue;
        placed.add(name);
        if (name === 'instances' && this.byName.has('prefill_instances')) body.append(this.layoutField());
        body.append(this.field(this.byName.get(name)));
      }
      this.form.append(det);
    }
    this.form.addEventListener('submit', (e) => e.preventDefault());
  }

  emit(name, value) {
    const f = this.fields.get(name);
    if (f && f.readout) setText(f.readout, formatValue(this.byName.get(name), value));
    this.onChange(name, value);
  }

  field(p) {
    const pre = this.pre;
    const id = `${pre}in-${p.name}`;
    const help = el('p', { class: 'help on-focus', id: `${pre}help-${p.name}`, text: p.help || '' });
    const error = el('p', { class: 'field-error', id: `${pre}err-${p.name}`, 'data-testid': `${pre}error-${p.name}`, hidden: true });
    const readout = el('output', { for: id, id: `${pre}out-${p.name}`, 'data-testid': `${pre}readout-${p.name}` });
    let root, set, inputs;

    if (p.kind === 'choice' && p.name === 'routing') {
      ({ root, set, inputs } = this.routing(p, id, readout));
    } else if (p.kind === 'choice') {
      ({ root, set, inputs } = this.choice(p, id, readout));
    } else if (p.name === 'seed') {
      const n = el('input', { type: 'number', id, name: p.name, min: p.min ?? 0, max: Math.min(p.max ?? MAX_SAFE, MAX_SAFE), step: 1, inputmode: 'numeric', 'data-testid': `${pre}input-${p.name}` });
      const roll = el('button', { type: 'button', class: 'btn small', 'data-testid': `${pre}reroll`, title: 'Draw a new seed from the browser\'s random source (the link keeps it, so the run can be repeated)', text: '↻ New seed' });
      n.addEventListener('change', () => {
        const v = Number(n.value);
        if (n.value.trim() !== '' && Number.isSafeInteger(v) && v >= (p.min ?? 0)) this.emit(p.name, v);
        else this.showError(p.name, `Seed must be a whole number from ${p.min ?? 0} to ${MAX_SAFE}.`);
      });
      roll.addEventListener('click', () => {
        const v = randomSeed();
        n.value = String(v);
        this.emit(p.name, v);
      });
      inputs = [n, roll];
      root = el('div', { class: 'field' }, el('div', { class: 'field-top' }, el('label', { for: id, text: p.label }), readout), el('div', { class: 'row' }, n, roll));
      set = (v) => setProp(n, 'value', String(v));
    } else if (p.kind === 'int' || p.kind === 'float' || POOL_SIZES.includes(p.name) || CEILING.has(p.name)) {
      const scale = SCALES[p.name]?.(p) || {};
      const sl = new Slider(p, (v) => { setAttr(sl.input, 'aria-valuetext', formatValue(p, v)); this.emit(p.name, v); }, pre,
        this.marks[p.name] ?? scale.marks ?? null, this.stops[p.name] ?? scale.stops ?? null);
      inputs = [sl.input];
      root = el('div', { class: 'field' }, el('div', { class: 'field-top' }, el('label', { for: id, text: p.label }), readout), sl.input, sl.scale);
      // An unset pool size sits at the slider's start; an unset cache at its end (the ceiling). The
      // cache slider starts at the smallest cache the simulator accepts for the settings (cacheFloor).
      set = (v, config, trace) => {
        if (p.name === 'kv_blocks' && config) sl.setFloor(cacheFloor(config, !!trace));
        sl.set(v ?? (CEILING.has(p.name) ? null : p.min));
      };
    } else if (p.kind === 'optional_int' || p.kind === 'optional_float') {
      const sl = new Slider(p, (v) => { setAttr(sl.input, 'aria-valuetext', formatValue(p, v)); this.emit(p.name, v); }, pre);
      const box = el('input', { type: 'checkbox', id: `${id}-unbounded`, 'data-testid': `${pre}input-${p.name}-unbounded` });
      // The last value set (null: none yet), and where an unset value sits under the last config.
      let lastBounded = NONE_AT[p.name] ? null : Math.min(p.max, Math.max(p.min, FIRST_VALUE[p.name] ?? p.min));
      let meant = null;
      box.addEventListener('change', () => {
        sl.input.disabled = box.checked;
        root.classList.toggle('is-none', box.checked);
        this.emit(p.name, box.checked ? null : lastBounded ?? meant ?? p.min);
      });
      sl.input.addEventListener('input', () => { lastBounded = sl.value(); });
      inputs = [sl.input, box];
      root = el('div', { class: 'field' },
        el('div', { class: 'field-top' }, el('label', { for: id, text: p.label }), readout),
        sl.input,
        el('label', { class: 'check', for: `${id}-unbounded` }, box, document.createTextNode(noneWords(p)[1])));
      set = (v, config) => {
        setProp(box, 'checked', v === null);
        setProp(sl.input, 'disabled', v === null);
        // Checked: the slider greyed (its readout says none or unbounded), so it cannot read as a value.
        if (root.classList.contains('is-none') !== (v === null)) root.classList.toggle('is-none', v === null);
        if (v !== null) lastBounded = v;
        meant = noneAt(p, config);
        sl.set(v === null && meant !== null ? meant : lastBounded ?? p.min);
        if (v === null && meant !== null) setAttr(sl.input, 'aria-valuetext', readoutText(p, v, config));
      };
    } else if (p.kind === 'poly') {
      // Three coefficients as the CLI's flag takes them ("c0,c1,c2"); a bad text is said at the field.
      const t = el('input', { type: 'text', id, name: p.name, spellcheck: 'false', inputmode: 'decimal', 'data-testid': `${pre}input-${p.name}` });
      t.addEventListener('change', () => {
        const r = parsePoly(t.value);
        if (r.error) this.showError(p.name, `${p.label}: ${r.error}.`); else this.emit(p.name, r.value);
      });
      inputs = [t];
      root = el('div', { class: 'field' }, el('div', { class: 'field-top' }, el('label', { for: id, text: p.label }), readout), t);
      set = (v) => setProp(t, 'value', polyText(v));
    } else if (p.name === 'prefix_popularity') {
      ({ root, set, inputs } = this.popularity(p, id, readout));
    } else {
      // An example of the form as the placeholder (the first of the parameter's examples).
      const t = el('input', { type: 'text', id, name: p.name, spellcheck: 'false', placeholder: p.choices?.[0] ?? '', 'data-testid': `${pre}input-${p.name}` });
      t.addEventListener('change', () => this.emit(p.name, t.value.trim()));
      // The mixed fleet's help is a line in the flow under its box (its first sentence; the rest in
      // the tooltip), not the card laid over the routing buttons below while one types.
      if (p.name === 'fleet' && p.help) { help.className = 'help inline'; help.textContent = p.help.split(/(?<=\.)\s/)[0]; }
      inputs = [t];
      root = el('div', { class: 'field' }, el('div', { class: 'field-top' }, el('label', { for: id, text: p.label }), readout), t);
      set = (v) => setProp(t, 'value', v ?? '');
    }
    root.id = `${pre}field-${p.name}`;
    root.dataset.testid = `${pre}field-${p.name}`;
    nameByLabel(root, `${pre}label-${p.name}`, id);
    if (p.help) root.title = p.help;
    for (const i of inputs) i.setAttribute('aria-describedby', [i.getAttribute('aria-describedby'), `${pre}help-${p.name}`, `${pre}err-${p.name}`].filter(Boolean).join(' '));
    root.append(help, error);
    this.fields.set(p.name, { root, readout, error, set, inputs });
    return root;
  }

  // A picker; the workload's also names the trace that replaces it (set(v, config, trace)).
  choice(p, id, readout) {
    const s = el('select', { id, name: p.name, 'data-testid': `${this.pre}input-${p.name}` });
    for (const c of p.choices) s.append(el('option', { value: c, text: c }));
    s.addEventListener('change', () => this.emit(p.name, s.value));
    const root = el('div', { class: 'field' }, el('div', { class: 'field-top' }, el('label', { for: id, text: p.label }), readout), s);
    const traceOpt = p.name === 'workload' ? el('option', { value: TRACE_OPTION, disabled: true }) : null;
    const set = (v, _config, trace) => {
      if (traceOpt && trace) {
        setText(traceOpt, traceWords(trace));
        if (!traceOpt.parentNode) s.append(traceOpt);
        setProp(s, 'value', TRACE_OPTION);
        return;
      }
      if (traceOpt?.parentNode) traceOpt.remove();
      setProp(s, 'value', v);
    };
    return { root, set, inputs: [s] };
  }

  // Fleet layout: colocated (every replica prefills and decodes) or two pools. Not a simulator
  // parameter: choosing it sets or clears the pool sizes (see layout.js's fitPools).
  layoutField() {
    const pre = this.pre;
    const root = el('fieldset', { class: 'field fleet-layout', id: `${pre}field-fleet_layout`, 'data-testid': `${pre}field-fleet_layout` });
    const seg = el('div', { class: 'seg' });
    const radios = [['colocated', 'colocated'], ['disaggregated', 'prefill + decode (disaggregated)']].map(([v, text]) => {
      const r = el('input', { type: 'radio', name: `${pre}fleet_layout`, value: v, id: `${pre}in-fleet_layout-${v}`, 'data-testid': `${pre}input-fleet_layout-${v}` });
      r.addEventListener('change', () => r.checked && this.onChange('fleet_layout', v));
      seg.append(el('label', { for: r.id }, r, el('span', { text })));
      return r;
    });
    const about = el('p', { class: 'help', 'data-testid': `${pre}layout-about` });
    root.append(el('div', { class: 'field-top' }, el('legend', { text: 'Fleet layout' })), seg, about);
    nameByLabel(root, `${pre}label-fleet_layout`, null);
    root.title = 'Colocated: every replica prefills and decodes. Prefill + decode: the router picks a prefill replica (prefix caches live there); the prompt\'s KV then crosses a link to a decode replica.';
    this.layout = (config) => {
      const on = isDisagg(config);
      setProp(radios[0], 'checked', !on);
      setProp(radios[1], 'checked', on);
      setText(about, on
        ? `${config.prefill_instances} prefill + ${config.decode_instances} decode = ${config.instances} replicas. The routing policy picks a prefill replica (prefix caches live there); the prompt's KV then crosses a link to a decode replica, which streams the answer.`
        : `${config.instances === 1 ? 'One replica, prefilling and decoding' : `${config.instances} replicas, each prefilling and decoding`}. Prefill + decode splits them into two pools, so long prefills no longer share steps with decoding answers.`);
    };
    return root;
  }

  // The routing policies as radio buttons in their groups ("Simple", "Deployed routers"), each with its
  // one line as tooltip; under them the chosen policy's line (and, in the full panel, every policy's).
  routing(p, id, readout) {
    const pre = this.pre;
    const root = el('fieldset', { class: 'field routing' });
    const about = el('p', { class: 'policy-about', id: `${pre}about-routing`, 'data-testid': `${pre}routing-about`, 'aria-live': 'polite' });
    const inputs = [];
    const groups = groupPolicies(p.choices).map((g) => {
      const title = el('p', { class: 'policy-group-title', id: `${pre}routing-group-${g.id}-title`, text: g.title });
      const seg = el('div', { class: 'seg' });
      for (const c of g.names) {
        const r = el('input', { type: 'radio', name: `${pre}${p.name}`, value: c, id: `${id}-${c}`, 'data-testid': `${pre}input-${p.name}-${c}`,
          'aria-describedby': `${pre}about-routing` });
        r.addEventListener('change', () => r.checked && this.emit(p.name, c));
        seg.append(el('label', { for: `${id}-${c}`, title: describePolicy(c) || p.help }, r, el('span', { text: c })));
        inputs.push(r);
      }
      return el('div', { class: 'policy-group', role: 'group', 'aria-labelledby': title.id, 'data-testid': `${pre}routing-group-${g.id}`, 'data-group': g.id }, title, seg);
    });
    // A flat panel (the hero's, an embed's) also gets the policies as one drop-down, which the
    // stylesheet shows instead of the buttons in a narrow embed (ten buttons took a phone frame's figure).
    const pick = this.flat ? this.policySelect(p, id) : null;
    root.append(el('div', { class: 'field-top' }, el('legend', { text: p.label }), readout), ...groups, ...(pick ? [pick] : []), about);
    if (!this.flat) root.append(this.policyList(p.choices));
    const set = (v) => {
      if (pick) { setProp(pick, 'value', v); setProp(pick, 'title', describePolicy(v) || p.help); }
      inputs.forEach((r) => setProp(r, 'checked', r.value === v));
      setText(about, describePolicy(v));
      linkTerms(about);
    };
    reserveTallest(about, p.choices.map((c) => describePolicy(c)));
    return { root, set, inputs };
  }

  // The policies as a <select> in their groups: the narrow embed's compact routing control.
  policySelect(p, id) {
    const pick = el('select', { class: 'policy-select', id: `${id}-select`, 'data-testid': `${this.pre}input-${p.name}-select`,
      'aria-labelledby': `${this.pre}label-${p.name}`, 'aria-describedby': `${this.pre}about-routing` });
    for (const g of groupPolicies(p.choices)) {
      pick.append(el('optgroup', { label: g.title }, ...g.names.map((c) => el('option', { value: c, text: c }))));
    }
    pick.addEventListener('change', () => this.emit(p.name, pick.value));
    return pick;
  }

  // Every policy's line, grouped, one disclosure away (the full panel only).
  policyList(choices) {
    const body = [];
    for (const g of groupPolicies(choices)) {
      const list = el('dl', { class: 'policy-list' });
      for (const c of g.names) {
        const note = followsNote(c);
        list.append(el('div', {}, el('dt', {}, el('code', { text: c })), document.createTextNode(' '),
          el('dd', { 'data-testid': `policy-line-${c}` }, document.createTextNode(policyInfo(c).line || 'No description.'),
            note ? el('span', { class: 'policy-follows', text: ` (${note})` }) : null)));
      }
      body.push(el('p', { class: 'policy-list-group', text: g.title }), list);
    }
    return el('details', { class: 'policy-details', 'data-testid': 'routing-list' }, el('summary', { text: 'What each policy does' }), ...body);
  }

  // prefix_popularity is text ("uniform", "zipf:S", "hot:SHARE"): shown as a kind picker plus a slider.
  popularity(p, id, readout) {
    const pre = this.pre;
    const kind = el('select', { id, 'data-testid': `${pre}input-${p.name}` });
    for (const [v, t] of [['uniform', 'uniform: every prefix equally likely'], ['zipf', 'zipf: a few prefixes dominate'], ['hot', 'hot: one prefix takes a share']]) {
      kind.append(el('option', { value: v, text: t }));
    }
    const amount = el('input', { type: 'range', id: `${id}-amount`, 'data-testid': `${pre}input-${p.name}-amount` });
    const amountLabel = el('label', { for: `${id}-amount`, class: 'help' });
    const remembered = { zipf: 1.1, hot: 0.85 };
    const compose = () => kind.value === 'uniform' ? 'uniform' : `${kind.value}:${+Number(amount.value).toFixed(2)}`;
    const layout = () => {
      const k = kind.value;
      setProp(amount, 'hidden', k === 'uniform');
      setProp(amountLabel, 'hidden', k === 'uniform');
      const range = { zipf: ['0.05', '3', 'Zipf exponent S (higher = more skewed)'], hot: ['0', '1', 'Share of requests on the hot prefix'] }[k];
      if (range) {
        setProp(amount, 'min', range[0]); setProp(amount, 'max', range[1]); setProp(amount, 'step', '0.05');
        setText(amountLabel, range[2]);
        setProp(amount, 'value', String(remembered[k]));
      }
    };
    kind.addEventListener('change', () => { layout(); this.emit(p.name, compose()); });
    amount.addEventListener('input', () => { remembered[kind.value] = Number(amount.value); this.emit(p.name, compose()); });
    const root = el('div', { class: 'field' },
      el('div', { class: 'field-top' }, el('label', { for: id, text: p.label }), readout), kind, amountLabel, amount);
    const set = (v) => {
      const m = /^(zipf|hot):\s*([0-9.]+)$/.exec(String(v));
      if (m) { setProp(kind, 'value', m[1]); remembered[m[1]] = Number(m[2]); } else setProp(kind, 'value', 'uniform');
      layout();
    };
    return { root, set, inputs: [kind, amount] };
  }

  /**
   * Puts every control (and its readout) at the config's values, and applies visibility rules.
   * traceMode: false, or the trace replayed (its name, or true), which the workload control shows.
   */
  setAll(config, traceMode) {
    for (const [name, f] of this.fields) {
      const p = this.byName.get(name);
      const v = config[name];
      f.set(v, config, traceMode || null);
      setText(f.readout, readoutText(p, v, config, traceMode || null));
      const shown = SHOWN_WHEN[name] ? SHOWN_WHEN[name](config) : true;
      const traceOff = traceMode && SYNTHETIC_ONLY.includes(name);
      const scheduled = !traceMode && SET_BY_SCHEDULE.includes(name) && scheduleSet(config);
      const byFleet = name === 'engine' && fleetSet(config);
      const off = traceOff || scheduled || byFleet;
      // A trace's own prompts and arrivals replace these: hidden (and off), not greyed-out defaults
      // a reader took for the trace's; the workload picker stays and says why (traceNote).
      setProp(f.root, 'hidden', !shown || (traceOff && name !== 'workload'));
      if (name === 'workload') this.traceNote(f, traceMode);
      if (SET_BY_SCHEDULE.includes(name)) this.scheduleNote(f, name, scheduled);
      if (f.root.classList.contains('disabled') !== off) f.root.classList.toggle('disabled', off);
      for (const i of f.inputs) {
        if (off) setProp(i, 'disabled', true);
        else if (!(p.kind.startsWith('optional') && !CEILING.has(name) && i.type === 'range' && v === null)) setProp(i, 'disabled', false);
      }
      if (traceOff) setProp(f.root, 'title', 'Set by the trace (not used while a trace is the workload)');
      else if (scheduled) setProp(f.root, 'title', SCHEDULE_NOTE);
      else if (byFleet) setProp(f.root, 'title', FLEET_NOTE);
      else if (p.help) setProp(f.root, 'title', p.help);
    }
    if (this.layout) this.layout(config);
    // A group with nothing to show (the KV link's, in a colocated fleet) is hidden whole.
    for (const g of this.form.querySelectorAll('details.group')) {
      const fields = [...g.querySelectorAll('.group-body > .field')];
      setProp(g, 'hidden', fields.length > 0 && fields.every((f) => f.hidden));
    }
  }

  /** Under the workload picker while a trace is the workload: what the trace sets, and how to get the settings back. */
  traceNote(f, traceMode) {
    if (!f.traceNote) {
      f.traceNote = el('p', { class: 'help trace-note', 'data-testid': `${this.pre}trace-note`,
        text: 'The trace sets the prompts, their shared prefixes and the arrival times, so the synthetic workload\'s settings are hidden. “Back to synthetic” (above) brings them back.' });
      f.root.append(f.traceNote);
    }
    setProp(f.traceNote, 'hidden', !traceMode);
  }

  /** Under the request or session rate while a rate schedule is set: the schedule sets the rate in its place. */
  scheduleNote(f, name, on) {
    if (!f.scheduleNote) {
      f.scheduleNote = el('p', { class: 'help schedule-note', 'data-testid': `${this.pre}schedule-note-${name}`, text: SCHEDULE_NOTE });
      f.root.append(f.scheduleNote);
    }
    setProp(f.scheduleNote, 'hidden', !on);
  }

  /** Puts `text` back in a text field's box (a rejected value, to correct) after setAll put the config's there. */
  keepTyped(name, text) {
    const box = this.fields.get(name)?.inputs[0];
    if (box && box.type === 'text' && typeof text === 'string') box.value = text;
  }

  /** Shows an error under a field; returns false when no such field exists. */
  showError(name, message) {
    const f = this.fields.get(name);
    if (!f) return false;
    f.error.textContent = message;
    f.error.hidden = false;
    const g = f.root.closest('details');
    if (g) g.open = true;
    return true;
  }

  clearErrors() {
    for (const f of this.fields.values()) { setProp(f.error, 'hidden', true); setText(f.error, ''); }
  }
}

/**
 * Keeps `box` as tall as the tallest of `texts` at its current width (measured on a hidden copy,
 * terms linked as on screen), so what sits under it does not move when its text changes. Measured
 * again whenever the box's width changes.
 */
function reserveTallest(box, texts) {
  let widthPx = -1;
  const measure = () => {
    const w = box.clientWidth;
    if (!w || w === widthPx || !box.isConnected) return;
    widthPx = w;
    const probe = box.cloneNode(false);
    probe.removeAttribute('id');
    probe.removeAttribute('data-testid');
    probe.removeAttribute('aria-live');
    probe.setAttribute('aria-hidden', 'true');
    Object.assign(probe.style, { position: 'absolute', visibility: 'hidden', minHeight: '0', height: 'auto', width: `${w}px`, left: '-9999px', top: '0' });
    box.parentNode.append(probe);
    let tallestPx = 0;
    for (const t of texts) {
      probe.textContent = t || '';
      linkTerms(probe);
      tallestPx = Math.max(tallestPx, probe.getBoundingClientRect().height);
    }
    probe.remove();
    box.style.minHeight = `${Math.ceil(tallestPx)}px`;
  };
  if (typeof ResizeObserver === 'function') new ResizeObserver(measure).observe(box);
}

/**
 * Names a field's controls by its visible label (the label or legend in its top line): the control
 * whose id is `inputId` by aria-labelledby, and a fieldset (a group of buttons) too, whose legend
 * sits in a div and so would not name it.
 */
function nameByLabel(root, labelId, inputId) {
  const label = root.querySelector(':scope > .field-top > label, :scope > .field-top > legend');
  if (!label) return;
  label.id = labelId;
  if (root.tagName === 'FIELDSET') root.setAttribute('aria-labelledby', labelId);
  const input = inputId ? root.querySelector(`[id="${inputId}"]`) : null;
  if (input && input.type !== 'radio' && input.type !== 'checkbox') input.setAttribute('aria-labelledby', labelId);
}
