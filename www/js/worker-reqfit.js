// www/js/worker-reqfit.js: the worker's side of the fit by simulation of a request log (the wasm's
// RequestSearch, the search of `kvfleet calibrate --requests FILE` driven a batch at a time). Every
// worker of the page's pool opens the log and scores candidates; the first also holds the search,
// hands out batches, hears their scores and gives the fit. Numbers travel as Float64Arrays (exact).
//
// In:  {type:'reqfit-open', id, log: {name, url} | {name, file}, start, maxEvaluations}
//          -> {type:'reqfit-opened', id, requests} | {type:'reqfit-error', id, message}
//      {type:'reqfit-next', id}  (the search's worker) -> {type:'reqfit-batch', id, batch}  (4 numbers a candidate;
//          empty once the search has ended)
//      {type:'reqfit-score', id, index, coefficients} -> {type:'reqfit-scored', id, index, score}
//      {type:'reqfit-tell', id, scores} -> {type:'reqfit-told', id, stepped, progress, fit}  (fit: the best so far
//          as JSON, after a finished step; progress: [replays, most, best distance, spread])
//      {type:'reqfit-stop', id} -> {type:'reqfit-told', id, stepped: true, progress, fit}  (stopped: the best so far)

let search = null; // the RequestSearch of the log last opened here
let openId = 0;

async function logText(log) {
  if (log.file) return log.file.text();
  const res = await fetch(log.url);
  if (!res.ok) throw new Error(`${log.name}: could not load the sample (HTTP ${res.status} for ${log.url})`);
  return res.text();
}

/** Handles a 'reqfit-*' message with the wasm module `wasm`; `messageOf` turns an error into words. */
export async function handleReqfit(wasm, msg, messageOf) {
  const fail = (err) => postMessage({ type: 'reqfit-error', id: msg.id, message: messageOf(err) });
  try {
    if (msg.type === 'reqfit-open') {
      if (typeof wasm.RequestSearch !== 'function') throw new Error('this build of the simulator has no fit by simulation');
      const text = await logText(msg.log);
      search?.free();
      search = null;
      search = wasm.RequestSearch.open(text, msg.log.name, msg.start, msg.maxEvaluations);
      openId = msg.id;
      postMessage({ type: 'reqfit-opened', id: msg.id, requests: search.requests() });
      return;
    }
    if (!search || openId !== msg.id) throw new Error('no request log is open in this worker');
    if (msg.type === 'reqfit-next') {
      const batch = search.next_batch();
      postMessage({ type: 'reqfit-batch', id: msg.id, batch }, [batch.buffer]);
    } else if (msg.type === 'reqfit-score') {
      const score = search.score(msg.coefficients);
      postMessage({ type: 'reqfit-scored', id: msg.id, index: msg.index, score }, [score.buffer]);
    } else if (msg.type === 'reqfit-tell' || msg.type === 'reqfit-stop') {
      let stepped = true;
      if (msg.type === 'reqfit-tell') stepped = search.tell(msg.scores);
      else search.stop();
      postMessage({ type: 'reqfit-told', id: msg.id, stepped, progress: [...search.progress()], fit: stepped ? search.fit_json() ?? null : null });
    }
  } catch (err) {
    fail(err);
  }
}
