// www/js/scales.js: one scale per setting, wherever its slider is (the hero, the settings panel, an
// embed): the values a slider steps through and the ones labelled under its track.

/** The stops labelled under a replica-count slider, whose steps grow past 16 (1 to 16 fill half of it). */
export const REPLICA_MARKS = [1, 4, 8, 16, 64, 256];

/**
 * Stops from `min` to `max`: 1, 2, then two a doubling (3, 4, 6, 8, 12, 16, 24, ... 256), so each key
 * press moves about as far along a log axis as the one before.
 */
export function replicaStops(min = 1, max = 256) {
  const out = new Set([min, max]);
  for (let v = 1; v <= max; v *= 2) {
    out.add(v);
    if (v >= 2) out.add((v * 3) / 2);
  }
  return [...out].filter((v) => v >= min && v <= max).sort((a, b) => a - b);
}

/** A pool's sizes: every count to 16, so any split of a small fleet is a stop, then the replica counts'. */
function poolStops(min, max) {
  const small = Array.from({ length: 16 }, (_, i) => i + 1);
  return [...new Set([...small, ...replicaStops(min, max)])].filter((v) => v >= min && v <= max).sort((a, b) => a - b);
}

/** The largest bounded cache the cache slider offers; a larger one (a link's) joins its stops. */
const CACHE_TOP_BLOCKS = 65536;
/** The round values of each decade the cache slider stops at past 16 (20, 25, 30, 40, 50, 60, 80, 100, 150, ...). */
const CACHE_DECADE = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8];
/**
 * The cache sizes the slider steps through: every count to 16 (a lesson's smallest cache, 9 blocks,
 * is one), then the round values a reader expects (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 a decade: 20,000,
 * 25,000, 30,000, ...) and the powers of two (1,024, 2,048, ... 32,768, a GPU's usual sizes).
 */
export function cacheStops(min = 1, max = CACHE_TOP_BLOCKS) {
  const out = new Set([min, max]);
  for (let v = 1; v <= 16; v++) out.add(v);
  for (let d = 10; d <= max; d *= 10) for (const m of CACHE_DECADE) out.add(m * d);
  for (let v = 1; v <= max; v *= 2) out.add(v);
  return [...out].filter((v) => v >= min && v <= max).sort((a, b) => a - b);
}
/**
 * The smallest cache the simulator accepts for these settings, blocks: the longest request (prompt +
 * output at their means x (1 + range_ratio)) must fit in one replica, as src/params/validate.rs
 * checks (max_lengths; a sessions config's last turn, session_max_lengths). A trace's requests that
 * do not fit are turned away, not refused: 1.
 */
export function cacheFloor(config, traced) {
  if (traced || !config) return 1;
  const hi = (mean) => Math.floor(mean * (1 + (config.range_ratio ?? 0)));
  const block = config.block_size;
  let tokens;
  if (config.workload === 'sessions') {
    const k = (config.turns ?? 1) - 1;
    tokens = (config.system_prompt_len ?? 0) + (k + 1) * hi(config.turn_input_len) + k * hi(config.turn_output_len) + hi(config.turn_output_len);
  } else {
    tokens = hi(config.input_len) + hi(config.output_len);
  }
  const need = Math.ceil(tokens / block);
  return Number.isFinite(need) && need >= 1 ? need : 1;
}

/** Labelled under the cache slider; null is its last stop, the unbounded cache. */
const CACHE_MARKS = [1, 16, 256, 2048, null]; // (4,096 touched "unbounded" on a phone)
/** Labelled under the prefixes slider past its first stop, which is labelled with its own value (0). */
const PREFIX_MARKS = [10, 100, 1000, 10000, 100000];

/**
 * One scale per setting, wherever its slider is (the hero, the settings panel, an embed): the values
 * it steps through and the ones labelled under it. Replica counts step along the hero's log axis; the
 * cache size one block at a time to 16, then round values and powers of two, and its last stop is "unbounded" (null: no
 * value is larger), so no checkbox locks the slider.
 */
export const SCALES = {
  instances: (p) => ({ stops: replicaStops(p.min ?? 1, p.max ?? 256), marks: REPLICA_MARKS }),
  // A pool's size steps one replica at a time to 16 (a small fleet's split: 5 prefill + 3 decode).
  prefill_instances: (p) => ({ stops: poolStops(p.min ?? 1, p.max ?? 255), marks: REPLICA_MARKS }),
  decode_instances: (p) => ({ stops: poolStops(p.min ?? 1, p.max ?? 255), marks: REPLICA_MARKS }),
  kv_blocks: (p) => ({ stops: [...cacheStops(p.min ?? 1, Math.min(p.max ?? CACHE_TOP_BLOCKS, CACHE_TOP_BLOCKS)), null], marks: CACHE_MARKS }),
  num_prefixes: (p) => ({ stops: null, marks: [p.min ?? 0, ...PREFIX_MARKS] }),
};
