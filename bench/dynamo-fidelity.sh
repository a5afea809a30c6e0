#!/usr/bin/env bash
# dynamo-fidelity.sh: kvfleet's `dynamo` policy and `dynamo-mocker` engine against
# NVIDIA Dynamo's own offline replay (its mocker engine and KV router), cell by cell,
# and a table of both sides. Not part of CI.
#
# Cells (Mooncake traces of this repo, 512-token blocks, caches of 10^6 blocks, that
# is, unbounded for these traces):
#   hit rate    {conversation, synthetic} x {2, 4, 8, 16} workers, Dynamo's KV router
#               against kvfleet --des-routing dynamo: Dynamo's
#               `prefix_cache_reused_ratio` (mean of RUNS runs: its replay breaks ties at
#               random) against kvfleet's `hit_rate_tokens` (mean over KV_SEEDS), each
#               with its min-max; goal |difference| <= 0.005. The noise column is twice
#               the standard error of the difference of the two means (sample standard
#               deviations over the runs and the seeds): a difference inside it is not
#               told apart from the two sides' run-to-run spread
#   TTFT        the same cells, round robin on both sides: TTFT p50 and p99, goal within
#               10 % of Dynamo's mean
#   P/D         2 prefill + 2 decode workers, conversation trace, Dynamo's KV router on
#               the prefill pool; goal hit rate within 0.005
# The commands of both sides are printed above the table.
#
# Usage: bench/dynamo-fidelity.sh [--install] [KVFLEET_BIN]
#   --install    create the venv and install ai-dynamo==$DYNAMO_VERSION into it (PyPI)
#   KVFLEET_BIN  default target/release/kvfleet, else target/debug/kvfleet
# Environment:
#   DYNAMO_VENV     the venv (default /work/dynamo-venv)
#   DYNAMO_VERSION  default 1.4.2
#   RUNS            Dynamo runs per KV-router cell (default 3)
#   RR_RUNS         Dynamo runs per round-robin cell (default 3; they agree to 0.1 ms)
#   KV_SEEDS        kvfleet seeds per cell, comma separated (default 42)
#   WORKERS         worker counts (default "2 4 8 16")
#   TRACES          default "conversation synthetic"
#   SKIP_PD         1 to leave out the P/D cell
#   DYNAMO_CACHE    a JSON file that keeps Dynamo's results between invocations
#                   (cells already in it are not run again; default: none)
#   DYNAMO_ONLY     1 to run (and cache) Dynamo's side only, with no table
#   DYN_LOG         Dynamo's log filter (default error)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
install=0
if [[ "${1:-}" == "--install" ]]; then
  install=1
  shift
fi
kvfleet="${1:-}"
if [[ -z "$kvfleet" ]]; then
  kvfleet="$repo/target/release/kvfleet"
  [[ -x "$kvfleet" ]] || kvfleet="$repo/target/debug/kvfleet"
fi
venv="${DYNAMO_VENV:-/work/dynamo-venv}"
dyn_version="${DYNAMO_VERSION:-1.4.2}"
export DYN_LOG="${DYN_LOG:-error}"

[[ -x "$kvfleet" ]] || { echo "kvfleet binary not found: $kvfleet (cargo build)" >&2; exit 1; }

if [[ "$install" == 1 ]]; then
  [[ -x "$venv/bin/python" ]] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q "ai-dynamo==$dyn_version"
fi
if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('ai-dynamo') != '$dyn_version')" 2>/dev/null; then
  echo "ai-dynamo $dyn_version is not in $venv: run with --install (needs PyPI)" >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

exec "$venv/bin/python" - "$kvfleet" "$repo" "$venv" "$work" <<'PY'
import datetime, importlib.metadata as md, json, os, shlex, statistics, subprocess, sys

kvfleet, repo, venv, work = sys.argv[1:5]
runs = int(os.environ.get("RUNS", "3"))
rr_runs = int(os.environ.get("RR_RUNS", "3"))
seeds = [s for s in os.environ.get("KV_SEEDS", "42").split(",") if s]
workers = [int(w) for w in os.environ.get("WORKERS", "2 4 8 16").split()]
traces = os.environ.get("TRACES", "conversation synthetic").split()
skip_pd = os.environ.get("SKIP_PD") == "1"
cache_path = os.environ.get("DYNAMO_CACHE")
cache = {}
if cache_path and os.path.exists(cache_path):
    with open(cache_path) as f:
        cache = json.load(f)

BLOCKS = 1_000_000
engine = {"num_gpu_blocks": BLOCKS, "block_size": 512}

def trace_path(name):
    return os.path.join(repo, "data", "mooncake", f"{name}_trace.jsonl")

def dynamo_cmd(trace, mode, n, out):
    cmd = [os.path.join(venv, "bin", "python"), "-m", "dynamo.replay", trace_path(trace),
           "--trace-format", "mooncake", "--trace-block-size", "512",
           "--router-mode", mode, "--replay-mode", "offline", "--report-json", out]
    if isinstance(n, tuple):
        p = dict(engine, worker_type="prefill")
        d = dict(engine, worker_type="decode")
        cmd += ["--num-prefill-workers", str(n[0]), "--num-decode-workers", str(n[1]),
                "--prefill-engine-args", json.dumps(p), "--decode-engine-args", json.dumps(d)]
    else:
        cmd += ["--num-workers", str(n), "--extra-engine-args", json.dumps(engine)]
    return cmd

def kvfleet_cmd(trace, policy, n, seed, out):
    cmd = [kvfleet, "--des-mooncake-trace", trace_path(trace), "--des-routing", policy,
           "--des-engine", "dynamo-mocker", "--des-kv-blocks", str(BLOCKS),
           "--seed", seed, "--des-report-json", out, "-q"]
    if isinstance(n, tuple):
        # Dynamo's mocker moves KV between pools at no cost unless told a size and a
        # bandwidth: one byte per token over the default link is as near as kvfleet goes.
        cmd += ["--des-prefill-instances", str(n[0]), "--des-decode-instances", str(n[1]),
                "--des-kv-bytes-per-token", "1", "--des-kv-transfer-base-us", "0"]
    else:
        cmd += ["--des-instances", str(n)]
    return cmd

def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {shlex.join(cmd)}\n{p.stderr[-2000:]}")

def dynamo(trace, mode, n):
    key = f"{trace}/{mode}/{n}"
    got = cache.get(key, [])
    want = rr_runs if mode == "round_robin" else runs
    while len(got) < want:
        out = os.path.join(work, "dynamo.json")
        run(dynamo_cmd(trace, mode, n, out))
        with open(out) as f:
            rep = json.load(f)
        if rep.get("completed_requests") != rep.get("num_requests"):
            print(f"warning: {key}: dynamo completed {rep.get('completed_requests')} "
                  f"of {rep.get('num_requests')}", file=sys.stderr)
        got.append({"hit": rep["prefix_cache_reused_ratio"],
                    "p50": rep["median_ttft_ms"], "p99": rep["p99_ttft_ms"]})
        cache[key] = got
        if cache_path:
            with open(cache_path, "w") as f:
                json.dump(cache, f, indent=1)
    got = got[:want]
    return {k: statistics.mean(g[k] for g in got) for k in ("hit", "p50", "p99")}, got

def kv(trace, policy, n):
    rows = kv_rows(trace, policy, n)
    return {k: statistics.mean(r[k] for r in rows) for k in ("hit", "p50", "p99")}

def kv_rows(trace, policy, n):
    rows = []
    for seed in seeds:
        out = os.path.join(work, "kvfleet.json")
        run(kvfleet_cmd(trace, policy, n, seed, out))
        with open(out) as f:
            s = json.load(f)["summary"]
        rows.append({"hit": s["hit_rate_tokens"], "p50": s["ttft_ms_p50"], "p99": s["ttft_ms_p99"]})
    return rows

def spread(values):
    return f"{statistics.mean(values):.4f} ({min(values):.4f}-{max(values):.4f})"

def noise(a, b):
    """Twice the standard error of mean(a) - mean(b) (0 when a side has one value)."""
    var = sum(statistics.variance(v) / len(v) for v in (a, b) if len(v) > 1)
    return 2 * var ** 0.5

def name(n):
    return f"{n[0]}P+{n[1]}D" if isinstance(n, tuple) else str(n)

print(f"date: {datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}")
print(f"ai-dynamo {md.version('ai-dynamo')}, ai-dynamo-runtime {md.version('ai-dynamo-runtime')}, "
      f"python {sys.version.split()[0]}; Dynamo runs per cell: {runs} (round robin {rr_runs}); "
      f"kvfleet seeds: {','.join(seeds)}")
kv_ver = subprocess.run([kvfleet, "--version"], capture_output=True, text=True).stdout.strip()
print(f"kvfleet: {kvfleet} ({kv_ver or 'version unknown'})")
print("dynamo:  DYN_LOG=error " + shlex.join(dynamo_cmd("TRACE", "kv_router|round_robin", "N", "OUT.json")))
print("         (P/D: --num-prefill-workers P --num-decode-workers D --prefill-engine-args / "
      "--decode-engine-args with worker_type prefill / decode)")
print("kvfleet: " + shlex.join(kvfleet_cmd("TRACE", "dynamo|round_robin", "N", "SEED", "OUT.json")))
print()
print(f"{'trace':<13}{'workers':>8} | {'hit: dynamo mean (min-max)':>27} {'kvfleet mean (min-max)':>27} "
      f"{'diff':>8} {'noise':>7} {'ok':>3} | "
      f"{'rr TTFT p50 ms: dyn':>19} {'kvf':>7} {'ratio':>6} | {'p99 ms: dyn':>11} {'kvf':>7} {'ratio':>6} {'ok':>3}")

def ok(flag):
    return "yes" if flag else "NO"

cells = [(t, n) for t in traces for n in workers]
if not skip_pd:
    cells.append(("conversation", (2, 2)))
if os.environ.get("DYNAMO_ONLY") == "1":
    for trace, n in cells:
        dynamo(trace, "kv_router", n)
        if not isinstance(n, tuple):
            dynamo(trace, "round_robin", n)
        print(f"dynamo done: {trace} {name(n)}", flush=True)
    sys.exit(0)
for trace, n in cells:
    d, all_runs = dynamo(trace, "kv_router", n)
    dh = [r["hit"] for r in all_runs]
    kh = [r["hit"] for r in kv_rows(trace, "dynamo", n)]
    diff = statistics.mean(kh) - d["hit"]
    line = (f"{trace:<13}{name(n):>8} | {spread(dh):>27} {spread(kh):>27} {diff:>+8.4f} "
            f"{noise(dh, kh):>7.4f} {ok(abs(diff) <= 0.005):>3} |")
    if not isinstance(n, tuple):
        dr, _ = dynamo(trace, "round_robin", n)
        kr = kv(trace, "round_robin", n)
        r50, r99 = kr["p50"] / dr["p50"], kr["p99"] / dr["p99"]
        line += (f" {dr['p50']:>19.1f} {kr['p50']:>7.1f} {r50:>6.3f} | {dr['p99']:>11.1f} "
                 f"{kr['p99']:>7.1f} {r99:>6.3f} {ok(abs(r50 - 1) <= 0.1 and abs(r99 - 1) <= 0.1):>3}")
    print(line, flush=True)
PY
