// scripts/bundle.mjs: the served page's scripts, bundled with esbuild from the ES modules in www/js/
// (which stay the sources): www/bundle/main.js (the page: every module main.js imports, the panels
// it loads later included, so a cold load makes one request for them) and www/bundle/worker.js (the
// simulator's worker with the wasm module's JavaScript bindings), minified, each with a source map.
// `cargo xtask build` runs it; so does the page tests' server when www/js/ is newer than the bundle.
//
//   node scripts/bundle.mjs            bundles (prints the sizes)
//   import { bundle, bundleStale } from '../../scripts/bundle.mjs';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const WWW = join(ROOT, 'www');
export const OUT = join(WWW, 'bundle');
/** The bundles, each from its entry in www/js/. */
export const ENTRIES = ['main.js', 'worker.js'];

/** The sources a bundle is made of: www/js/*.js and the bindings in www/pkg/. */
function sources() {
  const js = readdirSync(join(WWW, 'js')).filter((f) => f.endsWith('.js')).map((f) => join(WWW, 'js', f));
  return [...js, join(WWW, 'pkg', 'kvfleet.js')].filter((f) => existsSync(f));
}

/** Whether a bundle is missing or older than one of its sources. */
export function bundleStale() {
  const made = ENTRIES.map((e) => join(OUT, e));
  if (!made.every((f) => existsSync(f))) return true;
  const oldest = Math.min(...made.map((f) => statSync(f).mtimeMs));
  return sources().some((f) => statSync(f).mtimeMs > oldest);
}

/**
 * Writes www/bundle/: one esbuild call, both entries, no code splitting (a module the page imports
 * later, with import(), is in main.js and runs when imported). Each file is written beside its place
 * and renamed into it, so a server never sends half a file. Returns { files: [{ name, bytes }] }.
 */
export async function bundle() {
  if (!existsSync(join(WWW, 'pkg', 'kvfleet.js'))) throw new Error('www/pkg/kvfleet.js is missing: run `cargo xtask build`');
  const { build } = await import('esbuild').catch(() => {
    throw new Error('esbuild is missing from node_modules: run `npm ci` (package-lock.json pins it)');
  });
  const result = await build({
    entryPoints: ENTRIES.map((e) => join(WWW, 'js', e)),
    outdir: OUT,
    bundle: true,
    format: 'esm',
    target: 'es2020',
    minify: true,
    sourcemap: 'linked',
    write: false,
    logLevel: 'warning',
    legalComments: 'none',
  });
  mkdirSync(OUT, { recursive: true });
  for (const f of result.outputFiles) {
    const tmp = `${f.path}.${process.pid}.tmp`;
    writeFileSync(tmp, f.contents);
    renameSync(tmp, f.path);
  }
  const files = result.outputFiles.filter((f) => f.path.endsWith('.js'))
    .map((f) => ({ name: f.path.slice(WWW.length + 1), bytes: f.contents.length }));
  return { files };
}

/** Bundles if www/js/ (or the bindings) changed since the last bundle; says so on stderr. */
export async function ensureBundle() {
  if (!bundleStale()) return;
  const { files } = await bundle();
  console.error(`scripts/bundle.mjs: www/js/ changed, bundled again (${files.map((f) => f.name).join(', ')})`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const { files } = await bundle();
    console.log(`scripts/bundle.mjs: ${files.map((f) => `www/${f.name} ${(f.bytes / 1024).toFixed(1)} KiB`).join(', ')} (esbuild, minified)`);
  } catch (e) {
    console.error(`scripts/bundle.mjs: ${e.message}`);
    process.exit(1);
  }
}
