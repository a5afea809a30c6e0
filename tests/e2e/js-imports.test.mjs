// tests/e2e/js-imports.test.mjs: the page's modules (www/js/*.js) import one way: their static
// imports (`import ... from './x.js'`, `export ... from`) form no cycle. Reads the files' text; no
// browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, dirname, basename } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'www', 'js');

// The modules a file's text imports statically (comments removed), by file name.
export function importsOf(text) {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const out = new Set();
  for (const m of code.matchAll(/^\s*(?:import|export)\s[^;'"]*?from\s*['"]\.\/([\w.-]+\.js)['"]/gm)) out.add(m[1]);
  for (const m of code.matchAll(/^\s*import\s*['"]\.\/([\w.-]+\.js)['"]/gm)) out.add(m[1]);
  return out;
}

// A cycle of the graph (file -> files it imports), first file repeated at the end, or null.
export function cycleOf(graph) {
  const state = new Map();
  const stack = [];
  const visit = (node) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const c = visit(next);
        if (c) return c;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of [...graph.keys()].sort()) {
    if (!state.has(node)) {
      const c = visit(node);
      if (c) return c;
    }
  }
  return null;
}

test('the reader finds imports and cycles', () => {
  const text = "import { a, b } from './a.js';\nimport {\n  c,\n} from './c.js';\nimport './side.js';\n"
    + "export { d } from './d.js';\n// import { x } from './comment.js';\nconst u = 'http://x.js';\n";
  assert.deepEqual([...importsOf(text)].sort(), ['a.js', 'c.js', 'd.js', 'side.js']);
  const g = new Map([['a.js', new Set(['b.js'])], ['b.js', new Set(['c.js'])], ['c.js', new Set(['a.js'])]]);
  assert.deepEqual(cycleOf(g), ['a.js', 'b.js', 'c.js', 'a.js']);
  g.set('c.js', new Set());
  assert.equal(cycleOf(g), null);
});

test("the page's modules import one way", () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.js'));
  assert.ok(files.includes('main.js') && files.includes('runs.js'), files.join(', '));
  const graph = new Map(files.map((f) => [basename(f), importsOf(readFileSync(join(dir, f), 'utf8'))]));
  assert.ok(graph.get('main.js').has('runs.js'), 'main.js imports runs.js');
  const cycle = cycleOf(graph);
  assert.equal(cycle, null, `an import cycle: ${cycle?.join(' -> ')}`);
});
