// www/js/layout.js: the fleet's layout, colocated or prefill + decode pools, as the page handles it.
// The simulator wants instances = prefill_instances + decode_instances in a disaggregated fleet; every
// control change goes through fitPools so the three stay consistent. The "replicas" the cache story is
// about (the hero's x axis) are the prefill pool's when the fleet is disaggregated: prefix caches live there.
// A mixed fleet (`fleet`: COUNT:PRESET groups) sets the replicas and the engine; resized, it keeps its mix.

/** Whether a config describes a disaggregated fleet. */
export function isDisagg(c) {
  return c.prefill_instances !== null && c.prefill_instances !== undefined
    && c.decode_instances !== null && c.decode_instances !== undefined;
}

/** The replicas whose caches the router chooses among: the prefill pool, or the whole fleet. */
export function cacheReplicas(c) {
  return isDisagg(c) ? c.prefill_instances : c.instances;
}

/** The config with `x` cache-holding replicas (the decode pool kept as it is; a mixed fleet keeps its mix). */
export function withCacheReplicas(c, x) {
  const groups = fleetGroups(c);
  if (groups) return { ...c, fleet: fleetText(mixAt(groups, x)), instances: x, engine: groups[0].preset };
  return isDisagg(c) ? { ...c, prefill_instances: x, instances: x + c.decode_instances } : { ...c, instances: x };
}

/**
 * A mixed fleet's groups ("2:llama3-8b-h100,2:llama3-8b-b200" → [{count: 2, preset: …}, …]), or null
 * when `fleet` is empty or not COUNT:PRESET groups of whole counts from 1 (the simulator then names
 * what is wrong).
 */
export function fleetGroups(c) {
  const text = String(c.fleet ?? '').trim();
  if (!text) return null;
  const groups = text.split(',').map((g) => {
    const m = /^\s*(\d+)\s*:\s*([a-z0-9-]+)\s*$/i.exec(g);
    return m ? { count: Number(m[1]), preset: m[2] } : null;
  });
  return groups.every((g) => g && g.count >= 1) ? groups : null;
}

const fleetText = (groups) => groups.filter((g) => g.count > 0).map((g) => `${g.count}:${g.preset}`).join(',');

/**
 * `x` replicas in the fleet's proportions: each next replica goes to the group furthest below its
 * share (the earlier group on a tie), so at the fleet's own size it is the fleet itself, and the first
 * group's preset comes first (the engine the simulator expects).
 */
export function mixAt(groups, x) {
  const out = groups.map((g) => ({ ...g, count: 0 }));
  for (let n = 0; n < x; n++) {
    let k = 0;
    for (let j = 1; j < groups.length; j++) if (out[j].count * groups[k].count < out[k].count * groups[j].count) k = j;
    out[k].count += 1;
  }
  return out;
}

/**
 * The config with the replicas and the engine its mixed fleet sets (the total, the first preset),
 * when `fleet` reads as groups of `known` presets; otherwise as it is, for the simulator to refuse by
 * name.
 */
export function withFleet(c, known) {
  const groups = fleetGroups(c);
  if (!groups || !groups.every((g) => known.includes(g.preset))) return c;
  const instances = groups.reduce((a, g) => a + g.count, 0);
  if (c.instances === instances && c.engine === groups[0].preset) return c;
  return { ...c, instances, engine: groups[0].preset, prefill_instances: null, decode_instances: null };
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
  if (name === 'instances' && (isDisagg(c) || fleetGroups(c))) return withCacheReplicas(c, value);
  c[name] = value;
  if ((name === 'prefill_instances' || name === 'decode_instances') && isDisagg(c)) {
    c.instances = c.prefill_instances + c.decode_instances;
  }
  return c;
}

/**
 * The starting replica counts an autoscaled run accepts, as the simulator checks them
 * (src/params/validate.rs): at least min_instances (unset: 1) and, when max_instances is given, at
 * most it. `{ lo, hi }` (hi null: no most), or null without an autoscaler.
 */
export function startBounds(config) {
  if ((config?.autoscale ?? 'off') === 'off') return null;
  return { lo: config.min_instances ?? 1, hi: config.max_instances ?? null };
}
