//! Autoscaling, worked by hand: a scale-up's timing (the signal crosses, the next tick
//! decides, the replica is ready a start-up delay later and only then takes requests), a
//! drain (no new requests; it leaves when its last one ends, billed until then), the
//! consistent-hash ring's remap share when a replica leaves or joins (about 1/N), the
//! bounds as a property over seeds and both scalers, and determinism.
#![cfg(not(target_arch = "wasm32"))]

use kvfleet::router::{Ask, ReplicaView, Router};
use kvfleet::sim::autoscale::kpa::Kpa;
use kvfleet::sim::{ChangeKind, Decision};
use kvfleet::{api, Autoscale, Config, Policy, Report, Request};

/// Request `id` at `t_s` with its own 512-token prompt (one block) and `output` tokens.
fn request(id: u32, t_s: f64, output: u32) -> Request {
    Request {
        id,
        arrival_us: (t_s * 1e6) as u64,
        prompt_tokens: 512,
        output_tokens: output,
        block_ids: vec![1000 + id as u64].into(),
        session: None,
        output_block_ids: Vec::new(),
    }
}

fn run(cfg: &Config, requests: Vec<Request>) -> (Report, Vec<Decision>) {
    let mut sim = api::replay_simulation(cfg, requests, "by hand").unwrap();
    sim.record_decisions();
    sim.run_to_end();
    let decisions = sim.take_decisions();
    (sim.into_report(), decisions)
}

/// KPA at a target of 2 in flight per replica, a 6 s stable window and a panic window as
/// long, one replica to start, at most 2, a 10 s start-up, round robin.
fn kpa_cfg() -> Config {
    Config {
        instances: 1,
        routing: Policy::RoundRobin,
        autoscale: Autoscale::Kpa,
        min_instances: Some(1),
        max_instances: Some(2),
        startup_s: Some(10.0),
        kpa_target: 2.0,
        kpa_stable_window_s: 6.0,
        kpa_panic_window_pct: 100.0,
        ..Config::default()
    }
}

/// One long request a second from 0 s (none ends within the test's stretch): k + 1 in
/// flight over [k, k + 1). The mean over [0, t] is (1 + 2 + 3 + 4(t - 3)) / t for t in
/// [3, 4): it reaches the target 2 at t = 3 s (6 + 4(t - 3) = 2t). The tick at 2 s sees
/// (1 + 2) / 2 = 1.5 (ceil(1.5 / 2) = 1 replica: hold); the next tick, 4 s, sees
/// 10 / 4 = 2.5, ceil(2.5 / 2) = 2 replicas: replica 1 starts at 4 s and is ready at
/// 4 + 10 = 14 s. Requests 0-13 all go to replica 0; request 14 (at 14 s, after the
/// readiness at the same instant) is the first on replica 1.
#[test]
fn a_scale_up_is_decided_at_the_next_tick_and_ready_a_start_up_later() {
    let requests = (0..20).map(|i| request(i, i as f64, 20_000)).collect();
    let (report, decisions) = run(&kpa_cfg(), requests);
    let a = report.autoscale.as_ref().expect("an autoscale report");
    let first: Vec<(f64, u32, ChangeKind)> = a
        .changes
        .iter()
        .take(2)
        .map(|c| (c.t_s, c.replica, c.kind))
        .collect();
    assert_eq!(
        first,
        [(4.0, 1, ChangeKind::Start), (14.0, 1, ChangeKind::Ready)]
    );
    for d in decisions.iter().filter(|d| d.id < 14) {
        assert_eq!(d.chosen, 0, "request {} before readiness", d.id);
    }
    assert_eq!(decisions[14].chosen, 1, "the first request after 14 s");
    // The maximum holds: at 8 s the window [2, 8] has 3 + 4 + ... + 8 = 33 request-seconds,
    // a mean of 5.5, ceil(5.5 / 2) = 3 replicas wanted; 2 is the most, so nothing more starts.
    let starts = a
        .changes
        .iter()
        .filter(|c| c.kind == ChangeKind::Start)
        .count();
    assert_eq!(starts, 1);
    assert_eq!(decisions[15].chosen, 0);
    assert_eq!(report.series.replicas.first(), Some(&1));
    assert_eq!(report.series.replicas.last(), Some(&2));
}

/// Two replicas, a target far above the load: the first tick (2 s) wants
/// ceil(2 / 100) = 1, within the scale-down bound floor(2 / 2) = 1, so the higher
/// replica, 1, drains. It holds request 1 (at 0 s); requests at 3 s and 4 s go to
/// replica 0 only; replica 1 leaves the instant request 1 ends, and is billed until then.
#[test]
fn a_drained_replica_takes_nothing_new_and_leaves_with_its_last_request() {
    let cfg = Config {
        instances: 2,
        kpa_target: 100.0,
        max_instances: Some(2),
        ..kpa_cfg()
    };
    let requests = vec![
        request(0, 0.0, 2_000),
        request(1, 0.0, 2_000),
        request(2, 3.0, 50),
        request(3, 4.0, 50),
    ];
    let (report, d) = run(&cfg, requests);
    assert_eq!((d[0].chosen, d[1].chosen), (0, 1));
    assert_eq!(
        (d[2].chosen, d[3].chosen),
        (0, 0),
        "nothing new to a draining replica"
    );
    let a = report.autoscale.as_ref().unwrap();
    let drain = a
        .changes
        .iter()
        .find(|c| c.kind == ChangeKind::Drain)
        .unwrap();
    assert_eq!((drain.t_s, drain.replica, drain.ready), (2.0, 1, 1));
    let leave = a
        .changes
        .iter()
        .find(|c| c.kind == ChangeKind::Leave)
        .unwrap();
    let done_s = d[1].arrival_s + d[1].e2e_ms.unwrap() / 1000.0;
    assert!(done_s > 2.0, "request 1 outlives the drain decision");
    assert!(
        (leave.t_s - done_s).abs() < 1e-6,
        "{} vs {done_s}",
        leave.t_s
    );
    assert_eq!(leave.replica, 1);
    // Replica 0 from 0 to the end, replica 1 from 0 to its leaving.
    let end_s = report.summary.makespan_s;
    let expected = end_s + leave.t_s;
    assert!(
        (a.replica_seconds - expected).abs() < 1e-5,
        "{} vs {expected}",
        a.replica_seconds
    );
    let gpu_h = report.summary.gpu_hours.unwrap();
    assert!(
        (gpu_h - expected / 3600.0).abs() < 1e-9,
        "one GPU per llama3-8b-h100 replica"
    );
}

/// Every policy, four replicas of which the top two drain at the first tick (2 s; the
/// target far above the load wants ceil(4 / 100) = 1, bounded by floor(4 / 2) = 2 and
/// the minimum, 2):
/// thirty requests after it, all sharing one prefix the draining replicas hold too (so
/// cache-aware policies are drawn to them), never go to replica 2 or 3, and the log marks
/// those two not candidates.
#[test]
fn no_policy_sends_a_request_to_a_draining_replica() {
    for policy in Policy::ALL {
        let cfg = Config {
            instances: 4,
            min_instances: Some(2),
            max_instances: Some(4),
            kpa_target: 100.0,
            routing: policy,
            ..kpa_cfg()
        };
        let shared = |id: u32, t_s: f64, output: u32| Request {
            prompt_tokens: 2048,
            block_ids: vec![7, 8, 9, 1000 + id as u64].into(),
            ..request(id, t_s, output)
        };
        let mut requests: Vec<Request> = (0..4).map(|i| shared(i, 0.0, 3_000)).collect();
        requests.extend((4..34).map(|i| shared(i, 2.5 + 0.1 * i as f64, 20)));
        let (report, d) = run(&cfg, requests);
        let a = report.autoscale.as_ref().unwrap();
        let drained: Vec<u32> = a
            .changes
            .iter()
            .filter(|c| c.kind == ChangeKind::Drain)
            .map(|c| c.replica)
            .collect();
        assert_eq!(drained, [3, 2], "{policy:?}");
        for x in &d[4..] {
            assert!(
                x.chosen < 2,
                "{policy:?}: request {} went to {}",
                x.id,
                x.chosen
            );
            assert!(
                x.candidates[2].excluded && x.candidates[3].excluded,
                "{policy:?}"
            );
        }
    }
}

/// `prefix_aware`'s home of each of `keys` first blocks over `n` replicas, with the
/// replicas not in `open` closed.
fn homes(n: u32, open: &[bool], keys: u64) -> Vec<usize> {
    let cfg = Config {
        instances: n,
        routing: Policy::PrefixAware,
        ..Config::default()
    };
    let mut router = Router::new(&cfg, 0);
    router.set_accepting(open);
    let views = vec![ReplicaView::default(); n as usize];
    let hits = vec![0; n as usize];
    (0..keys)
        .map(|k| {
            let ids = [k * 7_919 + 13];
            let ask = Ask {
                block_ids: &ids,
                full_blocks: 1,
                session: None,
                hits: &hits,
                prompt_tokens: 1024,
                new_blocks: &[],
                now_us: 0,
            };
            router.pick(ask, &views, None).0
        })
        .collect()
}

/// Eight replicas, 160 virtual nodes each, 100,000 prefixes: closing replica 7 moves
/// exactly the prefixes it was home to (no other moves), and they are about 1/8 of all
/// (12.5 %, within 2.5 points: a replica's arc share over 160 nodes varies by about 8 %
/// of itself). Opening it again brings back the same prefixes, and only them.
#[test]
fn the_ring_remaps_only_the_leaving_replica_s_share() {
    let keys = 100_000;
    let all = homes(8, &[true; 8], keys);
    let mut seven = [true; 8];
    seven[7] = false;
    let without = homes(8, &seven, keys);
    let moved: Vec<usize> = (0..all.len()).filter(|&k| all[k] != without[k]).collect();
    assert!(
        moved.iter().all(|&k| all[k] == 7),
        "only replica 7's prefixes move"
    );
    assert!(without.iter().all(|&r| r != 7));
    assert_eq!(moved.len(), all.iter().filter(|&&r| r == 7).count());
    let share = moved.len() as f64 / keys as f64;
    assert!((share - 0.125).abs() < 0.025, "moved {share}");
    // With all eight again, every prefix is back at its first home.
    assert_eq!(homes(8, &[true; 8], keys), all);
    // Seven open to eight open: only the returning replica's share moves, to it.
    let back: Vec<usize> = (0..all.len()).filter(|&k| without[k] != all[k]).collect();
    assert!(back.iter().all(|&k| all[k] == 7));
}

/// A load step on a rate schedule, both scalers over several seeds: at every change the
/// ready replicas stay within [min, max]; the series never leaves them either.
#[test]
fn the_ready_replicas_never_leave_the_bounds() {
    for autoscale in [Autoscale::Kpa, Autoscale::Slo] {
        for seed in 1..=4 {
            let cfg = Config {
                seed,
                instances: 2,
                autoscale,
                min_instances: Some(2),
                max_instances: Some(5),
                startup_s: Some(5.0),
                kpa_target: 4.0,
                slo_ttft_ms: Some(30.0),
                request_rate_schedule: "0s:2,20s:24,50s:2".to_string(),
                num_requests: 700,
                input_len: 2048,
                output_len: 128,
                ..Config::default()
            };
            let report = kvfleet::run::synthetic_simulation(&cfg)
                .unwrap()
                .into_report();
            let a = report.autoscale.as_ref().unwrap();
            assert!(
                a.changes.iter().any(|c| c.kind == ChangeKind::Ready),
                "{autoscale:?} seed {seed}: the step scales up"
            );
            for c in &a.changes {
                assert!(
                    (2..=5).contains(&c.ready),
                    "{autoscale:?} seed {seed}: {c:?}"
                );
            }
            assert!(report.series.replicas.iter().all(|r| (2..=5).contains(r)));
            assert!(a.peak_ready <= 5);
        }
    }
}

/// The same seed gives byte-identical JSON with a scaler running.
#[test]
fn an_autoscaled_run_is_deterministic() {
    let cfg = Config {
        autoscale: Autoscale::Kpa,
        kpa_target: 2.0,
        startup_s: Some(3.0),
        request_rate_schedule: "0s:3,10s:20".to_string(),
        num_requests: 400,
        ..Config::default()
    };
    let json = || {
        kvfleet::run::synthetic_simulation(&cfg)
            .unwrap()
            .into_report()
            .to_json()
    };
    let first = json();
    assert!(first.contains("\"gpu_hours\""));
    assert_eq!(first, json());
}

/// Bounds that do not hold the starting size, and a split fleet, are refused by name.
#[test]
fn bad_bounds_are_refused_naming_the_field() {
    let bad = |cfg: Config| kvfleet::run::synthetic_simulation(&cfg).err().unwrap();
    let base = Config {
        autoscale: Autoscale::Kpa,
        instances: 4,
        ..Config::default()
    };
    let e = bad(Config {
        max_instances: Some(2),
        ..base.clone()
    });
    assert!(e.contains("max_instances"), "{e}");
    let e = bad(Config {
        min_instances: Some(6),
        ..base.clone()
    });
    assert!(e.contains("min_instances"), "{e}");
    let e = bad(Config {
        prefill_instances: Some(2),
        decode_instances: Some(2),
        ..base
    });
    assert!(e.contains("autoscale"), "{e}");
}

/// The book's autoscaling section: its example's quoted lines are what the command prints
/// (the text report of the same config), its measured ring share is the test's, and its
/// start-up delays are the presets'.
#[test]
fn the_book_s_autoscaling_numbers_are_measured() {
    let book =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/src/model.md")).unwrap();
    let section = book
        .split("### Autoscaling: replicas that start cold and drain")
        .nth(1)
        .unwrap()
        .split("\n## ")
        .next()
        .unwrap();
    let example = section
        .split("```console")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    assert!(example.contains(
        "kvfleet --request-rate-schedule \"0s:4,60s:20,150s:4\" --des-num-requests 2400 --des-instances 2 --des-autoscale kpa"
    ));
    let cfg = Config {
        request_rate_schedule: "0s:4,60s:20,150s:4".to_string(),
        num_requests: 2400,
        instances: 2,
        autoscale: Autoscale::Kpa,
        ..Config::default()
    };
    let text = kvfleet::run::synthetic_simulation(&cfg)
        .unwrap()
        .into_report()
        .to_text();
    let quoted: Vec<&str> = example.lines().filter(|l| l.starts_with("  ")).collect();
    assert!(quoted.len() >= 12, "{quoted:?}");
    for line in quoted {
        assert!(
            text.lines().any(|t| t == line),
            "the book quotes a line the run does not print: {line}\n{text}"
        );
    }
    // The ring's share, as measured above.
    let all = homes(8, &[true; 8], 100_000);
    let share = all.iter().filter(|&&r| r == 7).count() as f64 / 1000.0;
    assert!(
        section.contains(&format!("closing one moved {share:.1} %")),
        "{share}"
    );
    use kvfleet::timing::EnginePreset as P;
    // The KPA target's reason: llama3-8b-h100 decode steps over 4k-token (4,352) contexts.
    let t = P::Llama3_8bH100.timing();
    let (one, sixteen) = (t.step_us(0, 1, 4352), t.step_us(0, 16, 16 * 4352));
    let per = t.step_us(0, 17, 17 * 4352) - sixteen;
    assert_eq!(
        (
            format!("{:.1}", sixteen as f64 / 1000.0),
            format!("{:.1}", one as f64 / 1000.0)
        ),
        ("9.7".to_string(), "6.2".to_string())
    );
    let flat = section.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("about 9.7 ms against 6.2 ms for one"));
    assert_eq!(format!("{:.2}", per as f64 / 1000.0), "0.23");
    assert!(flat.contains("adds about 0.23 ms"));
    // The start-up delays: 30 s + weights / (2 GB/s per GPU).
    for (preset, words) in [
        (P::Llama3_8bH100, "38 s for the 8B presets"),
        (P::Llama3_70b4xH100, "47.7 s for"),
        (P::Llama3_70b2xH200, "65.3 s on two GPUs"),
        (P::Llama3_70bMi300x, "100.6 s for"),
        (P::Mixtral8x7bH200, "76.7 s for the"),
        (P::Custom, "30 s for `custom`"),
    ] {
        let s = Config {
            engine: preset,
            ..Config::default()
        }
        .startup_s_or_default();
        let shown: f64 = words.split(' ').next().unwrap().parse().unwrap();
        assert!(
            (s - shown).abs() <= 0.06,
            "{preset:?}: {s} vs {words} (to a tenth)"
        );
        assert!(section.contains(words), "{words}");
    }
}

/// Knative's panic mode, by hand, at a target of 10 per replica, a 60 s stable window and
/// a 200 % threshold. Tick 2 s, 2 ready: the panic window's mean 35 wants ceil(3.5) = 4,
/// 4 / 2 = 2.0 reaches the threshold: panic, 4 replicas (the stable window's 12 alone would
/// want 2). Then 4 ready and a mean of 5 everywhere: below the threshold (1 / 4), but panic
/// holds the count at 4 until a tick more than 60 s after the last one over it: at 62 s
/// (exactly 60 s) still 4, at 64 s the stable mode's ceil(0.5) = 1, bounded below by the
/// scale-down rate, floor(4 / 2) = 2.
#[test]
fn the_kpa_panics_on_a_burst_and_leaves_a_stable_window_later() {
    let mut k = Kpa::new(10.0, 60_000_000, 2.0, 1000.0, 2.0);
    assert_eq!(k.decide(2_000_000, 12.0, 35.0, 2), 4);
    assert!(k.panicking());
    assert_eq!(
        k.decide(4_000_000, 5.0, 5.0, 4),
        4,
        "no scale-down in panic"
    );
    assert_eq!(k.decide(62_000_000, 5.0, 5.0, 4), 4);
    assert!(
        k.panicking(),
        "60 s after the last tick over: not yet past it"
    );
    assert_eq!(k.decide(64_000_000, 5.0, 5.0, 4), 2);
    assert!(!k.panicking());
    // Out of panic, a mean just under the threshold's want stays stable: 2 ready, 39 over
    // the panic window wants ceil(3.9) = 4 = 2 x 2, over again; 29 wants 3, 3 / 2 < 2.
    let mut k = Kpa::new(10.0, 60_000_000, 2.0, 1000.0, 2.0);
    assert_eq!(k.decide(2_000_000, 29.0, 29.0, 2), 3);
    assert!(!k.panicking());
}
