// www/js/page-bits.js: small pieces of the page that hold no state: the link's notes, scrolling a
// result into view, which setting a simulator error names, copying the link, redrawing a block of
// text in place, making an element, a table's sideways-scroll cue.

/**
 * Puts `next` (freshly built nodes) in `root`. When the nodes there have the same shape (elements,
 * attributes, children), only the text that differs is written: a slider step changes a few numbers,
 * and new elements would make the browser restyle and lay out the whole block again.
 */
export function patchChildren(root, next) {
  const old = root.childNodes;
  if (old.length === next.length && next.every((n, i) => sameShape(old[i], n))) next.forEach((n, i) => copyText(old[i], n));
  else root.replaceChildren(...next);
}

function sameShape(a, b) {
  if (a.nodeType !== b.nodeType) return false;
  if (a.nodeType !== Node.ELEMENT_NODE) return a.nodeType === Node.TEXT_NODE;
  if (a.nodeName !== b.nodeName) return false;
  const names = b.getAttributeNames();
  if (a.attributes.length !== names.length) return false;
  for (const n of names) if (a.getAttribute(n) !== b.getAttribute(n)) return false;
  const ac = a.childNodes, bc = b.childNodes;
  if (ac.length !== bc.length) return false;
  for (let i = 0; i < bc.length; i++) if (!sameShape(ac[i], bc[i])) return false;
  return true;
}

function copyText(a, b) {
  if (a.nodeType === Node.TEXT_NODE) { if (a.data !== b.data) a.data = b.data; return; }
  for (let i = 0; i < b.childNodes.length; i++) copyText(a.childNodes[i], b.childNodes[i]);
}

/** Sets an element's text only when it differs (an equal write still costs a restyle). */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** Scrolls a result into view after a button changed the settings (no jump if it is already visible). */
export function bringIntoView(el) {
  if (!el) return;
  const r = el.getBoundingClientRect();
  if (r.top >= 0 && r.top < window.innerHeight * 0.5) return;
  // Instant: a smooth scroll is cut short when the run's results change the layout above it.
  el.scrollIntoView({ block: 'start', behavior: 'auto' });
}

/** Adds notes (plain text) to the dismissable box under the masthead. */
export function showNotes(notes) {
  const box = document.getElementById('url-notes');
  if (!notes.length) return;
  if (!box.querySelector('button')) {
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'btn small notes-close';
    close.textContent = 'Dismiss';
    close.addEventListener('click', () => { box.hidden = true; box.replaceChildren(); });
    box.append(close);
  }
  for (const n of notes) { const p = document.createElement('p'); p.textContent = n; box.append(p); }
  box.hidden = false;
}

/** The setting a simulator error message names, if any of `params` (null otherwise). */
export function fieldOf(message, params) {
  const m = /^invalid ([a-z0-9_]+)\b/i.exec(message) || /\b(?:field|parameter|setting) `?([a-z0-9_]+)`?/i.exec(message);
  if (m && params.some((p) => p.name === m[1])) return m[1];
  const names = params.map((p) => p.name).sort((a, b) => b.length - a.length);
  return names.find((n) => new RegExp(`\\b${n}\\b`).test(message)) || null;
}

/** Copies the page's address; the button says whether it did (and that a chosen file is not in it). */
export async function share(btn, source) {
  try {
    await navigator.clipboard.writeText(location.href);
    btn.textContent = source && !source.builtin ? 'Link copied (your trace file is not in it)' : 'Link copied ✓';
  } catch {
    btn.textContent = 'Copy the address bar';
  }
  setTimeout(() => { btn.textContent = 'Copy link'; }, 2500);
}

/** A new `tag` element with class `cls` (if any) and text `text` (if given). */
export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/**
 * Marks `wrap`, a table's box, as one that may scroll sideways (a phone): edge shadows where more
 * columns hide (style.css .scroll-cue) and a hint above the table, shown only while the table is
 * wider than its box. Returns the function that re-checks it (call it after redrawing the table).
 */
export function scrollCue(wrap, testid) {
  wrap.classList.add('scroll-cue');
  const hint = el('p', 'scroll-hint', 'Scroll the table sideways for every column →');
  hint.dataset.testid = testid;
  wrap.prepend(hint);
  const fit = () => { hint.hidden = wrap.scrollWidth <= wrap.clientWidth + 1; };
  new ResizeObserver(fit).observe(wrap);
  return fit;
}

/**
 * Names each body cell of `table` by its column's header (data-label) and marks the table
 * `cap-cards`: on a phone (style.css) each row then reads as a card of labelled figures, so the
 * table fits the screen instead of scrolling sideways.
 */
export function labelCells(table) {
  const names = [...table.querySelectorAll('thead th')].map((th) => th.textContent);
  for (const tr of table.querySelectorAll('tbody tr')) [...tr.children].forEach((c, i) => { c.dataset.label = names[i] ?? ''; });
  table.classList.add('cap-cards');
}
