// tests/e2e/fleet-mix.test.mjs: a mixed fleet as the first screen and the settings show it. The hero's
// headline names the fleet by its GPUs ("On 2 H100 + 2 B200 replicas"); the Replicas slider lays the
// fleet out again in its proportions and says so beside itself (and the Mixed fleet field shows the
// fleet run, which the CLI's --des-fleet runs the same); clearing the fleet gives back the Engine in
// force before it was set, or the page's default when none was.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSite, screenshot, ROOT, nativeBin } from './harness.mjs';
import { statusLine } from '../../www/js/status-bar.js';
import { heroCaption } from '../../www/js/story.js';

const BIN = nativeBin();
let site;
before(async () => { site = await startSite({ heroSweep: false }); });
after(async () => { await site?.close(); });

const PAGE_TIMEOUT = 60000;

function cli(args) {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'kvfleet-mix-')), 'out.json');
  execFileSync(BIN, ['-q', ...args, '--des-report-json', out], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return JSON.parse(readFileSync(out, 'utf8'));
}

async function openPage(where, width = 1280) {
  const opened = await site.open(where, { viewport: { width, height: 900 } });
  await opened.page.waitForFunction(() => window.kvfleet?.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: PAGE_TIMEOUT });
  return opened;
}

/** Waits for a run after `act`, and returns its report. */
async function afterRun(page, act) {
  const n = await page.evaluate(() => window.kvfleet.runCount);
  await act();
  await page.waitForFunction((k) => window.kvfleet.runCount > k, n, { timeout: PAGE_TIMEOUT });
  return page.evaluate(() => window.kvfleet.lastReport);
}

/** The page's words and fields that show the fleet. */
const shown = (page) => page.evaluate(() => {
  const note = (id) => { const e = document.querySelector(`[data-testid=${id}]`); return e && !e.hidden ? e.textContent : ''; };
  return {
    lead: document.querySelector('[data-testid=takeaway]').textContent,
    fleet: document.querySelector('[data-testid=input-fleet]').value,
    engine: document.querySelector('[data-testid=input-engine]').value,
    engineOff: document.querySelector('[data-testid=input-engine]').disabled,
    heroNote: note('hero-fleet-layout-note'), note: note('fleet-layout-note'),
  };
});

async function clearFleet(page) {
  return afterRun(page, async () => {
    await page.locator('[data-testid=input-fleet]').fill('');
    await page.locator('[data-testid=input-fleet]').dispatchEvent('change');
  });
}

test('2 H100 + 2 B200: the headline names the GPUs; the slider lays 6 out as 3 + 3 and says so; the CLI runs the fleet shown; clearing gives back the Engine of the link', async () => {
  const { page, errors, context } = await openPage('/?engine=llama3-8b-mi300x&fleet=2:llama3-8b-h100,2:llama3-8b-b200');
  try {
    let got = await shown(page);
    assert.ok(got.lead.startsWith('On 2 H100 + 2 B200 replicas, round robin serves '), got.lead);
    assert.equal(got.heroNote, '', 'no note before the slider moved');
    // One step right on the hero's slider: 6 replicas, in the fleet's 1:1 proportions 3 + 3.
    const r = await afterRun(page, async () => { await page.focus('#hero-in-instances'); await page.keyboard.press('ArrowRight'); });
    assert.equal(r.config.instances, 6);
    assert.equal(r.config.fleet, '3:llama3-8b-h100,3:llama3-8b-b200');
    got = await shown(page);
    assert.equal(got.fleet, r.config.fleet, 'the Mixed fleet field shows the fleet run');
    const said = '6 replicas laid out in the mixed fleet\'s proportions: 3 H100 + 3 B200 (was 2 H100 + 2 B200).';
    assert.equal(got.heroNote, said, 'beside the hero\'s slider');
    assert.equal(got.note, said, 'beside the settings\' slider and the fleet field');
    assert.ok(got.lead.startsWith('On 3 H100 + 3 B200 replicas, '), got.lead);
    // The fleet shown is what the CLI runs with --des-fleet (which replaces --des-instances).
    const native = cli(['--des-routing', 'round_robin', '--des-fleet', got.fleet]);
    for (const key of ['summary', 'per_instance', 'presets']) assert.deepEqual(r[key], native[key], key);
    await page.evaluate(() => document.activeElement?.blur());
    await screenshot(page, 'fleet-mix-laid-out-1280', { fullPage: false });
    // Cleared: the link's Engine (MI300X), enabled, on the 6 replicas; the note goes with the fleet.
    const c = await clearFleet(page);
    assert.equal(c.config.engine, 'llama3-8b-mi300x');
    assert.equal(c.config.fleet ?? '', '');
    assert.equal(c.config.instances, 6);
    got = await shown(page);
    assert.deepEqual([got.engine, got.engineOff, got.heroNote, got.note], ['llama3-8b-mi300x', false, '', '']);
    assert.ok(got.lead.startsWith('On 6 replicas, '), got.lead);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('a fleet typed over a chosen Engine gives that Engine back when cleared; a link\'s fleet with no Engine gives the default back', async () => {
  const { page, errors, context } = await openPage('/');
  try {
    // The Engine picker is in a group of the settings that starts closed.
    await page.evaluate(() => { const g = document.querySelector('[data-testid=field-engine]').closest('details'); if (g) g.open = true; });
    await afterRun(page, () => page.selectOption('[data-testid=input-engine]', 'llama3-8b-h200'));
    const set = await afterRun(page, async () => {
      await page.locator('[data-testid=input-fleet]').fill('1:llama3-8b-b200,1:llama3-8b-h100');
      await page.locator('[data-testid=input-fleet]').dispatchEvent('change');
    });
    assert.equal(set.config.engine, 'llama3-8b-b200', 'the fleet sets the Engine while it is set');
    assert.equal((await clearFleet(page)).config.engine, 'llama3-8b-h200');
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
  const link = await openPage('/?fleet=2:llama3-8b-b200,2:llama3-8b-h100');
  try {
    const defaults = await link.page.evaluate(() => window.kvfleet.params.find((p) => p.name === 'engine').default);
    assert.equal(defaults, 'llama3-8b-h100');
    assert.equal((await link.page.evaluate(() => window.kvfleet.lastReport.config.engine)), 'llama3-8b-b200');
    assert.equal((await clearFleet(link.page)).config.engine, defaults);
    assert.deepEqual(link.errors, []);
  } finally { await link.context.close(); }
});

test('at 390 px the note sits under the hero\'s slider, inside the controls', async () => {
  const { page, errors, context } = await openPage('/?fleet=2:llama3-8b-h100,1:llama3-8b-mi300x', 390);
  try {
    const r = await afterRun(page, async () => { await page.focus('#hero-in-instances'); await page.keyboard.press('ArrowRight'); });
    // 4 replicas of a 2:1 mix: each added replica goes to the group furthest below its share, 3 + 1.
    assert.equal(r.config.fleet, '3:llama3-8b-h100,1:llama3-8b-mi300x');
    const box = await page.evaluate(() => {
      const n = document.querySelector('[data-testid=hero-fleet-layout-note]').getBoundingClientRect();
      const f = document.querySelector('[data-testid=hero-controls]').getBoundingClientRect();
      return { n: [n.left, n.right], f: [f.left, f.right], text: document.querySelector('[data-testid=hero-fleet-layout-note]').textContent };
    });
    assert.equal(box.text, '4 replicas laid out in the mixed fleet\'s proportions: 3 H100 + 1 MI300X (was 2 H100 + 1 MI300X).');
    assert.ok(box.n[0] >= box.f[0] - 1 && box.n[1] <= box.f[1] + 1, JSON.stringify(box));
    await page.locator('[data-testid=hero-fleet-layout-note]').scrollIntoViewIfNeeded();
    await screenshot(page, 'fleet-mix-laid-out-390', { fullPage: false });
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('a mixed fleet in the status bar and the hero\'s caption: its GPUs, and each count of the figure laid out in its proportions', () => {
  const fleet = '2:llama3-8b-h100,2:llama3-8b-b200';
  const report = { summary: { requests: 200 }, per_instance: [{}, {}, {}, {}], config: { routing: 'kv', fleet }, seed: 42 };
  assert.equal(statusLine(report, 57), '200 requests on 2 H100 + 2 B200 replicas, routing=kv · seed 42 · simulated in 57 ms');
  assert.equal(statusLine({ ...report, config: { routing: 'kv', fleet: '' } }, 57), '200 requests on 4 replicas, routing=kv · seed 42 · simulated in 57 ms');
  const config = { workload: 'pool', num_requests: 200, num_prefixes: 8, prefix_len: 2048, input_len: 4096, block_size: 512, kv_blocks: null,
    instances: 4, routing: 'kv', fleet };
  const caption = heroCaption({ config, traced: false });
  assert.ok(caption.startsWith('Points: your settings simulated at each replica count, each laid out in the mixed fleet\'s proportions (here 2 H100 + 2 B200); click one to load it.'), caption);
  assert.ok(heroCaption({ config: { ...config, fleet: '' }, traced: false }).startsWith('Points: your settings simulated at each replica count; click one'));
});
