// www/js/scenarios.js: the quick-scenario buttons under the hero's figure: each sets a few parameters (the
// rest go back to defaults) and says where to look.

// Each scenario's note says where to look, never what will be there: the takeaway beside the figure,
// computed from the run, says what happened. Each note takes one line at 1280 px, so after a click the
// hero's top and the scenarios' first row share a 900 px screen.
export const SCENARIOS = [
  {
    id: 'rr8', label: 'Round robin, 8 replicas', set: { routing: 'round_robin', instances: 8 },
    look: 'Where does round robin sit against its dotted model line? Press ArrowRight on Replicas and watch the ring move along the curve.',
  },
  {
    id: 'kv8', label: 'kv router, 8 replicas', set: { routing: 'kv', instances: 8 },
    look: 'Compare the kv line with round robin and prefix_aware as replicas grow, then move the overlap weight in the settings below.',
  },
  {
    id: 'hot', label: 'prefix_aware with a hot prefix',
    set: { routing: 'prefix_aware', instances: 6, prefix_popularity: 'hot:0.85', request_rate: 30, num_requests: 600 },
    look: '85% of requests share one prefix: read the ⚠ findings and the busiest replica\'s share (the small chart), then switch Routing policy to kv.',
  },
  {
    id: 'tight', label: 'A small cache (evictions)', set: { kv_blocks: 40, num_prefixes: 32 },
    look: '32 prefixes, and room for only 40 blocks a replica: watch Evictions in the dashboard below, then slide Cache per replica to unbounded.',
  },
  {
    id: 'single', label: 'One engine, no routing', set: { instances: 1 },
    look: 'With one replica there is no routing: the hit rate here is what the traffic allows at all.',
  },
  {
    id: 'split', label: 'Split prefill + decode (5 + 3)',
    set: { routing: 'kv', instances: 8, prefill_instances: 5, decode_instances: 3, input_len: 8192, prefix_len: 1024, range_ratio: 0.5,
      request_rate: 16, num_requests: 1500 },
    look: 'Long prompts on 5 prefill + 3 decode replicas: the KV transfers panel below compares them with 8 colocated; then set Fleet layout to colocated.',
  },
  {
    id: 'default', label: 'The seed\'s example (kv, 4 replicas)', set: {},
    look: 'The seed simulator\'s own example: kv on 4 replicas, 8 prefixes of 2,048 tokens, 200 requests at 6 a second.',
  },
  {
    id: 'start', label: 'Start over', set: { routing: 'round_robin' },
    look: 'The page\'s first experiment: round robin on 4 replicas. Press ArrowRight on Replicas.',
  },
];

/** Renders the buttons; `apply(set, scenario)` is called on click. */
export function renderScenarios(root, note, apply) {
  for (const s of SCENARIOS) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'btn';
    b.textContent = s.label;
    b.dataset.testid = `scenario-${s.id}`;
    b.addEventListener('click', () => {
      apply(s.set, s);
      note.textContent = s.look;
      note.hidden = false;
    });
    root.append(b);
  }
}
