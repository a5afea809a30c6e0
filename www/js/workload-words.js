// www/js/workload-words.js: the hero's one sentence on what is being simulated, from the settings
// (or, for a trace, from the run's own counts), so a reader knows the workload behind the figure
// without opening the settings: "The workload: 200 requests at 6 per second, each a 4,096-token
// prompt that opens with one of 8 shared 2,048-token prefixes, all equally popular." Pure, no DOM.

const COUNT = new Intl.NumberFormat('en-US');
const countText = (x) => COUNT.format(Math.round(x));
/** A rate as a reader says it: "6", "0.5", "3.4" (at most one decimal, none when whole). */
const rateText = (x) => (Math.abs(x - Math.round(x)) < 0.05 ? countText(x) : x.toFixed(1));
const plural = (n, one, many = `${one}s`) => `${countText(n)} ${n === 1 ? one : many}`;

/** The rate schedule, when one is set ('' otherwise): it replaces the constant rate. */
const scheduleOf = (c) => String(c.request_rate_schedule ?? '').trim();

/**
 * How the requests arrive (src/config.rs ArrivalModel): "at 6 per second", evenly, or in bursts; under
 * a rate schedule, "on the rate schedule 0s:4,60s:16 (per second)".
 */
function arrivalWords(c) {
  const schedule = scheduleOf(c);
  const at = schedule ? `on the rate schedule ${schedule} (per second)` : `at ${rateText(c.request_rate)} per second`;
  const gap = schedule ? ',' : '';
  if (c.arrival_model === 'deterministic') return schedule ? `evenly spaced, ${at}` : `evenly, ${at.slice(3)}`;
  if (c.arrival_model === 'gamma' && c.burstiness < 1) return `${at}${gap} in bursts (gamma, burstiness ${c.burstiness})`;
  if (c.arrival_model === 'gamma' && c.burstiness > 1) return `${at}, more evenly than at random (gamma, burstiness ${c.burstiness})`;
  return at;
}

/**
 * How the requests pick a prefix (src/config.rs Popularity): uniform, zipf:S (prefix i has weight
 * 1/(i+1)^S) or hot:SHARE (prefix 0 takes SHARE of the requests). '' for an unreadable value.
 */
function popularityWords(text, prefixes) {
  if (prefixes === 1 || text === 'uniform') return prefixes === 1 ? '' : ', all equally popular';
  const [kind, value] = String(text).split(':');
  const v = Number(value);
  if (kind === 'zipf' && v > 0) return `, the first the most popular and each next less so (Zipf, s = ${v})`;
  if (kind === 'hot' && v >= 0 && v <= 1) return `, one of them in ${Math.round(100 * v)}% of the requests`;
  return '';
}

/** The synthetic pool: requests, their arrival, their prompts and what the prompts share. */
function poolWords(c) {
  const len = `${countText(c.input_len)}-token`;
  const prompt = c.range_ratio > 0 ? `a prompt of ${countText(c.input_len)} tokens on average` : `a ${len} prompt`;
  const head = `${plural(c.num_requests, 'request')} ${arrivalWords(c)}, each ${prompt}`;
  if (!(c.num_prefixes > 0) || !(c.prefix_len > 0)) return `${head} that shares no prefix with any other`;
  const shared = `${countText(Math.min(c.prefix_len, c.input_len))}-token`;
  const pool = c.num_prefixes === 1 ? `the same shared ${shared} prefix` : `one of ${countText(c.num_prefixes)} shared ${shared} prefixes`;
  const opens = c.prefix_len >= c.input_len && !(c.range_ratio > 0) ? `that is wholly ${pool}` : `that opens with ${pool}`;
  return `${head} ${opens}${popularityWords(c.prefix_popularity, c.num_prefixes)}`;
}

/** Sessions (multi-turn tasks): how many, how long, and what each turn resends. */
function sessionWords(c) {
  const schedule = scheduleOf(c);
  const rate = schedule ? `started on the rate schedule ${schedule} (per second)` : `${rateText(c.session_rate)} started per second`;
  const tasks = `${plural(c.num_sessions, 'task')} of ${plural(c.turns, 'turn')}, ${rate}`;
  const system = c.system_prompt_len > 0 ? ` after a shared ${countText(c.system_prompt_len)}-token system prompt` : '';
  return `${tasks}; each turn resends the conversation so far${system} and adds ${countText(c.turn_input_len)} tokens`;
}

/**
 * A trace, from the run's summary: its requests, their offered rate and their mean prompt. `source`:
 * the page's trace ({name, builtin}: the built-in ones are Mooncake's, the others uploaded).
 */
function traceWords(source, s) {
  // kvcache-ai/Mooncake: "the serving platform for Kimi" (README.md); its traces are customers'
  // requests with user information removed (FAST25-release/README.md).
  const name = source.builtin ? `the Mooncake trace ${source.name} (anonymised requests to Kimi)` : `the uploaded trace ${source.name}`;
  const n = s?.requests;
  if (!(n > 0)) return name;
  const rate = s.offered_rate > 0 ? ` at ${rateText(s.offered_rate)} per second` : '';
  const mean = s.admitted > 0 && s.prompt_tokens > 0 ? `, ${countText(s.prompt_tokens / s.admitted)} prompt tokens each on average` : '';
  return `${name}, ${plural(n, 'request')}${rate}${mean}`;
}

/**
 * The workload sentence: for a trace (`source`, {name, builtin}) from the run's `summary`, else
 * from the settings `c` (the synthetic pool or sessions). '' without settings.
 */
export function workloadWords(c, source = null, summary = null) {
  if (source) return `The workload: ${traceWords(source, summary)}.`;
  if (!c) return '';
  return `The workload: ${c.workload === 'sessions' ? sessionWords(c) : poolWords(c)}.`;
}
