// tests/e2e/mocker-engine.test.mjs: the dynamo-mocker engine (polynomial timing) and the dynamo policy
// on a split fleet give byte-identical JSON reports in wasm (www/pkg, in node) and from the native CLI,
// for the same config and seed: the conversation trace colocated on 4 replicas and split 2 + 2.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './harness.mjs';

const TRACE = path.join(ROOT, 'data/mooncake/conversation_trace.jsonl');

/** The most recently built CLI (a release build left from earlier must not stand in for today's code). */
function nativeBin() {
  const built = ['target/release/kvfleet', 'target/debug/kvfleet'].map((p) => path.join(ROOT, p)).filter((p) => existsSync(p));
  if (!built.length) throw new Error('no kvfleet binary: cargo build first');
  return built.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

/** The native CLI's JSON report for `flags` over the conversation trace. */
function native(flags) {
  const out = execFileSync(nativeBin(), ['--des-mooncake-trace', TRACE, ...flags, '--des-report-json', '-', '-q'],
    { maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] });
  return JSON.parse(out.toString());
}

test('dynamo-mocker and dynamo on a split fleet: wasm and native reports are identical', async () => {
  const pkg = path.join(ROOT, 'www/pkg');
  assert.ok(existsSync(path.join(pkg, 'kvfleet_bg.wasm')), 'www/pkg is missing: run `cargo xtask build` first');
  const m = await import(path.join(pkg, 'kvfleet.js'));
  m.initSync({ module: readFileSync(path.join(pkg, 'kvfleet_bg.wasm')) });
  const text = readFileSync(TRACE, 'utf8');
  const cells = [
    [{ engine: 'dynamo-mocker', routing: 'dynamo', instances: 4, kv_blocks: 1000000, seed: 7 },
      ['--des-engine', 'dynamo-mocker', '--des-routing', 'dynamo', '--des-instances', '4', '--des-kv-blocks', '1000000', '--seed', '7']],
    [{ engine: 'dynamo-mocker', routing: 'dynamo', instances: 4, prefill_instances: 2, decode_instances: 2, kv_bytes_per_token: 1, kv_transfer_base_us: 0 },
      ['--des-engine', 'dynamo-mocker', '--des-routing', 'dynamo', '--des-prefill-instances', '2', '--des-decode-instances', '2', '--des-kv-bytes-per-token', '1', '--des-kv-transfer-base-us', '0']],
  ];
  for (const [config, flags] of cells) {
    const wasm = JSON.parse(m.run_trace_json(JSON.stringify(config), text, 'conversation_trace.jsonl'));
    const cli = native(flags);
    assert.equal(wasm.summary.requests, 12031);
    assert.equal(cli.config.engine, 'dynamo-mocker');
    for (const key of ['config', 'summary', 'per_instance', 'series', 'latency_cdf', 'fleet_lines', 'findings', 'pools']) {
      assert.equal(JSON.stringify(wasm[key]), JSON.stringify(cli[key]), `${key} of ${JSON.stringify(config)}`);
    }
  }
});
