// www/js/predict.js: the simple model drawn beside the simulated points (pure, no DOM). With P prefixes
// and N requests, a router that ignores caches makes every replica warm every prefix once, so
// misses ≈ P × R on R replicas; one that keeps each prefix on one home replica misses ≈ P. The
// seed's "Fleet and routing" page states both rules; here they become token hit rates.

/** True when the model applies: the synthetic prefix-pool workload, with a pool, caches that never evict, and a fixed fleet. */
export function modelApplies(config, traced) {
  if (traced) return false;
  const pool = config.workload === undefined || config.workload === 'pool';
  const unbounded = config.kv_blocks === null || config.kv_blocks === undefined;
  return pool && unbounded && !autoscaled(config) && config.num_prefixes > 0 && config.prefix_len > 0;
}

/** Whether an autoscaler resizes the fleet during the run (its replicas are only where it starts). */
export function autoscaled(config) {
  return (config?.autoscale ?? 'off') !== 'off';
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

/**
 * Each prefix's chance of being drawn by one request, as the workload draws them (src/workload.rs,
 * prefix_cdf): "uniform" 1/n each, "zipf:S" ∝ 1/(i+1)^S, "hot:SHARE" SHARE for the first and the rest
 * split evenly. Null for a popularity it does not know.
 */
export function prefixShares(popularity, n) {
  const [kind, arg] = String(popularity || 'uniform').split(':');
  const x = Number(arg);
  if (!(n >= 1)) return null;
  if (kind === 'uniform') return Array(n).fill(1 / n);
  if (kind === 'hot' && Number.isFinite(x)) return n === 1 ? [1] : Array.from({ length: n }, (_, i) => (i === 0 ? x : (1 - x) / (n - 1)));
  if (kind === 'zipf' && Number.isFinite(x)) {
    const w = Array.from({ length: n }, (_, i) => 1 / (i + 1) ** x);
    const total = w.reduce((a, b) => a + b, 0);
    return w.map((v) => v / total);
  }
  return null;
}

/**
 * The requests round robin sends to a replica that was sent the same prefix before, expected by
 * chance: the requests dealt in turn over `replicas` (some get one more), each drawing its prefix by
 * popularity; on a replica with k requests the expected distinct prefixes are Σ 1 − (1 − p)^k, and
 * the rest are repeats. What the simple model (every replica warms every prefix) leaves out when the
 * requests are too few to reach every prefix on every replica. Null when the shares are unknown.
 */
export function expectedRepeats(config, replicas) {
  const shares = prefixShares(config.prefix_popularity, config.num_prefixes);
  const total = config.num_requests;
  if (!shares || !(total >= 0) || !(replicas >= 1)) return null;
  const repeats = (k) => k - shares.reduce((a, p) => a + 1 - (1 - p) ** k, 0);
  const each = Math.floor(total / replicas), more = total % replicas;
  return more * repeats(each + 1) + (replicas - more) * repeats(each);
}
