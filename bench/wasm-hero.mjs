// bench/wasm-hero.mjs: the first screen's sweep (the conversation trace, 1 to 256 replicas, three
// policies: 60 runs) in the page's wasm, one after another in one Node thread, the CPU time of each
// round. Several built www/ folders (say a copy from another commit, and www) are measured in turns,
// each in a process of its own, so that a busy machine slows them alike; the first round of each
// process includes compiling the module's hot code.
//   node bench/wasm-hero.mjs [DIR ...] [--rounds=4] [--turns=3]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const arg = (k, d) => process.argv.find((a) => a.startsWith(`--${k}=`))?.slice(k.length + 3) ?? d;
const dirs = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const COUNTS = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 24, 32, 48, 64, 96, 128, 192, 256];
const POLICIES = ['round_robin', 'prefix_aware', 'kv'];

/** One process's rounds over `dir`: CPU ms per round. */
async function rounds(dir, n) {
  const wasm = await import(`${dir}/pkg/kvfleet.js`);
  await wasm.default({ module_or_path: readFileSync(`${dir}/pkg/kvfleet_bg.wasm`) });
  const base = JSON.parse(wasm.defaults_json());
  const trace = wasm.Trace.parse(readFileSync(`${dir}/data/conversation_trace.jsonl`, 'utf8'), 'conversation_trace.jsonl', base.block_size);
  const out = [];
  for (let r = 0; r < n; r++) {
    const c0 = process.cpuUsage();
    for (const instances of COUNTS) for (const routing of POLICIES) {
      const job = wasm.Job.from_trace({ ...base, instances, routing }, trace);
      while (!job.advance(1 << 20));
      job.point_json();
      job.free();
    }
    const c = process.cpuUsage(c0);
    out.push((c.user + c.system) / 1000);
  }
  return out;
}

if (arg('child')) {
  console.log(JSON.stringify(await rounds(arg('child'), Number(arg('rounds', '4')))));
} else {
  const www = fileURLToPath(new URL('../www', import.meta.url));
  const folders = dirs.length ? dirs : [www];
  const seen = folders.map(() => []);
  for (let t = 0; t < Number(arg('turns', '3')); t++) {
    folders.forEach((dir, i) => {
      const ms = JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), `--child=${dir}`, `--rounds=${arg('rounds', '4')}`], { encoding: 'utf8' }));
      console.log(`${dir}: ${ms.map((x) => x.toFixed(0)).join(' ')} ms CPU per round`);
      seen[i].push(...ms.slice(1));
    });
  }
  const median = (xs) => { const s = [...xs].sort((a, b) => a - b), m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
  folders.forEach((dir, i) => console.log(`${dir}: median ${median(seen[i]).toFixed(0)} ms CPU per sweep (rounds after the first)`));
}
