// www/js/lazy-draw.js: redraws a chart when a reader can see it. A chart in the viewport is redrawn at
// once; any other holds the new data at once (what it holds is always the latest run) and is drawn when
// it comes near the screen, or once the page has been quiet for a moment and is idle, whichever comes
// first, so a slider step (or a drag's many) pays only for the charts in view.

const NEAR_PX = 400;       // "near the screen": within this distance of the viewport
const QUIET_MS = 250;      // off-screen charts wait until no chart has been redrawn for this long...
const IDLE_WAIT_MS = 1000; // ...and then at most this long for an idle moment

export class LazyDraw {
  constructor() {
    this.pending = new Set();
    this.inView = new Map(); // canvas -> in the viewport, as the observer last reported it
    this.quiet = 0;
    this.idle = 0;
    const io = (margin, seen) => (typeof IntersectionObserver === 'function'
      ? new IntersectionObserver(seen, { rootMargin: `${margin}px 0px` }) : null);
    this.view = io(0, (entries) => this.seen(entries, true));
    this.near = io(NEAR_PX, (entries) => this.seen(entries, false));
    // A printout shows the whole page at once.
    if (typeof window !== 'undefined') window.addEventListener('beforeprint', () => this.flush());
  }

  watch(chart) {
    this.view?.observe(chart.canvas);
    this.near?.observe(chart.canvas);
  }

  forget(chart) {
    this.view?.unobserve(chart.canvas);
    this.near?.unobserve(chart.canvas);
    this.inView.delete(chart.canvas);
    this.pending.delete(chart);
  }

  /** Redraws `chart` from the data and options already set on it: now if it can be seen, else later. */
  draw(chart) {
    if (this.isInView(chart.canvas)) {
      this.pending.delete(chart);
      chart.update('none');
      return;
    }
    this.pending.add(chart);
    this.whenQuiet();
  }

  /** A setting changed and a redraw is on its way: the charts off the screen wait for it. */
  postpone() {
    if (this.pending.size) this.whenQuiet();
  }

  isInView(canvas) {
    if (!this.view) return true;
    if (this.inView.has(canvas)) return this.inView.get(canvas);
    const r = canvas.getBoundingClientRect(); // before the observer's first report
    return r.bottom >= 0 && r.top <= window.innerHeight;
  }

  /** An observer's report: a chart waiting to be drawn is drawn as it comes near (or into) view. */
  seen(entries, view) {
    for (const e of entries) {
      if (view) this.inView.set(e.target, e.isIntersecting);
      if (!e.isIntersecting) continue;
      for (const c of this.pending) if (c.canvas === e.target) { this.pending.delete(c); c.update('none'); }
    }
  }

  // Each redraw request restarts the wait, so a drag's steps never pay for charts off the screen.
  whenQuiet() {
    clearTimeout(this.quiet);
    if (this.idle) { (typeof cancelIdleCallback === 'function' ? cancelIdleCallback : clearTimeout)(this.idle); this.idle = 0; }
    this.quiet = setTimeout(() => {
      const run = () => { this.idle = 0; this.flush(); };
      this.idle = typeof requestIdleCallback === 'function' ? requestIdleCallback(run, { timeout: IDLE_WAIT_MS }) : setTimeout(run, 0);
    }, QUIET_MS);
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
