// Smoke test of the page: it loads with no console errors and shows the wasm version.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, screenshot, startSite } from './harness.mjs';

let site;
before(async () => {
  site = await startSite();
});
after(async () => {
  await site?.close();
});

test('the page loads with no console errors and shows the wasm version', async () => {
  const cargo = await readFile(join(ROOT, 'Cargo.toml'), 'utf8');
  const expected = cargo.match(/^version\s*=\s*"([^"]+)"/m)[1];

  const { page, errors } = await site.open('/');
  const version = page.locator('#version');
  // The version comes from the wasm module (api::version), so this waits for wasm to load.
  await assert.doesNotReject(
    version.filter({ hasText: expected }).waitFor({ timeout: 15_000 }),
    `#version never showed ${expected}; errors: ${errors.join('\n')}`,
  );
  await page.waitForLoadState('networkidle');
  await screenshot(page, 'smoke');
  assert.deepEqual(errors, [], `console errors:\n${errors.join('\n')}`);
});
