// tests/e2e/reps-head.test.mjs: the line above the hero's per-replica chart, in Node (no browser): the
// busiest replica's share and the even one keep enough digits that neither reads "0%" on a large fleet,
// and both carry the same number of decimals.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headWords } from '../../www/js/hero-replicas.js';

/** n replicas, replica 0 with `top` requests and every other with one. */
function fleet(n, top) {
  const per = Array.from({ length: n }, (_, i) => ({ index: i, requests: i === 0 ? top : 1 }));
  return [per, { requests: top + n - 1 }];
}

test('256 replicas: the even share reads 0.4%, not 0%', () => {
  // 258 requests, 3 on R0: 1.16% against an even 1/256 = 0.39%.
  assert.equal(headWords(...fleet(256, 3)), 'This run: R0 is hot, 1.2% of requests (even 0.4%)');
  // Even load: 1 request each, 0.39% both.
  assert.equal(headWords(...fleet(256, 1)), 'This run: busiest replica 0.4% of requests (even 0.4%)');
});

test('a few replicas keep whole percents', () => {
  // 4 replicas, 7 of 10 requests on R0: 70% against an even 25%.
  assert.equal(headWords(...fleet(4, 7)), 'This run: R0 is hot, 70% of requests (even 25%)');
});

test('no share but zero itself reads 0%', () => {
  for (const n of [16, 64, 200, 256]) {
    const words = headWords(...fleet(n, 2));
    assert.doesNotMatch(words, /(?<![\d.])0%/, `${n} replicas: ${words}`);
    const digits = [...words.matchAll(/(\d+(?:\.(\d+))?)%/g)].map((m) => (m[2] || '').length);
    assert.equal(new Set(digits).size, 1, `${n} replicas: the two shares carry the same decimals (${words})`);
  }
});
