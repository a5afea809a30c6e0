// tests/e2e/over-time-stranded.test.mjs: the load-over-time card says when a replica's queue stays on it
// after the autoscaler's first added replica became ready (each replica keeps its own queue), with the
// queue's length and when it emptied read from the report's series; and says nothing of it when the
// added replicas came before any queue grew.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite } from './harness.mjs';

let site;
before(async () => { site = await startSite({ heroSweep: false }); });
after(async () => { await site?.close(); });

const PAGE_TIMEOUT = 60000;
/** The reported case: the step to 30 req/s lands on one replica, whose queue outlasts the added ones' start. */
const STRANDED = '/?autoscale=kpa&request_rate_schedule=0s:4,20s:30,60s:4&num_requests=1500&instances=2&routing=least_loaded';
/** A short start-up: the added replicas are ready before a queue grows. */
const PROMPT = '/?autoscale=kpa&request_rate_schedule=0s:3,10s:12&num_requests=500&instances=2&startup_s=2';

/** The card's words and the report, once the run of `link` is on screen. */
async function cardWords(link) {
  const { page, errors } = await site.open(link, { viewport: { width: 1280, height: 900 } });
  await page.waitForFunction(() => window.kvfleet?.lastReport?.config.autoscale === 'kpa'
    && document.querySelector('[data-testid=ts-words]')?.textContent, null, { timeout: PAGE_TIMEOUT });
  const got = await page.evaluate(() => ({
    words: document.querySelector('[data-testid=ts-words]').textContent, report: window.kvfleet.lastReport,
  }));
  return { ...got, errors };
}

test('a queue that outlasts the first added replica\'s start: the words give its replica, length and end', async () => {
  const { words, report, errors } = await cardWords(STRANDED);
  const m = /When the first added replica became ready \(([\d.]+) s\), R(\d+) still had ([\d,]+) requests waiting and kept them: each replica keeps its own queue, as vLLM does, and a new replica takes only new arrivals; R\d+'s queue emptied at ([\d.]+) s\./.exec(words);
  assert.ok(m, words);
  // Independently: the first ready change, the first sample at or after it, the longest queue then.
  const s = report.series;
  const ready = report.autoscale.changes.filter((c) => c.kind === 'ready')[0];
  assert.equal(Number(m[1]), Math.round(ready.t_s * 10) / 10);
  let k = 0;
  while (s.t_s[k] < ready.t_s) k++;
  const waiting = s.queue.map((q) => q[k]);
  const longest = waiting.indexOf(Math.max(...waiting));
  assert.equal(Number(m[2]), longest);
  assert.equal(Number(m[3].replace(/,/g, '')), waiting[longest]);
  assert.ok(waiting[longest] > 100, `a long queue: ${waiting[longest]}`);
  let e = k + 1;
  while (s.queue[longest][e] !== 0) e++;
  assert.equal(Number(m[4]), Math.round(s.t_s[e] * 10) / 10);
  assert.ok(s.t_s[e] - ready.t_s > 30, 'the queue outlasts the added replica\'s start by more than 30 s');
  assert.deepEqual(errors, []);
});

test('added replicas ready before a queue grows: no such sentence', async () => {
  const { words, report, errors } = await cardWords(PROMPT);
  assert.ok(report.autoscale.changes.some((c) => c.kind === 'ready'), 'replicas were added and became ready');
  assert.ok(!/kept them|its own queue/.test(words), words);
  assert.deepEqual(errors, []);
});
