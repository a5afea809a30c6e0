// www/js/predict.js: the simple model drawn beside the simulated points (pure, no DOM). With P prefixes
// and N requests, a router that ignores caches makes every replica warm every prefix once, so
// misses ≈ P × R on R replicas; one that keeps each prefix on one home replica misses ≈ P. The
// seed's "Fleet and routing" page states both rules; here they become token hit rates.

/** True when the model applies: the synthetic prefix-pool workload, with a pool, and caches that never evict. */
export function modelApplies(config, traced) {
  if (traced) return false;
  const pool = config.workload === undefined || config.workload === 'pool';
  const unbounded = config.kv_blocks === null || config.kv_blocks === undefined;
  return pool && unbounded && config.num_prefixes > 0 && config.prefix_len > 0;
}

/** Prompt tokens one hit reuses: the prefix's full blocks, at most floor((prompt - 1) / block). */
export function reusableTokens(config) {
  const bs = config.block_size;
  if (config.prefix_len > config.input_len) return 0;
  const prefixBlocks = Math.floor(config.prefix_len / bs);
  const cap = Math.floor((config.input_len - 1) / bs);
  return Math.min(prefixBlocks, cap) * bs;
}

/** Predicted cold misses (requests that find no cached block) on `replicas` replicas. */
export function predictedMisses(config, policy, replicas) {
  const n = config.num_requests;
  const p = config.num_prefixes;
  const perFleet = policy === 'round_robin' ? p * replicas : p;
  return Math.min(n, perFleet);
}

/** Predicted token hit rate: the share of prompt tokens a hit reuses, times the share of hits. */
export function predictedTokenHitRate(config, policy, replicas) {
  const n = config.num_requests;
  if (!(n > 0) || !(config.input_len > 0)) return null;
  const share = reusableTokens(config) / config.input_len;
  return share * (1 - predictedMisses(config, policy, replicas) / n);
}

/** The two model curves over `xs` replica counts, or null when the model does not apply. */
export function predictionCurves(config, traced, xs) {
  if (!modelApplies(config, traced)) return null;
  return {
    round_robin: xs.map((r) => ({ x: r, y: predictedTokenHitRate(config, 'round_robin', r) })),
    prefix_aware: xs.map((r) => ({ x: r, y: predictedTokenHitRate(config, 'prefix_aware', r) })),
  };
}
