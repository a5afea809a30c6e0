// www/js/noise.js: the page's rule for "beyond noise" (src/noise.rs beyond_noise): two figures measured
// over several seeds differ beyond noise when their 95 % intervals ({ci95_low, ci95_high}) do not overlap.
// Pure, no DOM: the hero's band (hero-band.js) and the comparison sentences (story-speed.js) share it.

/** True when the intervals of `a` and `b` do not overlap, false when they do, null when either has none. */
export function beyondNoise(a, b) {
  const known = (s) => Number.isFinite(s?.ci95_low) && Number.isFinite(s?.ci95_high);
  if (!known(a) || !known(b)) return null;
  return a.ci95_low > b.ci95_high || b.ci95_low > a.ci95_high;
}

/** A share in the tenths of a percent the words print. */
const tenths = (x) => Math.round(1000 * x);

/**
 * Apart as the words print shares: beyond noise, and the intervals apart at 0.1% too, so "42.4%
 * (42.0%–42.8%)" is never called apart from "42.0% (the same on every seed)".
 */
export function apartAsShown(a, b) {
  return !!beyondNoise(a, b) && (tenths(a.ci95_low) > tenths(b.ci95_high) || tenths(b.ci95_low) > tenths(a.ci95_high));
}

/**
 * Whether two swept points ({q}, each q maybe with q.seeds[key], the spread over seeds the hero's band
 * adds) differ in `key` beyond noise: for a share, as printed (apartAsShown); null when either has no spread.
 */
export function seedsApart(a, b, key) {
  const s = a?.q?.seeds?.[key], t = b?.q?.seeds?.[key];
  if (!s || !t || beyondNoise(s, t) === null) return null;
  return key === 'hit_rate_tokens' ? apartAsShown(s, t) : beyondNoise(s, t);
}
