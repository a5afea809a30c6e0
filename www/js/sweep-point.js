// www/js/sweep-point.js: the few figures of a run that a sweep's point keeps (the hero's curves and
// sentences read them), from its report: a sweep worker's point, or the run on screen taken as one.

const PICK = ['requests', 'admitted', 'hit_requests', 'hit_rate_tokens', 'hit_rate_requests', 'ttft_ms_p50', 'ttft_ms_p99', 'tpot_ms_p50', 'tpot_ms_p99',
  'e2e_ms_p99', 'load_spread', 'rejected', 'timed_out', 'hot_spot', 'overloaded', 'routing_capture', 'best_hit_blocks'];

/** A sweep point from a report (an object): its summary's figures, findings, and requests per replica. */
export function pointOf(r) {
  const s = r.summary || {};
  // In a disaggregated fleet the point's replicas are the prefill pool's, where the caches are.
  const prefill = r.config?.prefill_instances;
  const point = { instances: prefill ?? r.config?.instances, routing: r.config?.routing };
  for (const k of PICK) point[k] = s[k] ?? null;
  point.findings = (r.findings || []).map((f) => f.kind);
  const rows = prefill ? (r.per_instance || []).filter((x) => x.pool === 'prefill') : (r.per_instance || []);
  point.routed = rows.map(({ index, requests }) => ({ index, requests })); // the hero names a crowded replica
  point.busiest_share = s.requests ? Math.max(0, ...point.routed.map((x) => x.requests)) / s.requests : null;
  return point;
}

/** Whether two configs (objects as the page sends them) have the same settings: the same run. */
export function sameSettings(a, b) {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => JSON.stringify(a[k] ?? null) === JSON.stringify(b[k] ?? null));
}
