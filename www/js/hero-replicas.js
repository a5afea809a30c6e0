// www/js/hero-replicas.js: the hero's per-replica view of the run on screen (the figure's ringed
// point): requests routed to each replica as bars, each replica in its colour as in the charts
// below, and each replica's token hit rate as a diamond on a 0-100% axis, so the hot replica (the
// tall bar) and what it serves from cache show at once. Its line above names the busiest replica.

import { replicaColor, replicaName, themeInk, pct, num, countPct } from './format.js';
import { axisTitle, poolDivider, replicaLabel } from './charts.js';
import { lazyDraw } from './lazy-draw.js';
import { setText } from './page-bits.js';

/** The datasets' labels, as the tests find them. */
export const REQUESTS_LABEL = 'Requests routed';
export const HIT_LABEL = 'Token hit rate';

export class HeroReplicas {
  /** canvas: the chart; head: the line above it. */
  constructor(canvas, head) {
    this.canvas = canvas;
    this.head = head;
    this.chart = null;
    this.report = null;
    this.create();
  }

  create() {
    const t = themeInk();
    this.chart = new window.Chart(this.canvas, {
      type: 'bar',
      data: { labels: [], datasets: [
        { type: 'bar', label: REQUESTS_LABEL, data: [], backgroundColor: [], borderRadius: 3, maxBarThickness: 48, yAxisID: 'y', order: 2 },
        { type: 'line', label: HIT_LABEL, data: [], yAxisID: 'y1', borderColor: t.ink, backgroundColor: t.ink,
          pointRadius: 4, pointHoverRadius: 6, pointStyle: 'rectRot', showLine: false, order: 1, clip: 8 },
      ] },
      plugins: [poolDivider],
      options: {
        layout: { padding: { top: 4 } },
        plugins: {
          // The axes' titles say which mark is which (a legend took a phone's last 20 px).
          legend: { display: false },
          tooltip: { callbacks: { label: (c) => (c.datasetIndex === 0 ? ` ${num(c.parsed.y)} requests routed here`
            : ` ${c.parsed.y.toFixed(1)}% of its prompt tokens came from its cache`) } },
        },
        scales: {
          x: { grid: { display: false }, ticks: { font: { size: 10 }, maxRotation: 0, autoSkip: true } },
          y: { beginAtZero: true, grace: '8%', title: axisTitle('Requests (bars)'), ticks: { precision: 0, maxTicksLimit: 4, font: { size: 10 } } },
          y1: { position: 'right', min: 0, max: 100, title: axisTitle('Hit rate (◆)'), grid: { display: false },
            ticks: { stepSize: 50, font: { size: 10 }, callback: (v) => `${v}%` } },
        },
      },
    });
    lazyDraw.watch(this.chart);
  }

  destroy() { if (this.chart) lazyDraw.forget(this.chart); this.chart?.destroy(); this.chart = null; }

  retheme() {
    this.destroy();
    this.create();
    if (this.report) this.update(this.report);
  }

  /** Redraws from a report: its per-replica requests and token hit rates. */
  update(report) {
    this.report = report;
    const per = report.per_instance || [];
    const s = report.summary || {};
    const c = this.chart;
    const labels = per.map((r) => (r.preset ? replicaName(r) : replicaLabel(r.index ?? 0)));
    c.data.labels = labels;
    c.data.datasets[0].data = per.map((r) => r.requests ?? 0);
    c.data.datasets[0].backgroundColor = per.map((r) => replicaColor(r.index ?? 0));
    // No diamond for a replica that served nothing: it has no hit rate to show (not 0%).
    c.data.datasets[1].data = per.map((r) => (r.requests > 0 && Number.isFinite(r.hit_rate_tokens) ? 100 * r.hit_rate_tokens : null));
    // Many replicas: thin bars, smaller diamonds.
    c.data.datasets[1].pointRadius = per.length > 32 ? 2 : 4;
    // A split fleet's pools, as the charts below divide them.
    const split = per.filter((r) => r.pool === 'prefill').length;
    c.options.plugins.poolDivider = split > 0 && split < per.length ? { split, n: per.length, ink: themeInk().ink } : {};
    // A phone's short chart: the axis title without its key (the bars are the only bars).
    c.options.scales.y.title.text = c.height < 130 ? 'Requests' : 'Requests (bars)';
    lazyDraw.draw(c);
    const words = headWords(per, s);
    setText(this.head, words);
    this.canvas.setAttribute('aria-label', `Requests and token hit rate per replica in this run: ${per.map((r, i) => `${labels[i]} ${num(r.requests ?? 0)} requests, ${pct(r.hit_rate_tokens, 0)}`).join('; ')}.`);
  }
}

/** A replica with this many times an even share of requests is named hot. */
export const HOT_TIMES = 1.5;

/**
 * The line above the chart: the busiest replica's share of requests against an even one, the replica
 * named hot at HOT_TIMES an even share ("This run: R2 is hot, 62% of requests (even 25%)").
 */
export function headWords(all, s) {
  // A split fleet routes over its prefill pool (each request also lands on one decode replica).
  const per = all.some((r) => r.pool) ? all.filter((r) => r.pool === 'prefill') : all;
  const n = per.length;
  if (!n || !s.requests) return 'This run, per replica';
  if (n === 1) return per === all ? 'This run: one replica, every request' : 'This run: one prefill replica, every request';
  const top = per.reduce((b, r) => ((r.requests ?? 0) > (b.requests ?? 0) ? r : b), per[0]);
  const share = (top.requests ?? 0) / s.requests;
  // Autoscaled (the summary's GPU-hours), replicas lived for different stretches: no even share.
  if (Number.isFinite(s.gpu_hours)) {
    return `This run (autoscaled; replicas came and went): busiest ${replicaLabel(top.index ?? 0)}, ${countPct(share, shareDigits(share, share))} of requests`;
  }
  const even = 1 / n;
  const who = share >= HOT_TIMES * even ? `${replicaLabel(top.index ?? 0)} is hot,` : `busiest ${per === all ? '' : 'prefill '}replica`;
  const digits = shareDigits(share, even);
  return `This run: ${who} ${countPct(share, digits)} of requests (even ${countPct(even, digits)})`;
}

/**
 * Decimals for the busiest and the even share, the same for both: whole percents, one decimal once
 * either is under 10% (256 replicas: "1.2% of requests (even 0.4%)", never "even 0%").
 */
export function shareDigits(share, even) {
  return Math.min(share, even) < 0.1 ? 1 : 0;
}
