// tests/e2e/words-format.test.mjs: format.js's countPct, in Node (no browser): a share of a count that
// is not all never prints as 100.0%, nor a nonzero one as 0.0%; exact all and none print as pct does.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countPct, findingText, pct, pileNote } from '../../www/js/format.js';

test('a share of requests that is not all never reads 100.0%, and a nonzero one never 0.0%', () => {
  // The conversation trace: 12,027 of 12,031 requests found a cached block. 99.9668% is "100.0%" to
  // one decimal; two decimals tell it apart: "99.97%".
  assert.equal(pct(12027 / 12031), '100.0%', 'the plain pct rounds it to all');
  assert.equal(countPct(12027 / 12031), '99.97%');
  // 1 of 12,031 is 0.0083%: "0.0%" to one decimal, "0.01%" to two.
  assert.equal(countPct(1 / 12031), '0.01%');
  // None and all print as they are.
  assert.equal(countPct(0 / 12031), '0.0%');
  assert.equal(countPct(12031 / 12031), '100.0%');
  // Shares away from the ends keep their digits.
  assert.equal(countPct(4757 / 12031), '39.5%');
  assert.equal(countPct(4757 / 12031, 0), '40%');
  // Whole percents: 1,995 of 2,000 is 99.75%, "100%" whole, so one decimal: "99.8%".
  assert.equal(countPct(1995 / 2000, 0), '99.8%');
  // 9,995 of 10,000 (99.95%) rounds to 100.0 at one decimal: two.
  assert.equal(countPct(9995 / 10000), '99.95%');
});

test('past two more decimals, a bound: "> 99.999%" and "< 0.001%"', () => {
  assert.equal(countPct((1e9 - 1) / 1e9), '> 99.999%');
  assert.equal(countPct(1 / 1e9), '< 0.001%');
  assert.equal(countPct(1 / 1e9, 0), '< 0.01%');
  for (const [a, b] of [[12027, 12031], [1, 12031], [1, 1e9], [1e9 - 1, 1e9], [1, 3], [2, 3]]) {
    const text = countPct(a / b);
    assert.doesNotMatch(text, /^(100(\.0+)?|0(\.0+)?)%$/, `${a} of ${b}: ${text}`);
  }
});

test('no number, no share: "–", as pct writes it', () => {
  for (const x of [NaN, null, undefined, Infinity]) assert.equal(countPct(x), '–');
});

test('a finding names replicas as the charts do (R0), and leaves every other number alone', () => {
  // The texts as src/findings.rs writes them (its tests pin these words).
  const uneven = 'Uneven load: replica 0 received 43% of requests (86 of 200; an even share is 25%).';
  assert.equal(findingText({ text: uneven }), 'Uneven load: replica R0 received 43% of requests (86 of 200; an even share is 25%).');
  const hit = 'Uneven hit rate: replica 12 serves 80% of its prompt tokens from cache, replica 2 only 20%.';
  assert.equal(findingText({ text: hit }), 'Uneven hit rate: replica R12 serves 80% of its prompt tokens from cache, replica R2 only 20%.');
  // "the other replicas kept up" and "4 replicas" have no replica number to rename.
  assert.equal(findingText({ text: 'Overloaded: replica 3 cannot keep up (backlog grew from 22 to 75), while the other replicas kept up on 4 replicas.' }),
    'Overloaded: replica R3 cannot keep up (backlog grew from 22 to 75), while the other replicas kept up on 4 replicas.');
  assert.equal(findingText({}), '');
});

test('kv\'s cost is worded one way wherever the page writes it, in the decisions table\'s column names', async () => {
  const { readFileSync } = await import('node:fs');
  const { KV_COST, describePolicy } = await import('../../www/js/policies.js');
  const html = readFileSync(new URL('../../www/index.html', import.meta.url), 'utf8')
    .replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');
  // src/router.rs, Router::kv_cost: weight × (full blocks − hits) + active blocks + recent.
  assert.equal(KV_COST, 'overlap weight × missed blocks + active blocks + recent misses (decayed)');
  const mentions = [...html.matchAll(/overlap weight ×/g)].map((m) => html.slice(m.index, m.index + KV_COST.length));
  assert.equal(mentions.length, 2, 'the intro and the decisions card');
  for (const m of mentions) assert.equal(m, KV_COST);
  assert.equal(describePolicy('kv'), `Lowest ${KV_COST}.`);
  const decisions = readFileSync(new URL('../../www/js/decisions.js', import.meta.url), 'utf8');
  for (const column of ['Active blocks', 'Recent misses']) {
    assert.ok(decisions.includes(`'${column}'`), `the decisions table has a ${column} column`);
    assert.ok(KV_COST.includes(column.toLowerCase()), `${column} is a term of the cost`);
  }
});

test('a curve\'s pile-up note: from half of the requests on one replica, "all" only when every one is', () => {
  // The conversation trace under prefix_aware at 16 replicas: 12,031 of 12,031 on replica 11 (the CLI).
  assert.equal(pileNote({ instances: 16, busiest_share: 12031 / 12031 }), 'all on one replica');
  // 12,030 of 12,031 is not all, though it rounds to 100 %.
  assert.equal(pileNote({ instances: 16, busiest_share: 12030 / 12031 }), '99.99% on one replica');
  assert.equal(pileNote({ instances: 16, busiest_share: 126 / 200 }), '63% on one replica');
  // Exactly half counts; just under does not (the defaults' prefix_aware at 16: 46 of 200, none).
  assert.equal(pileNote({ instances: 4, busiest_share: 100 / 200 }), '50% on one replica');
  assert.equal(pileNote({ instances: 4, busiest_share: 99 / 200 }), '');
  assert.equal(pileNote({ instances: 16, busiest_share: 46 / 200 }), '');
  // One replica takes everything by definition: no note; nor for a point without the share.
  assert.equal(pileNote({ instances: 1, busiest_share: 1 }), '');
  assert.equal(pileNote({ instances: 8 }), '');
  assert.equal(pileNote(null), '');
});
