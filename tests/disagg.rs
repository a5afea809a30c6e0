//! Disaggregated prefill and decode, against numbers worked by hand: one request's TTFT is
//! its prefill plus its transfer, its TPOT the decode replica's step; transfers into one
//! decode replica queue on its link; a request skips the prefill pool exactly when its
//! uncached tokens fall below the threshold; every request ends once, in either pool.
#![cfg(not(target_arch = "wasm32"))]

use kvfleet::sim::Decision;
use kvfleet::timing::EnginePreset;
use kvfleet::{api, ArrivalModel, Config, DecodeRouting, Policy, Report, TieBreak};

fn run_json(cfg: &Config) -> Result<String, String> {
    api::run_json(&serde_json::to_string(cfg).unwrap())
}

fn run_logged(cfg: &Config) -> (Vec<Decision>, Report) {
    let mut sim = api::synthetic_simulation(cfg).unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let d = sim.take_decisions();
    (d, sim.into_report())
}

/// A custom engine whose step is 1000 µs + 1 µs per prefill token + 10 µs per decoding
/// sequence (no KV read cost), and a link that moves 1000 bytes per µs (1 GB/s) after a
/// 50 µs setup; 1000 KV bytes per token.
fn worked(prefill: u32, decode: u32) -> Config {
    Config {
        engine: EnginePreset::Custom,
        step_fixed_us: 1000.0,
        prefill_token_us: 1.0,
        decode_seq_us: 10.0,
        kv_read_token_ns: 0.0,
        num_requests: 1,
        input_len: 1000,
        output_len: 11,
        num_prefixes: 0,
        prefix_len: 0,
        block_size: 16,
        arrival_model: ArrivalModel::Deterministic,
        request_rate: 1.0,
        routing: Policy::RoundRobin,
        instances: prefill + decode,
        prefill_instances: Some(prefill),
        decode_instances: Some(decode),
        kv_transfer_gbps: 1.0,
        kv_transfer_base_us: 50.0,
        kv_bytes_per_token: Some(1000),
        ..Config::default()
    }
}

#[test]
fn one_request_ttft_is_prefill_plus_transfer_and_tpot_is_the_decode_step() {
    // Prefill: one step of 1000 prompt tokens = 1000 + 1000 = 2000 µs.
    // Transfer: 50 + 1000 tok x 1000 B / 1000 B/µs = 1050 µs. TTFT = 3050 µs.
    // Decode: 10 more tokens, one sequence per step: 1000 + 10 = 1010 µs each, so the
    // last token comes 10 x 1010 = 10100 µs after the first: e2e 13150 µs, TPOT 1010 µs.
    let (d, r) = run_logged(&worked(1, 1));
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].ttft_ms, Some(3.05));
    assert_eq!(d[0].e2e_ms, Some(13.15));
    let s = &r.summary;
    assert!((s.tpot_ms_mean - 1.01).abs() < 1e-9, "{}", s.tpot_ms_mean);
    let p = r
        .pools
        .as_ref()
        .expect("a disaggregated run reports its pools");
    assert_eq!(p.transfers.count, 1);
    assert_eq!(p.transfers.bytes, 1_000_000);
    assert!((p.transfers.time_ms_mean - 1.05).abs() < 1e-9);
    assert_eq!(p.prefill.prefills, 1);
    assert_eq!(p.decode.prefills, 0);
    assert_eq!(p.decode.requests, 1);
    assert_eq!(r.per_instance[0].pool, Some("prefill"));
    assert_eq!(r.per_instance[1].pool, Some("decode"));
    // The same request colocated: its first token comes at the prefill's end.
    let colocated = Config {
        instances: 1,
        prefill_instances: None,
        decode_instances: None,
        ..worked(1, 1)
    };
    let (d, r) = run_logged(&colocated);
    assert_eq!(d[0].ttft_ms, Some(2.0));
    assert_eq!(d[0].e2e_ms, Some(12.1));
    assert!(r.pools.is_none());
    assert!(r.per_instance[0].pool.is_none());
}

#[test]
fn the_transfer_time_scales_with_the_bandwidth() {
    // At 10 GB/s the transfer is 50 + 1,000,000 / 10,000 = 150 µs: TTFT 2150 µs.
    let (d, _) = run_logged(&Config {
        kv_transfer_gbps: 10.0,
        ..worked(1, 1)
    });
    assert_eq!(d[0].ttft_ms, Some(2.15));
    // A preset's bytes per token: Llama 3 8B keeps 131072 B per token (32 layers x 2 x 8
    // KV heads x 128 x 2 B). 1000 tokens at 50 GB/s: 50 + 131,072,000 / 50,000 = 2671.44
    // -> 2672 µs after a prefill of 6000 + 32 x 1000 = 38000 µs on llama3-8b-h100.
    let (d, _) = run_logged(&Config {
        engine: EnginePreset::Llama3_8bH100,
        kv_bytes_per_token: None,
        kv_transfer_gbps: 50.0,
        ..worked(1, 1)
    });
    assert_eq!(d[0].ttft_ms, Some(40.672));
}

#[test]
fn transfers_into_one_decode_replica_queue_on_its_link() {
    // Two requests 10 µs apart (1e5 req/s) on two prefill replicas finish at 2000 and
    // 2010 µs and go to the one decode replica. The first transfer holds the link until
    // 3050 µs; the second waits 1040 µs, ends at 4100 µs: TTFT 4100 - 10 = 4090 µs.
    let cfg = Config {
        num_requests: 2,
        request_rate: 1e5,
        ..worked(2, 1)
    };
    let (d, r) = run_logged(&cfg);
    let mut ttft: Vec<f64> = d.iter().map(|x| x.ttft_ms.unwrap()).collect();
    ttft.sort_by(f64::total_cmp);
    assert_eq!(ttft, vec![3.05, 4.09]);
    let t = &r.pools.as_ref().unwrap().transfers;
    assert_eq!(t.count, 2);
    // Waits 0 and 1040 µs (the histogram holds 1040 to 0.1 %).
    assert!((t.wait_ms_mean - 0.52).abs() < 1e-9, "{}", t.wait_ms_mean);
    // The link moved for 2 x 1050 µs of the makespan.
    let makespan_us = r.summary.makespan_s * 1e6;
    let expected = 2100.0 / makespan_us;
    assert!((t.link_utilisation - expected).abs() < 1e-9);
}

/// Two requests 1 s apart on the same 992-token prefix (62 blocks of 16) and an 8-token
/// suffix: the second finds 62 blocks on the one prefill replica, so it would compute
/// 1000 - 62 x 16 = 8 tokens.
fn repeat(min_uncached_tokens: u32) -> Config {
    Config {
        num_requests: 2,
        num_prefixes: 1,
        prefix_len: 992,
        disagg_min_uncached_tokens: min_uncached_tokens,
        ..worked(1, 1)
    }
}

#[test]
fn a_request_skips_the_prefill_pool_exactly_below_the_threshold() {
    for (n, skips) in [(0, 0), (8, 0), (9, 1), (1000, 1), (1001, 2)] {
        let (d, r) = run_logged(&repeat(n));
        let p = r.pools.as_ref().unwrap();
        assert_eq!(p.skipped_prefill, skips, "threshold {n}");
        assert_eq!(p.transfers.count, 2 - skips, "threshold {n}");
        assert_eq!(p.decode.prefills, skips, "threshold {n}");
        assert_eq!(r.summary.completed, 2);
        if skips == 1 {
            // The skipped one prefills on the decode replica, which stored the first
            // request's prompt when it arrived over the link: 62 blocks hit there, and
            // its 8 tokens take one step of 1000 + 8 µs.
            assert_eq!(d[1].cached_blocks, Some(62));
            assert_eq!(d[1].ttft_ms, Some(1.008));
        }
    }
}

#[test]
fn every_request_ends_once_with_queue_limits_and_timeouts_in_both_pools() {
    for (prefill, decode) in [(1, 3), (3, 1), (2, 2)] {
        let cfg = Config {
            engine: EnginePreset::Llama3_8bH100,
            kv_bytes_per_token: None,
            kv_transfer_gbps: 5.0,
            num_requests: 400,
            input_len: 3000,
            output_len: 200,
            range_ratio: 0.5,
            num_prefixes: 4,
            prefix_len: 1024,
            block_size: 512,
            arrival_model: ArrivalModel::Poisson,
            request_rate: 40.0,
            routing: Policy::Kv,
            queue_capacity: Some(2),
            timeout_ms: Some(800.0),
            max_batch: 8,
            kv_blocks: Some(200),
            disagg_min_uncached_tokens: 600,
            ..worked(prefill, decode)
        };
        let r = api::synthetic_simulation(&cfg).unwrap().into_report();
        let s = &r.summary;
        let p = r.pools.as_ref().unwrap();
        assert_eq!(s.requests, 400);
        assert_eq!(
            s.completed + s.rejected + s.timed_out,
            400,
            "{prefill}:{decode}"
        );
        assert_eq!(
            p.prefill.rejected + p.decode.rejected,
            s.rejected,
            "{prefill}:{decode}"
        );
        assert_eq!(p.prefill.timed_out + p.decode.timed_out, s.timed_out);
        assert!(
            s.rejected > 0 && s.timed_out > 0,
            "{prefill}:{decode}: {s:?}"
        );
        // Every request that reached a decode replica came over the link or skipped.
        assert_eq!(
            p.decode.requests,
            p.transfers.count - p.transfers.late + p.skipped_prefill
        );
    }
}

#[test]
fn decode_round_robin_alternates_and_least_kv_avoids_the_loaded_replica() {
    let many = |routing| Config {
        num_requests: 6,
        request_rate: 1e5,
        output_len: 400,
        decode_routing: routing,
        ..worked(1, 2)
    };
    let (_, r) = run_logged(&many(DecodeRouting::RoundRobin));
    let decode: Vec<u64> = r.per_instance[1..].iter().map(|x| x.requests).collect();
    assert_eq!(decode, vec![3, 3]);
    // least_kv: each request reserves ceil(1400 / 16) = 88 blocks. The first prefill
    // ends alone (its step began before the others arrived) and goes to replica 1; the
    // other five end together, and each pick takes the lighter replica, ties to the
    // lower index under `tie_break: lowest`: 2 (88 against 0), 1, 2, 1, 2. Three each.
    let (_, r) = run_logged(&Config {
        tie_break: TieBreak::Lowest,
        ..many(DecodeRouting::LeastKv)
    });
    let decode: Vec<u64> = r.per_instance[1..].iter().map(|x| x.requests).collect();
    assert_eq!(decode, vec![3, 3]);
}

#[test]
fn the_same_seed_gives_the_same_bytes_and_colocated_runs_keep_their_keys() {
    let cfg = Config {
        num_requests: 300,
        request_rate: 30.0,
        ..repeat(200)
    };
    let a = run_json(&cfg).unwrap();
    let b = run_json(&cfg).unwrap();
    assert_eq!(a, b);
    assert!(a.contains("\"pools\":{"));
    let colocated = run_json(&Config::default()).unwrap();
    for key in [
        "pools",
        "\"pool\":\"",
        "prefill_instances",
        "kv_transfer_gbps",
    ] {
        assert!(
            !colocated.contains(key),
            "{key} leaked into a colocated report"
        );
    }
}

#[test]
fn bad_pool_settings_name_the_field() {
    let e = run_json(&Config {
        decode_instances: None,
        ..worked(2, 2)
    })
    .unwrap_err()
    .to_string();
    assert!(e.contains("invalid decode_instances"), "{e}");
    let e = run_json(&Config {
        instances: 5,
        ..worked(2, 2)
    })
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("invalid instances: got 5; allowed: 4 in a disaggregated fleet"),
        "{e}"
    );
    let e = run_json(&Config {
        kv_bytes_per_token: None,
        ..worked(2, 2)
    })
    .unwrap_err()
    .to_string();
    assert!(e.contains("invalid kv_bytes_per_token"), "{e}");
}

#[test]
fn the_link_busy_series_integrates_to_each_links_utilisation() {
    let cfg = Config {
        engine: EnginePreset::Llama3_8bH100,
        kv_bytes_per_token: None,
        kv_transfer_gbps: 20.0,
        num_requests: 1500,
        request_rate: 20.0,
        input_len: 4096,
        output_len: 64,
        block_size: 512,
        num_prefixes: 8,
        prefix_len: 2048,
        arrival_model: ArrivalModel::Poisson,
        ..worked(3, 3)
    };
    let r = api::synthetic_simulation(&cfg).unwrap().into_report();
    let s = &r.series;
    let p = r.pools.as_ref().unwrap();
    assert_eq!(s.link_busy.len(), 3);
    for (k, busy) in s.link_busy.iter().enumerate() {
        // Each window's share x its length, summed, is the link's busy time.
        let busy_s: f64 = (1..s.t_s.len())
            .map(|i| busy[i].unwrap_or(0.0) * (s.t_s[i] - s.t_s[i - 1]))
            .sum();
        let share = p.transfers.link_utilisation_by_replica[k];
        let span_s = s.t_s.last().unwrap() - s.t_s[0];
        assert!(busy_s > 0.0);
        assert!(
            (busy_s - share * r.summary.makespan_s).abs() < 1e-6 * span_s,
            "link {k}: {busy_s} s against {share} of {} s",
            r.summary.makespan_s
        );
        assert!(busy
            .iter()
            .flatten()
            .all(|&x| (0.0..=1.0 + 1e-12).contains(&x)));
    }
}

/// Disaggregated runs the wasm build must reproduce byte for byte (tests/wasm_api.rs reads
/// the same goldens): the seed's workload on 3 prefill + 5 decode replicas, and a
/// conditional, overloaded one with queue limits and timeouts in both pools.
pub const DISAGG_GOLDENS: [(&str, &str); 2] = [
    (
        "split",
        r#"{"instances":8,"prefill_instances":3,"decode_instances":5,"request_rate":24,"num_requests":400}"#,
    ),
    (
        "conditional",
        r#"{"instances":4,"prefill_instances":2,"decode_instances":2,"request_rate":40,"num_requests":300,"disagg_min_uncached_tokens":2500,"kv_transfer_gbps":8,"queue_capacity":4,"timeout_ms":900,"max_batch":16,"decode_routing":"round_robin"}"#,
    ),
];

#[test]
fn disaggregated_runs_are_byte_identical_and_match_their_goldens() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/disagg");
    for (name, config) in DISAGG_GOLDENS {
        let first = api::run_json(config).unwrap();
        assert_eq!(
            api::run_json(config).unwrap(),
            first,
            "{name}: a second run"
        );
        let path = format!("{dir}/{name}.json");
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            let old = std::fs::read_to_string(&path).unwrap_or_default();
            if old != first {
                println!(
                    "{name}: golden changed ({} -> {} bytes)",
                    old.len(),
                    first.len()
                );
            }
            std::fs::write(&path, &first).unwrap();
        }
        let golden = std::fs::read_to_string(&path).unwrap();
        assert!(
            first == golden,
            "{name}: report changed; rerun with UPDATE_GOLDEN=1 if intended"
        );
    }
    let conditional: serde_json::Value =
        serde_json::from_str(&api::run_json(DISAGG_GOLDENS[1].1).unwrap()).unwrap();
    // The text report's fleet line counts both pools, as the config sets them.
    let (pre, dec) = (
        &conditional["config"]["prefill_instances"],
        &conditional["config"]["decode_instances"],
    );
    let line = conditional["fleet_lines"][0].as_str().unwrap();
    assert!(
        line.starts_with(&format!(
            "  Fleet: {pre} prefill + {dec} decode instance(s), "
        )),
        "{line}"
    );
    let p = &conditional["pools"];
    assert!(p["skipped_prefill"].as_u64().unwrap() > 0, "{p}");
    assert!(
        p["prefill"]["rejected"].as_u64().unwrap() + p["decode"]["rejected"].as_u64().unwrap() > 0
    );
}

#[test]
fn uneven_load_is_judged_within_the_prefill_pool() {
    // prefix_aware sends the hot prefix's 90% to its home replica: the finding counts the
    // 200 requests the policy routed over the 3 prefill replicas (an even share is a
    // third), not the 400 routings of both pools over 8 replicas.
    let cfg = Config {
        prefix_popularity: "hot:0.9".into(),
        routing: Policy::PrefixAware,
        instances: 8,
        prefill_instances: Some(3),
        decode_instances: Some(5),
        ..Config::default()
    };
    let r = api::synthetic_simulation(&cfg).unwrap().into_report();
    let f = r
        .findings
        .iter()
        .find(|f| f.kind == kvfleet::findings::FindingKind::LoadUneven)
        .expect("the hot prefix's home is flagged");
    let home = f.replicas[0] as usize;
    assert!(home < 3, "a prefill replica: {}", f.text);
    let routed: u64 = r.per_instance[..3].iter().map(|x| x.requests).sum();
    assert_eq!(routed, 200);
    let want = format!(
        "{} of 200; an even share is 33%",
        r.per_instance[home].requests
    );
    assert!(f.text.contains(&want), "{} lacks {want}", f.text);
}

#[test]
fn dynamo_routes_a_split_fleets_prefill_pool_on_its_prefill_cost_alone() {
    // Dynamo 1.4.2's disaggregated replay turns active-block tracking off on its prefill
    // router: each candidate's cost is max(0, (active_prefill_tokens + prompt) / block
    // size - cached blocks), recomputed here from the logged terms and hits; on the
    // colocated fleet of the same workload the decode term is there (some candidate
    // carries active or new blocks).
    let base = Config {
        routing: Policy::Dynamo,
        num_requests: 120,
        request_rate: 30.0,
        input_len: 3000,
        output_len: 64,
        ..Config::default()
    };
    let split = Config {
        instances: 5,
        prefill_instances: Some(3),
        decode_instances: Some(2),
        ..base.clone()
    };
    let term = |c: &kvfleet::router::Candidate, name: &str| {
        c.terms.iter().find(|t| t.name == name).unwrap().value
    };
    let (log, _) = run_logged(&split);
    assert_eq!(log.len(), 120);
    for d in &log {
        let mut costs = Vec::new();
        for c in &d.candidates {
            let raw = (term(c, "active_prefill_tokens") + 3000.0) / 512.0;
            let want = (raw - c.hit_blocks as f64).max(0.0);
            assert!((c.cost - want).abs() < 1e-9, "request {}: {c:?}", d.id);
            assert_eq!(term(c, "decode_blocks"), 0.0);
            costs.push(want);
        }
        // The pick has the lowest cost (whichever way a tie is broken).
        let lowest = costs.iter().copied().fold(f64::INFINITY, f64::min);
        assert_eq!(costs[d.chosen as usize], lowest, "request {}", d.id);
    }
    let (colocated, _) = run_logged(&Config {
        instances: 3,
        ..base
    });
    let decode_seen = colocated
        .iter()
        .flat_map(|d| &d.candidates)
        .any(|c| term(c, "decode_blocks") > 0.0);
    assert!(decode_seen);
}
