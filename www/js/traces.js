// www/js/traces.js: the trace panel: built-in Mooncake examples, a file chooser and a drop zone.
// Files go to the worker as File objects (read and parsed there); errors show with their line number.

export const BUILTIN = {
  'conversation_trace.jsonl': 'conversation trace',
  'synthetic_trace.jsonl': 'synthetic trace',
  'doc_chat_trace.jsonl': 'document Q&A + chat trace',
};

export class Traces {
  constructor(els, onTrace) {
    this.els = els;
    for (const b of els.root.querySelectorAll('[data-trace]')) {
      b.addEventListener('click', () => {
        this.clearError();
        onTrace(builtin(b.dataset.trace));
      });
    }
    els.file.addEventListener('change', () => {
      const f = els.file.files && els.file.files[0];
      if (f) { this.clearError(); onTrace({ name: f.name, file: f }); }
    });
    const drop = els.drop;
    drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
    drop.addEventListener('dragleave', () => drop.classList.remove('over'));
    drop.addEventListener('drop', (e) => {
      e.preventDefault();
      drop.classList.remove('over');
      const f = e.dataTransfer && e.dataTransfer.files[0];
      if (f) { this.clearError(); onTrace({ name: f.name, file: f }); }
    });
  }

  showError(message) {
    this.els.error.textContent = `Could not replay the trace. ${message}\nThe previous result is still shown.`;
    this.els.error.hidden = false;
    // Let the same file be chosen again after fixing it.
    this.els.file.value = '';
  }

  clearError() { this.els.error.hidden = true; this.els.error.textContent = ''; }
}

export function builtin(file) {
  return { name: file, url: new URL(`data/${file}`, location.href).href, builtin: true };
}
