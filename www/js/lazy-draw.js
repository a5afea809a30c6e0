// www/js/lazy-draw.js: redraws a chart when a reader can see it. A chart on or near the screen is
// redrawn at once; one further down holds the new data at once (what it holds is always the latest
// run) and is drawn when it comes near the screen or the page is next idle, whichever comes first,
// so a slider step pays only for the charts in view.

const NEAR_PX = 400;       // "near the screen": within this distance of the viewport
const IDLE_WAIT_MS = 1000; // the longest an off-screen chart waits for an idle moment

export class LazyDraw {
  constructor() {
    this.pending = new Set();
    this.near = new Map(); // canvas -> near the screen, as the observer last reported it
    this.idle = 0;
    this.io = typeof IntersectionObserver === 'function'
      ? new IntersectionObserver((entries) => this.seen(entries), { rootMargin: `${NEAR_PX}px 0px` })
      : null;
    // A printout shows the whole page at once.
    if (typeof window !== 'undefined') window.addEventListener('beforeprint', () => this.flush());
  }

  watch(chart) { this.io?.observe(chart.canvas); }

  forget(chart) {
    this.io?.unobserve(chart.canvas);
    this.near.delete(chart.canvas);
    this.pending.delete(chart);
  }

  /** Redraws `chart` from the data and options already set on it: now if it can be seen, else later. */
  draw(chart) {
    if (this.isNear(chart.canvas)) {
      this.pending.delete(chart);
      chart.update('none');
      return;
    }
    this.pending.add(chart);
    this.whenIdle();
  }

  isNear(canvas) {
    if (!this.io) return true;
    if (this.near.has(canvas)) return this.near.get(canvas);
    const r = canvas.getBoundingClientRect(); // before the observer's first report
    return r.bottom >= -NEAR_PX && r.top <= window.innerHeight + NEAR_PX;
  }

  seen(entries) {
    for (const e of entries) {
      this.near.set(e.target, e.isIntersecting);
      if (!e.isIntersecting) continue;
      for (const c of this.pending) if (c.canvas === e.target) { this.pending.delete(c); c.update('none'); }
    }
  }

  whenIdle() {
    if (this.idle) return;
    const run = () => { this.idle = 0; this.flush(); };
    this.idle = typeof requestIdleCallback === 'function' ? requestIdleCallback(run, { timeout: IDLE_WAIT_MS }) : setTimeout(run, 200);
  }

  /** Draws every chart still waiting. */
  flush() {
    const charts = [...this.pending];
    this.pending.clear();
    for (const c of charts) c.update('none');
  }
}

/** The page's one instance (every chart that can scroll out of view). */
export const lazyDraw = new LazyDraw();
