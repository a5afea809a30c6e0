// www/js/policies.js: what each routing policy does, in one line, and the group it is listed in
// ("simple", "deployed routers"); each deployed router names the project whose scoring it follows.
// Every line restates the code (src/router.rs, src/router/zoo/*.rs), not the project's documentation.
// A policy the simulator adds later and this file does not know lands in "More", with no line.

export const POLICY_GROUPS = [
  { id: 'simple', title: 'Simple' },
  { id: 'deployed', title: 'Deployed routers' },
];

/**
 * kv's cost in the words every place on the page uses for it (src/router.rs, `Router::kv_cost`:
 * weight × (full blocks − hits) + active blocks + recent): the names of the decisions table's
 * columns, so the formula can be read off a row. www/index.html writes it out twice; a test holds
 * both to this text.
 */
export const KV_COST = 'overlap weight × missed blocks + active blocks + recent misses (decayed)';

const INFO = {
  round_robin: { group: 'simple', line: 'Each replica in turn; blind to the cache.' },
  random: { group: 'simple', line: 'A replica drawn at random (seeded); blind to the cache.' },
  prefix_aware: { group: 'simple', line: 'Hashes the first block onto a ring: one home replica per prefix.' },
  kv: { group: 'simple', line: `Lowest ${KV_COST}.` },
  sticky: { group: 'simple', line: 'Back to the session\'s replica (or the one holding the longest prefix); else round robin.' },
  least_loaded: { group: 'simple', line: 'Fewest requests in flight (waiting + running).' },
  p2c: { group: 'simple', line: 'Two replicas drawn at random; the one with fewer in flight wins.' },
  dynamo: { group: 'deployed', follows: 'NVIDIA Dynamo\'s KV router cost',
    line: 'Lowest prefill blocks still to compute (queued + this prompt − cached) + decode blocks in flight.' },
  sglang: { group: 'deployed', follows: 'SGLang\'s cache-aware router',
    line: 'Best match of its own prefix trees if above 30% of the prompt, else the least loaded (or smallest tree); least loaded when loads are far apart.' },
  llm_d: { group: 'deployed', follows: 'llm-d\'s inference-scheduler scorers',
    line: 'Highest weighted sum of prefix held, short queue and free KV cache (weights 3, 2, 2 by default).' },
  aibrix: { group: 'deployed', follows: 'AIBrix\'s prefix-cache router',
    line: 'Best match of its prefix table among replicas loaded at most mean + 1σ; least loaded when in-flight counts differ by more than 8.' },
};

/** {group, line, follows} of a policy; unknown policies get group 'more' and no line. */
export function policyInfo(name) {
  return INFO[name] || { group: 'more', line: '' };
}

/** The note naming the project a policy follows ("follows NVIDIA Dynamo's KV router cost"), or ''. */
export function followsNote(name) {
  const f = policyInfo(name).follows;
  return f ? `follows ${f}` : '';
}

/** One sentence for a policy: its line and, for a deployed router, whose scoring it follows. */
export function describePolicy(name) {
  const { line } = policyInfo(name);
  const note = followsNote(name);
  return [line, note && `${note[0].toUpperCase()}${note.slice(1)}.`].filter(Boolean).join(' ');
}

/** The choices split into the listed groups (in their order), then 'more' for any unknown one. */
export function groupPolicies(choices) {
  const groups = POLICY_GROUPS.map((g) => ({ ...g, names: choices.filter((c) => policyInfo(c).group === g.id) }));
  const more = choices.filter((c) => policyInfo(c).group === 'more');
  if (more.length) groups.push({ id: 'more', title: 'More', names: more });
  return groups.filter((g) => g.names.length);
}
