#!/bin/sh
#! scripts/zoo-table.sh: the README's router-zoo table, one row per policy.
# usage: scripts/zoo-table.sh (from the repository root, after cargo build) ARGS... — one row per policy of the token hit rate, TTFT p50/p99 and load spread
for p in round_robin random prefix_aware kv sticky least_loaded p2c dynamo sglang llm_d aibrix; do
  ./target/debug/kvfleet --des-routing $p "$@" --des-report-json /tmp/zoo_$p.json --quiet >/dev/null || exit 1
  python3 -c "
import json,sys; s=json.load(open('/tmp/zoo_$p.json'))['summary']
print('| $p | %.1f%% | %s | %s | %.2f |' % (100*s['hit_rate_tokens'], ('%.0f ms'%s['ttft_ms_p50']) if s['ttft_ms_p50']<1000 else '%.2f s'%(s['ttft_ms_p50']/1000), ('%.0f ms'%s['ttft_ms_p99']) if s['ttft_ms_p99']<1000 else '%.2f s'%(s['ttft_ms_p99']/1000), s['load_spread']))"
done
