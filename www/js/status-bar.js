// www/js/status-bar.js: the sticky status bar's words for a run ("200 requests on 4 replicas,
// routing=kv · seed 42 · simulated in 57 ms") and its height, kept in --status-h for in-page jumps.

import { num } from './format.js';
import { mixWords } from './fleet-words.js';

/** "1 replica", "4 replicas": a count with its noun, plural unless it is one. */
function counted(n, noun) {
  return `${num(n)} ${noun}${n === 1 ? '' : 's'}`;
}

/** "4 replicas", or a mixed fleet's "2 H100 + 2 B200 replicas". */
function fleetCount(report) {
  const n = (report.per_instance || []).length;
  const mix = mixWords(report.config);
  return mix ? `${mix} replica${n === 1 ? '' : 's'}` : counted(n, 'replica');
}

/** The status bar's words for a run: "200 requests on 4 replicas, routing=kv · seed 42 · simulated in 57 ms". */
export function statusLine(report, runMs) {
  const s = report.summary || {};
  const src = report.source && report.source !== 'synthetic' ? ` · ${report.source}` : '';
  // Autoscaled, the per-replica rows are the fleet's slots: name the ready replicas' range instead.
  const ready = report.series?.replicas || [];
  const fleet = ready.length
    ? `${num(Math.min(...ready))}–${counted(Math.max(...ready), 'replica')} (${report.autoscale?.scaler} autoscaled)`
    : fleetCount(report);
  return `${counted(s.requests, 'request')} on ${fleet}, routing=${report.config?.routing} · seed ${report.seed}${src} · simulated in ${Math.round(runMs)} ms`;
}

/**
 * Keeps --status-h at the sticky status bar's height (it wraps to two lines in a narrow column, and
 * grows a progress bar), so an in-page jump stops below the bar, not under it (style.css).
 */
export function watchStatusHeight() {
  const bar = document.querySelector('.results > .status');
  if (!bar || typeof ResizeObserver !== 'function') return;
  new ResizeObserver(() => {
    document.documentElement.style.setProperty('--status-h', `${Math.ceil(bar.getBoundingClientRect().height)}px`);
  }).observe(bar);
}
