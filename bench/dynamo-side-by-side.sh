#!/usr/bin/env bash
# dynamo-side-by-side.sh: time NVIDIA Dynamo's mocker offline replay and kvfleet
# on the same Mooncake trace, interleaved, and print the ratio.
#
# What it measures, per round (N rounds, default 5, run alternately so that
# machine load affects both sides alike):
#   kvfleet  whole process, wall clock (perf_counter around the subprocess):
#            kvfleet --des-mooncake-trace TRACE --des-instances 8 --des-routing kv
#                    --des-report-json OUT -q
#   Dynamo   `python -m dynamo.replay TRACE --trace-format mooncake
#            --trace-block-size 512 --num-workers 8 --router-mode kv_router
#            --replay-mode offline
#            --extra-engine-args '{"num_gpu_blocks":1000000,"block_size":512}'`
#            (the mocker's vLLM-style engine, Dynamo's KV router, 8 workers),
#            two numbers:
#              sim   = the report's `wall_time_ms`: Dynamo's own Instant::now()
#                      timer around building the replay runtime and running
#                      it; the trace file is already parsed, and building the
#                      report (percentiles) comes after it stops;
#              whole = python start to exit, wall clock.
# It prints per-run numbers, the medians, the ratio
# Dynamo-sim-median / kvfleet-whole-process-median (a ratio that favours
# Dynamo: its start-up, trace parsing and reporting are left out, kvfleet's are
# not), plus the Dynamo-whole / kvfleet-whole ratio, the versions, the date and
# the load average. Also printed: each whole process's CPU time (user+sys, all
# threads), which a busy machine disturbs less than wall time; and, not to be
# compared as equals, each side's token-level cache reuse (Dynamo
# `prefix_cache_reused_ratio`, kvfleet `hit_rate_tokens`): the two engines'
# timing and routing models differ, so these agree only roughly.
#
# Usage: bench/dynamo-side-by-side.sh [KVFLEET_BIN] [TRACE]
#   KVFLEET_BIN  default target/release/kvfleet (of this repo)
#   TRACE        default data/mooncake/conversation_trace.jsonl (of this repo)
# Environment:
#   DYNAMO_VENV     venv to create or reuse (default /work/dynamo-venv)
#   DYNAMO_VERSION  ai-dynamo version to install (default 1.4.2)
#   ROUNDS          rounds (default 5)
#   WARMUP          untimed rounds of both sides first (default 1): the first run of
#                   each pays for a cold page cache and loading its binary/modules
#   DYN_LOG         Dynamo's log filter (default error: its INFO level logs
#                   every routing decision, ~6 MB of stderr per replay)
#   NICE            nice level for both sides (default 0; e.g. 10 on a busy box)
#   JSON_OUT        also write the medians to this JSON file (kvfleet_ms, dynamo_sim_ms,
#                   dynamo_whole_ms, ratio_sim_x, ratio_whole_x, rounds, load_avg_min and
#                   load_avg_max: the one-minute load average over the rounds), what
#                   `cargo xtask perf record dynamo-side-by-side` reads
# Needs python3 (with venv) and PyPI access on the first run only.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kvfleet="${1:-$repo/target/release/kvfleet}"
trace="${2:-$repo/data/mooncake/conversation_trace.jsonl}"
venv="${DYNAMO_VENV:-/work/dynamo-venv}"
dyn_version="${DYNAMO_VERSION:-1.4.2}"
rounds="${ROUNDS:-5}"
warmup="${WARMUP:-1}"
nice_level="${NICE:-0}"
export DYN_LOG="${DYN_LOG:-error}"

[[ -x "$kvfleet" ]] || { echo "kvfleet binary not found: $kvfleet (cargo build --release)" >&2; exit 1; }
[[ -r "$trace" ]] || { echo "trace not found: $trace" >&2; exit 1; }

if [[ ! -x "$venv/bin/python" ]]; then
  echo "creating venv $venv" >&2
  python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('ai-dynamo') != '$dyn_version')" 2>/dev/null; then
  echo "installing ai-dynamo==$dyn_version into $venv" >&2
  "$venv/bin/pip" install -q "ai-dynamo==$dyn_version"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$venv/bin/python" - "$kvfleet" "$trace" "$venv" "$rounds" "$nice_level" "$work" "$warmup" <<'PY'
import datetime, importlib.metadata as md, json, os, resource, shlex, statistics, subprocess, sys, time

kvfleet, trace, venv, rounds, nice_level, work, warmup = sys.argv[1:8]
rounds, nice_level, warmup = int(rounds), int(nice_level), int(warmup)
nice = ["nice", "-n", str(nice_level)] if nice_level else []

def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r.ru_utime + r.ru_stime) * 1e3

def run(cmd):
    """Wall ms and CPU (user+sys) ms of one child process, python start to exit."""
    c0, t0 = cpu_children(), time.perf_counter()
    p = subprocess.run(nice + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    ms, cpu = (time.perf_counter() - t0) * 1e3, cpu_children() - c0
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
    return ms, cpu

kv_json = os.path.join(work, "kvfleet.json")
dyn_json = os.path.join(work, "dynamo.json")
kv_cmd = [kvfleet, "--des-mooncake-trace", trace, "--des-instances", "8",
          "--des-routing", "kv", "--des-report-json", kv_json, "-q"]
dyn_cmd = [os.path.join(venv, "bin", "python"), "-m", "dynamo.replay", trace,
           "--trace-format", "mooncake", "--trace-block-size", "512",
           "--num-workers", "8", "--router-mode", "kv_router", "--replay-mode", "offline",
           "--extra-engine-args", json.dumps({"num_gpu_blocks": 1_000_000, "block_size": 512}),
           "--report-json", dyn_json]

print(f"date: {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}")
print(f"host: {os.uname().nodename}, {os.cpu_count()} cpus, load average at start: "
      + " ".join(f"{x:.2f}" for x in os.getloadavg()))
print(f"ai-dynamo {md.version('ai-dynamo')}, ai-dynamo-runtime {md.version('ai-dynamo-runtime')}, "
      f"python {sys.version.split()[0]}, DYN_LOG={os.environ.get('DYN_LOG')}")
kv_ver = subprocess.run([kvfleet, "--version"], capture_output=True, text=True).stdout.strip()
print(f"kvfleet: {kvfleet} ({kv_ver or 'version unknown'})")
print(f"trace: {trace}, rounds: {rounds} (after {warmup} untimed), nice: {nice_level}")
print("kvfleet: " + shlex.join(kv_cmd))
print(f"dynamo:  DYN_LOG={os.environ.get('DYN_LOG')} " + shlex.join(dyn_cmd))
print()
print(f"{'round':>5} {'kvfleet whole ms':>17} {'(cpu ms)':>9} {'dynamo sim ms':>14} "
      f"{'dynamo whole ms':>16} {'(cpu ms)':>9} {'kv tok-hit':>10} {'dyn reused':>10} {'load1':>6}")

for _ in range(warmup):
    run(kv_cmd)
    run(dyn_cmd)

kv, dsim, dwhole = [], [], []
loads = [os.getloadavg()[0]]
for i in range(1, rounds + 1):
    k, kcpu = run(kv_cmd)
    with open(kv_json) as f:
        kv_hit = json.load(f)["summary"]["hit_rate_tokens"]
    w, wcpu = run(dyn_cmd)
    with open(dyn_json) as f:
        rep = json.load(f)
    s = rep["wall_time_ms"]
    if rep.get("completed_requests") != rep.get("num_requests"):
        print(f"warning: dynamo completed {rep.get('completed_requests')} of {rep.get('num_requests')}")
    kv.append(k); dsim.append(s); dwhole.append(w)
    loads.append(os.getloadavg()[0])
    print(f"{i:>5} {k:>17.1f} {kcpu:>9.0f} {s:>14.1f} {w:>16.1f} {wcpu:>9.0f} {kv_hit:>10.4f} "
          f"{rep['prefix_cache_reused_ratio']:>10.4f} {os.getloadavg()[0]:>6.2f}")

mk, ms, mw = (statistics.median(x) for x in (kv, dsim, dwhole))
print()
print(f"median  kvfleet whole process: {mk:.1f} ms")
print(f"median  dynamo simulation (wall_time_ms): {ms:.1f} ms")
print(f"median  dynamo whole process: {mw:.1f} ms")
print(f"ratio   dynamo simulation / kvfleet whole process: {ms / mk:.1f}x")
print(f"ratio   dynamo whole process / kvfleet whole process: {mw / mk:.1f}x")
print("load average at end: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
if os.environ.get("JSON_OUT"):
    figures = {"kvfleet_ms": round(mk, 1), "dynamo_sim_ms": round(ms, 1),
               "dynamo_whole_ms": round(mw, 1), "ratio_sim_x": round(ms / mk, 3),
               "ratio_whole_x": round(mw / mk, 3), "rounds": rounds,
               "load_avg_min": round(min(loads), 2), "load_avg_max": round(max(loads), 2)}
    os.makedirs(os.path.dirname(os.path.abspath(os.environ["JSON_OUT"])), exist_ok=True)
    with open(os.environ["JSON_OUT"], "w") as f:
        json.dump(figures, f, indent=2)
        f.write("\n")
    print(f"written to {os.environ['JSON_OUT']}")
PY
