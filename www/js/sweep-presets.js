// www/js/sweep-presets.js: what the sweep panel offers before a reader types anything: suggested
// values per parameter, the parameters listed first, and the one-click presets (including the
// staleness sweep, whose lines are router counts rather than routing policies).

// Suggested values per parameter (any NAME=START:END[:STEP] or NAME=A,B,C works).
export const SUGGEST = {
  overlap_weight: '0:4:0.5', instances: '1,2,4,8,16,32', kv_blocks: '16,24,32,48,64,128,256',
  num_prefixes: '1,2,4,8,16,32,64', prefix_len: '512,1024,2048,3072,4096', request_rate: '2:20:2',
  spill_queue: '0,1,2,4,8,16,32', session_affinity: '0:100:20', block_size: '16,64,128,256,512,1024',
  turns: '2,5,10,20,40', max_batch: '8,16,32,64,128,256', queue_capacity: '0,4,8,16,32,64',
};
export const FIRST = ['overlap_weight', 'instances', 'kv_blocks', 'num_prefixes', 'spill_queue', 'session_affinity', 'request_rate'];

// The staleness preset's workload: bursts (gamma arrivals of shape 0.1) on 8 replicas, the README's
// herding table, so that a stale snapshot has bursts to mislead.
const BURSTY = { arrival_model: 'gamma', burstiness: 0.1, request_rate: 30, num_requests: 2000, instances: 8, num_prefixes: 32, workload: 'pool' };

/**
 * One-click sweeps. A preset's `series` is a routing list ('round_robin,kv'), or its own lines:
 * [{label, set}] where `set` overrides the config for that line; `base` overrides every point,
 * `metrics` names the two charts ('hit' or 'spread', then 'ttft').
 */
export const PRESETS = [
  { id: 'weight', label: 'Overlap weight (kv)', param: 'overlap_weight', spec: '0:4:0.5', series: 'kv',
    title: 'The kv router\'s dial between cache reuse (high weight) and load balance (0)' },
  { id: 'replicas', label: 'Replicas: round_robin vs kv', param: 'instances', spec: '1,2,4,8,16,32', series: 'round_robin,kv',
    title: 'Round robin loses hits as replicas are added; kv keeps each prefix on one replica' },
  { id: 'pd', label: 'P:D split at 8 GPUs', param: 'prefill_instances', spec: '1:7', series: 'kv', metrics: ['tpot', 'ttft'],
    base: { instances: 8, prefill_instances: null, decode_instances: null, request_rate: 24, num_requests: 2000, workload: 'pool' },
    reference: { label: 'colocated 8', set: { prefill_instances: null, decode_instances: null } },
    note: 'P:D split: 8 replicas, P of them prefill only and 8 − P decode only, kv routing on the prefill pool, 24 req/s, 2,000 requests, one seed; dotted: 8 colocated replicas on the same traffic.',
    title: 'Disaggregated prefill and decode at a fixed 8 GPUs: more prefill replicas cut the first-token wait, fewer decode replicas slow every token after it' },
  { id: 'staleness', label: 'Staleness: 1 vs 4 routers', param: 'router_refresh_ms', spec: '0,10,50,100,500',
    series: [{ label: '1 router', set: { routers: 1 } }, { label: '4 routers', set: { routers: 4 } }],
    seriesLabel: '1 router vs 4 routers (preset)', metrics: ['spread', 'ttft'],
    base: { routing: 'kv', router_view: 'snapshot', kv_event_lag_ms: 0, ...BURSTY },
    note: 'Staleness: kv on a snapshot view, bursty traffic (gamma 0.1, 30 req/s, 2,000 requests, 8 replicas, 32 prefixes), one seed.',
    title: 'kv on a snapshot of the fleet refreshed every 0 to 500 ms, for one router and for four that share it, '
      + 'on bursty traffic (gamma 0.1, 30 req/s, 2,000 requests, 8 replicas): load spread and p99 TTFT' },
];

// Lines of one preset's own series: same policy colour, told apart by dash and marker.
export const OWN_STYLES = [{ dash: [], point: 'circle' }, { dash: [6, 4], point: 'rectRot' }, { dash: [2, 3], point: 'triangle' }];

export function suggestion(p, config) {
  if (!p) return '';
  if (SUGGEST[p.name]) return SUGGEST[p.name];
  if (p.kind === 'choice') return p.choices.join(',');
  const v = Number(config[p.name] ?? p.default ?? p.min ?? 1) || 1;
  const pts = [0.25, 0.5, 1, 2, 4].map((f) => v * f)
    .filter((x) => x >= (p.min ?? -Infinity) && x <= (p.max ?? Infinity))
    .map((x) => (p.kind.includes('int') ? Math.max(1, Math.round(x)) : +x.toPrecision(3)));
  return [...new Set(pts)].join(',');
}

/** A swept value as the page writes it (null is an unbounded cache or queue). */
export const valueLabel = (v) => (v === null ? 'unbounded' : String(v));
