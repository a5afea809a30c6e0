// tests/e2e/package.test.mjs: pkg/ is an npm package. `npm pack` accepts it; the packed tarball,
// imported in Node, runs a config object through the typed API (`run`, `runTrace`) and returns the
// same report as `run_json`; tsc type-checks real reports against its TypeScript types, so a
// key the types lack, a key they invent, or a null where they promise a number fails; and the
// types (derived from the Rust types by tsify) agree with the report's JSON Schema (derived by
// schemars, docs/src/report.schema.json) on every type's keys, which may be null, which may be
// absent, and every enumeration's values.

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './harness.mjs';

let dir, mod;

/// tsc --strict over `file` in the unpacked package: '' when it type-checks, else its errors.
function tsc(file) {
  try {
    execFileSync(path.join(ROOT, 'node_modules/.bin/tsc'), ['--noEmit', '--strict', '--target', 'esnext', '--lib', 'esnext,dom', '--module', 'esnext', '--moduleResolution', 'bundler', file], { cwd: path.join(dir, 'package'), encoding: 'utf8' });
    return '';
  } catch (e) { return `${e.stdout}${e.stderr}`; }
}

before(async () => {
  assert.ok(existsSync(path.join(ROOT, 'pkg/package.json')), 'pkg/ is missing: run `cargo xtask build` first');
  dir = mkdtempSync(path.join(tmpdir(), 'kvfleet-pack-'));
  const out = execFileSync('npm', ['pack', path.join(ROOT, 'pkg'), '--pack-destination', dir, '--json'], { cwd: dir, encoding: 'utf8' });
  const [{ filename }] = JSON.parse(out);
  execFileSync('tar', ['-xzf', path.join(dir, filename), '-C', dir]);
  mod = await import(pathToFileURL(path.join(dir, 'package', 'kvfleet.js')).href);
  mod.initSync({ module: readFileSync(path.join(dir, 'package', 'kvfleet_bg.wasm')) });
});

test('npm pack accepts pkg/: name, version, module, types and files', () => {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package', 'package.json'), 'utf8'));
  const cargo = readFileSync(path.join(ROOT, 'Cargo.toml'), 'utf8');
  assert.equal(manifest.name, 'kvfleet');
  assert.equal(manifest.version, /^version = "([^"]+)"/m.exec(cargo)[1]);
  assert.equal(manifest.module, 'kvfleet.js');
  assert.equal(manifest.types, 'kvfleet.d.ts');
  assert.deepEqual(readdirSync(path.join(dir, 'package')).sort(), [...manifest.files, 'package.json'].sort());
});

test('run(config object) from the packed tarball equals run_json, and types are objects not strings', () => {
  const config = { instances: 8, routing: 'round_robin', num_requests: 2000 };
  const r = mod.run(config);
  assert.equal(typeof r, 'object');
  assert.equal(typeof r.summary.hit_rate_tokens, 'number');
  assert.deepEqual(r, JSON.parse(mod.run_json(JSON.stringify(config))));
  // The simple model, worked by hand: round robin deals 250 requests to each of 8 replicas, so each
  // sees all 8 prefixes (a prefix is missed with probability (7/8)^250 < 1e-14): 8 x 8 = 64 cold misses.
  assert.equal(r.summary.admitted - r.summary.hit_requests, 64);
  assert.equal(mod.run(undefined).summary.hit_rate_requests, 0.85, 'no config = the seed example (85% of requests)');
  assert.throws(() => mod.run({ instances: 0 }), /instances/);
  assert.throws(() => mod.run({ no_such_key: 1 }), /unknown field `no_such_key`/);
});

test('runTrace(config, text, name) replays a trace and names a bad line', () => {
  const text = readFileSync(path.join(ROOT, 'data/mooncake/synthetic_trace.jsonl'), 'utf8').split('\n').slice(0, 300).join('\n');
  const r = mod.runTrace({ instances: 4, routing: 'kv' }, text, 'head.jsonl');
  assert.equal(r.summary.requests, 300);
  assert.deepEqual(r, JSON.parse(mod.run_trace_json(JSON.stringify({ instances: 4, routing: 'kv' }), text, 'head.jsonl')));
  assert.throws(() => mod.runTrace({}, `${text.split('\n')[0]}\n{"timestamp": }\n`, 'bad.jsonl'), /bad\.jsonl:2/);
});

test('tsc checks real reports and configs against the package types', () => {
  const pkg = path.join(dir, 'package');
  const reports = {
    pool: mod.run({}),
    sessions: mod.run({ workload: 'sessions', num_sessions: 6, turns: 3 }),
    nothing: mod.run({ timeout_ms: 1, num_requests: 20 }), // statistics over nothing are null
    trace: mod.runTrace({}, readFileSync(path.join(ROOT, 'data/mooncake/conversation_trace.jsonl'), 'utf8').split('\n').slice(0, 50).join('\n'), 'conv.jsonl'),
  };
  assert.ok(reports.sessions.sessions, 'a sessions report carries its tasks');
  const lines = ["import type { Report, Config } from './kvfleet';"];
  for (const [k, r] of Object.entries(reports)) lines.push(`export const ${k}: Report = ${JSON.stringify(r)};`);
  // A request that did not end exactly once (a simulator bug, so no real run has one): the shape
  // src/sim/ledger.rs serialises, which the optional `unended` must accept.
  const unended = { count: 2, ended_twice: [5], in_flight: [{ id: 7, replica: 2, state: 'waiting on an idle replica' }, { id: 9, replica: 3, state: 'on the link' }] };
  lines.push(`export const unended: Report = ${JSON.stringify({ ...reports.pool, unended, warnings: ['2 request(s) arrived and never ended (simulator bug): ...', ...reports.pool.warnings] })};`);
  lines.push(`export const partial: Partial<Config> = ${JSON.stringify({ instances: 8, routing: 'kv', kv_blocks: null })};`);
  lines.push(`export const full: Config = ${JSON.stringify(reports.pool.config)};`);
  writeFileSync(path.join(pkg, 'check.ts'), lines.join('\n'));
  assert.equal(tsc('check.ts'), '', 'real reports type-check');
  // The check can fail: a key the types do not have, and a wrong policy name, are errors.
  writeFileSync(path.join(pkg, 'bad.ts'), `import type { Report, Config } from './kvfleet';\n`
    + `export const r: Report = ${JSON.stringify({ ...reports.pool, invented: 1 })};\n`
    + `export const c: Partial<Config> = { routing: 'fastest' };\n`);
  const err = tsc('bad.ts');
  assert.match(err, /invented/);
  assert.match(err, /fastest/);
  copyFileSync(path.join(pkg, 'kvfleet.d.ts'), path.join(dir, 'types-checked.d.ts'));
});

/// TypeScript assertions that the package's types say what the schema says, type by type:
/// the same keys (a `Record` over them, so a missing or an extra key fails), `null` allowed
/// exactly where the schema allows it, a key optional exactly where the schema does not require
/// it (but the config's: every key of a config passed in may be left out), and each enumeration's
/// values. The schema's root is `Report`.
function typeChecks(schema) {
  const lines = ["import type * as K from './kvfleet';",
    'type Nullable<T> = null extends T ? true : false;',
    'type Optional<T, P extends keyof T> = {} extends Pick<T, P> ? true : false;'];
  const types = { Report: schema, ...schema.$defs };
  const allowsNull = (s) => (Array.isArray(s.type) && s.type.includes('null'))
    || (s.anyOf ?? []).some((b) => b.type === 'null');
  for (const [name, s] of Object.entries(types)) {
    if (s.oneOf) {
      const values = s.oneOf.map((v) => `${JSON.stringify(v.const)}: 0`).join(', ');
      lines.push(`export const values_${name}: Record<K.${name}, 0> = { ${values} };`);
      continue;
    }
    const props = Object.entries(s.properties ?? {});
    const keys = props.map(([k]) => `${k}: 0`).join(', ');
    lines.push(`export const keys_${name}: Record<keyof K.${name}, 0> = { ${keys} };`);
    for (const [k, p] of props) {
      lines.push(`export const null_${name}_${k}: Nullable<K.${name}['${k}']> = ${allowsNull(p)};`);
      const optional = name === 'Config' || !(s.required ?? []).includes(k);
      lines.push(`export const optional_${name}_${k}: Optional<K.${name}, '${k}'> = ${optional};`);
      if (p.enum) {
        const values = p.enum.map((v) => `${JSON.stringify(v)}: 0`).join(', ');
        lines.push(`export const enum_${name}_${k}: Record<NonNullable<K.${name}['${k}']>, 0> = { ${values} };`);
      }
    }
  }
  return lines.join('\n') + '\n';
}

test('the package types agree with the report schema: keys, nulls, optional keys, enumerations', () => {
  const schema = JSON.parse(readFileSync(path.join(ROOT, 'docs/src/report.schema.json'), 'utf8'));
  const checks = typeChecks(schema);
  assert.ok(checks.split('\n').length > 300, 'every type of the report is checked');
  writeFileSync(path.join(dir, 'package', 'agree.ts'), checks);
  assert.equal(tsc('agree.ts'), '', 'the TypeScript types say what the schema says');
  // The check can fail: a schema where a never-null number may be null, or a key is dropped.
  const bent = structuredClone(schema);
  bent.$defs.Summary.properties.makespan_s.type = ['number', 'null'];
  delete bent.$defs.Series.properties.queue_peak;
  const bentChecks = typeChecks(bent);
  writeFileSync(path.join(dir, 'package', 'bent.ts'), bentChecks);
  const err = tsc('bent.ts');
  const line = bentChecks.split('\n').findIndex((l) => l.includes('null_Summary_makespan_s')) + 1;
  assert.match(err, new RegExp(`bent\\.ts\\(${line},`), 'makespan_s, never null, is caught');
  assert.match(err, /queue_peak/);
});
