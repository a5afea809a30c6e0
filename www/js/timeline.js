// www/js/timeline.js: when the cold load's steps happened, in ms since the navigation's start (the
// worker's own clock converted), as window.kvfleet.marks for the page's tests, each one also a
// performance.mark('kvfleet:<name>') for a browser's performance panel. The first time counts.

export const marks = {};

export function mark(name, at = performance.now()) {
  if (name in marks) return;
  marks[name] = at;
  try { performance.mark(`kvfleet:${name}`, { startTime: at }); } catch { /* a browser without mark options */ }
}

/** Marks taken in the worker, in epoch ms (performance.timeOrigin + now there). */
export function markEpochs(epochMarks = {}) {
  for (const [name, at] of Object.entries(epochMarks)) mark(name, at - performance.timeOrigin);
}
