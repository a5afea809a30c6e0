// scripts/wasm-replay.mjs PKGDIR N: N replays of the conversation trace (kv, 8 replicas) via
// run_trace_json, for callgrind (instructions of N = 2 minus N = 0).
import { readFileSync } from 'node:fs';
const [dir, n] = process.argv.slice(2);
const m = await import(dir + '/kvfleet.js');
m.initSync({ module: readFileSync(dir + '/kvfleet_bg.wasm') });
const text = readFileSync(new URL('../data/mooncake/conversation_trace.jsonl', import.meta.url), 'utf8');
let len = 0;
for (let i = 0; i < +n; i++) len += m.run_trace_json('{"instances":8,"routing":"kv"}', text, 'conv').length;
console.log(n, len);
