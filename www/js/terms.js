// www/js/terms.js: the jargon beside the figure ("p99", "overlap weight", "R2") linked to its entry in
// the glossary under the hero: the entry's own words on hover, and on a click in a box under the word,
// whose link opens the glossary there.
// The definitions live once, in index.html's glossary; an embed, which does not show it, links nothing.

/** Each term, the glossary entry that defines it, and the words it is found by (the first match wins). */
export const TERMS = [
  { id: 'term-ttft', re: /\bp99\b/ },
  { id: 'term-ttft', re: /\bfirst-token time\b/ },
  { id: 'term-overlap', re: /\boverlap weight\b/i },
  { id: 'term-kv-block', re: /\bKV blocks?\b/ },
  { id: 'term-prefill', re: /\bprefill\b/i },
  { id: 'term-replicas', re: /\bR\d+\b/ },
  { id: 'term-capture', re: /\bbest-placed replica\b/ },
  { id: 'term-capture', re: /\breplica that held most of its prompt\b/ },
];

/** The glossary's words for entry `id`: its dt's dd, or '' when the page has no such entry. */
export function definition(id, doc = document) {
  const dt = doc.getElementById(id);
  const dd = dt?.nextElementSibling;
  return dd?.tagName === 'DD' ? `${dt.textContent}: ${dd.textContent.trim()}` : '';
}

/** The first text node under `root`, outside a term's link, where `re` matches, with the match. */
function firstMatch(root, re) {
  const walk = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => (n.parentElement?.closest('a.term') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const m = re.exec(n.data);
    if (m) return { node: n, at: m.index, text: m[0] };
  }
  return null;
}

/**
 * Links the first use of each term under `root` to its glossary entry. Idempotent: an entry already
 * linked there is not linked again, so it may run after every write of the text. The text itself
 * (textContent) is unchanged.
 */
export function linkTerms(root) {
  // An embed shows only its own figure (body.embed hides the rest): the glossary is not there to go to.
  if (!root || root.closest('.embed-root')) return;
  const doc = root.ownerDocument;
  const done = new Set([...root.querySelectorAll('a.term')].map((a) => a.dataset.term));
  for (const t of TERMS) {
    if (done.has(t.id)) continue;
    const title = definition(t.id, doc);
    if (!title) continue;
    const hit = firstMatch(root, t.re);
    if (!hit) continue;
    const word = hit.node.splitText(hit.at);
    word.splitText(hit.text.length);
    const a = doc.createElement('a');
    a.className = 'term';
    a.href = `#${t.id}`;
    a.title = title;
    a.dataset.term = t.id;
    word.replaceWith(a);
    a.append(word);
    done.add(t.id);
  }
}

/**
 * A click on a term shows its definition in a small box under it, where the reader is (a jump of a
 * thousand pixels to the glossary took a first-time reader away from the figure); the box's link
 * opens the glossary at the entry. Escape, a click elsewhere or a second click closes it. The address
 * never gains a fragment (the link carries the page's state).
 */
export function watchTermClicks(doc = document) {
  let open = null; // {term, box}
  const close = (refocus = false) => {
    if (!open) return;
    open.term.setAttribute('aria-expanded', 'false');
    open.box.remove();
    if (refocus) open.term.focus();
    open = null;
  };
  doc.addEventListener('click', (e) => {
    const more = e.target.closest?.('a.term-more');
    if (more) { e.preventDefault(); close(); showEntry(doc, more.dataset.term); return; }
    const a = e.target.closest?.('a.term');
    if (!a) { if (open && !e.target.closest?.('.term-pop')) close(); return; }
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
    e.preventDefault();
    const again = open?.term === a;
    close();
    if (!again) open = { term: a, box: popover(doc, a) };
  });
  doc.addEventListener('keydown', (e) => { if (e.key === 'Escape' && open) close(true); });
}

/** The definition box under term link `a`, in the page's coordinates, inside the viewport's width. */
function popover(doc, a) {
  const id = a.dataset.term;
  const box = doc.createElement('div');
  box.className = 'term-pop';
  box.id = `${id}-pop`;
  box.setAttribute('role', 'note');
  box.dataset.testid = 'term-pop';
  const dt = doc.getElementById(id);
  const head = doc.createElement('strong');
  head.textContent = `${dt.textContent}: `;
  const more = doc.createElement('a');
  more.className = 'term-more';
  more.href = `#${id}`;
  more.dataset.term = id;
  more.textContent = 'In the glossary ↓';
  box.append(head, dt.nextElementSibling.textContent.trim(), ' ', more);
  doc.body.append(box);
  const r = a.getBoundingClientRect();
  const w = Math.min(box.offsetWidth, doc.documentElement.clientWidth - 16);
  const left = Math.max(8, Math.min(r.left, doc.documentElement.clientWidth - w - 8));
  box.style.left = `${left + window.scrollX}px`;
  box.style.top = `${r.bottom + 6 + window.scrollY}px`;
  a.setAttribute('aria-expanded', 'true');
  a.setAttribute('aria-controls', box.id);
  return box;
}

/** Opens the glossary (the explainer may have been closed) at entry `id`, marked for a moment. */
function showEntry(doc, id) {
  const dt = doc.getElementById(id);
  if (!dt) return;
  const details = dt.closest('details');
  if (details) details.open = true;
  dt.scrollIntoView({ block: 'center', behavior: 'auto' });
  for (const el of [dt, dt.nextElementSibling]) {
    el.classList.remove('term-flash');
    void el.offsetWidth; // restarts the animation on a second visit
    el.classList.add('term-flash');
  }
}
