// www/js/traces.js: the trace panel: built-in Mooncake examples, a file chooser and a drop zone.
// Files go to the worker as File objects (read and parsed there); errors show with their line number.
// A status line under the buttons says which trace is loading or replayed, with its request count and
// a link to the results at the top, and the button of the trace on screen is marked pressed.

import { num } from './format.js';

export const BUILTIN = {
  'conversation_trace.jsonl': 'conversation trace',
  'synthetic_trace.jsonl': 'synthetic trace',
  'doc_chat_trace.jsonl': 'document Q&A + chat trace',
};

export class Traces {
  constructor(els, onTrace) {
    this.els = els;
    this.status = document.createElement('p');
    this.status.className = 'hint trace-status';
    this.status.setAttribute('role', 'status');
    this.status.dataset.testid = 'trace-status';
    this.status.hidden = true;
    els.root.querySelector('.trace-actions').after(this.status);
    this.buttons = [...els.root.querySelectorAll('[data-trace]')];
    const start = (source) => { this.clearError(); this.loading(source); onTrace(source); };
    for (const b of this.buttons) b.addEventListener('click', () => start(builtin(b.dataset.trace)));
    els.file.addEventListener('change', () => {
      const f = els.file.files && els.file.files[0];
      if (f) start({ name: f.name, file: f });
    });
    const drop = els.drop;
    drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
    drop.addEventListener('dragleave', () => drop.classList.remove('over'));
    drop.addEventListener('drop', (e) => {
      e.preventDefault();
      drop.classList.remove('over');
      const f = e.dataTransfer && e.dataTransfer.files[0];
      if (f) start({ name: f.name, file: f });
    });
  }

  /** A trace was chosen: say it is being replayed (the result replaces this line). */
  loading(source) {
    this.status.replaceChildren(`Replaying the ${traceName(source)}…`);
    this.status.hidden = false;
  }

  /**
   * The result on screen came from `source` (null: the synthetic workload): name it with its request
   * count and point to the results, and mark its button pressed.
   */
  shown(source, report) {
    for (const b of this.buttons) b.setAttribute('aria-pressed', String(!!source && b.dataset.trace === source.name));
    if (!source) { this.status.hidden = true; this.status.replaceChildren(); return; }
    const a = document.createElement('a');
    a.href = '#results';
    a.textContent = 'see the results above';
    const n = report.summary?.requests ?? 0;
    this.status.replaceChildren(`On screen: the ${traceName(source)}, ${num(n)} request${n === 1 ? '' : 's'} replayed; `, a, '.');
    this.status.hidden = false;
  }

  showError(message) {
    this.status.hidden = true;
    this.els.error.textContent = `Could not replay the trace. ${message}\nThe previous result is still shown.`;
    this.els.error.hidden = false;
    // Let the same file be chosen again after fixing it.
    this.els.file.value = '';
  }

  clearError() { this.els.error.hidden = true; this.els.error.textContent = ''; }
}

/** "conversation trace" for a built-in one, "trace my.jsonl" for a file. */
function traceName(source) {
  return BUILTIN[source.name] || `trace ${source.name}`;
}

export function builtin(file) {
  return { name: file, url: new URL(`data/${file}`, location.href).href, builtin: true };
}
