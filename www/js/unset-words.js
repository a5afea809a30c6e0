// www/js/unset-words.js: what a setting with no value means, in the page's words: [short, long] per
// setting (the short on a control's readout and in a link's fallback note, the long in its tooltip).
// An unset setting is not always "unbounded": no minimum replica count means 1, no TTFT target means
// the slo scaler's own.

const NONE = {
  kv_blocks: ['unbounded', 'Unbounded (no evictions: the ceiling)'], // the cache slider's last stop (SCALES)
  kv_bytes_per_token: ['preset', "The engine preset's (a custom engine must set it)"],
  queue_capacity: ['unbounded', 'Unbounded queue (never reject)'],
  timeout_ms: ['none', 'No timeout (callers wait forever)'],
  cpu_kv_blocks: ['none', 'No CPU tier (an evicted block is gone)'],
  shared_kv_blocks: ['none', 'No shared tier (what a replica drops is gone)'],
  session_affinity: ['policy default', 'Policy default (100% for sticky, 0 otherwise)'],
  router_vcpu: ['free', 'Free, instant router (its CPU not modelled)'],
  router_queue: ['unbounded', 'Unbounded router queue (never reject)'],
  min_instances: ['1', 'Default: 1 replica'],
  max_instances: ['4 x start', 'Default: 4 x the starting replicas (at most 256)'],
  startup_s: ['preset', "The engine preset's assumed delay: 30 s + weights / (2 GB/s per GPU)"],
  slo_ttft_ms: ['no target', 'No TTFT target (the slo scaler uses 500 ms)'],
  slo_itl_ms: ['no target', 'No ITL target (the slo scaler uses 50 ms)'],
};
export const noneWords = (p) => NONE[p.name] || ['unset', 'Unset (the simulator\'s default)'];
