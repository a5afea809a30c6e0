// www/js/worker-wasm.js: where a simulator worker's WebAssembly comes from (worker.js). The page's
// first worker takes the download index.html's first script started in its first lines
// (self.kvfleetWasm), or downloads it itself, and compiles it as it downloads. A worker the page
// names 'sweep' only runs a sweep's points (hero-panel.js): the page hands it the module the first
// worker compiled (its first message, {type:'module', module}), so the wasm is downloaded and
// compiled once however many workers run it; it downloads its own only if that message brings none.

export const epochNow = () => performance.timeOrigin + performance.now();

/** When this worker's scripts started, in epoch ms (worker.js adds its later steps). */
export const bootMarks = { workerStart: epochNow() };

/** A worker that only runs a sweep's points: it is handed its module and describes nothing. */
export const SWEEP = self.name === 'sweep';

let resolveHanded;
const handed = SWEEP ? new Promise((resolve) => { resolveHanded = resolve; }) : null;
const WASM_URL = new URL('../pkg/kvfleet_bg.wasm', import.meta.url);
const early = self.kvfleetWasm;
const wasmSource = SWEEP ? null : early
  ? early.then((res) => (res.ok ? res : fetch(WASM_URL)), () => fetch(WASM_URL))
  : fetch(WASM_URL);
wasmSource?.catch(() => {}); // awaited in wasmModule(), after the bindings load: no unhandled rejection meanwhile

/** The page's {type:'module'} message: the compiled module this sweep worker runs (or null). */
export function handModule(module) {
  resolveHanded?.(module);
}

/** The compiled module: the one the page handed this sweep worker, else compiled from a download. */
export async function wasmModule() {
  const given = handed ? await handed : null;
  if (given instanceof WebAssembly.Module) return given;
  const res = await (wasmSource ?? fetch(WASM_URL));
  if (!res.ok) throw new Error(`HTTP ${res.status} for ${res.url}`);
  // Compiled as it downloads where the server says it is wasm (as a static host does).
  if (typeof WebAssembly.compileStreaming === 'function' && /^application\/wasm\b/.test(res.headers.get('Content-Type') || '')) {
    return WebAssembly.compileStreaming(res);
  }
  return WebAssembly.compile(await res.arrayBuffer());
}

/** Posts the 'ready' message with `module` for the sweep's workers, where the browser can post one. */
export function postReady(msg, module) {
  try {
    postMessage({ ...msg, module });
  } catch {
    postMessage(msg);
  }
}
