// www/js/embed-sweep-opts.js: what an embed's sweep figure (?embed=1&show=sweep, embed-sweep.js)
// reads from the address, and the sentence under it. sweep= is a sweep panel preset (pd, replicas,
// weight, staleness) or NAME=VALUES as in the CLI's --des-sweep (prefill-instances=1:7, overlap_weight=0:4:0.5, instances=1,2,4,8);
// sweep_routing= the lines (a policy, a comma list of policies, all, or current). The embed's controls
// re-run the sweep; a preset's workload is the embed's settings (the address's own values win).
// (Light: the page loads it up front; the figure itself, with the sweep panel's code, on demand.)

import { fmtMs } from './charts.js';
import { countPct } from './format.js';
import { PRESETS, valueLabel } from './sweep-presets.js';

export const DEFAULT_SWEEP = 'pd';
export const ALLOWED = `a preset (${PRESETS.map((p) => p.id).join(', ')}) or NAME=VALUES (e.g. instances=1,2,4,8 or overlap_weight=0:4:0.5)`;

/**
 * Reads sweep= and sweep_routing= (bad values fall back to the pd preset, or the preset's lines, with
 * a note): {preset, param, spec, series, given: {sweep, routing}}.
 */
export function sweepOptions(q, params, notes) {
  const routingChoices = params.find((p) => p.name === 'routing')?.choices || [];
  const usable = new Set(params.filter((p) => p.name !== 'seed' && p.kind !== 'text').map((p) => p.name));
  const raw = (q.get('sweep') || '').trim();
  let out = null;
  if (raw) {
    const preset = PRESETS.find((p) => p.id === raw);
    const m = /^([A-Za-z_-]+)=(\S+)$/.exec(raw);
    const name = m ? m[1].replace(/-/g, '_') : null;
    if (preset) out = { preset: preset.id, param: preset.param, spec: preset.spec, series: preset.series };
    else if (m && usable.has(name)) out = { preset: null, param: name, spec: m[2], series: 'current' };
    else notes.push(`Unknown sweep=“${raw.slice(0, 40)}”; allowed: ${ALLOWED}. Showing the ${DEFAULT_SWEEP} sweep.`);
  }
  const given = { sweep: out ? raw : null, routing: null };
  if (!out) {
    const p = PRESETS.find((x) => x.id === DEFAULT_SWEEP);
    out = { preset: p.id, param: p.param, spec: p.spec, series: p.series };
  }
  const r = q.get('sweep_routing');
  if (r !== null && !Array.isArray(out.series)) {
    const names = r.split(',').map((n) => n.trim()).filter(Boolean);
    const ok = names.length && (names.join() === 'all' || names.join() === 'current' || names.every((n) => routingChoices.includes(n)));
    if (ok) {
      out.series = names.join(',');
      given.routing = out.series;
    } else {
      const showing = out.series === 'current' ? 'the current routing' : out.series;
      notes.push(`Unknown sweep_routing=“${r.slice(0, 40)}”; allowed: current, all, or policies from ${routingChoices.join(', ')} (comma-separated). Showing ${showing}.`);
    }
  }
  out.given = given;
  return out;
}

/** The workload a preset sets, for the settings the address does not give. */
export function presetBase(id) {
  return { ...(PRESETS.find((p) => p.id === id)?.base || {}) };
}

/** The computed sentence: each line's token hit rate at both ends (when the hit rate is charted), its lowest
 * p99 TTFT (ties named together), its lowest p99 TPOT (when charted), and the reference run. */
export function sweepSentence(last) {
  if (!last?.series) return '';
  const param = last.param;
  const lowest = (se, key) => {
    const vals = se.summaries.map((s) => s[key]);
    const low = Math.min(...vals.filter(Number.isFinite));
    const at = se.plan.points.filter((_, i) => fmtMs(vals[i]) === fmtMs(low)).map((p) => valueLabel(p.value));
    const where = at.length > 1 ? `${at.slice(0, -1).join(', ')} and ${at[at.length - 1]} tie` : at[0];
    return `${param} = ${where} (${fmtMs(low)})`;
  };
  const tpot = (last.metrics || []).includes('tpot');
  const hit = (last.metrics || ['hit'])[0] === 'hit';
  // The hit chart: prompt tokens from cache at the sweep's first and last value.
  const ends = (se) => {
    const S = se.summaries, P = se.plan.points;
    return `prompt tokens from cache ${countPct(S[0].hit_rate_tokens)} at ${valueLabel(P[0].value)}, ${countPct(S[S.length - 1].hit_rate_tokens)} at ${valueLabel(P[P.length - 1].value)}; `;
  };
  const parts = last.series.map((se) => {
    const who = last.series.length > 1 || se.style ? `${se.label}: ` : `${se.routing}: `;
    return `${who}${hit ? ends(se) : ''}lowest p99 TTFT at ${lowest(se, 'ttft_ms_p99')}${tpot ? `; lowest p99 TPOT at ${lowest(se, 'tpot_ms_p99')}` : ''}`;
  });
  const ref = last.reference ? ` ${last.reference.label}: p99 TTFT ${fmtMs(last.reference.summary.ttft_ms_p99)}${tpot ? `, p99 TPOT ${fmtMs(last.reference.summary.tpot_ms_p99)}` : ''}.` : '';
  return `${parts.join('. ')}.${ref}`;
}

