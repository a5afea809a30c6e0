// tests/e2e/goal-checks.mjs: a lesson's goal check computed by the tests themselves, apart from the
// page's code: the metric's path read from the report (paths joined by '|' are alternatives, the
// first one present, as the core's `metric_of` reads them), then its bound.

/** The number at a check's metric in `report`, or undefined. */
function metricValue(metric, report) {
  for (const p of metric.split('|')) {
    const v = p.split('.').reduce((node, k) => (node == null ? undefined : node[k]), report);
    if (typeof v === 'number') return v;
  }
  return undefined;
}

/** Whether check `c` ({metric, op, value}) holds on `report`. */
export function checkMet(c, report) {
  const v = metricValue(c.metric, report);
  return typeof v === 'number' && (c.op === '<=' ? v <= c.value : v >= c.value);
}

/** Whether every check of the lesson's goal holds on `report`. */
export const goalMet = (lesson, report) => lesson.checks.every((c) => checkMet(c, report));
