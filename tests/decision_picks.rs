//! The non-kv policies' picks recomputed independently from the request list alone, over
//! every decision of a real trace: round_robin's cycle, random's seeded draws and
//! prefix_aware's consistent-hash ring (a linear scan, not the router's binary search).
#![cfg(not(target_arch = "wasm32"))]

use std::fs::File;
use std::io::BufReader;

use kvfleet::rng::{Rng, Stream};
use kvfleet::router::Reason;
use kvfleet::sim::Decision;
use kvfleet::trace::{parse_mooncake, TraceOptions};
use kvfleet::{api, Config, Policy, Request};

const REPLICAS: u32 = 8;

fn trace() -> Vec<Request> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/mooncake/synthetic_trace.jsonl"
    );
    let reader = BufReader::new(File::open(path).unwrap());
    parse_mooncake(reader, path, &TraceOptions::default()).unwrap()
}

fn decisions(routing: Policy, requests: &[Request]) -> (Config, Vec<Decision>) {
    let cfg = Config {
        instances: REPLICAS,
        routing,
        ..Config::default()
    };
    let mut sim = api::replay_simulation(&cfg, requests.to_vec(), "synthetic").unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let d = sim.take_decisions();
    assert_eq!(d.len(), requests.len());
    assert!(d.iter().all(|x| x.reason == Reason::Policy), "{routing:?}");
    (cfg, d)
}

/// Picks per replica, to see that a check is not vacuous.
fn spread(d: &[Decision]) -> Vec<usize> {
    let mut n = vec![0; REPLICAS as usize];
    for x in d {
        n[x.chosen as usize] += 1;
    }
    n
}

#[test]
fn round_robin_picks_are_the_arrival_index_mod_the_replicas() {
    let requests = trace();
    let (_, d) = decisions(Policy::RoundRobin, &requests);
    for (i, x) in d.iter().enumerate() {
        assert_eq!(x.chosen, i as u32 % REPLICAS, "request {i}");
    }
}

#[test]
fn random_picks_are_one_seeded_draw_each_from_the_router_stream() {
    // The generator is the rng module's (tested there); what is checked here is the
    // router's use of it: one uniform draw in [0, replicas) per pick, in arrival order,
    // from the stream the seed forks for the router and nothing else.
    let requests = trace();
    let (cfg, d) = decisions(Policy::Random, &requests);
    let mut rng = Rng::fork(cfg.seed, Stream::Router);
    for x in &d {
        assert_eq!(
            x.chosen as u64,
            rng.below(REPLICAS as u64),
            "request {}",
            x.id
        );
    }
    // 3993 picks over 8 replicas: about 499 each, standard deviation about 21.
    for (r, n) in spread(&d).into_iter().enumerate() {
        assert!(
            (400..600).contains(&n),
            "replica {r}: {n} picks (seed {})",
            cfg.seed
        );
    }
}

/// SplitMix64 (Steele, Lea and Flood), the published mixer, written out again here.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The ring as the README states it: 160 virtual nodes per replica at
/// splitmix64(replica << 32 | node); a prefix's key is splitmix64(first block ^ salt),
/// and its home is the owner of the first node at or after the key (by hash, then
/// replica), wrapping around to the lowest node. Found by a linear scan.
fn home_of(first_block: u64, nodes: &[(u64, u32)]) -> u32 {
    let key = splitmix64(first_block ^ 0x005E_ED0F_B10C);
    let at_or_after = nodes.iter().filter(|n| n.0 >= key).min();
    at_or_after.or(nodes.iter().min()).unwrap().1
}

#[test]
fn prefix_aware_picks_are_the_ring_home_of_the_first_block() {
    let nodes: Vec<(u64, u32)> = (0..REPLICAS)
        .flat_map(|r| (0..160u64).map(move |v| (splitmix64((r as u64) << 32 | v), r)))
        .collect();
    let requests = trace();
    let (_, d) = decisions(Policy::PrefixAware, &requests);
    for (x, req) in d.iter().zip(&requests) {
        let first = *req.block_ids.first().expect("every trace request has ids");
        assert_eq!(x.chosen, home_of(first, &nodes), "request {}", x.id);
    }
    // 2,211 distinct first blocks: every replica is some prefix's home.
    assert!(spread(&d).iter().all(|&n| n > 0), "{:?}", spread(&d));
}
