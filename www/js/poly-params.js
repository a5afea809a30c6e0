// www/js/poly-params.js: the custom engine's polynomial phases as page settings (config keys
// prefill_poly_ms and decode_poly_ms, the CLI's --des-prefill-poly-ms and --des-decode-poly-ms): their
// specs, added by the page to the simulator's parameter table (which has numbers and texts only, so
// these two arrays are described here rather than in the wasm), and the "C0,C1,C2" text a link and
// the settings panel write them as. The simulator checks the rest (the decode phase >= 0 over every
// utilisation) and names the field when it refuses one.

/** Largest magnitude of a coefficient (src/timing.rs MAX_POLY_COEFFICIENT). */
export const MAX_POLY_COEFFICIENT = 1e6;

/** No polynomial phase: the simulator's default (src/timing.rs NO_POLY). */
export const NO_POLY = [0, 0, 0];

/** The two settings, in the shape of the simulator's params_json rows; kind `poly`: three numbers. */
export const POLY_PARAMS = [
  {
    name: 'prefill_poly_ms', flag: '--des-prefill-poly-ms', label: 'Prefill polynomial', kind: 'poly', default: NO_POLY,
    log: false, unit: 'ms', help: 'custom engine: c0,c1,c2: a step that computes T > 0 prompt tokens adds c0 + c1·T + c2·T² ms (Dynamo\'s mocker form; 0,0,0: none).',
  },
  {
    name: 'decode_poly_ms', flag: '--des-decode-poly-ms', label: 'Decode polynomial', kind: 'poly', default: NO_POLY,
    log: false, unit: 'ms', help: 'custom engine: d0,d1,d2: a step in which a sequence emits a token adds d0 + d1·u + d2·u² ms, u the KV utilisation (0 when the cache is unbounded; 0,0,0: none).',
  },
];

/** Reads "C0,C1,C2" (spaces allowed): {value: [c0, c1, c2]} or {error} in words. */
export function parsePoly(raw) {
  const parts = String(raw).split(',').map((s) => s.trim());
  if (parts.length !== 3) return { error: `“${raw}” is not three numbers C0,C1,C2` };
  const value = [];
  for (const s of parts) {
    if (!/^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(s)) return { error: `“${s}” in “${raw}” is not a number` };
    const v = Number(s);
    if (!Number.isFinite(v) || Math.abs(v) > MAX_POLY_COEFFICIENT) return { error: `${s} is beyond ±${MAX_POLY_COEFFICIENT.toExponential()}` };
    value.push(v);
  }
  return { value };
}

/** A polynomial as the link and the CLI flag write it: "c0,c1,c2" (every digit kept). */
export function polyText(v) {
  return Array.isArray(v) ? v.map(String).join(',') : String(v ?? '');
}
