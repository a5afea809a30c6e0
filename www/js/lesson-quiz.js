// www/js/lesson-quiz.js: a lesson's four-question short check. The first answer to a question is the
// one that counts: a pick locks the question and says at once whether it is right, and why. A wrong
// answer offers "Answer again" (the explanation is on screen by then); a right second attempt passes
// the question, but the score keeps the first answers ("3 of 4 on the first try"). The lesson is
// complete once its goal was met and every question passed. Completed lessons are kept in
// localStorage (COMPLETED_KEY: {id: {first_right, questions}}), nothing is sent anywhere.

import { el } from './page-bits.js';

/**
 * Completed lessons, by id: how many questions were right on the first try, of how many. (An older
 * list of ids, kept before the first answer counted, says nothing of first answers: it is not read.)
 */
export const COMPLETED_KEY = 'kvfleet.lessons.completed';

/** The completed lessons kept in this browser: a Map id -> {first_right, questions}. */
export function readCompleted() {
  try {
    const o = JSON.parse(localStorage.getItem(COMPLETED_KEY) || '{}');
    const ok = (r) => r && Number.isInteger(r.first_right) && Number.isInteger(r.questions) && r.first_right >= 0 && r.first_right <= r.questions;
    return new Map(Object.entries(o && typeof o === 'object' && !Array.isArray(o) ? o : {}).filter(([, r]) => ok(r)));
  } catch { return new Map(); }
}

/** Keeps `map` (readCompleted's form); false when storage is off. */
export function writeCompleted(map) {
  try { localStorage.setItem(COMPLETED_KEY, JSON.stringify(Object.fromEntries(map))); return true; } catch { return false; }
}

/**
 * The state of one question: `first` is whether the first answer was right (null: not answered yet),
 * `passed` whether it was answered right, first time or on an attempt after its explanation.
 */
export function newAnswer() { return { first: null, passed: false, attempts: 0 }; }

/** Records a pick on answer state `a` (right or not); returns the new state. */
export function pick(a, right) {
  const attempts = a.attempts + 1;
  return { first: a.first === null ? right : a.first, passed: a.passed || right, attempts };
}

/** The check's score line: first answers count; later right answers are said apart. */
export function scoreText(answers) {
  const n = answers.length;
  const answered = answers.filter((a) => a.first !== null).length;
  const first = answers.filter((a) => a.first === true).length;
  const later = answers.filter((a) => a.first === false && a.passed).length;
  const open = answers.filter((a) => a.first === false && !a.passed).length;
  let s = `${first} of ${n} on the first try`;
  if (later) s += `; ${later} more right after the explanation`;
  if (open) s += `; ${open} to answer again`;
  if (answered < n) s += ` (${n - answered} to go)`;
  return `${s}.`;
}

/** Every question passed: right the first time, or on an attempt after its explanation was shown. */
export const allPassed = (answers) => answers.length > 0 && answers.every((a) => a.passed);

/**
 * The short check in a section: `quiz` is the lesson's material quiz, `name` the radio groups' prefix,
 * onChange(answers) after every pick. Returns {section, answers()}.
 */
export function buildQuiz(quiz, name, onChange) {
  let answers = quiz.map(newAnswer);
  const section = el('section', 'lesson-quiz');
  section.dataset.testid = 'lesson-quiz';
  section.append(el('h3', 'sub-h', 'Short check'),
    el('p', 'hint', 'Your first answer to each question counts. After a wrong one, read why, then answer again.'));
  quiz.forEach((q, i) => section.append(question(q, i, name, (right) => {
    answers = answers.map((a, k) => (k === i ? pick(a, right) : a));
    onChange(answers);
  })));
  return { section, answers: () => answers };
}

/** One multiple-choice question; a pick locks it and says whether it is right, and why. */
function question(q, i, name, onPick) {
  const fs = el('fieldset', 'quiz-q');
  fs.dataset.testid = `quiz-${i}`;
  fs.append(el('legend', null, `${i + 1}. ${q.question}`));
  const feedback = el('p', 'quiz-feedback');
  feedback.setAttribute('aria-live', 'polite');
  const again = el('button', 'btn small quiz-again', 'Answer again');
  again.type = 'button';
  again.dataset.testid = `quiz-again-${i}`;
  again.hidden = true;
  const inputs = q.choices.map((c, j) => {
    const input = document.createElement('input');
    input.type = 'radio';
    input.name = `${name}-${i}`;
    input.value = String(j);
    input.dataset.testid = `quiz-${i}-${j}`;
    const label = el('label', 'quiz-choice');
    label.append(input, document.createTextNode(` ${c}`));
    fs.append(label);
    return input;
  });
  let tries = 0;
  inputs.forEach((input, j) => input.addEventListener('change', () => {
    const right = j === q.correct;
    tries += 1;
    for (const x of inputs) x.disabled = true;
    feedback.className = `quiz-feedback ${right ? 'right' : 'wrong'}`;
    const checked = q.verified ? ` Checked by the simulator just now: ${q.evidence}.` : '';
    const head = right ? (tries > 1 ? '✓ Right, on a later try.' : '✓ Right.') : '✗ Not quite.';
    feedback.textContent = `${head} ${q.why}${right ? checked : ''}`;
    again.hidden = right;
    onPick(right);
  }));
  // A second attempt, with the explanation still above it: the choices open again, none picked.
  again.addEventListener('click', () => {
    for (const x of inputs) { x.disabled = false; x.checked = false; }
    again.hidden = true;
    inputs[0].focus();
  });
  fs.append(feedback, again);
  return fs;
}
