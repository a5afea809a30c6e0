// tests/e2e/noise-words.test.mjs: the hero's sentence on the seeds (www/js/hero-band.js noiseWords), on
// hand-computed spreads: "beyond noise" only where the 95 % intervals part, "within noise" where they
// overlap, nothing with one seed. No browser.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { noiseWords, beyondNoise, apartAsShown } from '../../www/js/hero-band.js';

// Three seeds: mean ± 4.30265273 × s / √3; values x − 0.01, x, x + 0.01 give s = 0.01, ± 0.0248414.
const three = (x) => ({ mean: x, ci95_low: x - 0.0248414, ci95_high: x + 0.0248414 });

test('kv at 41.0% (38.5–43.5%): less than round robin at 51.0% (48.5–53.5%), within noise of prefix_aware at 43.0% (40.5–45.5%)', () => {
  const words = noiseWords(3, { policy: 'kv', spread: three(0.41) },
    [{ policy: 'round_robin', spread: three(0.51) }, { policy: 'prefix_aware', spread: three(0.43) }]);
  assert.equal(words, "Over 3 seeds, kv serves 41.0% of prompt tokens from cache (95% interval 38.5%–43.5%): "
    + "less than round robin's 51.0% (48.5%–53.5%), beyond noise; within noise of prefix_aware's 43.0% (40.5%–45.5%).");
});

test('intervals that touch as printed are within noise; one seed (no interval) says nothing', () => {
  const kv = { mean: 0.424, ci95_low: 0.42004, ci95_high: 0.428 };
  const rr = { mean: 0.42, ci95_low: 0.42, ci95_high: 0.42 };
  assert.equal(beyondNoise(kv, rr), true, 'apart by 0.00004');
  assert.equal(apartAsShown(kv, rr), false, 'both print 42.0%');
  // An interval of no width (every seed gave 42.0%) is said so.
  assert.match(noiseWords(5, { policy: 'kv', spread: kv }, [{ policy: 'round_robin', spread: rr }]), /within noise of round robin's 42.0% \(the same on every seed\)\.$/);
  assert.equal(beyondNoise({ mean: 0.4, ci95_low: null, ci95_high: null }, rr), null);
  assert.equal(noiseWords(1, { policy: 'kv', spread: { mean: 0.4, ci95_low: null, ci95_high: null } }, []), '');
});
