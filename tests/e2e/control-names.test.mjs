// tests/e2e/control-names.test.mjs: every slider, picker, number box, radio button and group of
// buttons on the page (the main page, a lesson's workbench, an embed) has an accessible name, and it
// is the words on screen beside it (its label or legend), never an internal id such as "in-request_rate".
// The names are read from Chromium's accessibility tree; the expected words from the page's text.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSite } from './harness.mjs';

let site;
before(async () => { site = await startSite({ heroSweep: false }); });
after(async () => { await site?.close(); });

const ROLES = new Set(['slider', 'combobox', 'spinbutton', 'radio', 'checkbox', 'group']);

// In the page: the words a reader sees for a control (its <label for>, the label around it, or its
// field's label), or for a fieldset its legend; null for an element this test does not judge.
function visibleWords(node) {
  const norm = (s) => s.replace(/\s+/g, ' ').trim();
  const text = (label) => { const c = label.cloneNode(true); c.querySelectorAll('select, input, textarea').forEach((x) => x.remove()); return norm(c.textContent); };
  if (node.tagName === 'FIELDSET') return norm(node.querySelector('legend')?.textContent ?? '');
  if (node.getAttribute('role') === 'group') return null; // named groups (policy groups, presets) are checked for a name only
  if (!/^(INPUT|SELECT)$/.test(node.tagName)) return null;
  const own = node.id && document.querySelector(`label[for="${CSS.escape(node.id)}"]`);
  if (own) return text(own);
  const around = node.closest('label');
  if (around) return text(around);
  return null;
}

async function names(page) {
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  const ids = new Set(await page.evaluate(() => [...document.querySelectorAll('[id]')].map((e) => e.id)));
  const out = [];
  for (const n of nodes) {
    if (n.ignored || !ROLES.has(n.role?.value) || !n.backendDOMNodeId) continue;
    const { object } = await cdp.send('DOM.resolveNode', { backendNodeId: n.backendDOMNodeId });
    const { result } = await cdp.send('Runtime.callFunctionOn', {
      objectId: object.objectId, returnByValue: true,
      functionDeclaration: `function () { return { tag: this.tagName, id: this.id, testid: this.dataset?.testid, want: (${visibleWords})(this),
        judged: this.tagName === 'FIELDSET' || this.getAttribute('role') === 'group' || /^(INPUT|SELECT)$/.test(this.tagName) }; }`,
    });
    if (!result.value.judged) continue; // (a <details> is a group too: its summary is its name on screen)
    out.push({ role: n.role.value, name: n.name?.value ?? '', ...result.value });
  }
  await cdp.detach();
  return { out, ids };
}

for (const url of ['/', '/?lesson=more-replicas-slower', '/?lesson=hot-prefix', '/?embed=1&lesson=more-replicas-slower', '/?embed=1']) {
  test(`${url}: every control is named by the words on screen beside it`, async () => {
    const { page, errors, context } = await site.open(url, { viewport: { width: 1280, height: 900 } });
    try {
      await page.waitForFunction(() => window.kvfleet?.runCount > 0 && window.kvfleet.panelsBuilt, null, { timeout: 60000 });
      if (url.includes('lesson') && !url.includes('embed')) await page.waitForSelector('[data-testid=lesson-controls] input[type=range]');
      const { out, ids } = await names(page);
      const sliders = out.filter((c) => c.role === 'slider');
      assert.ok(sliders.length >= 1, `sliders found: ${sliders.length}`);
      if (url.includes('lesson') && !url.includes('embed')) {
        assert.ok(out.some((c) => c.id?.startsWith('lesson-in-')), 'the lesson workbench\'s controls are in the tree');
      }
      const bad = [];
      for (const c of out) {
        const where = `${c.role} ${c.testid || c.id || c.tag}`;
        if (!c.name.trim()) bad.push(`${where}: no name`);
        else if (ids.has(c.name) || /(^|-)(in|field|out)-\w/.test(c.name)) bad.push(`${where}: named by an id (“${c.name}”)`);
        else if (c.want !== null && c.want !== undefined && c.name !== c.want) bad.push(`${where}: “${c.name}”, its label says “${c.want}”`);
      }
      assert.deepEqual(bad, []);
      assert.deepEqual(errors, []);
    } finally { await context.close(); }
  });
}
