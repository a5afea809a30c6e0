//! Why `kv` trails `round_robin` at the median on the conversation trace: the
//! decision log shows each burst stacked on fewer replicas, away from replicas whose
//! in-flight blocks belong to requests already decoding; with one-token answers (nothing
//! decodes) the same cost wins at both percentiles.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufReader;

use kvfleet::sim::Decision;
use kvfleet::trace::{parse_mooncake, TraceOptions};
use kvfleet::{api, Config, Policy, Report, Request};

fn conversation() -> Vec<Request> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/mooncake/conversation_trace.jsonl"
    );
    let reader = BufReader::new(File::open(path).unwrap());
    parse_mooncake(reader, path, &TraceOptions::default()).unwrap()
}

fn replay(requests: Vec<Request>, routing: Policy) -> (Report, Vec<Decision>) {
    let cfg = Config {
        instances: 4,
        routing,
        ..Config::default()
    };
    let mut sim = api::replay_simulation(&cfg, requests, "conversation").unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let decisions = sim.take_decisions();
    (sim.into_report(), decisions)
}

/// Requests arriving at the same instant, in arrival order.
fn bursts(decisions: &[Decision]) -> Vec<&[Decision]> {
    decisions
        .chunk_by(|a, b| a.arrival_s == b.arrival_s)
        .collect()
}

/// Mean over bursts of 4 or more of the most requests one replica got from the burst.
fn busiest_share(decisions: &[Decision]) -> f64 {
    let counts: Vec<usize> = bursts(decisions)
        .into_iter()
        .filter(|b| b.len() >= 4)
        .map(|b| {
            let mut per = BTreeMap::new();
            for d in b {
                *per.entry(d.chosen).or_insert(0) += 1;
            }
            per.into_values().max().unwrap_or(0)
        })
        .collect();
    counts.iter().sum::<usize>() as f64 / counts.len() as f64
}

/// Requests routed to `replica` before `t_s` that have their first token and are still
/// decoding at `t_s`.
fn decoding_at(decisions: &[Decision], replica: u32, t_s: f64) -> usize {
    decisions
        .iter()
        .take_while(|d| d.arrival_s < t_s)
        .filter(|d| d.chosen == replica)
        .filter(|d| {
            let first = d.arrival_s + d.ttft_ms.unwrap() / 1e3;
            let end = d.arrival_s + d.e2e_ms.unwrap() / 1e3;
            first <= t_s && t_s < end
        })
        .count()
}

#[test]
fn kv_stacks_bursts_away_from_decoding_replicas() {
    let requests = conversation();
    let (kv, kv_log) = replay(requests.clone(), Policy::Kv);
    let (rr, rr_log) = replay(requests.clone(), Policy::RoundRobin);
    let (k, r) = (&kv.summary, &rr.summary);
    // Measured: kv 538 ms / 2.98 s, round robin 522 ms / 3.84 s.
    assert!(
        k.ttft_ms_p50 > r.ttft_ms_p50,
        "{} vs {}",
        k.ttft_ms_p50,
        r.ttft_ms_p50
    );
    assert!(
        k.ttft_ms_p99 < r.ttft_ms_p99,
        "{} vs {}",
        k.ttft_ms_p99,
        r.ttft_ms_p99
    );
    assert!(k.hit_rate_tokens > r.hit_rate_tokens + 0.05);
    // Round robin deals a burst of n over 4 replicas: at most ceil(n / 4) each (2.94 on
    // average); kv puts about 5 of a burst on one replica.
    let (kv_busiest, rr_busiest) = (busiest_share(&kv_log), busiest_share(&rr_log));
    assert!(
        kv_busiest > rr_busiest + 1.5,
        "{kv_busiest} vs {rr_busiest}"
    );
    // When kv sends a request where a sibling of its burst already went although a
    // replica that got none of the burst was there, that replica held more requests
    // still decoding: their blocks count as load, as much as a prefill waiting.
    let (mut stacked, mut decoding_chosen, mut decoding_other) = (0, 0, 0);
    for burst in bursts(&kv_log) {
        for (i, d) in burst.iter().enumerate() {
            let used: Vec<u32> = burst[..i].iter().map(|s| s.chosen).collect();
            if !used.contains(&d.chosen) {
                continue;
            }
            let Some(other) = d
                .candidates
                .iter()
                .filter(|c| !used.contains(&c.replica))
                .min_by(|a, b| a.cost.total_cmp(&b.cost))
            else {
                continue;
            };
            stacked += 1;
            decoding_chosen += decoding_at(&kv_log, d.chosen, d.arrival_s);
            decoding_other += decoding_at(&kv_log, other.replica, d.arrival_s);
        }
    }
    let per = |n: usize| n as f64 / stacked as f64;
    // Measured: 1.87 decoding on the chosen replica against 3.26 on the other.
    assert!(stacked > 5000, "{stacked}");
    assert!(
        per(decoding_other) > per(decoding_chosen) + 1.0,
        "{} vs {}",
        per(decoding_other),
        per(decoding_chosen)
    );
    // With one-token answers no request lingers decoding, so in-flight blocks are the
    // prefills queued ahead, and the same cost wins at both percentiles (398 ms / 2.68 s
    // against 500 ms / 3.75 s).
    let short: Vec<Request> = requests
        .into_iter()
        .map(|r| Request {
            output_tokens: 1,
            ..r
        })
        .collect();
    let k1 = replay(short.clone(), Policy::Kv).0.summary;
    let r1 = replay(short, Policy::RoundRobin).0.summary;
    assert!(
        k1.ttft_ms_p50 < r1.ttft_ms_p50,
        "{} vs {}",
        k1.ttft_ms_p50,
        r1.ttft_ms_p50
    );
    assert!(k1.ttft_ms_p99 < r1.ttft_ms_p99);
}
