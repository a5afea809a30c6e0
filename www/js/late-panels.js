// www/js/late-panels.js: the panels below the first screen (compare, sweep, capacity, calibration,
// decisions, transfers), loaded and built after the first chart is drawn, so their modules' requests and their
// building do not delay it. main.js hands over its state and callbacks; this file only wires them.

const $ = (id) => document.getElementById(id);

/** Imports the panels' modules and builds them; resolves to the panels and compare's planner. */
export async function buildLatePanels(page) {
  const [{ Compare, comparePlan }, { Capacity }, { Sweep }, { Decisions }, { Transfers }, { Calibrate }, { RequestFit }] = await Promise.all([
    import('./compare.js'), import('./capacity.js'), import('./sweep.js'), import('./decisions.js'), import('./transfers.js'),
    import('./calibrate.js'), import('./calibrate-requests.js'),
  ]);
  const workerUrl = new URL('./worker.js', import.meta.url);
  const transfers = new Transfers({ workerUrl });
  page.before.before(transfers.el); // under the charts, above the per-replica table
  const compare = new Compare({
    button: $('compare-run'), status: $('compare-status'), out: $('compare-out'), table: $('compare-table'),
    canvases: { hit: $('cmp-hit'), ttft: $('cmp-ttft'), spread: $('cmp-spread'), sweep: $('cmp-sweep') },
  }, page.runCompare, { load: page.loadConfig });
  const sweep = new Sweep({
    param: $('sweep-param'), spec: $('sweep-spec'), series: $('sweep-series'), presets: $('sweep-presets'), run: $('sweep-run'),
    cancel: $('sweep-cancel'), progress: $('sweep-progress'), status: $('sweep-status'), error: $('sweep-error'), out: $('sweep-out'),
    canvas: $('sweep-chart'), ttft: $('sweep-ttft'), table: $('sweep-table'), cap1: $('sweep-cap-1'), cap2: $('sweep-cap-2'),
  }, { plan: page.plan, workerUrl, state: page.state, load: page.loadConfig });
  const capacity = new Capacity({
    ttft: $('cap-ttft'), tpot: $('cap-tpot'), e2e: $('cap-e2e'), rejected: $('cap-rejected'), max: $('cap-max'), price: $('cap-price'),
    seeds: $('cap-seeds'), sustained: $('cap-sustained'),
    run: $('cap-run'), cancel: $('cap-cancel'), progress: $('cap-progress'), status: $('cap-status'), error: $('cap-error'),
    out: $('cap-out'), headline: $('cap-headline'), notes: $('cap-notes'), canvas: $('cap-chart'), table: $('cap-table'),
    mode: $('cap-mode'), mixPick: $('cap-mix-pick'), mixBoxes: $('cap-mix-boxes'), mixOut: $('cap-mix-out'),
    mixHeadline: $('cap-mix-headline'), mixWords: $('cap-mix-words'), mixTable: $('cap-mix-table'),
    auto: $('cap-auto'), autoWords: $('cap-auto-words'), autoTable: $('cap-auto-table'),
  }, { workerUrl, state: page.capacityState, load: page.loadConfig, link: page.planMix, onLink: page.onPlanMix });
  const calibrate = new Calibrate({
    samples: [...document.querySelectorAll('[data-sample]')], file: $('cal-file'), drop: $('cal-drop'), form: $('cal-form'), kv: $('cal-kv'), error: $('cal-error'),
    status: $('cal-status'), out: $('cal-out'), headline: $('cal-headline'), table: $('cal-table'), warnings: $('cal-warnings'),
    chart: $('cal-chart'), resid: $('cal-resid'), use: $('cal-use'), useNote: $('cal-use-note'),
    plan: $('cal-plan'), planCancel: $('cal-plan-cancel'), planOut: $('cal-plans'), planStatus: $('cal-plan-status'),
  }, { workerUrl, state: page.capacityState, load: page.loadConfig, spec: (config, presets) => capacity.spec(config, presets) });
  const requestFit = new RequestFit({
    samples: [...document.querySelectorAll('[data-request-sample]')], file: $('rf-file'), drop: $('rf-drop'), start: $('rf-start'),
    budget: $('rf-budget'), cancel: $('rf-cancel'), progress: $('rf-progress'), status: $('rf-status'), error: $('rf-error'),
    out: $('rf-out'), headline: $('rf-headline'), assumptions: $('rf-assumptions'), coefs: $('rf-coefs'), quantiles: $('rf-quantiles'),
    use: $('rf-use'), useNote: $('rf-use-note'),
  }, { workerUrl, state: page.capacityState, load: page.loadConfig });
  requestFit.setPresets(page.capacityState().presets);
  $('cmp-sweep-more').addEventListener('click', () => { $('sweep-h').scrollIntoView({ block: 'start' }); sweep.preset('replicas'); });
  const decisions = new Decisions({
    from: $('dec-from'), to: $('dec-to'), count: $('dec-count'), show: $('dec-show'), status: $('dec-status'), error: $('dec-error'), table: $('dec-table'),
  }, { request: page.requestDecisions });
  return { compare, comparePlan, capacity, calibrate, sweep, decisions, transfers };
}
