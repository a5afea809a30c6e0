//! The routers' own CPU, worked by hand: one core and two simultaneous requests (the
//! second waits exactly the first's CPU time), the router queue's bound, two routers with
//! their own cores, the busy share, and the card's rule (past about 90 % busy the routing
//! delay climbs, as the M/D/1 queue says), and the book's table of it. Also the
//! measurement behind the default per-block CPU time (ignored; see
//! `router_cpu_cost_bench`).
#![cfg(not(target_arch = "wasm32"))]

use kvfleet::report::RouterCpuReport;
use kvfleet::sim::Decision;
use kvfleet::{api, Config, Policy, Report, Request};

/// `n` requests at t = 0 with their own content, 5,120-token prompts (10 full blocks of
/// 512) and 4 output tokens.
fn simultaneous(n: u64) -> Vec<Request> {
    (0..n)
        .map(|id| Request {
            id: id as u32,
            arrival_us: 0,
            prompt_tokens: 5120,
            output_tokens: 4,
            block_ids: (id * 10..id * 10 + 10).collect(),
            session: None,
            output_block_ids: Vec::new(),
        })
        .collect()
}

/// Round robin over `replicas` replicas (each request alone on its own), a router core
/// taking `fixed_us` per request (round robin hashes no blocks, so `per_block_us` is
/// charged only when a test switches to a policy that matches them).
fn cfg(replicas: u32, vcpu: Option<u32>, fixed_us: f64, per_block_us: f64) -> Config {
    Config {
        instances: replicas,
        routing: Policy::RoundRobin,
        router_vcpu: vcpu,
        router_cpu_us_fixed: fixed_us,
        router_cpu_us_per_block: per_block_us,
        ..Config::default()
    }
}

fn run(cfg: &Config, requests: Vec<Request>) -> (Report, Vec<Decision>) {
    let mut sim = api::replay_simulation(cfg, requests, "by hand").unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let decisions = sim.take_decisions();
    (sim.into_report(), decisions)
}

fn ttft_ms(d: &[Decision]) -> Vec<f64> {
    d.iter().map(|d| d.ttft_ms.unwrap()).collect()
}

fn cpu(r: &Report) -> &RouterCpuReport {
    r.router_cpu
        .as_ref()
        .expect("a router with cores reports its CPU")
}

#[test]
fn one_core_makes_the_second_request_wait_the_first_ones_cpu_time() {
    // kv: 400 µs fixed + 10 blocks x 60 µs = 1,000 µs per request (kv sends the second
    // request away from the first's active blocks, so each is alone on a replica).
    let kv = |vcpu| Config {
        routing: Policy::Kv,
        ..cfg(2, vcpu, 400.0, 60.0)
    };
    let (free, busy) = (kv(None), kv(Some(1)));
    let (r0, d0) = run(&free, simultaneous(2));
    let (r1, d1) = run(&busy, simultaneous(2));
    assert!(
        r0.router_cpu.is_none(),
        "no cores: a free router, no report"
    );
    let (t0, t1) = (ttft_ms(&d0), ttft_ms(&d1));
    // Each request is alone on its replica, so its TTFT grows by its routing delay only:
    // the first's CPU time (1 ms), the second's wait for the core plus its own (2 ms).
    assert!((t1[0] - t0[0] - 1.0).abs() < 1e-9, "{t0:?} -> {t1:?}");
    assert!((t1[1] - t0[1] - 2.0).abs() < 1e-9, "{t0:?} -> {t1:?}");
    let c = cpu(&r1);
    assert_eq!(c.routed, 2);
    assert!((c.routing_delay_ms_mean - 1.5).abs() < 1e-9);
    assert!((c.routing_delay_ms_max - 2.0).abs() < 1e-9);
    assert!((c.routing_delay_ms_p99 - 2.0).abs() < 2e-3, "p99 to 0.1 %");
    assert!((r1.summary.ttft_ms_mean - r0.summary.ttft_ms_mean - 1.5).abs() < 1e-6);
    assert_eq!(c.rejected, 0);
    assert_eq!(c.peak_queue, vec![1]);
}

#[test]
fn a_full_router_queue_rejects_and_every_request_ends_once() {
    // One core, one place in the queue, four requests at once: one on the core, one
    // waiting, two refused.
    let c = Config {
        router_queue: Some(1),
        ..cfg(4, Some(1), 1000.0, 0.0)
    };
    let (r, d) = run(&c, simultaneous(4));
    assert_eq!(cpu(&r).rejected, 2);
    assert_eq!(r.summary.rejected, 2, "router rejections count as rejected");
    assert_eq!(
        r.summary.rejected_queue_full + r.summary.rejected_too_large,
        0
    );
    assert_eq!(r.summary.completed, 2);
    assert_eq!(r.summary.requests, 4);
    assert!(r.unended.is_none(), "every request ended exactly once");
    // Only the routed requests have a routing decision: the first two.
    let ids: Vec<u32> = d.iter().map(|d| d.id).collect();
    assert_eq!(ids, vec![0, 1]);
    assert!(r.to_text().contains("rejected 2 (router queue full)"));
    // Queue 0: everything beyond the cores is refused.
    let zero = Config {
        router_queue: Some(0),
        ..c.clone()
    };
    let (r, _) = run(&zero, simultaneous(4));
    assert_eq!((r.summary.completed, cpu(&r).rejected), (1, 3));
}

#[test]
fn each_router_has_its_own_cores() {
    // Two requests at once, dealt to two routers of one core each: neither waits.
    let two = Config {
        routers: 2,
        ..cfg(2, Some(1), 1000.0, 0.0)
    };
    let (r, _) = run(&two, simultaneous(2));
    let c = cpu(&r);
    assert!((c.routing_delay_ms_max - 1.0).abs() < 1e-9, "{c:?}");
    assert_eq!(c.busy_share.len(), 2);
    assert_eq!(c.peak_queue, vec![0, 0]);
    // Four at once: each router gets two, the second of each waits one CPU time.
    let (r, _) = run(&two, simultaneous(4));
    let c = cpu(&r);
    assert!((c.routing_delay_ms_mean - 1.5).abs() < 1e-9, "{c:?}");
    // One router with two cores is the same for this load.
    let one = Config {
        routers: 1,
        ..cfg(2, Some(2), 1000.0, 0.0)
    };
    let (r, _) = run(&one, simultaneous(4));
    assert!((cpu(&r).routing_delay_ms_mean - 1.5).abs() < 1e-9);
}

#[test]
fn busy_share_is_cpu_time_over_cores_and_makespan() {
    // kv: 3 requests x (100 + 10 x 20) µs = 900 µs of core time, 2 cores.
    let c = Config {
        routing: Policy::Kv,
        ..cfg(3, Some(2), 100.0, 20.0)
    };
    let (r, _) = run(&c, simultaneous(3));
    let makespan_us = r.summary.makespan_s * 1e6;
    let want = 900.0 / (2.0 * makespan_us);
    let got = cpu(&r).busy_share[0];
    assert!((got - want).abs() < 1e-9, "{got} != {want}");
    // Delays: two start at once (300 µs), the third waits for the first core (600 µs).
    assert!((cpu(&r).routing_delay_ms_mean - 0.4).abs() < 1e-9);
}

/// Mean routing delay (ms) and busy share of one 1-core router taking `cpu_us` per
/// request, under Poisson arrivals at `rate` req/s.
fn delay_at(rate: f64, cpu_us: f64) -> (f64, f64) {
    let c = Config {
        request_rate: rate,
        num_requests: 40_000,
        input_len: 600,
        prefix_len: 512,
        output_len: 1,
        instances: 8,
        routing: Policy::RoundRobin,
        router_vcpu: Some(1),
        router_cpu_us_fixed: cpu_us,
        router_cpu_us_per_block: 0.0,
        seed: 7,
        ..Config::default()
    };
    let r = api::report_of(&c, None).unwrap();
    let x = cpu(&r);
    (x.routing_delay_ms_mean, x.busy_share[0])
}

#[test]
fn the_cards_rule_past_ninety_percent_busy_the_delay_climbs() {
    // Needed cores ≈ calls/s x CPU ms / 1000: at 2 ms per request, one core is needed
    // at 500 req/s. Offered load ρ = rate x 2 / 1000.
    let cpu_ms = 2.0;
    let rhos = [0.3, 0.6, 0.8, 0.9, 0.95];
    let runs: Vec<(f64, f64)> = rhos
        .iter()
        .map(|rho| delay_at(rho * 1000.0 / cpu_ms, cpu_ms * 1000.0))
        .collect();
    for (rho, (delay, busy)) in rhos.iter().zip(&runs) {
        // M/D/1 (Pollaczek-Khinchine): wait = ρ c / (2 (1 - ρ)), plus the CPU time c.
        let md1 = rho * cpu_ms / (2.0 * (1.0 - rho)) + cpu_ms;
        eprintln!("ρ {rho}: busy {busy:.3}, delay {delay:.2} ms (M/D/1 {md1:.2} ms)");
        assert!((busy - rho).abs() < 0.02, "ρ {rho}: busy {busy}");
        if *rho <= 0.9 {
            assert!((delay - md1).abs() / md1 < 0.1, "ρ {rho}: {delay} vs {md1}");
        }
    }
    let delays: Vec<f64> = runs.iter().map(|r| r.0).collect();
    assert!(delays.windows(2).all(|w| w[1] > w[0]), "{delays:?}");
    // The rise is sharp: from 30 % to 60 % busy the delay grows by well under one CPU
    // time; from 90 % to 95 % by several.
    assert!(delays[1] - delays[0] < cpu_ms, "{delays:?}");
    assert!(delays[4] - delays[3] > 2.0 * cpu_ms, "{delays:?}");
    assert!(delays[4] > 4.0 * delays[0], "{delays:?}");
}

/// The measurement behind the default CPU times: kvfleet's own work per routing decision
/// on a prompt of B full blocks, in a release build:
/// `cargo test --release --test router_cpu -- --ignored --nocapture router_cpu_cost_bench`.
/// Per request: hash B blocks of 512 token ids (std's SipHash, chained as a deployed
/// router hashes each block with its parent's hash), find the leading run each of 8
/// replicas holds in the fleet's block index, and score the replicas with the `kv` cost.
#[test]
#[ignore]
fn router_cpu_cost_bench() {
    use std::hash::{Hash, Hasher};
    use std::time::Instant;
    let replicas = 8;
    let mut index = kvfleet::index::BlockIndex::new(replicas);
    let max_blocks = 256u64;
    for r in 0..replicas {
        // Replica r holds the first 32 r blocks of the shared prefix.
        for id in 0..(32 * r as u64).min(max_blocks) {
            index.insert(id, r);
        }
    }
    let tokens: Vec<u32> = (0..512 * max_blocks as u32).collect();
    let mut hits = vec![0u32; replicas];
    let loads: Vec<f64> = (0..replicas).map(|r| 100.0 * r as f64).collect();
    let mut results = Vec::new();
    for blocks in [1usize, 16, 64, 256] {
        let rounds = 200_000 / blocks;
        let start = Instant::now();
        let mut sink = 0u64;
        for _ in 0..rounds {
            let mut ids = Vec::with_capacity(blocks);
            let mut parent = 0u64;
            for b in 0..blocks {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                parent.hash(&mut h);
                tokens[b * 512..(b + 1) * 512].hash(&mut h);
                parent = h.finish();
                ids.push(b as u64); // the index is keyed by position here
            }
            sink ^= parent;
            index.hits(&ids, blocks, &mut hits);
            let best = (0..replicas)
                .map(|r| (blocks as f64 - hits[r] as f64) + loads[r])
                .enumerate()
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap();
            sink ^= best.0 as u64;
        }
        let us = start.elapsed().as_secs_f64() * 1e6 / rounds as f64;
        eprintln!(
            "{blocks:>4} blocks: {us:.2} µs per request (sink {})",
            sink & 1
        );
        results.push((blocks as f64, us));
    }
    // Least squares: us = fixed + per_block x blocks.
    let n = results.len() as f64;
    let (sx, sy) = results
        .iter()
        .fold((0.0, 0.0), |a, r| (a.0 + r.0, a.1 + r.1));
    let sxx: f64 = results.iter().map(|r| r.0 * r.0).sum();
    let sxy: f64 = results.iter().map(|r| r.0 * r.1).sum();
    let per_block = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    let fixed = (sy - per_block * sx) / n;
    eprintln!("fit: {fixed:.2} µs fixed + {per_block:.3} µs per block");
}

/// The book's table of the card's rule ("The router's own CPU" in router-knowledge.md) is
/// what the simulator measures: each row's load, busy share, routing delay and TTFT p99.
#[test]
fn the_books_router_cpu_table_is_measured() {
    let book = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/src/router-knowledge.md"
    ))
    .unwrap();
    let section = book.split("## The router's own CPU").nth(1).unwrap();
    let rows: Vec<Vec<String>> = section
        .lines()
        .filter(|l| l.starts_with("| ") && l.as_bytes()[2].is_ascii_digit())
        .map(|l| l.split('|').map(|c| c.trim().to_string()).collect())
        .collect();
    assert_eq!(rows.len(), 7, "{rows:?}");
    let ms = |x: f64| kvfleet::numbers::duration(x);
    let run = |rate: f64, vcpu: u32, queue: Option<u32>| {
        let c = Config {
            request_rate: rate,
            num_requests: 20_000,
            input_len: 600,
            prefix_len: 512,
            output_len: 1,
            instances: 32,
            router_vcpu: Some(vcpu),
            router_queue: queue,
            ..Config::default()
        };
        api::report_of(&c, None).unwrap()
    };
    // The two bullets under the table: two cores, and one core with a queue of 64.
    let r = run(1500.0, 2, None);
    let two = format!(
        "Two cores at 1,500 req/s: busy {:.0} %, routing delay {} mean, TTFT p99 {}.",
        100.0 * cpu(&r).busy_share[0],
        ms(cpu(&r).routing_delay_ms_mean),
        ms(r.summary.ttft_ms_p99)
    );
    assert!(section.contains(&two), "{two}");
    let r = run(1500.0, 1, Some(64));
    let x = cpu(&r);
    let refused = format!("{} of the 20,000 requests are", x.rejected);
    let rest = format!(
        "times, {} (p99 {}, TTFT p99 {})",
        ms(x.routing_delay_ms_max),
        ms(x.routing_delay_ms_p99),
        ms(r.summary.ttft_ms_p99)
    );
    let flat = section.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(&refused.replace("1022", "1,022")),
        "{refused}"
    );
    assert!(flat.contains(&rest), "{rest}");
    // At most 65 CPU times (the one on the core, 64 waiting, its own).
    assert!(x.routing_delay_ms_max <= 65.0 * 0.701 + 1e-9, "{x:?}");
    for row in rows {
        let rate: f64 = row[1].replace(',', "").parse().unwrap();
        let r = run(rate, 1, None);
        let x = cpu(&r);
        // A 600-token prompt has one full block: 700 + 0.5 µs, rounded to 701 µs.
        assert_eq!(row[2], format!("{:.2}", rate * 0.701 / 1000.0), "{row:?}");
        assert_eq!(
            row[3],
            format!("{:.0} %", 100.0 * x.busy_share[0]),
            "{row:?}"
        );
        let delay = format!(
            "{} / {}",
            ms(x.routing_delay_ms_mean).trim_end_matches(" ms"),
            ms(x.routing_delay_ms_p99)
        );
        assert_eq!(row[4], delay, "{row:?}");
        assert_eq!(row[5], ms(r.summary.ttft_ms_p99), "{row:?}");
    }
}

/// The routers' busy core time, µs: busy share x cores x makespan.
fn busy_us(r: &Report) -> f64 {
    let c = cpu(r);
    c.busy_share.iter().sum::<f64>() * c.vcpu as f64 * r.summary.makespan_s * 1e6
}

#[test]
fn per_block_cpu_is_charged_only_for_the_blocks_a_policy_hashes() {
    // Four requests of 10 full blocks at t = 0, one core, 100 µs fixed + 30 µs a block,
    // four replicas. Each policy's CPU per request: round robin and least_loaded hash
    // nothing (100 µs), prefix_aware its leading block (130 µs), kv every block (400 µs).
    // One core serves them in turn, so the k-th (from 1) is routed at k CPU times and the
    // mean routing delay is 2.5 CPU times; the core is busy 4 CPU times.
    for (policy, cpu_us) in [
        (Policy::RoundRobin, 100.0),
        (Policy::LeastLoaded, 100.0),
        (Policy::PrefixAware, 130.0),
        (Policy::Kv, 400.0),
    ] {
        let c = Config {
            routing: policy,
            ..cfg(4, Some(1), 100.0, 30.0)
        };
        let (r, d) = run(&c, simultaneous(4));
        let x = cpu(&r);
        assert_eq!(x.routed, 4, "{policy:?}");
        let mean_ms = 2.5 * cpu_us / 1000.0;
        assert!(
            (x.routing_delay_ms_mean - mean_ms).abs() < 1e-9,
            "{policy:?}: {x:?}"
        );
        assert!(
            (x.routing_delay_ms_max - 4.0 * cpu_us / 1000.0).abs() < 1e-9,
            "{policy:?}: {x:?}"
        );
        let busy = busy_us(&r);
        assert!((busy - 4.0 * cpu_us).abs() < 1e-6, "{policy:?}: {busy}");
        // Round robin's four decisions at 100, 200, 300 and 400 µs; kv's at 400 .. 1,600.
        if policy == Policy::RoundRobin || policy == Policy::Kv {
            let (_, free) = run(
                &Config {
                    router_vcpu: None,
                    ..c.clone()
                },
                simultaneous(4),
            );
            let grew: Vec<f64> = ttft_ms(&d)
                .iter()
                .zip(ttft_ms(&free))
                .map(|(a, b)| ((a - b) * 1e3).round())
                .collect();
            let want: Vec<f64> = (1..=4).map(|k| k as f64 * cpu_us).collect();
            assert_eq!(grew, want, "{policy:?}");
        }
    }
    // Session affinity on requests without a session: the router looks for the replica
    // holding the longest prefix, so even sticky pays for every block.
    let sticky = Config {
        routing: Policy::Sticky,
        ..cfg(4, Some(1), 100.0, 30.0)
    };
    let (r, _) = run(&sticky, simultaneous(4));
    assert!((busy_us(&r) - 1600.0).abs() < 1e-6, "{}", busy_us(&r));
}

#[test]
fn a_deadline_passed_at_the_router_is_the_routers_timeout() {
    // One core, 100 ms of CPU a request, four one-block requests at t = 0 with a 250 ms
    // caller timeout. Request 0 is routed at 100 ms, request 1 at 200 ms; request 2 takes
    // the core at 200 ms (still in time) and ends it at 300 ms, past its deadline: a
    // router timeout; request 3 would take the core at 300 ms, already late: dropped
    // without CPU. Neither reaches a replica.
    let requests: Vec<Request> = simultaneous(4)
        .into_iter()
        .map(|r| Request {
            prompt_tokens: 512,
            output_tokens: 1,
            block_ids: r.block_ids[..1].to_vec().into(),
            ..r
        })
        .collect();
    let c = Config {
        timeout_ms: Some(250.0),
        ..cfg(4, Some(1), 100_000.0, 0.0)
    };
    // The replicas answer within the deadline once routed: alone, a one-block prefill
    // takes far less than the 50 ms left to request 1.
    let (free, _) = run(
        &Config {
            router_vcpu: None,
            ..c.clone()
        },
        requests.clone(),
    );
    assert!(
        free.summary.ttft_ms_p99 < 50.0,
        "{}",
        free.summary.ttft_ms_p99
    );
    let (r, d) = run(&c, requests);
    let x = cpu(&r);
    assert_eq!((x.routed, x.rejected, x.timed_out), (2, 0, 2), "{x:?}");
    assert_eq!((r.summary.completed, r.summary.timed_out), (2, 2));
    let at_replicas: u64 = r.per_instance.iter().map(|p| p.timed_out).sum();
    assert_eq!(at_replicas, 0, "the replicas never saw the late requests");
    let reached: u64 = r.per_instance.iter().map(|p| p.requests).sum();
    assert_eq!(reached, 2);
    assert!(r.unended.is_none(), "every request ended exactly once");
    assert_eq!(d.iter().map(|d| d.id).collect::<Vec<_>>(), vec![0, 1]);
    // The core ran three CPU times (request 3 took none).
    assert!((busy_us(&r) - 300_000.0).abs() < 1e-3, "{}", busy_us(&r));
    let text = r.to_text();
    assert!(
        text.contains("router queue unbounded, rejected 0, timed out 2"),
        "{text}"
    );
}
