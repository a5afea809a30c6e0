// tests/e2e/capture.test.mjs: the routing capture's words. In Node: a dip is found only where the
// curve falls to a point and climbs again by half a point on both sides, is said to climb "back" only
// when it ends at least where it started, and is explained only when the capture rises with it. In Chromium: on the conversation trace, kv's dip (a first-time reader
// saw it and nothing said why) is explained with the CLI's own counts, and the dashboard shows the
// capture; on the defaults, kv's capture is given instead.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { captureWords, curveWords, dipWords, findDip } from '../../www/js/story-capture.js';
import { startSite } from './harness.mjs';

const pt = (instances, hit, capture, best = 100) => ({ instances, hit_rate_tokens: hit, routing_capture: capture, best_hit_blocks: best });

test('a dip is a low inside the curve with both sides half a point or more above it', () => {
  assert.equal(findDip([pt(1, 0.37, 1), pt(4, 0.28, 0.75), pt(6, 0.272, 0.728), pt(16, 0.299, 0.8)]).low.instances, 6);
  // Falling all the way (round robin): no dip.
  assert.equal(findDip([pt(1, 0.48, 1), pt(4, 0.42, 0.5), pt(16, 0.24, 0.3)]), null);
  // Its low at an end: no dip.
  assert.equal(findDip([pt(1, 0.3, 1), pt(4, 0.35, 0.8), pt(16, 0.4, 0.9)]), null);
  // Climbing back by less than half a point (29.0% → 29.4%): no dip.
  assert.equal(findDip([pt(1, 0.37, 1), pt(6, 0.29, 0.7), pt(16, 0.294, 0.8)]), null);
  assert.equal(findDip([pt(1, 0.37, 1), pt(6, 0.29, 0.7), pt(16, 0.295, 0.8)]).low.instances, 6);
  assert.equal(findDip([pt(1, 0.3, 1), pt(2, 0.2, 1)]), null, 'two points make no dip');
});

test('the dip is explained only when the capture rises with the curve, and names the best when it is the same', () => {
  const curve = [pt(1, 0.373, 1, 46685), pt(6, 0.27189, 0.72822, 105583), pt(16, 0.29871, 0.80006, 105583)];
  // It started at 37.3% and ends at 29.9%: it climbs, but not "back".
  assert.equal(dipWords(curve, 'kv'), 'kv\'s curve dips from 37.3% at 1 replica to 27.2% at 6 and climbs to 29.9% at 16, short of where it started. '
    + 'At both counts the fleet had the same 105,583 cached blocks ready for the requests (each request counted on the replica that held most of its prompt); '
    + 'what changed is the share of them kv\'s picks found: 72.8% at 6 replicas, 80.0% at 16.');
  const other = [pt(1, 0.373, 1, 46685), pt(6, 0.27189, 0.72822, 105000), pt(16, 0.29871, 0.80006, 105583)];
  assert.match(dipWords(other, 'sglang'), /^sglang's curve dips .* sglang's picks found a larger share of the cached blocks ready for the requests \(each request counted on the replica that held most of its prompt\): 72\.8% at 6 replicas, 80\.0% at 16\.$/);
  for (const words of [dipWords(curve, 'kv'), dipWords(other, 'sglang')]) assert.doesNotMatch(words, /best-placed|as many cached blocks at both counts/, 'no jargon');
  // The capture falls, or is missing: nothing is claimed.
  assert.equal(dipWords([pt(1, 0.373, 1), pt(6, 0.27, 0.8), pt(16, 0.3, 0.7)], 'kv'), null);
  assert.equal(dipWords([pt(1, 0.373, 1), pt(6, 0.27, null), pt(16, 0.3, 0.7)], 'kv'), null);
});

test('a curve "climbs back" only when it ends at least where it started', () => {
  // Hand-made curves (token hit rate by replicas); "back" is checked against the first and last points.
  const cases = [
    // 1.6% → 1.0% → 30.5%: past its start.
    [[pt(1, 0.016, 1), pt(2, 0.010, 0.5), pt(256, 0.305, 0.9)], 'kv\'s curve dips from 1.6% at 1 replica to 1.0% at 2, then climbs back past where it started, to 30.5% at 256.'],
    // 40.0% → 30.0% → 40.0% (as shown): back to its start.
    [[pt(1, 0.4, 1), pt(8, 0.3, 0.5), pt(64, 0.40004, 0.9)], 'kv\'s curve dips from 40.0% at 1 replica to 30.0% at 8 and climbs back to where it started, 40.0% at 64.'],
    // 48.0% → 35.0% → 38.0%: short of its start, no "back".
    [[pt(1, 0.48, 1), pt(14, 0.35, 0.7), pt(256, 0.38, 0.8)], 'kv\'s curve dips from 48.0% at 1 replica to 35.0% at 14 and climbs to 38.0% at 256, short of where it started.'],
  ];
  for (const [points, want] of cases) {
    const words = curveWords(findDip(points), 'kv');
    assert.equal(words, want);
    const [first, last] = [points[0].hit_rate_tokens, points.at(-1).hit_rate_tokens];
    assert.equal(/\bback\b/.test(words), Math.round(1000 * last) >= Math.round(1000 * first), `"back" iff it ends at least where it started: ${words}`);
  }
});

test('the capture sentence is for a policy that chooses by what it sees, and missed something', () => {
  assert.equal(captureWords({ routing_capture: 0.885 }, 'kv', 4), 'kv\'s picks found 88.5% of the cached blocks that the best-placed replica held at each pick.');
  assert.equal(captureWords({ routing_capture: 0.3 }, 'round_robin', 4), null);
  assert.equal(captureWords({ routing_capture: 0.3 }, 'random', 4), null);
  assert.equal(captureWords({ routing_capture: 1 }, 'prefix_aware', 4), null);
  assert.equal(captureWords({ routing_capture: 0.9996 }, 'kv', 4), null, 'reads 100.0%: nothing to say');
  assert.equal(captureWords({ routing_capture: 0.5 }, 'kv', 1), null);
  assert.equal(captureWords({ routing_capture: null }, 'kv', 4), null);
});

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });

const settled = async (page) => {
  await page.waitForFunction(() => window.kvfleet?.runCount > 0 && (window.kvfleet.heroDone || 0) > 0 && !window.kvfleet.hero.pending,
    null, { timeout: 60000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
};

test('on the conversation trace the detail explains kv\'s dip with the CLI\'s counts, and the dashboard shows the capture', async () => {
  // The CLI (--des-mooncake-trace conversation_trace.jsonl --des-routing kv): at 6 replicas 76,888 of
  // 105,583 blocks (72.8%), token hit rate 27.2%; at 256 (the sweep's last count), routing capture
  // 0.9441 (94.4%), 35.2%; at 4, 79,226 (75.0%); at 1, 37.3%.
  const { page, errors } = await site.open('/?trace=conversation_trace.jsonl&routing=kv', { viewport: { width: 1280, height: 900 } });
  await settled(page);
  const detail = await page.textContent('[data-testid=takeaway-detail]');
  // At 1 replica (the sweep's first count) 37.3%: the curve ends short of it, so it does not climb "back".
  assert.ok(detail.includes('kv\'s curve dips from 37.3% at 1 replica to 27.2% at 6 and climbs to 35.2% at 256, short of where it started. '
    + 'At both counts the fleet had the same 105,583 cached blocks ready for the requests (each request counted on the replica that held most of its prompt); '
    + 'what changed is the share of them kv\'s picks found: 72.8% at 6 replicas, 94.4% at 256.'), detail);
  // The glossary link on the routing capture's words.
  assert.equal(await page.getAttribute('[data-testid=takeaway-detail] a.term[href="#term-capture"]', 'href'), '#term-capture');
  const fig = await page.textContent('[data-testid=fig-capture]');
  assert.match(fig, /Routing capture/);
  assert.match(fig, /75\.0%/);
  assert.match(fig, /picks found 79,226 of the 105,583 blocks the best-placed replica held/);
  assert.deepEqual(errors, []);
});

test('on the defaults under kv the detail explains kv\'s dip with the CLI\'s captures, and the dashboard gives the run\'s 88.5%', async () => {
  // The CLI (kvfleet --des-instances N --des-routing kv): at 14 replicas token hit rate 35.0%, routing
  // capture 0.7292 (72.9% of 768 blocks); at 256, 38.0% and 0.7917 (79.2%); at 1, 48.0%; at 4, the seed example,
  // 0.8854: "Routing capture: 88.5% ... (680 of 768 blocks)".
  const { page, errors } = await site.open('/?routing=kv', { viewport: { width: 1280, height: 900 } });
  await settled(page);
  const detail = await page.textContent('[data-testid=takeaway-detail]');
  assert.ok(detail.includes('kv\'s curve dips from 48.0% at 1 replica to 35.0% at 14 and climbs to 38.0% at 256, short of where it started. '
    + 'At both counts the fleet had the same 768 cached blocks ready for the requests (each request counted on the replica that held most of its prompt); '
    + 'what changed is the share of them kv\'s picks found: 72.9% at 14 replicas, 79.2% at 256.'), detail);
  assert.match(await page.textContent('[data-testid=fig-capture]'), /88\.5%/);
  assert.deepEqual(errors, []);
});

test('a policy other than round robin and prefix_aware opens the detail with its own sentence, never another policy\'s', async () => {
  // The CLI (kvfleet --des-instances 4 --des-routing P): llm_d's routing capture is 1 (every cached
  // block the best-placed replica held). A first-time reader who chose llm_d was first told
  // "sticky gets the hits at almost no cost in latency". dynamo's curve dips (48.0% at 1 replica,
  // 36.5% at 14, with its ties drawn among equal costs as Dynamo draws them; while they went to the
  // lowest index it did not dip, and its detail opened with its 89.1% capture), so it opens with
  // its own curve's words.
  const cases = [['llm_d', 'llm_d\'s picks found every cached block that the best-placed replica held at each pick.'],
    ['dynamo', 'dynamo\'s curve dips from 48.0% at 1 replica to 36.5% at 14']];
  for (const [policy, opener] of cases) {
    const { page, errors } = await site.open(`/?routing=${policy}`, { viewport: { width: 1280, height: 900 } });
    await settled(page);
    const detail = await page.textContent('[data-testid=takeaway-detail]');
    assert.ok(detail.startsWith(opener), `${policy}: ${detail}`);
    assert.deepEqual(errors, []);
    await page.close();
  }
  // The whole-capture sentence is the opener's only: never for prefix_aware, never for a capture under 1.
  assert.equal(captureWords({ routing_capture: 1 }, 'prefix_aware', 4), null);
  assert.equal(captureWords({ routing_capture: 1 }, 'sglang', 4, true), 'sglang\'s picks found every cached block that the best-placed replica held at each pick.');
  assert.equal(captureWords({ routing_capture: 0.9999 }, 'sglang', 4, true), null, '99.99% is not "every"');
});
