// www/js/scenarios.js: the quick-scenario buttons of "What am I looking at?": each sets a few
// parameters (the rest go back to defaults) and says what to look for.

export const SCENARIOS = [
  {
    id: 'default', label: 'The seed example (kv, 4 replicas)', set: {},
    look: 'The kv router keeps each prefix on the replica that already holds it, so almost every request hits after the first few.',
  },
  {
    id: 'rr8', label: 'Round robin, 8 replicas', set: { routing: 'round_robin', instances: 8 },
    look: 'Round robin ignores caches: every replica must warm every prefix once, so the hit rate drops. Press ArrowRight on Replicas and watch it fall further.',
  },
  {
    id: 'kv8', label: 'kv router, 8 replicas', set: { routing: 'kv', instances: 8 },
    look: 'Same fleet, kv router: hits stay high as replicas grow, because misses ≈ number of prefixes, not prefixes × replicas.',
  },
  {
    id: 'hot', label: 'prefix_aware with a hot prefix (hot:0.85)',
    set: { routing: 'prefix_aware', instances: 6, prefix_popularity: 'hot:0.85', request_rate: 30, num_requests: 600 },
    look: '85% of requests share one prefix, and prefix_aware sends all of them to its home replica: look at the load chart and the hot-spot warning. Then switch Routing to kv.',
  },
  {
    id: 'tight', label: 'A small cache (evictions)', set: { kv_blocks: 40, num_prefixes: 32 },
    look: 'Each replica holds only 40 blocks, so prefixes get evicted before they are reused: evictions rise and block reuse falls. Tick “Unbounded” to see the ceiling.',
  },
  {
    id: 'single', label: 'One engine, no routing', set: { instances: 1 },
    look: 'With one replica there is no routing: this is the hit rate the traffic allows at all, the best any router can do.',
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
      note.textContent = `What to look for: ${s.look}`;
      note.hidden = false;
    });
    root.append(b);
  }
}
