// www/js/terms.js: the jargon beside the figure ("p99", "overlap weight", "R2") linked to its entry in
// the glossary under the hero: the entry's own words on hover, and a click opens the glossary there.
// The definitions live once, in index.html's glossary; an embed, which does not show it, links nothing.

/** Each term, the glossary entry that defines it, and the words it is found by (the first match wins). */
export const TERMS = [
  { id: 'term-ttft', re: /\bp99\b/ },
  { id: 'term-ttft', re: /\bfirst-token time\b/ },
  { id: 'term-overlap', re: /\boverlap weight\b/i },
  { id: 'term-kv-block', re: /\bKV blocks?\b/ },
  { id: 'term-prefill', re: /\bprefill\b/i },
  { id: 'term-replicas', re: /\bR\d+\b/ },
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
 * A click on a term opens the glossary (the explainer may have been closed) and brings the entry into
 * view, marked for a moment, without a fragment in the address (the link carries the page's state).
 */
export function watchTermClicks(doc = document) {
  doc.addEventListener('click', (e) => {
    const a = e.target.closest?.('a.term');
    if (!a || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
    const dt = doc.getElementById(a.dataset.term);
    if (!dt) return;
    e.preventDefault();
    const details = dt.closest('details');
    if (details) details.open = true;
    dt.scrollIntoView({ block: 'center', behavior: 'auto' });
    for (const el of [dt, dt.nextElementSibling]) {
      el.classList.remove('term-flash');
      void el.offsetWidth; // restarts the animation on a second click
      el.classList.add('term-flash');
    }
  });
}
