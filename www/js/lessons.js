// www/js/lessons.js: the break-and-fix lessons from the simulator (lessons_json): load the broken
// setup, watch the goal's checks turn green on every run (in a workbench beside the controls of the
// lesson's own settings, so a change and its check share one screen), reveal hints one at a time (the button says
// what its next click shows: "Show another hint (2 of 3)", then the last hint with the fixes; it is
// withdrawn while the goal is met), try the fixes, read why (the rule of thumb shown once: see
// rulePlaces, in lesson-settings.js with the "Its settings" list); then three interview questions
// (model answers behind a disclosure, their numbers measured by runs in a worker of its own:
// lesson_material_json) and a four-question check whose first answers count (lesson-quiz.js).
// On a trace the figure comes first, drawn as soon as its runs are done, before the interview's and the check's.
// Test hooks: window.kvfleet.lessonMaterial = {id, material, at_ms} once a lesson's material has arrived;
// window.kvfleet.lessonFigure = {id, beforeMaterial, at_ms} when its figure is drawn.

import { num, msText, countPct } from './format.js';
import { drawLessonFigure, markRun, runSeries } from './lesson-figure.js';
import { builtin, BUILTIN } from './traces.js';
import { rulePlaces, renderSettingsList, controlNames } from './lesson-settings.js';
import { el } from './page-bits.js';
import { buildQuiz, scoreText, allPassed, readCompleted, writeCompleted } from './lesson-quiz.js';
import { formatValue, Controls } from './controls.js';
import { afterPress } from './press.js';

export { liveRule, sameRule, rulePlaces } from './lesson-settings.js';


function firstSentence(text) {
  const i = text.indexOf('. ');
  return i < 0 ? text : text.slice(0, i + 1);
}

/**
 * The hint button's words: what its next click shows, after `shown` of `total` hints. The last hint
 * comes with the fixes (the "Try: ..." buttons).
 */
export function hintLabel(shown, total) {
  if (shown >= total) return 'Show the fixes';
  const next = shown + 1;
  if (next === total) return total === 1 ? 'Show the hint and the fixes' : `Show the last hint (${next} of ${total}) and the fixes`;
  return `${shown === 0 ? 'Show a hint' : 'Show another hint'} (${next} of ${total})`;
}

/** Reads `summary.hit_rate_tokens`-style paths from a report. */
function valueAt(report, path) {
  // Paths joined by '|' are alternatives: the first one present (as the core's `metric_of`).
  for (const p of path.split('|')) {
    const v = p.split('.').reduce((node, key) => (node == null ? undefined : node[key]), report);
    if (typeof v === 'number') return v;
  }
  return NaN;
}

function fmtMetric(metric, v) {
  if (!Number.isFinite(v)) return '–';
  if (/hit_rate|reuse|share/.test(metric)) return countPct(v);
  if (/_ms/.test(metric)) return msText(v); // '1 s', as the checks' own words say it
  return num(v, Number.isInteger(v) ? 0 : 2);
}

/**
 * The settings of the lesson's workload (`workload`: each with the value its runs use) that the run's
 * config sets otherwise.
 */
export function changedWorkload(lesson, config) {
  return changedOf(lesson.workload, config);
}

/** The settings of the lesson's GPU (`hardware`: engine, mixed fleet) that the run's config sets otherwise. */
export function changedHardware(lesson, config) {
  return changedOf(lesson.hardware, config);
}

/** The keys of `pinned` whose value `config` sets otherwise (an absent key reads as null). */
function changedOf(pinned, config) {
  return Object.entries(pinned || {})
    .filter(([k, v]) => JSON.stringify(config?.[k] ?? null) !== JSON.stringify(v ?? null))
    .map(([k]) => k);
}

/** The run's GPU in words: its engine, or its mixed fleet. */
function gpuWords(config) {
  const fleet = (config?.fleet || '').trim();
  return fleet ? `mixed fleet ${fleet}` : `engine ${config?.engine}`;
}

export class Lessons {
  /**
   * els: {picks, panel}; hooks: {start(broken), fix(changes), stop()} change the page's config;
   * workerUrl: the simulator worker (a separate one measures the lessons' answers).
   */
  constructor(els, hooks, workerUrl = null, { exerciseOnly = false, progressLater = false } = {}) {
    this.exerciseOnly = exerciseOnly; // an embed: the exercise alone, no teaching material
    this.progressLater = progressLater; // the completed lessons are read when loadProgress() is called
    this.doneIds = null;
    this.els = els;
    this.hooks = hooks;
    this.workerUrl = workerUrl;
    this.materials = new Map(); // id -> material, once measured
    this.diagrams = new Map(); // id -> the measured figure (on a trace it comes before the rest of the material)
    this.list = [];
    this.active = null;
    this.hintsShown = 0;
  }

  setLessons(list) {
    this.list = Array.isArray(list) ? list : [];
    this.els.picks.replaceChildren();
    this.els.picksWrap.hidden = this.list.length === 0;
    for (const l of this.list) {
      const b = el('button', 'btn lesson-pick', l.title);
      b.type = 'button';
      b.dataset.testid = `lesson-${l.id}`;
      b.title = l.story;
      b.addEventListener('click', () => this.start(l.id));
      this.els.picks.append(b);
    }
    this.renderIndex();
  }

  /** Lessons completed in this browser (goal met and every check question passed): id -> {first_right, questions}. */
  done() {
    if (this.doneIds) return new Map(this.doneIds);
    if (this.progressLater) return new Map(); // not read yet (loadProgress)
    return readCompleted();
  }

  /**
   * Reads the completed lessons and marks them in the index. The page calls it after the first
   * chart: a fresh tab's first localStorage read waits on the browser (tens of ms on a cold load),
   * so until then the index says "Start" everywhere (its rows have the same size either way).
   */
  loadProgress() {
    if (this.doneIds) return;
    const d = readCompleted();
    this.doneIds = [...d];
    if (d.size) this.renderIndex();
  }

  /** Marks lesson `id` complete with its first answers' score (the better of this and a kept one). */
  markDone(id, score) {
    if (this.progressLater) this.loadProgress();
    const d = this.done();
    const kept = d.get(id);
    if (kept && kept.first_right >= score.first_right) return;
    d.set(id, score);
    if (this.doneIds) this.doneIds = [...d];
    writeCompleted(d); // storage off: progress is not kept
    this.renderIndex();
  }

  /** The course index: title, story, difficulty, minutes and completion of every lesson. */
  renderIndex() {
    const { index, indexSummary } = this.els;
    if (!index) return;
    const done = this.done();
    index.replaceChildren(...this.list.map((l) => {
      const d = done.get(l.id);
      const li = el('li', d ? 'done' : '');
      li.dataset.testid = `course-${l.id}`;
      const b = el('button', 'btn small', d ? 'Again' : 'Start');
      b.type = 'button';
      b.addEventListener('click', () => this.start(l.id));
      const head = el('div', 'course-head');
      head.append(el('strong', null, l.title), el('span', 'course-meta', ` · ${l.difficulty} · about ${l.minutes} min`),
        el('span', 'course-done', d ? ` · ✓ completed, ${d.first_right} of ${d.questions} on the first try` : ''));
      li.append(head, el('p', 'hint', firstSentence(l.story)), b);
      return li;
    }));
    if (indexSummary) indexSummary.textContent = `${this.list.length} lessons, ${[...done.keys()].filter((id) => this.has(id)).length} completed in this browser`;
  }

  has(id) { return this.list.some((l) => l.id === id); }

  /** Starts a lesson: the broken setup is loaded (the rest at defaults). */
  start(id, { loadConfig = true } = {}) {
    const l = this.list.find((x) => x.id === id);
    if (!l) return false;
    this.active = l;
    this.hintsShown = 0;
    this.met = false;     // the goal is met on the run on screen
    this.goalMet = false; // the goal was met at some point (with the check, the lesson is complete)
    this.answers = null;
    this.prevValues = null; // each check's value on the previous run, for "was X → now Y"
    this.lastValues = null;
    this.render();
    if (!this.exerciseOnly) this.requestMaterial(l.id);
    if (loadConfig) this.hooks.start(l.broken, l.trace || null);
    this.els.panel.hidden = false;
    if (!this.exerciseOnly) this.els.panel.scrollIntoView({ block: 'start', behavior: 'smooth' });
    return true;
  }

  /** The page's parameter table (labels, help, units) for the settings list. */
  setParams(params) { this.params = params || []; }
  /** The simulator's default settings: with a lesson's broken setup, the base of its figure's runs. */
  setDefaults(defaults) { this.defaults = defaults || {}; }

  /** "Its settings": each setting the lesson uses, what it does, its value on this run, its rule. */
  renderSettings(config, report = null) {
    const { params, places, exerciseOnly } = this;
    renderSettingsList(this.settingsEl, this.active, { params, places, exerciseOnly }, config, report);
  }

  /** The measured "how it works" figure, with the active lesson's goal across it. */
  drawDiagram(d) {
    if (!this.diagramEl) return;
    // Drawn already (it came ahead of the rest of the material): kept as it is.
    if (this.diagramShown?.el === this.diagramEl && this.diagramShown.d === d) return;
    this.diagramChart?.destroy();
    this.diagramChart = drawLessonFigure(this.diagramEl, d, this.active?.checks || []);
    this.diagramShown = { el: this.diagramEl, d };
    // Test hook: whether the figure was drawn before the rest of the lesson's material had come.
    const id = this.active?.id;
    window.kvfleet = Object.assign(window.kvfleet || {}, { lessonFigure: { id, beforeMaterial: !this.materials.has(id), at_ms: performance.now() } });
    if (this.lastReport) this.markRun(this.lastReport);
  }

  /** "You are here": the run on screen ringed on the lesson's figure when it is one of the figure's runs. */
  markRun(report) {
    const l = this.active, d = l && this.diagrams.get(l.id), charts = this.diagramChart?.charts;
    if (!d || !charts || !report.config) return;
    const i = runSeries(d, report.config, { ...this.defaults, ...l.broken });
    markRun(charts, d, i, report.config[d.x_key], (path) => valueAt(report, path));
    window.kvfleet = Object.assign(window.kvfleet || {}, { lessonRunSeries: i });
  }

  /** Measures a lesson's interview answers and check in a worker of its own (once per lesson). */
  requestMaterial(id) {
    if (this.materials.has(id)) { this.showMaterial(id); return; }
    if (this.diagrams.has(id)) this.drawDiagram(this.diagrams.get(id));
    if (!this.workerUrl) return;
    if (!this.materialWorker) {
      this.materialWorker = new Worker(this.workerUrl, { type: 'module' });
      // (After the release of a press on the page: the measured figure moves what is under it; press.js.)
      this.materialWorker.onmessage = (e) => afterPress(() => this.onMaterial(e.data), e.data?.type);
    }
    // A lesson on a built-in trace measures its answers on that trace (fetched by the worker).
    const l = this.list.find((x) => x.id === id);
    this.materialWorker.postMessage({ type: 'lesson-material', id, trace: l?.trace ? builtin(l.trace) : null, blockSize: l?.broken?.block_size ?? 512 });
  }

  /** The material worker's message: a lesson's measured material, its error, or the worker's failure. */
  onMaterial(m) {
    if (m.type === 'lesson-diagram') {
      this.diagrams.set(m.id, m.diagram);
      if (this.active?.id === m.id && !this.materials.has(m.id)) this.drawDiagram(m.diagram);
    } else if (m.type === 'lesson-material') {
      this.materials.set(m.id, m.material);
      if (!this.diagrams.has(m.id)) this.diagrams.set(m.id, m.material.diagram);
      window.kvfleet = window.kvfleet || {};
      window.kvfleet.lessonMaterial = { id: m.id, material: m.material, at_ms: performance.now() };
      if (this.active?.id === m.id) this.showMaterial(m.id);
    } else if (m.type === 'lesson-material-error' && this.active?.id === m.id && this.materialEl) {
      this.materialEl.replaceChildren(el('p', 'run-error', `The interview answers could not be measured: ${m.message}`));
    } else if (m.type === 'fatal') {
      // It could not load the simulator: say so, and start a new worker on the next request.
      this.materialWorker.terminate();
      this.materialWorker = null;
      this.materialEl?.replaceChildren(el('p', 'run-error', `The interview answers could not be measured: their worker could not start (${m.message}).`));
    }
  }

  /** The interview questions and the short check of a measured lesson. */
  showMaterial(id) {
    const m = this.materials.get(id);
    if (!m || !this.materialEl) return;
    this.drawDiagram(this.diagrams.get(id));
    const iv = el('section', 'lesson-interview');
    iv.dataset.testid = 'lesson-interview';
    iv.append(el('h3', 'sub-h', 'Interview questions'), el('p', 'hint', 'Answer aloud first, then open the model answer. Its numbers were measured just now by runs of this lesson’s setups.'));
    for (const q of m.interview) {
      const d = el('details', 'qa');
      d.append(el('summary', null, q.question), el('p', null, q.answer));
      iv.append(d);
    }
    const quiz = buildQuiz(m.quiz, `quiz-${this.active.id}`, (answers) => this.updateScore(answers));
    this.scoreEl = el('p', 'quiz-score');
    this.scoreEl.dataset.testid = 'quiz-score';
    this.scoreEl.setAttribute('aria-live', 'polite');
    quiz.section.append(this.scoreEl);
    this.answers = quiz.answers();
    this.materialEl.replaceChildren(iv, quiz.section);
  }

  /** The score line; the lesson is complete once its goal was met and every question passed (lesson-quiz.js). */
  updateScore(answers) {
    this.answers = answers;
    this.scoreEl.textContent = scoreText(answers);
    this.maybeComplete();
  }

  /** A lesson is complete once its goal has been met and every check question passed. */
  maybeComplete() {
    const l = this.active;
    if (!l || !this.goalMet || !this.answers || !allPassed(this.answers)) return;
    this.markDone(l.id, { first_right: this.answers.filter((a) => a.first === true).length, questions: this.answers.length });
    if (this.scoreEl && !/Lesson complete/.test(this.scoreEl.textContent)) this.scoreEl.textContent += ' Lesson complete: it is marked in the course index.';
  }

  /** Hides the lesson without touching the settings. */
  close() {
    this.active = null;
    this.controls = null;
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
    this.places = rulePlaces(l, this.exerciseOnly);
    const head = el('div', 'section-head');
    const h = el('h2', null, `Lesson: ${l.title}`);
    h.id = 'lesson-h';
    const close = el('button', 'btn small', 'Leave the lesson');
    close.type = 'button';
    close.addEventListener('click', () => this.stop());
    head.append(h, close);

    const story = el('p', 'lesson-story', l.story);
    if (l.trace) story.append(el('span', 'lesson-trace', ` Every run of this lesson replays the ${BUILTIN[l.trace] || l.trace}.`));
    const how = el('section', 'lesson-how');
    how.dataset.testid = 'lesson-how';
    how.append(el('h3', 'sub-h', 'How it works'), el('p', null, l.how || ''));
    this.diagramEl = el('figure', 'lesson-diagram');
    this.diagramEl.append(el('p', 'hint', 'Measuring the figure…'));
    how.append(this.diagramEl);
    this.settingsEl = el('section', 'lesson-settings');
    this.settingsEl.dataset.testid = 'lesson-settings';
    this.renderSettings(null);
    const exercise = el('h3', 'sub-h', 'The exercise');
    const symptom = el('p', 'lesson-symptom');
    symptom.append(el('strong', null, 'What is wrong: '), document.createTextNode(l.symptom));
    const goal = el('p', 'lesson-goal');
    goal.append(el('strong', null, 'Your goal: '), document.createTextNode(`${l.goal} Change the settings until every check is green.`));

    this.checksEl = el('ul', 'checks');
    this.checksEl.dataset.testid = 'lesson-checks';
    this.checksEl.setAttribute('aria-live', 'polite');

    this.hintsEl = el('ol', 'hints');
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
    const hintBtn = this.hintButton(l);
    const reset = el('button', 'btn small', 'Break it again');
    reset.type = 'button';
    reset.dataset.testid = 'lesson-reset';
    reset.addEventListener('click', () => { this.prevValues = null; this.hooks.start(l.broken, l.trace || null); });

    this.doneEl = el('div', 'lesson-done');
    this.doneEl.dataset.testid = 'lesson-done';
    this.doneEl.hidden = true;
    this.doneEl.append(el('strong', null, '✓ Goal met. Why it works:'), el('p', null, l.explanation));
    if (this.places.inDone) this.doneEl.append(el('p', 'rule', `Rule of thumb: ${l.rule_of_thumb}`));

    const actions = el('div', 'lesson-actions');
    actions.append(hintBtn, reset);
    this.materialEl = el('div', 'lesson-material');
    this.materialEl.append(el('p', 'hint', 'Measuring the interview answers and the short check…'));
    if (this.exerciseOnly) {
      close.hidden = true;
      p.replaceChildren(head, el('p', 'lesson-story', firstSentence(l.story)), goal, this.checksEl, this.doneEl, this.hintsEl, actions, this.fixesEl);
      return;
    }
    p.replaceChildren(head, story, how, this.settingsEl, exercise, symptom, goal, this.bench(l), this.hintsEl, actions, this.fixesEl, this.materialEl);
  }

  /**
   * The workbench: the goal's live checks beside the controls of the lesson's own settings (side by
   * side on a wide screen, the checks held at the top while the controls scroll on a narrow one), so a
   * change and the check it turns green are on one screen.
   */
  bench(l) {
    const bench = el('div', 'lesson-bench');
    bench.dataset.testid = 'lesson-bench';
    const form = el('form', 'lesson-controls');
    form.dataset.testid = 'lesson-controls';
    form.setAttribute('aria-label', 'The lesson’s settings');
    this.controls = new Controls(form, this.params || [], (name, value) => this.hooks.control?.(name, value), { names: controlNames(l), prefix: 'lesson-' });
    if (this.config) this.controls.setAll(this.config, this.traceMode);
    const checks = el('div', 'bench-checks');
    checks.append(el('p', 'bench-title', 'The goal, checked on every run'), this.checksEl);
    const controls = el('div', 'bench-controls');
    controls.append(el('p', 'bench-title', 'Change it here'), form);
    // The explanation once the goal is met: under the checks on a wide screen, under the controls on a phone.
    bench.append(checks, controls, this.doneEl);
    return bench;
  }

  /** Puts the workbench's controls at the page's settings (called on every change of them). */
  syncControls(config, traceMode) {
    this.config = config;
    this.traceMode = traceMode;
    this.controls?.clearErrors();
    this.controls?.setAll(config, traceMode);
  }

  /** Says why the simulator rejected a setting under the workbench's own control of it, where it was moved. */
  showError(name, message) {
    return this.controls?.showError(name, message) ?? false;
  }

  /** The hint button: each click shows the next hint; the last one comes with the fixes. */
  hintButton(l) {
    const b = el('button', 'btn small', hintLabel(this.hintsShown, l.hints.length));
    b.type = 'button';
    b.dataset.testid = 'lesson-hint';
    b.addEventListener('click', () => {
      if (this.hintsShown < l.hints.length) {
        this.hintsEl.append(el('li', null, l.hints[this.hintsShown]));
        this.hintsShown += 1;
      }
      if (this.hintsShown >= l.hints.length) this.fixesEl.hidden = false;
      b.textContent = hintLabel(this.hintsShown, l.hints.length);
      this.syncHint();
    });
    this.hintBtn = b;
    return b;
  }

  /** "request rate 10 req/s, the lesson's 30 req/s": each changed workload setting, as the controls write it. */
  workloadWords(keys, config) {
    return keys.map((k) => {
      const p = (this.params || []).find((x) => x.name === k) || { name: k, label: k, kind: '', unit: '' };
      return `${p.label.toLowerCase()} ${formatValue(p, config[k])}, the lesson’s ${formatValue(p, this.active.workload[k])}`;
    }).join('; ');
  }

  /** Says why the run on screen is not judged, in place of the goal's checks. */
  notJudged(testid, words) {
    const li = el('li', 'unmet');
    li.dataset.testid = testid;
    li.append(el('span', 'mark', '✗'), document.createTextNode(` ${words}`));
    this.checksEl.replaceChildren(li);
    this.doneEl.hidden = true;
    this.els.panel.classList.remove('solved');
    this.met = false;
    this.syncHint();
  }

  /** The hint button is offered while the goal is unmet and a hint is left to show. */
  syncHint() {
    if (!this.hintBtn || !this.active) return;
    const hidden = this.met || this.hintsShown >= this.active.hints.length;
    if (this.hintBtn.hidden !== hidden) this.hintBtn.hidden = hidden;
  }

  /** Re-evaluates the goal on a new report. */
  update(report) {
    const l = this.active;
    if (!l || !this.checksEl) return;
    // The goal is about the lesson's own workload: a run of another one says nothing of it.
    const wanted = l.trace || null;
    const source = !report.source || ['synthetic', 'sessions'].includes(report.source) ? null : report.source;
    if (wanted !== source) {
      this.notJudged('lesson-wrong-source', `This run is not of the lesson’s workload (${wanted ? `the ${BUILTIN[wanted] || wanted}` : 'the synthetic workload'}): press “Break it again” to go back to it.`);
      return;
    }
    // The goal is about the lesson's own calls: a run that changes them is not judged.
    const changed = changedWorkload(l, report.config);
    if (changed.length) {
      this.notJudged('lesson-wrong-workload', `Not judged: this run changes the calls the lesson is about (${this.workloadWords(changed, report.config)}). Change the fleet, not the calls: press “Break it again” to go back to them.`);
      return;
    }
    // And about its GPU: a faster engine or a mixed fleet is not a fix of the fleet.
    const gpu = changedHardware(l, report.config);
    if (gpu.length) {
      this.notJudged('lesson-wrong-gpu', `Not judged: this run changes the GPU the lesson is about (${gpuWords(report.config)}; the lesson’s ${l.hardware.engine} on every replica). Change the fleet’s routing, size or cache, not its engine: press “Break it again” to go back to it.`);
      return;
    }
    this.renderSettings(report.config || null, report);
    this.lastReport = report;
    this.markRun(report);
    const values = (l.checks || []).map((c) => valueAt(report, c.metric));
    // "was" is the broken setup's value (the first run of the lesson), so a fix reads
    // "was 62% → now 92%" however many runs it took to get there.
    const isBroken = Object.entries(l.broken || {}).every(([k, v]) => JSON.stringify(report.config?.[k]) === JSON.stringify(v));
    if (!this.prevValues && isBroken) this.prevValues = values;
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
    if (all) { this.goalMet = true; this.maybeComplete(); }
    this.met = all;
    this.syncHint();
    this.doneEl.hidden = !all;
    this.els.panel.classList.toggle('solved', all);
    if (this.exerciseOnly) this.keepChecksInView();
  }

  /** An embed's lesson scrolls in a region of its own: after a run, its checks are brought into it. */
  keepChecksInView() {
    const region = this.els.panel, box = region.getBoundingClientRect(), c = this.checksEl.getBoundingClientRect();
    if (region.scrollHeight <= region.clientHeight) return;
    if (c.top < box.top || c.bottom > box.bottom) region.scrollTop += c.top - box.top - 4;
  }
}
