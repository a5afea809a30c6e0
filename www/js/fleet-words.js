// www/js/fleet-words.js: a mixed fleet in the page's words ("2 H100 + 2 B200", each GPU named as the
// per-replica charts name it), the note the Replicas slider leaves when it lays a mixed fleet out
// again in its proportions, and the Engine a cleared fleet gives back (the one in force before it).

import { fleetGroups } from './layout.js';
import { num, presetGpu } from './format.js';

/** Whether `config` has a mixed fleet's text (valid or not). */
export const hasFleet = (config) => String(config?.fleet ?? '').trim() !== '';

/** "2 H100 + 2 B200": the mixed fleet's groups by GPU, or null without one (or one that does not read as groups). */
export function mixWords(config) {
  const groups = fleetGroups(config || {});
  return groups ? groups.map((g) => `${num(g.count)} ${presetGpu(g.preset)}`).join(' + ') : null;
}

/**
 * The note under the Replicas slider after it resized a mixed fleet (`from` before, `to` after):
 * "6 replicas laid out in the fleet's proportions: 3 H100 + 3 B200 (was 2 H100 + 2 B200)."
 */
export function layoutNote(from, to) {
  const was = mixWords(from), now = mixWords(to);
  if (!was || !now || from.fleet === to.fleet) return '';
  return `${num(to.instances)} replica${to.instances === 1 ? '' : 's'} laid out in the mixed fleet's proportions: ${now} (was ${was}).`;
}

/**
 * The config after a control change from `before` to `after`, with the Engine a cleared mixed fleet
 * gives back, and what to remember: `{ config, engineBefore }`. Setting a fleet remembers the Engine
 * in force (`engineBefore`); clearing it restores that one, or `fallback` (the page's default) when
 * none was remembered.
 */
export function fleetEngine(before, after, engineBefore, fallback) {
  if (!hasFleet(before) && hasFleet(after)) return { config: after, engineBefore: before.engine };
  if (hasFleet(before) && !hasFleet(after)) return { config: { ...after, engine: engineBefore ?? fallback }, engineBefore: null };
  return { config: after, engineBefore };
}

/** Puts `text` in a note under the Replicas slider of `controls` (hidden when empty). */
export function showLayoutNote(controls, text) {
  const f = controls?.fields?.get('instances');
  if (!f) return;
  if (!f.layoutNote) {
    f.layoutNote = document.createElement('p');
    f.layoutNote.className = 'help fleet-layout-note';
    f.layoutNote.dataset.testid = `${controls.pre}fleet-layout-note`;
    f.layoutNote.setAttribute('role', 'status');
    f.root.append(f.layoutNote);
  }
  if (f.layoutNote.textContent !== text) f.layoutNote.textContent = text;
  if (f.layoutNote.hidden !== !text) f.layoutNote.hidden = !text;
}
