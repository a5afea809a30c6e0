// www/js/layout.js: the fleet's layout, colocated or prefill + decode pools, as the page handles it.
// The simulator wants instances = prefill_instances + decode_instances in a disaggregated fleet; every
// control change goes through fitPools so the three stay consistent. The "replicas" the cache story is
// about (the hero's x axis) are the prefill pool's when the fleet is disaggregated: prefix caches live there.

/** Whether a config describes a disaggregated fleet. */
export function isDisagg(c) {
  return c.prefill_instances !== null && c.prefill_instances !== undefined
    && c.decode_instances !== null && c.decode_instances !== undefined;
}

/** The replicas whose caches the router chooses among: the prefill pool, or the whole fleet. */
export function cacheReplicas(c) {
  return isDisagg(c) ? c.prefill_instances : c.instances;
}

/** The config with `x` cache-holding replicas (the decode pool kept as it is). */
export function withCacheReplicas(c, x) {
  return isDisagg(c) ? { ...c, prefill_instances: x, instances: x + c.decode_instances } : { ...c, instances: x };
}

/**
 * The config after control `name` took `value`. The virtual control `fleet_layout` ('colocated' or
 * 'disaggregated') splits the fleet in two halves (prefill gets the odd one) or merges the pools
 * back; a pool size keeps instances at the sum; instances in a disaggregated fleet sizes the prefill pool.
 */
export function fitPools(config, name, value) {
  const c = { ...config };
  if (name === 'fleet_layout') {
    if (value === 'disaggregated' && !isDisagg(c)) {
      const n = Math.max(2, c.instances || 2);
      c.prefill_instances = Math.ceil(n / 2);
      c.decode_instances = n - c.prefill_instances;
      c.instances = n;
    } else if (value === 'colocated' && isDisagg(c)) {
      c.instances = c.prefill_instances + c.decode_instances;
      c.prefill_instances = null;
      c.decode_instances = null;
    }
    return c;
  }
  if (name === 'instances' && isDisagg(c)) return withCacheReplicas(c, value);
  c[name] = value;
  if ((name === 'prefill_instances' || name === 'decode_instances') && isDisagg(c)) {
    c.instances = c.prefill_instances + c.decode_instances;
  }
  return c;
}
