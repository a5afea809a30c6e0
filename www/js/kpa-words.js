// www/js/kpa-words.js: the load-over-time card's sentence when the KPA scaled down before its stable
// window had filled (judged from the run's own changes): at the start its window holds only the time
// since 0 s, and it has no scale-down delay, as Knative's autoscaler by default (the book's model
// chapter, KPA), so two starting replicas may drop to one at its first tick.

import { num } from './format.js';

const oneDecimal = (x) => x.toFixed(1);

/**
 * "The kpa autoscaler scaled down from 2 to 1 ready replica at 2.0 s, ..." when the run's first
 * drain came before `stableS` seconds (the stable window) had passed; '' otherwise (another scaler,
 * no drain, or a first drain after the window filled).
 */
export function earlyDrainWords(autoscale, stableS) {
  if (autoscale?.scaler !== 'kpa' || !Number.isFinite(stableS)) return '';
  const changes = autoscale.changes || [];
  const first = changes.find((c) => c.kind === 'drain');
  if (!first || !(first.t_s < stableS)) return '';
  // Each drain takes one replica out of the ready ones; all of that tick's drains together.
  const tick = changes.filter((c) => c.kind === 'drain' && c.t_s === first.t_s);
  const before = first.ready + 1, after = tick.at(-1).ready;
  return `The kpa autoscaler scaled down from ${num(before)} to ${num(after)} ready replica${after === 1 ? '' : 's'} at ${oneDecimal(first.t_s)} s,`
    + ` before its ${num(stableS)} s stable window had filled: it averages the requests in flight over the time since the start,`
    + ' and has no scale-down delay (Knative\'s defaults).';
}
