// scripts/wasm-apicheck.mjs: every exported API of a built www/pkg, on several configs, written to one
// file, for cmp before/after a size change.  node wasm-apicheck.mjs WORKTREE OUT [--quick]
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
const [root, out] = process.argv.slice(2, 4);
const quick = process.argv.includes('--quick');
const m = await import(pathToFileURL(path.join(root, 'www/pkg/kvfleet.js')).href);
m.initSync({ module: readFileSync(path.join(root, 'www/pkg/kvfleet_bg.wasm')) });
const lines = [];
const rec = (name, f) => {
  let r;
  try { const v = f(); r = typeof v === 'string' ? v : JSON.stringify(v); } catch (e) { r = 'ERR ' + (e && e.message); }
  lines.push(`== ${name}\n${r}`);
};
rec('version', () => m.version());
rec('defaults', () => m.defaults_json());
rec('params', () => m.params_json());
rec('lessons', () => m.lessons_json());
for (const b of [16, 32, 64]) rec(`presets ${b}`, () => m.presets_json(b));
const configs = [
  '{}', '{"routing":"round_robin","instances":3,"num_requests":300}',
  '{"workload":"sessions","num_sessions":20,"turns":3,"routing":"dynamo"}',
  '{"prefill_instances":2,"decode_instances":2,"num_requests":200}',
  '{"routing":"sglang","kv_blocks":80,"num_requests":400,"router_view":"snapshot","router_refresh_ms":50}',
  '{"routing":"llm_d","llmd_weights":"1,0.5,0.2","num_requests":300,"queue_capacity":8,"timeout_ms":2000}',
  '{"routing":"aibrix","arrival_model":"gamma","burstiness":0.5,"num_requests":300,"prefix_popularity":"zipf:1.1"}',
  '{"routing":"p2c","routers":3,"kv_event_lag_ms":20,"num_requests":300,"engine":"llama3-70b-4xh100"}',
];
const bad = [
  'nope', '{"seed":-1}', '{"seed":1.5}', '{"sed":1}', '{"routing":"zz"}', '{"instances":0}',
  '{"kv_blocks":"x"}', '{"request_rate":1e999}', '[1,2]', '{"prefix_popularity":"zipf:-1"}',
  '{"instances":1000000}', '{"block_size":0}', '{"llmd_weights":"a,b"}', '{"seed":1,"seed":2}',
  '{"routing":"kv","overlap_weight":"\\u00e9"}', '',
];
for (const c of [...configs, ...bad]) rec(`run_json ${c}`, () => m.run_json(c));
for (const c of configs.slice(0, 3)) rec(`run ${c}`, () => m.run(JSON.parse(c)));
rec('run undefined', () => m.run(undefined));
rec('run bad', () => m.run({ routing: 'zz' }));
for (const [c, s] of [['{}', 'overlap_weight=0:2:0.5'], ['{}', 'instances=2,4,8'], ['{}', 'kv_blocks=10:100:30'],
  ['{}', 'nope=1'], ['{}', 'instances=0:3'], ['{}', 'routing=kv,round_robin'], ['{"x":1}', 'seed=1,2'], ['{}', '']])
  rec(`sweep ${c} ${s}`, () => m.sweep_plan_json(c, s));
const trText = readFileSync(path.join(root, 'data/mooncake/conversation_trace.jsonl'), 'utf8');
const small = trText.split('\n').slice(0, quick ? 300 : 2000).join('\n');
rec('trace small kv8', () => m.run_trace_json('{"instances":8,"routing":"kv"}', small, 'conv'));
rec('runTrace small', () => m.runTrace({ instances: 4, routing: 'prefix_aware' }, small, 'conv'));
rec('trace bad', () => m.run_trace_json('{}', '{"timestamp":1}\nxx', 'bad'));
rec('trace bad2', () => m.run_trace_json('{}', '', 'empty'));
const job = m.Job.synthetic('{"num_requests":200}');
rec('job decisions', () => { job.record_decisions(5, 20); while (!job.advance(50)); return job.report_json() + job.decisions_json(); });
rec('job bad count', () => m.Job.synthetic('{}').record_decisions(0, 100000));
const spec = '{"slo":{"ttft_p99_ms":2000,"tpot_p99_ms":null,"e2e_p99_ms":null,"max_rejected":0.01},"limits":{"max_replicas":6,"seeds":2,"exhaustive":false,"gpus_per_replica":1,"gpu_hour_usd":2.5}}';
for (const p of ['kv', 'round_robin', 'zz']) rec(`plan ${p}`, () => m.plan_policy_json('{"num_requests":300}', p, spec));
rec('plan bad spec', () => m.plan_policy_json('{}', 'kv', '{"slo":1}'));
const plans = ['kv', 'round_robin', 'prefix_aware'].map((p) => m.plan_policy_json('{"num_requests":300}', p, spec));
rec('headline', () => m.plan_headline('[' + plans.join(',') + ']', spec));
rec('headline bad', () => m.plan_headline('{}', spec));
const lessons = JSON.parse(m.lessons_json());
const traces = {};
for (const l of lessons) {
  if (quick && l.trace) continue;
  let t = null;
  if (l.trace) {
    const f = ['data/mooncake/', 'data/kvfleet/'].map((d) => path.join(root, d, l.trace)).find((p) => { try { readFileSync(p); return true; } catch { return false; } });
    const text = readFileSync(f, 'utf8');
    t = traces[l.trace] ??= (() => { try { return m.Trace.parse(text, l.trace, 512); } catch { return m.Trace.parse(text, l.trace, 16); } })();
    rec(`lesson trace ${l.id}`, () => m.lesson_material_trace_json(l.id, t));
  } else rec(`lesson ${l.id}`, () => m.lesson_material_json(l.id));
}
rec('lesson bad', () => m.lesson_material_json('nope'));
rec('trace parse bad', () => m.Trace.parse('{', 'x', 16));
writeFileSync(out, lines.join('\n') + '\n');
console.log(`${out}: ${lines.length} calls, ${lines.join('\n').length} bytes`);
