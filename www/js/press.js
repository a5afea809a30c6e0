// www/js/press.js: no lost clicks. What a worker sends (a run's result, a sweep's point, a lesson's
// measured figure) can change the page's layout, and a button that moves between a press and its
// release never gets the click. So a message that arrives while a pointer is pressed on the page is
// handled just after the release (and its click); at once otherwise. A press on a slider's track is
// no click: the results of its drag show as they come. A pointer seen moving with no button down (a
// release the page never heard of), the window losing focus, or a press held longer than HOLD_MAX_MS
// lets them through.

const HOLD_MAX_MS = 10000;
const down = new Set(); // the pointers pressed on something other than a slider
const held = [];        // [{fn, what}] waiting for the release, in the order they came
let limit = 0;          // the timer that ends a long press's hold

/** Runs `fn` now, or just after the pointer pressed on the page is released. `what` names it (a hook for tests). */
export function afterPress(fn, what = '') {
  // (Also while the held ones wait for their turn after a release: the order stays as they came.)
  if (!down.size && !held.length) { fn(); return; }
  held.push({ fn, what });
}

/** What is waiting for the release (window.kvfleet.heldForPress, for the page tests). */
export function heldForPress() {
  return held.map((h) => h.what);
}

function flush() {
  clearTimeout(limit);
  limit = 0;
  down.clear();
  // One at a time, in order; a handler that throws does not keep the others back.
  while (held.length) {
    const { fn } = held.shift();
    try { fn(); } catch (e) { setTimeout(() => { throw e; }); }
  }
}

/** A press on a range input is a drag, not a click. */
function isDrag(e) {
  return e.target instanceof HTMLInputElement && e.target.type === 'range';
}

function onDown(e) {
  if (isDrag(e)) return;
  down.add(e.pointerId);
  if (!limit) limit = setTimeout(flush, HOLD_MAX_MS);
}

function onUp(e) {
  if (!down.delete(e.pointerId) || down.size) return;
  // The click is dispatched after pointerup, in the same task: the held messages come after it.
  setTimeout(flush, 0);
}

if (typeof document !== 'undefined') {
  document.addEventListener('pointerdown', onDown, { capture: true, passive: true });
  document.addEventListener('pointerup', onUp, { capture: true, passive: true });
  document.addEventListener('pointercancel', onUp, { capture: true, passive: true });
  document.addEventListener('pointermove', (e) => { if (down.size && e.buttons === 0) flush(); }, { capture: true, passive: true });
  window.addEventListener('blur', () => { if (down.size) flush(); });
}
