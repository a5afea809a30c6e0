// www/js/lessons.js: the break-and-fix lessons from the simulator (lessons_json): load the broken
// setup, watch the goal's checks turn green on every run, reveal hints, try the fixes, read why.

import { pct, num } from './format.js';
import { fmtMs } from './charts.js';

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Reads `summary.hit_rate_tokens`-style paths from a report. */
function valueAt(report, path) {
  const v = path.split('.').reduce((node, key) => (node == null ? undefined : node[key]), report);
  return typeof v === 'number' ? v : NaN;
}

function fmtMetric(metric, v) {
  if (!Number.isFinite(v)) return '–';
  if (/hit_rate|reuse|share/.test(metric)) return pct(v);
  if (/_ms/.test(metric)) return fmtMs(v);
  return num(v, Number.isInteger(v) ? 0 : 2);
}

export class Lessons {
  /**
   * els: {picks, panel}; hooks: {start(broken), fix(changes), stop()} change the page's config.
   */
  constructor(els, hooks) {
    this.els = els;
    this.hooks = hooks;
    this.list = [];
    this.active = null;
    this.hintsShown = 0;
  }

  setLessons(list) {
    this.list = Array.isArray(list) ? list : [];
    this.els.picks.replaceChildren();
    this.els.picksWrap.hidden = this.list.length === 0;
    for (const l of this.list) {
      const b = el('button', 'btn lesson-pick', `Lesson: ${l.title}`);
      b.type = 'button';
      b.dataset.testid = `lesson-${l.id}`;
      b.title = l.story;
      b.addEventListener('click', () => this.start(l.id));
      this.els.picks.append(b);
    }
  }

  has(id) { return this.list.some((l) => l.id === id); }

  /** Starts a lesson: the broken setup is loaded (the rest at defaults). */
  start(id, { loadConfig = true } = {}) {
    const l = this.list.find((x) => x.id === id);
    if (!l) return false;
    this.active = l;
    this.hintsShown = 0;
    this.met = false;
    this.prevValues = null; // each check's value on the previous run, for "was X → now Y"
    this.lastValues = null;
    this.render();
    if (loadConfig) this.hooks.start(l.broken);
    this.els.panel.hidden = false;
    this.els.panel.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
    return true;
  }

  /** Hides the lesson without touching the settings. */
  close() {
    this.active = null;
    this.els.panel.hidden = true;
    this.els.panel.replaceChildren();
    this.checksEl = null;
  }

  stop() {
    this.close();
    this.hooks.stop();
  }

  render() {
    const l = this.active;
    const p = this.els.panel;
    const head = el('div', 'section-head');
    const h = el('h2', null, `Lesson: ${l.title}`);
    h.id = 'lesson-h';
    const close = el('button', 'btn small', 'Leave the lesson');
    close.type = 'button';
    close.addEventListener('click', () => this.stop());
    head.append(h, close);

    const story = el('p', 'lesson-story', l.story);
    const symptom = el('p', 'lesson-symptom');
    symptom.append(el('strong', null, 'What is wrong: '), document.createTextNode(l.symptom));
    const goal = el('p', 'lesson-goal');
    goal.append(el('strong', null, 'Your goal: '), document.createTextNode(`${l.goal} Change the settings until every check is green.`));

    this.checksEl = el('ul', 'checks');
    this.checksEl.dataset.testid = 'lesson-checks';
    this.checksEl.setAttribute('aria-live', 'polite');

    this.hintsEl = el('ol', 'hints');
    const hintBtn = el('button', 'btn small', 'Show a hint');
    hintBtn.type = 'button';
    hintBtn.dataset.testid = 'lesson-hint';
    this.fixesEl = el('div', 'fixes');
    this.fixesEl.hidden = true;
    this.fixesEl.append(el('span', 'hint', 'Fixes that work:'));
    for (const f of l.fixes || []) {
      const b = el('button', 'btn small', `Try: ${f.name}`);
      b.type = 'button';
      b.dataset.testid = `lesson-fix-${f.name.replace(/\W+/g, '-')}`;
      b.addEventListener('click', () => this.hooks.fix(f.config));
      this.fixesEl.append(b);
    }
    hintBtn.addEventListener('click', () => {
      if (this.hintsShown < l.hints.length) {
        this.hintsEl.append(el('li', null, l.hints[this.hintsShown]));
        this.hintsShown += 1;
      }
      if (this.hintsShown >= l.hints.length) { hintBtn.hidden = true; this.fixesEl.hidden = false; }
    });
    const reset = el('button', 'btn small', 'Break it again');
    reset.type = 'button';
    reset.addEventListener('click', () => this.hooks.start(l.broken));

    this.doneEl = el('div', 'lesson-done');
    this.doneEl.dataset.testid = 'lesson-done';
    this.doneEl.hidden = true;
    this.doneEl.append(el('strong', null, '✓ Goal met. Why it works:'), el('p', null, l.explanation),
      el('p', 'rule', `Rule of thumb: ${l.rule_of_thumb}`));

    const actions = el('div', 'lesson-actions');
    actions.append(hintBtn, reset);
    p.replaceChildren(head, story, symptom, goal, this.checksEl, this.doneEl, this.hintsEl, actions, this.fixesEl);
  }

  /** Re-evaluates the goal on a new report. */
  update(report) {
    const l = this.active;
    if (!l || !this.checksEl) return;
    const values = (l.checks || []).map((c) => valueAt(report, c.metric));
    // The previous run's value stays until a run changes it, so a fix reads "was 62% → now 92%".
    if (this.lastValues && values.some((v, i) => fmtMetric(l.checks[i].metric, v) !== fmtMetric(l.checks[i].metric, this.lastValues[i]))) {
      this.prevValues = this.lastValues;
    }
    this.lastValues = values;
    const items = (l.checks || []).map((c, i) => {
      const v = values[i];
      const met = c.op === '<=' ? v <= c.value : v >= c.value;
      const li = el('li', met ? 'met' : 'unmet');
      const was = this.prevValues ? fmtMetric(c.metric, this.prevValues[i]) : null;
      const now = fmtMetric(c.metric, v);
      const words = was !== null && was !== now ? `was ${was} → now ${now}` : `now ${now}`;
      li.append(el('span', 'mark', met ? '✓' : '✗'), document.createTextNode(` ${c.label}: ${words}`));
      return { li, met };
    });
    this.checksEl.replaceChildren(...items.map((i) => i.li));
    const all = items.length > 0 && items.every((i) => i.met);
    this.doneEl.hidden = !all;
    this.els.panel.classList.toggle('solved', all);
  }
}
