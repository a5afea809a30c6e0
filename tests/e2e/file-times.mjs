// A node --test reporter that run.mjs adds beside the usual one: it prints, once every file has
// ended, each test file's wall time, slowest first (to keep run.mjs's SLOW_FIRST list true).
import { basename } from 'node:path';

export default async function* fileTimes(source) {
  const times = [];
  for await (const ev of source) {
    // Under process isolation each file is a test of its own, named by its path, that completes
    // with the file's duration.
    if (ev.type === 'test:complete' && ev.data.file && ev.data.name === ev.data.file) {
      times.push({ name: basename(ev.data.file, '.test.mjs'), ms: ev.data.details?.duration_ms ?? 0, ok: ev.data.details?.passed });
    }
  }
  if (times.length === 0) return;
  times.sort((a, b) => b.ms - a.ms);
  yield `\nrun.mjs: each file's wall time, slowest first\n`;
  for (const t of times) yield `  ${(t.ms / 1000).toFixed(1).padStart(6)} s  ${t.name}${t.ok ? '' : '  (FAILED)'}\n`;
}
