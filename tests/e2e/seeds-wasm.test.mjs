// tests/e2e/seeds-wasm.test.mjs: a run over K seeds is the same bytes natively and in WebAssembly: the
// wasm's run_seeds_json and the command line's --des-seeds K --des-report-json - write one string for the
// same config and seed, `seeds` section included. No browser (the wasm package in Node).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, nativeBin } from './harness.mjs';

let mod;

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'pkg/package.json')), 'pkg/ is missing: run `cargo xtask build` first');
  mod = await import(pathToFileURL(path.join(ROOT, 'pkg', 'kvfleet.js')).href);
  mod.initSync({ module: readFileSync(path.join(ROOT, 'pkg', 'kvfleet_bg.wasm')) });
});

test('--des-seeds 3 natively and run_seeds_json(config, 3) in wasm write the same bytes', () => {
  const cli = execFileSync(nativeBin(), ['--des-instances', '6', '--des-routing', 'random', '--des-num-requests', '300', '--seed', '7',
    '--des-seeds', '3', '--des-report-json', '-', '-q'], { cwd: ROOT, encoding: 'utf8' }).trimEnd();
  const wasm = mod.run_seeds_json(JSON.stringify({ instances: 6, routing: 'random', num_requests: 300, seed: 7 }), 3);
  assert.equal(wasm, cli);
  const seeds = JSON.parse(wasm).seeds;
  assert.deepEqual(seeds.seeds, [7, 8, 9]);
  // One seed: no section, the plain run's bytes.
  assert.equal(mod.run_seeds_json(JSON.stringify({ num_requests: 300 }), 1), mod.run_json(JSON.stringify({ num_requests: 300 })));
  assert.throws(() => mod.run_seeds_json('{}', 0), /--des-seeds: invalid count: got 0/);
});
