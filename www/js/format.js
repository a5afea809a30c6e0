// www/js/format.js: number formatting and the theme palette (per-replica and per-policy colours).

export function pct(x, digits = 1) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return `${(x * 100).toFixed(digits)}%`;
}

/** Decimals countPct may add past its `digits` before it writes a bound ("> 99.99%") instead. */
const MORE_DIGITS = 2;

/**
 * A share of a count (hit requests of admitted ones, say) as a percentage that never reads as all or
 * none when it is neither: 12,027 of 12,031 is "99.97%", not "100.0%", and 1 of 12,031 is "0.01%",
 * not "0.0%". It adds up to MORE_DIGITS decimals until the text differs from 100% and 0%, then writes
 * a bound ("> 99.999%", "< 0.001%"). Exactly 0 and 1 print as pct does.
 */
export function countPct(x, digits = 1) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  if (x <= 0 || x >= 1) return pct(x, digits);
  for (let d = digits; d <= digits + MORE_DIGITS; d++) {
    const v = (x * 100).toFixed(d);
    if (Number(v) > 0 && Number(v) < 100) return `${v}%`;
  }
  const last = digits + MORE_DIGITS, step = (10 ** -last).toFixed(last);
  return x < 0.5 ? `< ${step}%` : `> ${(100 - Number(step)).toFixed(last)}%`;
}

const numFormats = new Map(); // digits -> Intl.NumberFormat (toLocaleString makes one per call)

export function num(x, digits = 0) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  let f = numFormats.get(digits);
  if (!f) numFormats.set(digits, f = new Intl.NumberFormat('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }));
  return f.format(x);
}

/** A value with its unit, in the most readable magnitude (ms -> s above 10 s). */
export function ms(x) {
  if (x === null || x === undefined || !Number.isFinite(x)) return ['–', ''];
  if (x >= 10000) return [(x / 1000).toFixed(1), 's'];
  if (x >= 1000) return [(x / 1000).toFixed(2), 's'];
  if (x >= 100) return [x.toFixed(0), 'ms'];
  if (x >= 10) return [x.toFixed(1), 'ms'];
  return [x.toFixed(2), 'ms'];
}

/**
 * A duration in ms as the page writes it (charts.js fmtMs: '523 ms', '1.29 s'), with no trailing
 * zeros in seconds: '1 s', '1.5 s', not '1.00 s'.
 */
export function msText(x) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  if (x >= 1000) return `${+(x / 1000).toFixed(2)} s`;
  return `${x.toFixed(x < 10 ? 1 : 0)} ms`;
}

export function seconds(x) {
  if (!Number.isFinite(x)) return ['–', ''];
  if (x >= 3600) return [(x / 3600).toFixed(2), 'h'];
  if (x >= 120) return [(x / 60).toFixed(1), 'min'];
  return [x >= 10 ? x.toFixed(1) : x.toFixed(2), 's'];
}

/** Compact numbers for slider readouts: 4,096, 12.5k, 1.2M (thousands separated, like num). */
export function compact(x) {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a >= 1e6) return `${+(x / 1e6).toFixed(2)}M`;
  if (a >= 1e5) return `${+(x / 1e3).toFixed(0)}k`;
  if (a >= 1e4) return `${+(x / 1e3).toFixed(1)}k`;
  if (Number.isInteger(x)) return num(x);
  const r = +x.toFixed(a < 1 ? 3 : 2);
  return num(r, Number.isInteger(r) ? 0 : String(r).split('.')[1].length);
}

// The theme is read once and cached (reading computed styles mid-render forces a style recalc);
// main.js calls resetTheme() when the system theme changes.
let darkCache = null;
let inkCache = null;
export function resetTheme() { darkCache = null; inkCache = null; }

export function isDark() {
  if (darkCache === null) darkCache = !!(window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches);
  return darkCache;
}

// Ten hues in a fixed order (replica i always gets hue i mod 10), tuned per theme so each stays
// distinguishable and has contrast against that theme's background.
const REPLICA_LIGHT = ['#1f5fbf', '#d9480f', '#2b8a3e', '#ae3ec9', '#c92a2a', '#0b7285', '#a66a00', '#5f3dc4', '#868e96', '#d6336c'];
const REPLICA_DARK = ['#74a9ff', '#ff9254', '#69db7c', '#e599f7', '#ff8787', '#3bc9db', '#ffd43b', '#b197fc', '#ced4da', '#f783ac'];

/** A preset's GPU as a label: "llama3-8b-mi300x" → "MI300X", "llama3-70b-2xh200" → "2×H200". */
export function presetGpu(preset) {
  return String(preset).split('-').pop().toUpperCase().replace(/^(\d+)X/, '$1×');
}

/** A replica's name: "R3", or in a mixed fleet with its GPU, "R3 MI300X". */
export function replicaName(r) {
  return r.preset ? `R${r.index} ${presetGpu(r.preset)}` : `R${r.index}`;
}

export function replicaColor(i, alpha = 1) {
  const c = (isDark() ? REPLICA_DARK : REPLICA_LIGHT)[i % 10];
  return alpha >= 1 ? c : c + Math.round(alpha * 255).toString(16).padStart(2, '0');
}

/** Policies in the order the page compares them (locality-blind first, then the deployed routers);
 * others follow as listed. */
export const POLICY_ORDER = ['round_robin', 'random', 'least_loaded', 'p2c', 'sticky', 'prefix_aware', 'kv',
  'dynamo', 'sglang', 'llm_d', 'aibrix'];
// One hue per policy, the same hue in both themes (darker on light, lighter on dark), each at least 3:1
// against its theme's panel. Eleven hues cannot all stay apart under every colour-vision deficiency, so
// no two policies share a dash pattern or a marker either (POLICY_STYLE); tests/e2e/palette.test.mjs
// checks the contrast, the distances and the styles.
export const POLICY_LIGHT = { round_robin: '#868e96', random: '#a66a00', sticky: '#0b7285', prefix_aware: '#ae3ec9', kv: '#1f5fbf',
  least_loaded: '#343a40', p2c: '#2f9e44', dynamo: '#087f5b', sglang: '#c92a2a', llm_d: '#e64980', aibrix: '#5f3dc4' };
export const POLICY_DARK = { round_robin: '#adb5bd', random: '#ffd43b', sticky: '#3bc9db', prefix_aware: '#e599f7', kv: '#74a9ff',
  least_loaded: '#f1f3f5', p2c: '#8ce99a', dynamo: '#38d9a9', sglang: '#ff6b6b', llm_d: '#f783ac', aibrix: '#9775fa' };
const SPARE_LIGHT = ['#495057', '#862e9c', '#364fc7'];
const SPARE_DARK = ['#ced4da', '#da77f2', '#91a7ff'];

export function orderPolicies(choices) {
  const known = POLICY_ORDER.filter((p) => choices.includes(p));
  return [...known, ...choices.filter((p) => !known.includes(p))];
}

export function policyColor(p) {
  const dark = isDark();
  const fixed = (dark ? POLICY_DARK : POLICY_LIGHT)[p];
  if (fixed) return fixed;
  let h = 0;
  for (const ch of String(p)) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return (dark ? SPARE_DARK : SPARE_LIGHT)[h % 3];
}

// One dash pattern and one point marker per policy, used in every chart, so lines that coincide
// (prefix_aware under sticky, say) stay visible and each policy reads the same everywhere. A marker is
// a Chart.js point style, turned by `rotation` degrees (▼ is the triangle at 180), and `hollow` ones
// are filled with the panel colour (○ □ ◇ against ● ■ ◆).
export const POLICY_STYLE = {
  round_robin: { dash: [], point: 'circle' },
  random: { dash: [2, 3], point: 'rectRot' },
  sticky: { dash: [10, 5], point: 'rect' },
  prefix_aware: { dash: [14, 4, 3, 4], point: 'triangle' },
  kv: { dash: [6, 3], point: 'star' },
  least_loaded: { dash: [4, 2, 1, 2], point: 'cross' },
  p2c: { dash: [2, 6], point: 'crossRot' },
  dynamo: { dash: [12, 3, 3, 3, 3, 3], point: 'triangle', rotation: 180 },
  sglang: { dash: [18, 6], point: 'rect', hollow: true },
  llm_d: { dash: [8, 3, 2, 3, 2, 3], point: 'circle', hollow: true },
  aibrix: { dash: [5, 8], point: 'rectRot', hollow: true },
};
const SPARE_STYLE = [{ dash: [1, 4], point: 'rectRounded' }, { dash: [8, 2, 2, 2], point: 'triangle', rotation: 90 }, { dash: [4, 6], point: 'triangle', rotation: 270 }];

export function policyStyle(p) {
  if (POLICY_STYLE[p]) return POLICY_STYLE[p];
  let h = 0;
  for (const ch of String(p)) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return SPARE_STYLE[h % SPARE_STYLE.length];
}

/** A policy's line and marker as Chart.js dataset options (colour, dash, point style, rotation, fill). */
export function policyLine(p) {
  const st = policyStyle(p);
  const c = policyColor(p);
  return { borderColor: c, backgroundColor: c, borderDash: st.dash, pointStyle: st.point, pointRotation: st.rotation || 0,
    pointBackgroundColor: st.hollow ? themeInk().panel : c, pointBorderColor: c };
}

export function themeInk() {
  if (inkCache) return inkCache;
  const s = getComputedStyle(document.documentElement);
  inkCache = {
    ink: s.getPropertyValue('--ink').trim() || '#16181d',
    muted: s.getPropertyValue('--muted').trim() || '#555c68',
    line: s.getPropertyValue('--line').trim() || '#dde1e7',
    accent: s.getPropertyValue('--accent').trim() || '#2454c6',
    warn: s.getPropertyValue('--warn-line').trim() || '#c77700',
    panel: s.getPropertyValue('--panel').trim() || '#ffffff',
    err: s.getPropertyValue('--err-ink').trim() || '#9b1c1c',
  };
  return inkCache;
}

/**
 * A finding's text (src/findings.rs, shared with the CLI, which writes "replica 0") in the page's
 * names for replicas, the charts' R0, R1, …: "Uneven load: replica R0 received 43% of requests".
 * Only a number after "replica " changes, so a percentage or a count never does.
 */
export const findingText = (f) => String(f?.text ?? '').replace(/\breplica (\d+)\b/g, 'replica R$1');

/** A pile-up worth naming at a curve's end: one replica took at least half of the requests. */
export const PILE_SHARE = 0.5;

/**
 * The words after a policy's name at its curve's end, from its last swept point: "all on one
 * replica" when one replica took every request, "63% on one replica" from half of them, else ''.
 * So a flat curve that owes its hits to a fleet of one says so where the eye is.
 */
export function pileNote(q) {
  if (!q || q.instances < 2 || !Number.isFinite(q.busiest_share) || q.busiest_share < PILE_SHARE) return '';
  return q.busiest_share === 1 ? 'all on one replica' : `${countPct(q.busiest_share, 0)} on one replica`;
}
