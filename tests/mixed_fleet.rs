//! Mixed fleets (`fleet`, `--des-fleet`), against numbers worked by hand: each replica's
//! TTFT from its own preset's step formula, each replica's KV capacity from its preset's
//! HBM, the fleet's price per hour, clear errors for a bad fleet, determinism, and a run
//! without a fleet keeping every key it had.
#![cfg(not(target_arch = "wasm32"))]

use std::process::Command;

use kvfleet::sim::Decision;
use kvfleet::timing::EnginePreset;
use kvfleet::{api, ArrivalModel, Autoscale, Config, Policy, Report};

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

/// Two lone requests of 1000 prompt tokens (no shared prefix) 1 s apart, dealt in turn to
/// a fleet of one replica of each of `a` and `b` (the first request to `a`).
fn two_presets(a: &str, b: &str) -> Config {
    Config {
        fleet: format!("1:{a},1:{b}"),
        instances: 2,
        engine: EnginePreset::parse(a).unwrap(),
        num_requests: 2,
        input_len: 1000,
        output_len: 11,
        num_prefixes: 0,
        prefix_len: 0,
        arrival_model: ArrivalModel::Deterministic,
        request_rate: 1.0,
        routing: Policy::RoundRobin,
        ..Config::default()
    }
}

#[test]
fn each_replica_prefills_at_its_own_presets_speed() {
    // A lone request's first token comes at the end of its one prefill step:
    // step_fixed_us + prefill_token_us x 1000 tokens (no decode in that step).
    // llama3-8b-h100: 6000 + 32 x 1000 = 38000 µs; llama3-8b-mi300x: 3800 + 25 x 1000 =
    // 28800 µs (timing.rs's table).
    let (d, r) = run_logged(&two_presets("llama3-8b-h100", "llama3-8b-mi300x"));
    assert_eq!(d.len(), 2);
    assert_eq!(d[0].chosen, 0);
    assert_eq!(d[1].chosen, 1);
    assert_eq!(d[0].ttft_ms, Some(38.0));
    assert_eq!(d[1].ttft_ms, Some(28.8));
    assert_eq!(r.per_instance[0].preset, Some("llama3-8b-h100"));
    assert_eq!(r.per_instance[1].preset, Some("llama3-8b-mi300x"));
    // The report's rows per preset: one request each, its TTFT (within the latency
    // histogram's 0.1 % buckets).
    let presets = r.presets.as_ref().expect("a mixed run reports its presets");
    let near = |got: f64, want: f64| (got - want).abs() <= want * 0.001;
    assert_eq!(presets[0].preset, "llama3-8b-h100");
    assert_eq!((presets[0].replicas, presets[0].requests), (1, 1));
    assert!(
        near(presets[0].ttft_ms.p99, 38.0),
        "{:?}",
        presets[0].ttft_ms
    );
    assert!(
        near(presets[1].ttft_ms.p99, 28.8),
        "{:?}",
        presets[1].ttft_ms
    );
    assert!(r
        .to_text()
        .contains("  By preset: llama3-8b-h100 x 1: 1 requests"));
    // The groups in the other order: the first request now meets the MI300X.
    let (d, r) = run_logged(&two_presets("llama3-8b-mi300x", "llama3-8b-h100"));
    assert_eq!(d[0].ttft_ms, Some(28.8));
    assert_eq!(d[1].ttft_ms, Some(38.0));
    assert_eq!(r.per_instance[0].preset, Some("llama3-8b-mi300x"));
}

#[test]
fn each_replica_holds_its_presets_kv_unless_kv_blocks_is_set() {
    // (0.9 x HBM - 16.06 GB of weights) / (131072 B per token x 512 tokens), rounded down:
    // H100 (80 GB): 55.94e9 / 67108864 = 833.6 -> 833 blocks;
    // MI300X (192 GB): 156.74e9 / 67108864 = 2335.6 -> 2335 blocks.
    let cfg = two_presets("llama3-8b-h100", "llama3-8b-mi300x");
    let (_, r) = run_logged(&cfg);
    let caps: Vec<Option<u64>> = r.per_instance.iter().map(|p| p.capacity_blocks).collect();
    assert_eq!(caps, [Some(833), Some(2335)]);
    assert!(r.fleet_lines[1]
        .contains("capacity/instance=833 blocks (llama3-8b-h100), 2335 blocks (llama3-8b-mi300x)"));
    // An explicit capacity wins for every replica.
    let (_, r) = run_logged(&Config {
        kv_blocks: Some(500),
        ..cfg
    });
    let caps: Vec<Option<u64>> = r.per_instance.iter().map(|p| p.capacity_blocks).collect();
    assert_eq!(caps, [Some(500), Some(500)]);
}

#[test]
fn the_fleet_costs_each_gpu_at_its_own_price() {
    // 4 one-GPU H100 replicas at $3.49 + 2 one-GPU MI300X ones at $3.49 (the presets'
    // assumed on-demand prices): 6 x $3.49 = $20.94 per hour.
    let cfg = Config {
        fleet: "4:llama3-8b-h100,2:llama3-8b-mi300x".into(),
        instances: 6,
        num_requests: 30,
        ..Config::default()
    };
    let (_, r) = run_logged(&cfg);
    assert_eq!(r.summary.usd_per_hour, Some(6.0 * 3.49));
    let line = "  Mixed fleet: 4 x llama3-8b-h100 + 2 x llama3-8b-mi300x; 6 GPUs, $20.94/h at \
                $3.49/GPU-h llama3-8b-h100, $3.49/GPU-h llama3-8b-mi300x";
    assert!(
        r.fleet_lines.iter().any(|l| l == line),
        "{:?}",
        r.fleet_lines
    );
    // The MI300X at $2.10 (an override): 4 x 3.49 + 2 x 2.10 = $18.16, each preset's row
    // at its own price.
    let cheaper = Config {
        gpu_hour_usd: "llama3-8b-mi300x=2.10".into(),
        ..cfg.clone()
    };
    let (_, r) = run_logged(&cheaper);
    assert_eq!(r.summary.usd_per_hour, Some(4.0 * 3.49 + 2.0 * 2.10));
    let rows: Vec<(f64, f64)> = r
        .presets
        .as_ref()
        .unwrap()
        .iter()
        .map(|p| (p.gpu_hour_usd, p.usd_per_hour))
        .collect();
    assert_eq!(rows, [(3.49, 4.0 * 3.49), (2.10, 2.0 * 2.10)]);
    // Tensor-parallel replicas count every GPU: 1 x 4 H100 at $3.49 + 1 x 2 H200 at $4.59.
    let cfg = Config {
        fleet: "1:llama3-70b-4xh100,1:llama3-70b-2xh200".into(),
        instances: 2,
        engine: EnginePreset::Llama3_70b4xH100,
        num_requests: 10,
        ..Config::default()
    };
    let (_, r) = run_logged(&cfg);
    assert_eq!(r.summary.usd_per_hour, Some(4.0 * 3.49 + 2.0 * 4.59));
}

/// One price for every preset (`--des-gpu-hour-usd 2.5`) gives the old, uniform price.
#[test]
fn one_price_for_every_gpu_is_an_override_too() {
    let cfg = Config {
        fleet: "4:llama3-8b-h100,2:llama3-8b-b200".into(),
        instances: 6,
        num_requests: 30,
        gpu_hour_usd: "2.5".into(),
        ..Config::default()
    };
    let (_, r) = run_logged(&cfg);
    assert_eq!(r.summary.usd_per_hour, Some(15.0));
    let bad = Config {
        gpu_hour_usd: "llama3-8b-h100=cheap".into(),
        ..cfg
    };
    let e = kvfleet::run::synthetic_simulation(&bad).err().unwrap();
    assert!(
        e.contains("gpu_hour_usd") && e.contains("PRESET=USD"),
        "{e}"
    );
}

fn error_of(fleet: &str, instances: u32) -> String {
    let cfg = Config {
        fleet: fleet.into(),
        instances,
        ..Config::default()
    };
    run_json(&cfg).unwrap_err()
}

#[test]
fn a_bad_fleet_says_what_is_allowed() {
    let allowed = "COUNT:PRESET groups joined by commas";
    for (fleet, instances) in [
        ("2:llama3-8b-h100,2:llama3-8b-a100", 4),
        ("2:llama3-8b-h100,0:llama3-8b-mi300x", 2),
        ("2 llama3-8b-h100", 2),
        ("2:llama3-8b-h100;2:llama3-8b-mi300x", 4),
        ("2:custom", 2),
        ("2:dynamo-mocker", 2),
        ("257:llama3-8b-h100", 256),
    ] {
        let e = error_of(fleet, instances);
        assert!(e.starts_with("invalid fleet: got "), "{fleet}: {e}");
        assert!(e.contains(allowed), "{fleet}: {e}");
        assert!(e.contains("llama3-8b-mi300x"), "{fleet}: {e}");
    }
    // More replicas in all than a run takes: named as the fleet, which sets them, with the bound.
    let e = error_of("150:llama3-8b-h100,150:llama3-8b-b200", 300);
    assert!(
        e.starts_with("invalid fleet: got 150:llama3-8b-h100,150:llama3-8b-b200")
            && e.contains("1 to 256 replicas in all")
            && e.contains("this fleet has 300"),
        "{e}"
    );
    let e = error_of("1:llama3-8b-h100,1:llama3-70b-2xh200", 2);
    assert!(e.contains("presets of one model"), "{e}");
    let e = error_of("2:llama3-8b-h100,2:llama3-8b-mi300x", 3);
    assert!(e.starts_with("invalid instances: got 3"), "{e}");
    assert!(e.contains("the fleet's total, 4"), "{e}");
    let cfg = Config {
        fleet: "2:llama3-8b-h100,2:llama3-8b-mi300x".into(),
        autoscale: Autoscale::Kpa,
        ..Config::default()
    };
    let e = run_json(&cfg).unwrap_err();
    assert!(e.starts_with("invalid autoscale: got kpa"), "{e}");
    let cfg = Config {
        fleet: "2:llama3-8b-h100,2:llama3-8b-mi300x".into(),
        prefill_instances: Some(2),
        decode_instances: Some(2),
        ..Config::default()
    };
    let e = run_json(&cfg).unwrap_err();
    assert!(e.contains("a mixed fleet is colocated"), "{e}");
    let cfg = Config {
        fleet: "2:llama3-8b-h100,2:llama3-8b-mi300x".into(),
        engine: EnginePreset::Llama3_8bMi300x,
        ..Config::default()
    };
    let e = run_json(&cfg).unwrap_err();
    assert!(
        e.contains("the fleet's first preset, llama3-8b-h100"),
        "{e}"
    );
}

#[test]
fn a_mixed_run_is_deterministic_and_a_plain_run_keeps_its_keys() {
    let cfg = Config {
        fleet: "3:llama3-8b-h100,2:llama3-8b-b200".into(),
        instances: 5,
        engine: EnginePreset::Llama3_8bH100,
        num_requests: 120,
        request_rate: 20.0,
        ..Config::default()
    };
    let a = run_json(&cfg).unwrap();
    assert_eq!(a, run_json(&cfg).unwrap());
    assert!(a.contains("\"fleet\":\"3:llama3-8b-h100,2:llama3-8b-b200\""));
    assert!(a.contains("\"preset\":\"llama3-8b-b200\""));
    let plain = run_json(&Config::default()).unwrap();
    for key in [
        "\"fleet\"",
        "\"preset\"",
        "\"presets\"",
        "\"usd_per_hour\"",
        "\"capacity_blocks\"",
    ] {
        assert!(!plain.contains(key), "{key} in a run without a fleet");
    }
}

fn cli(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kvfleet"))
        .args(args)
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.success(), text(out.stdout), text(out.stderr))
}

#[test]
fn the_cli_sets_the_total_and_refuses_conflicting_flags_by_name() {
    let fleet = "1:llama3-8b-h100,1:llama3-8b-mi300x";
    let base = ["--des-num-requests", "20", "--des-fleet", fleet];
    let (ok, out, err) = cli(&base);
    assert!(ok, "{err}");
    assert!(out.contains("Fleet: 2 instance(s)"), "{out}");
    assert!(out.contains("timed out  preset\n"), "{out}");
    assert!(out.contains("  llama3-8b-mi300x\n"), "{out}");
    for (extra, says) in [
        (
            &["--des-instances", "3"][..],
            "--des-instances: invalid instances: got 3",
        ),
        (
            &["--des-engine", "llama3-8b-h100"][..],
            "leave out --des-engine",
        ),
        (
            &["--des-kv-blocks", "unbounded"][..],
            "--des-kv-blocks unbounded",
        ),
        (
            &["--des-autoscale", "slo"][..],
            "--des-autoscale: invalid autoscale",
        ),
    ] {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        let (ok, _, err) = cli(&args);
        assert!(!ok && err.contains(says), "{extra:?}: {err}");
    }
    let (ok, _, err) = cli(&["--des-fleet", "2:llama3-8b-h1000"]);
    assert!(!ok && err.contains("--des-fleet: invalid fleet"), "{err}");
    // `auto` is each preset's own capacity.
    let args: Vec<&str> = base
        .iter()
        .chain(&["--des-kv-blocks", "auto"])
        .copied()
        .collect();
    let (ok, out, _) = cli(&args);
    assert!(
        ok && out.contains("capacity/instance=833 blocks (llama3-8b-h100)"),
        "{out}"
    );
}

#[test]
fn the_mix_planners_answer_meets_and_one_replica_fewer_of_either_misses() {
    use kvfleet::plan::{self, MixPreset, PlanLimits, Slo, SyntheticRunner};
    let base = Config {
        request_rate: 24.0,
        num_requests: 300,
        ..Config::default()
    };
    let presets = [
        MixPreset {
            preset: EnginePreset::Llama3_8bH100,
            gpu_hour_usd: 2.5,
        },
        MixPreset {
            preset: EnginePreset::Llama3_8bB200,
            gpu_hour_usd: 4.5,
        },
    ];
    let slo = Slo {
        ttft_p99_ms: Some(200.0),
        tpot_p99_ms: None,
        e2e_p99_ms: None,
        max_rejected: 0.0,
        sustained: true,
    };
    let limits = PlanLimits {
        max_replicas: 16,
        seeds: 1,
        exhaustive: false,
        gpus_per_replica: 1,
        gpu_hour_usd: 2.5,
    };
    let p = plan::plan_mix(&base, Policy::Kv, &presets, &slo, &limits, &SyntheticRunner).unwrap();
    let &[a, b] = p.answer.as_deref().expect("a mix meets 200 ms") else {
        panic!("two counts");
    };
    assert!(p.verified);
    // Checked here by running each fleet again, outside the planner.
    let misses = |counts: [u32; 2]| {
        let mut sim =
            api::synthetic_simulation(&plan::mix_config(&base, &presets, &counts)).unwrap();
        sim.run_to_end();
        slo.misses(&plan::Measured::of(&sim.into_report().summary))
    };
    assert_eq!(misses([a, b]), Vec::<String>::new());
    if a > 0 && a + b > 1 {
        assert!(!misses([a - 1, b]).is_empty());
    }
    if b > 0 && a + b > 1 {
        assert!(!misses([a, b - 1]).is_empty());
    }
    // Its price is its GPUs at each preset's price, and no frontier point is cheaper.
    let usd = a as f64 * 2.5 + b as f64 * 4.5;
    assert_eq!(p.at_answer.as_ref().unwrap().usd_per_hour, usd);
    for c in &p.frontier {
        assert!(c[0] as f64 * 2.5 + c[1] as f64 * 4.5 >= usd, "{c:?}");
    }
    assert!(
        p.local_moves.is_empty(),
        "two presets: no third for a local move"
    );
}

#[test]
fn plan_mix_flags_are_checked_by_name() {
    let base = [
        "plan",
        "-q",
        "--slo-ttft-p99-ms",
        "500",
        "--des-num-requests",
        "20",
    ];
    for (extra, says) in [
        (&["--plan-mix", "llama3-8b-h100"][..], "--plan-mix"),
        (
            &["--plan-mix", "llama3-8b-h100,llama3-70b-2xh200"][..],
            "allowed: presets of one model",
        ),
        (
            &["--plan-mix", "llama3-8b-h100,llama3-8b-h100"][..],
            "two or more different presets",
        ),
        (
            &["--plan-mix", "llama3-8b-h100=-1,llama3-8b-b200"][..],
            "invalid price",
        ),
        (
            &[
                "--plan-mix",
                "llama3-8b-h100,llama3-8b-b200",
                "--plan-exhaustive",
            ][..],
            "--plan-exhaustive",
        ),
        (
            &[
                "--plan-mix",
                "llama3-8b-h100,llama3-8b-b200,llama3-8b-h100=3",
            ][..],
            "got llama3-8b-h100 twice",
        ),
        (
            &[
                "--plan-mix",
                "llama3-8b-h100,llama3-8b-b200,mixtral-8x7b-h200",
            ][..],
            "allowed: presets of one model",
        ),
        (
            &["--plan-mix", "llama3-8b-h100,llama3-8b-b200=abc"][..],
            "expected `all`, or two or more presets",
        ),
        (
            &["--plan-mix", "all", "--des-engine", "custom"][..],
            "the engine custom serves no model of its own",
        ),
        (
            &["--plan-mix", "all", "--des-engine", "dynamo-mocker"][..],
            "the engine dynamo-mocker serves no model of its own",
        ),
        (
            &["--des-fleet", "1:llama3-8b-h100,1:llama3-8b-b200"][..],
            "--plan-mix PRESET,PRESET[,...] or --plan-mix all",
        ),
    ] {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        let out = Command::new(env!("CARGO_BIN_EXE_kvfleet"))
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(says), "{extra:?}: {err}");
        // A mix that no price can make valid is a malformed command line, and flags
        // refused together are a usage error: both exit 2 (tests/cli.rs).
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {err}");
    }
}

#[test]
fn llm_ds_kv_cache_scorer_divides_by_each_replicas_own_capacity() {
    use kvfleet::router::zoo::{llmd, Fleet};
    use kvfleet::router::{Ask, ReplicaView, Ties};
    // Two replicas with 300 blocks used each, one of 833 blocks (an H100's) and one of
    // 2335 (an MI300X's): kv-cache scores 1 - 300/833 = 0.6399 and 1 - 300/2335 = 0.8715;
    // with weights 0,0,1 the MI300X wins. Divided by one fleet-wide 1000 blocks both
    // would score 0.7 and the tie would go to the lower index.
    let view = |cap: u64| ReplicaView {
        cache_blocks: 300,
        capacity_blocks: Some(cap),
        ..ReplicaView::default()
    };
    let views = [view(833), view(2335)];
    let ask = Ask {
        block_ids: &[],
        full_blocks: 0,
        session: None,
        hits: &[0, 0],
        prompt_tokens: 10,
        new_blocks: &[],
        now_us: 0,
    };
    let fleet = Fleet {
        ask: &ask,
        views: &views,
        block_size: 512,
        capacity_blocks: Some(1000),
    };
    let mut ties = Ties::new(kvfleet::TieBreak::Lowest, 0, 0);
    let j = llmd::judge(&fleet, [0.0, 0.0, 1.0], &mut ties);
    let kv: Vec<f64> = j.rows.iter().map(|r| r.terms[2].value).collect();
    assert!((kv[0] - (1.0 - 300.0 / 833.0)).abs() < 1e-12, "{kv:?}");
    assert!((kv[1] - (1.0 - 300.0 / 2335.0)).abs() < 1e-12, "{kv:?}");
    assert_eq!(j.chosen, 1);
}

/// The book's routing table (docs/src/mixed-fleets.md) is the simulator's: each row's
/// requests and TTFT p99 per preset, and the fleet's p99, measured again here and printed
/// as the text report prints them.
#[test]
fn the_books_routing_table_is_measured() {
    use kvfleet::numbers::duration;
    let book = include_str!("../docs/src/mixed-fleets.md");
    let mut rows = 0;
    for line in book.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let Ok(policy) = Policy::parse(cells[1].trim_matches('`')) else {
            continue;
        };
        if cells.len() != 6 {
            continue;
        }
        let cfg = Config {
            fleet: "2:llama3-8b-h100,2:llama3-8b-b200".into(),
            request_rate: 20.0,
            num_requests: 600,
            routing: policy,
            ..Config::default()
        };
        let mut sim = api::synthetic_simulation(&cfg).unwrap();
        sim.run_to_end();
        let r = sim.into_report();
        let p = r.presets.as_ref().unwrap();
        let cell = |k: usize| format!("{}, {}", p[k].requests, duration(p[k].ttft_ms.p99));
        assert_eq!(cells[2], cell(0), "{line}");
        assert_eq!(cells[3], cell(1), "{line}");
        assert_eq!(cells[4], duration(r.summary.ttft_ms_p99), "{line}");
        rows += 1;
    }
    assert_eq!(rows, 11, "a row per policy");
}

#[test]
fn a_request_larger_than_the_smallest_presets_kv_names_the_fleet() {
    // 430,000 + 256 tokens are ceil(430256 / 512) = 841 blocks; an H100 holds 833.
    let cfg = Config {
        fleet: "1:llama3-8b-h100,1:llama3-8b-mi300x".into(),
        instances: 2,
        input_len: 430_000,
        num_prefixes: 0,
        prefix_len: 0,
        num_requests: 2,
        ..Config::default()
    };
    let e = run_json(&cfg).unwrap_err();
    assert!(e.starts_with("invalid fleet: got 1:llama3-8b-h100"), "{e}");
    assert!(
        e.contains("at least 841 KV blocks") && e.contains("holds 833"),
        "{e}"
    );
    // With a capacity given for every replica, that capacity is named.
    let e = run_json(&Config {
        kv_blocks: Some(800),
        ..cfg.clone()
    })
    .unwrap_err();
    assert!(
        e.starts_with("invalid kv_blocks: got 800; allowed: at least 841 blocks"),
        "{e}"
    );
    // An MI300X alone holds it (2335 blocks).
    assert!(run_json(&Config {
        fleet: "2:llama3-8b-mi300x".into(),
        engine: EnginePreset::Llama3_8bMi300x,
        ..cfg
    })
    .is_ok());
}

/// The book's account of `sticky` and `sglang` on the mixed fleet: the same 600 decisions
/// on the seed's pool (8 misses, one per prefix, then every request to its prefix's
/// replica, never out of balance), and apart when the prefix is under SGLang's 0.3
/// threshold (the second table, measured again here).
#[test]
fn sticky_and_sglang_agree_on_the_pool_and_part_under_the_threshold() {
    use kvfleet::numbers::duration;
    let at = |policy: Policy, input_len: u32| Config {
        fleet: "2:llama3-8b-h100,2:llama3-8b-b200".into(),
        request_rate: 20.0,
        num_requests: 600,
        input_len,
        routing: policy,
        ..Config::default()
    };
    let (sticky, _) = run_logged(&at(Policy::Sticky, 4096));
    let (sglang, _) = run_logged(&at(Policy::Sglang, 4096));
    // 8 blocks a prompt, 4 of them the prefix: a match rate of 0.5 over 0.3.
    assert_eq!(sticky[0].request_blocks, 8);
    let picks = |d: &[Decision]| d.iter().map(|d| d.chosen).collect::<Vec<_>>();
    assert_eq!(picks(&sticky), picks(&sglang), "the same decisions");
    let rules = |d: &[Decision], rule: &str| d.iter().filter(|d| d.rule == Some(rule)).count();
    assert_eq!((rules(&sglang, "miss"), rules(&sglang, "match")), (8, 592));
    // Sticky's own rule: round robin for the 8 first requests, the prefix's replica after.
    let policy_picks = sticky
        .iter()
        .filter(|d| d.reason == kvfleet::router::Reason::Policy)
        .count();
    assert_eq!(policy_picks, 8);
    // After its first request a prefix lives on one replica, which both choose.
    for d in sticky
        .iter()
        .filter(|d| d.reason == kvfleet::router::Reason::Sticky)
    {
        let holders: Vec<u32> = d
            .candidates
            .iter()
            .filter(|c| c.hit_blocks > 0)
            .map(|c| c.replica)
            .collect();
        assert_eq!(holders, vec![d.chosen], "request {}", d.id);
    }
    let book = include_str!("../docs/src/mixed-fleets.md");
    let flat = book.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("make the same 600 decisions here"));
    // Under the threshold: 16 blocks, 4 shared (0.25); sglang routes every request by load.
    for policy in [Policy::Sticky, Policy::Sglang] {
        let (d, r) = run_logged(&at(policy, 8192));
        if policy == Policy::Sglang {
            assert_eq!(rules(&d, "miss"), 600, "every request by load");
        }
        let p = r.presets.as_ref().unwrap();
        let cell = |k: usize| format!("{}, {}", p[k].requests, duration(p[k].ttft_ms.p99));
        let row = format!(
            "| {} | {} | {} | {} |",
            policy.name(),
            cell(0),
            cell(1),
            duration(r.summary.ttft_ms_p99)
        );
        assert!(book.contains(&row), "{row}");
    }
}
