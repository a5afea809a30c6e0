//! The native CLI end to end: the seed's example verbatim, --help, the JSON report, and
//! clear errors (flag, value, what is allowed) for bad input, never a panic.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::kvfleet;

const SEED_EXAMPLE: &[&str] = &[
    "--request-rate",
    "6",
    "--arrival-model",
    "poisson",
    "--des-num-requests",
    "200",
    "--des-instances",
    "4",
    "--des-routing",
    "kv",
    "--des-num-prefixes",
    "8",
    "--des-prefix-len",
    "2048",
    "--des-block-size",
    "512",
];

#[test]
fn seed_example_prints_the_fleet_lines_and_tables() {
    let (code, out, err) = kvfleet(SEED_EXAMPLE);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("kvfleet: discrete-event simulation (arrival-driven), seed 42\n"));
    assert!(out.contains("  Fleet: 4 instance(s), routing=kv | prefix pool: 8 prefixes\n"));
    assert!(out.contains("  KV block cache: block_size=512 tok, capacity/instance=unbounded, evictions=0, block-reuse="));
    assert!(out.contains("  Prefix-cache hit rate: "));
    assert!(out.contains("% of requests (avg "));
    assert!(out.contains("TTFT (from arrival)") && out.contains("End-to-end"));
    assert!(out.contains("  replica  requests  prompt tok  hit rate"));
    let golden = include_str!("golden/seed_example.txt");
    assert_eq!(out, golden, "the CLI prints the golden report");
}

#[test]
fn help_documents_every_flag_with_default_and_unit() {
    let (code, out, _) = kvfleet(&["--help"]);
    assert_eq!(code, 0);
    for flag in [
        "--request-rate",
        "--arrival-model",
        "--des-num-requests",
        "--des-instances",
        "--des-routing",
        "--des-num-prefixes",
        "--des-prefix-len",
        "--des-block-size",
        "--des-kv-blocks",
        "--des-overlap-weight",
        "--des-burstiness",
        "--des-range-ratio",
        "--des-input-len",
        "--des-output-len",
        "--des-prefix-popularity",
        "--des-max-batch",
        "--des-max-batched-tokens",
        "--des-engine",
        "--seed",
        "--des-report-json",
        "--des-router-view",
        "--des-router-refresh-ms",
        "--des-kv-event-lag-ms",
        "--des-router-predict-ttl-ms",
        "--des-routers",
    ] {
        assert!(out.contains(flag), "--help lacks {flag}");
    }
    assert!(out.contains("[default: exact]") && out.contains("milliseconds"));
    assert!(out.contains("[default: 6]") && out.contains("requests per second"));
    assert!(out.contains("[default: unbounded]"));
    assert!(out.contains("tokens"));
}

#[test]
fn report_json_has_the_documented_keys() {
    let path = std::env::temp_dir().join(format!("kvfleet-cli-{}.json", std::process::id()));
    let p = path.to_str().unwrap();
    let (code, _, err) = kvfleet(&["--des-report-json", p, "--seed", "3"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    std::fs::remove_file(&path).ok();
    // Seed 3, otherwise the defaults: 200 prompts of exactly 4096 tokens (8 full
    // blocks, no length spread), a 2048-token prefix from a pool of 8, unbounded caches
    // and queues, 4 replicas. So nothing is rejected or evicted, block reuse equals the
    // token hit rate, and only the prefix can be reused: at most 2048 / 4096 = 0.5.
    let s = &v["summary"];
    let num = |key: &str| {
        s[key]
            .as_f64()
            .unwrap_or_else(|| panic!("summary.{key}: {}", s[key]))
    };
    assert_eq!(s["seed"], 3);
    assert_eq!((num("requests"), num("completed")), (200.0, 200.0));
    assert_eq!(
        (num("rejected"), num("timed_out"), num("evictions")),
        (0.0, 0.0, 0.0)
    );
    assert_eq!(num("prompt_tokens"), 200.0 * 4096.0);
    let tokens = num("hit_rate_tokens");
    assert!(tokens > 0.3 && tokens <= 0.5, "{tokens}");
    assert_eq!(num("block_reuse"), tokens);
    assert_eq!(num("cached_tokens"), tokens * 819_200.0);
    assert_eq!(num("cached_tokens_avg"), num("cached_tokens") / 200.0);
    assert_eq!(num("cached_tokens") % 512.0, 0.0, "whole blocks");
    // A request that hits also reuses the whole prefix, 4 blocks of 8.
    assert!((num("hit_rate_requests") * 0.5 - tokens).abs() < 1e-12);
    // The fastest first token computes the 2048 uncached tokens in one step:
    // 6000 + 2048 x 32 = 71,536 µs (less half a 0.1 % histogram bucket); the fastest
    // end-to-end adds 255 decode steps of at least 6,020 µs.
    assert!(num("ttft_ms_p50") >= 71.536 * 0.9995);
    assert!(num("ttft_ms_p50") <= num("ttft_ms_p99"));
    assert!(num("e2e_ms_p99") >= 71.536 + 255.0 * 6.020);
    // 200 Poisson arrivals at 6 req/s span about 33 s.
    assert!(
        (25.0..45.0).contains(&num("makespan_s")),
        "{}",
        num("makespan_s")
    );
    assert!(
        num("events") >= 400.0,
        "an arrival and a step end per request at least"
    );
    let rows = v["per_instance"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    let sum = |key: &str| rows.iter().map(|r| r[key].as_f64().unwrap()).sum::<f64>();
    assert_eq!(sum("requests"), 200.0);
    assert_eq!(sum("prompt_tokens"), 819_200.0);
    assert_eq!(sum("cached_tokens"), num("cached_tokens"));
    for r in rows {
        let rate = r["hit_rate_requests"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&rate), "{r}");
    }
    assert_eq!(v["series"]["queue"].as_array().unwrap().len(), 4);
    assert_eq!(
        v["series"]["t_s"].as_array().unwrap().len(),
        v["series"]["queue"][0].as_array().unwrap().len()
    );
}

#[test]
fn bad_flags_name_the_flag_the_value_and_what_is_allowed() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--des-instances", "0"],
            &["--des-instances", "got 0", "1 to 256"],
        ),
        (
            &["--request-rate", "-3"],
            &["--request-rate", "got -3", "0.01 to 100000"],
        ),
        (&["--request-rate", "NaN"], &["--request-rate", "got NaN"]),
        (
            &["--request-rate", "fast"],
            &["--request-rate", "expected a number"],
        ),
        (
            &["--des-block-size", "0"],
            &["--des-block-size", "got 0", "1 to 65536"],
        ),
        (
            &["--des-prefix-len", "5000"],
            &["--des-prefix-len", "got 5000", "shortest prompt"],
        ),
        (
            &["--des-prefix-popularity", "zipf:0"],
            &["--des-prefix-popularity", "zipf:0", "S > 0"],
        ),
        (
            &["--des-prefix-popularity", "hot:1.5"],
            &["--des-prefix-popularity", "SHARE <= 1"],
        ),
        (
            &["--des-kv-blocks", "3"],
            &[
                "--des-kv-blocks",
                "got 3",
                "at least 9 blocks",
                "could never run",
            ],
        ),
        (
            &["--des-routing", "fastest"],
            &["--des-routing", "fastest", "one of round_robin, random, prefix_aware, kv, sticky, least_loaded, p2c, dynamo, sglang, llm_d, aibrix"],
        ),
        (
            &["--des-instances", "-1"],
            &["--des-instances", "-1", "whole number"],
        ),
        (
            &["--des-range-ratio", "1"],
            &["--des-range-ratio", "got 1", "0 to 0.99"],
        ),
        (&["--des-max-batch", "0"], &["--des-max-batch", "got 0"]),
        (&["--seed", "-5"], &["--seed", "whole number"]),
        (
            &["--des-router-view", "psychic"],
            &["--des-router-view", "psychic", "exact, offline, snapshot"],
        ),
        (
            &["--des-routers", "0"],
            &["--des-routers", "got 0", "1 to 64 routers"],
        ),
        (
            &["--des-router-refresh-ms", "-1"],
            &["--des-router-refresh-ms", "got -1", "0 to 600000 ms"],
        ),
        (
            &["--des-kv-event-lag-ms", "NaN"],
            &["--des-kv-event-lag-ms", "got NaN"],
        ),
        (
            &["--des-router-predict-ttl-ms", "1e9"],
            &[
                "--des-router-predict-ttl-ms",
                "got 1000000000",
                "0 to 3600000 ms",
            ],
        ),
    ];
    for (args, needles) in cases {
        let (code, out, err) = kvfleet(args);
        assert_ne!(code, 0, "{args:?} should fail");
        assert!(out.is_empty(), "{args:?} printed a report");
        assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
        for n in *needles {
            assert!(err.contains(n), "{args:?}: error lacks {n:?}: {err}");
        }
    }
}

#[test]
fn presets_load_a_lesson_and_explicit_flags_override_it() {
    let (code, out, err) = kvfleet(&["--preset", "hot-prefix"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Fleet: 6 instance(s), routing=prefix_aware | prefix pool: 16 prefixes"));
    assert!(out.contains("Lesson: One replica owns the hot prefix"));
    assert!(out.contains("Goal NOT MET"));
    let (code, out, err) = kvfleet(&["--preset", "hot-prefix", "--des-spill-queue", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Goal MET"), "{out}");
    let (code, out, _) = kvfleet(&[
        "--des-routing",
        "sticky",
        "--preset",
        "more-replicas-slower",
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains("routing=sticky | workload: sessions"),
        "flags before the preset override it too"
    );
    assert!(out.contains("Goal MET"));
    let (code, _, err) = kvfleet(&["--preset", "fast-fleet"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("--preset") && err.contains("more-replicas-slower, hot-prefix"),
        "{err}"
    );
}

#[test]
fn json_on_stdout_moves_the_text_report_to_stderr() {
    let (code, out, err) = kvfleet(&["--des-report-json", "-", "--des-num-requests", "50"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&out).expect("stdout is exactly the JSON report");
    assert_eq!(v["summary"]["requests"], 50);
    assert!(err.contains("Prefix-cache hit rate:"), "{err}");
}

/// The trace summary is computed on a second thread while the replay runs; it must still
/// come first, whole, exactly as `kvfleet analyze` prints it, and then the report.
#[test]
fn a_replay_prints_the_trace_summary_first_then_the_report() {
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/mooncake/conversation_trace.jsonl"
    );
    let (code, summary, err) = kvfleet(&["analyze", trace]);
    assert_eq!(code, 0, "{err}");
    assert!(summary.starts_with("Trace: 12031 requests"), "{summary}");
    for quiet in [false, true] {
        let mut args = vec!["--des-mooncake-trace", trace, "--des-instances", "8"];
        if quiet {
            args.push("-q");
        }
        let (code, out, err) = kvfleet(&args);
        assert_eq!(code, 0, "{err}");
        let report = out
            .strip_prefix(summary.as_str())
            .unwrap_or_else(|| panic!("the output does not start with the summary:\n{out}"));
        assert!(
            report.starts_with("kvfleet: discrete-event simulation"),
            "{report}"
        );
        assert!(!report.contains("Trace: "), "the summary appears once");
    }
}

#[test]
fn flags_of_a_feature_that_is_off_are_warned_about_by_name() {
    // Each typed flag does nothing under the rest of the run: a warning names it and why;
    // the run goes on.
    let (code, out, err) = kvfleet(&[
        "--des-num-requests",
        "10",
        "--des-kv-transfer-gbps",
        "3",
        "--des-router-refresh-ms",
        "20",
        "--des-dynamo-temperature",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Simulated: 10 requests"), "{out}");
    for line in [
        "warning: --des-kv-transfer-gbps does nothing on a colocated fleet (it needs --des-prefill-instances and --des-decode-instances)",
        "warning: --des-router-refresh-ms does nothing with --des-router-view exact",
        "warning: --des-dynamo-temperature does nothing with --des-routing kv (it is a setting of dynamo only)",
    ] {
        assert!(err.contains(line), "{line}\n{err}");
    }
    // Flags not typed, or typed where their feature is on, are not warned about.
    let (code, _, err) = kvfleet(&[
        "--des-num-requests",
        "10",
        "--des-router-view",
        "snapshot",
        "--des-router-refresh-ms",
        "20",
        "--des-routing",
        "dynamo",
        "--des-dynamo-temperature",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "{err}");
}

#[test]
fn a_replays_workload_flags_and_other_policies_settings_are_warned_about() {
    // The trace gives the requests, so the synthetic workload's rate and gamma shape do
    // nothing (one warning each, the replay the reason); the kv policy's weight and a spill
    // queue do nothing under round robin without affinity.
    let (code, out, err) = kvfleet(&[
        "--des-mooncake-trace",
        "tests/data/mooncake_small.jsonl",
        "--request-rate",
        "5",
        "--des-burstiness",
        "2",
        "--des-routing",
        "round_robin",
        "--des-overlap-weight",
        "2",
        "--des-spill-queue",
        "3",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Simulated: "), "{out}");
    let warned: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
    let replay = "on a replay (its requests come from --des-mooncake-trace)";
    assert_eq!(
        warned,
        [
            "warning: --des-overlap-weight does nothing with --des-routing round_robin (it weighs the kv policy's missed blocks)".to_string(),
            "warning: --des-spill-queue does nothing with --des-routing round_robin and no session affinity (only a sticky or prefix home spills)".to_string(),
            format!("warning: --request-rate does nothing {replay}"),
            format!("warning: --des-burstiness does nothing {replay}"),
        ]
    );
    // The same flags where they count: a synthetic run under prefix_aware with gamma
    // arrivals, and kv, warn about nothing.
    let (code, _, err) = kvfleet(&[
        "--des-num-requests",
        "10",
        "--request-rate",
        "5",
        "--arrival-model",
        "gamma",
        "--des-burstiness",
        "2",
        "--des-routing",
        "prefix_aware",
        "--des-spill-queue",
        "3",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "{err}");
}

#[test]
fn a_sweep_over_a_parameter_that_does_nothing_is_warned_about() {
    let (code, out, err) = kvfleet(&[
        "--des-num-requests",
        "10",
        "--des-sweep",
        "router-refresh-ms=0:100:50",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 5, "{out}");
    assert!(
        err.contains("warning: --des-sweep router-refresh-ms=0:100:50: --des-router-refresh-ms does nothing with --des-router-view exact")
            && err.contains("every row will be the same"),
        "{err}"
    );
    // A flag that counts at some of the sweep's points is not warned about.
    let (code, _, err) = kvfleet(&[
        "--des-num-requests",
        "10",
        "--des-dynamo-temperature",
        "1",
        "--des-sweep",
        "routing=kv,dynamo",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "{err}");
}

/// `kvfleet lesson ID --check FLAGS...`: (exit code, stdout, stderr).
fn lesson_check(id: &str, flags: &[&str]) -> (i32, String, String) {
    let mut args = vec!["lesson", id, "--check"];
    args.extend_from_slice(flags);
    kvfleet(&args)
}

#[test]
fn an_unknown_lesson_is_an_error_not_a_goal_not_met() {
    // Exit 1 means "not met" to a teacher's script; an id that is no lesson is exit 2.
    let (code, out, err) = kvfleet(&["lesson", "nope"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("unknown lesson \"nope\"; allowed: "), "{err}");
    // The broken setup of a real lesson is still exit 1.
    assert_eq!(kvfleet(&["lesson", "hot-prefix"]).0, 1);
}

/// Asserts that a check was refused: exit 2, nothing judged, the flag named on stderr.
fn assert_not_judged(id: &str, flags: &[&str], named: &str) {
    let (code, out, err) = lesson_check(id, flags);
    assert_eq!(code, 2, "{id} {flags:?}: {out}{err}");
    assert_eq!(out, "", "{id} {flags:?}: nothing judged");
    assert!(err.contains("the goal is not judged"), "{err}");
    assert!(
        err.contains(named),
        "{id} {flags:?} does not name {named}: {err}"
    );
}

#[test]
fn a_lesson_check_on_other_calls_is_not_judged() {
    // A fix meets the goal on the lesson's own calls...
    let kv = ["--des-routing", "kv"];
    assert_eq!(lesson_check("hot-prefix", &kv).0, 0);
    // ...and stating them changes nothing.
    let same = [
        "--des-routing",
        "kv",
        "--request-rate",
        "30",
        "--des-num-requests",
        "3000",
    ];
    assert_eq!(lesson_check("hot-prefix", &same).0, 0);
    // Fewer, slower or other calls are not the lesson's: not judged.
    let slower = ["--des-routing", "kv", "--request-rate", "0.1"];
    assert_not_judged("hot-prefix", &slower, "--request-rate 0.1");
    assert_not_judged("hot-prefix", &slower, "it runs --request-rate 30");
    let fewer = ["--des-num-requests", "5"];
    assert_not_judged("routers-that-herd", &fewer, "--des-num-requests 5");
    assert_not_judged(
        "won-on-an-infinite-cache",
        &["--des-block-size", "4096"],
        "--des-block-size 4096",
    );
    assert_not_judged(
        "more-replicas-slower",
        &["--des-session-rate", "0.01"],
        "--des-session-rate 0.01",
    );
    assert_not_judged(
        "smallest-tree-pile-up",
        &["--des-block-size", "32"],
        "--des-block-size 32",
    );
    // A faster GPU or a mixed fleet is not a fix of the fleet: every lesson pins its engine.
    for id in kvfleet::lessons::lessons().iter().map(|l| l.id) {
        let b200 = ["--des-engine", "llama3-8b-b200"];
        assert_not_judged(id, &b200, "--des-engine llama3-8b-b200 changes the GPU");
        let fast = ["--des-engine", "custom", "--des-step-fixed-us", "1"];
        assert_not_judged(id, &fast, "--des-engine custom changes the GPU");
    }
    assert_not_judged(
        "hot-prefix",
        &["--des-fleet", "2:llama3-8b-b200,2:llama3-8b-h100"],
        "it runs --des-engine llama3-8b-h100 on every replica",
    );
    // A workload setting the lesson's runs ignore is named as such.
    assert_not_judged(
        "more-replicas-slower",
        &["--request-rate", "3"],
        "--request-rate",
    );
    assert_not_judged(
        "smallest-tree-pile-up",
        &["--des-num-requests", "10"],
        "doc_chat_trace.jsonl",
    );
}

#[test]
fn a_lesson_check_refuses_the_flags_it_does_not_take() {
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/mooncake/conversation_trace.jsonl"
    );
    let workload = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/workload.csv");
    let (report, decisions, export) = (
        common::tmp("check-report.json"),
        common::tmp("check-decisions.jsonl"),
        common::tmp("check-export.jsonl"),
    );
    let refused: [(&str, &str); 9] = [
        ("--des-mooncake-trace", trace),
        ("--des-workload-file", workload),
        ("--des-max-requests", "10"),
        ("--des-arrival-speedup", "2"),
        ("--des-report-json", &report),
        ("--des-decisions", &decisions),
        ("--des-export-trace", &export),
        ("--des-sweep", "instances=4,6"),
        ("--des-threads", "2"),
    ];
    for (flag, value) in refused {
        // With a fix, so that a check that ignored the flag would meet the goal.
        assert_not_judged("hot-prefix", &["--des-spill-queue", "2", flag, value], flag);
    }
    assert_not_judged(
        "smallest-tree-pile-up",
        &["--des-sort-arrivals"],
        "--des-sort-arrivals",
    );
    assert_not_judged("hot-prefix", &["--preset", "timeout-below-p99"], "--preset");
    for path in [report, decisions, export] {
        assert!(!std::path::Path::new(&path).exists(), "{path} was written");
    }
}

#[test]
fn a_preset_run_on_other_calls_does_not_judge_the_goal() {
    let (code, out, err) = kvfleet(&["--preset", "hot-prefix", "--des-routing", "kv", "-q"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("  Goal MET\n"), "{out}");
    let slower = [
        "--preset",
        "hot-prefix",
        "--des-routing",
        "kv",
        "--request-rate",
        "0.1",
        "-q",
    ];
    let (code, out, err) = kvfleet(&slower);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("Goal MET") && !out.contains("[met]"), "{out}");
    assert!(
        out.contains("  Goal not judged: --request-rate 0.1 changes the workload"),
        "{out}"
    );
}

/// The hot-prefix lesson's queue holds 32 requests per replica: `unbounded` clears it, a number
/// replaces it (5 rejects 5 of the busy replica's arrivals at 300 requests), text is refused.
#[test]
fn queue_capacity_unbounded_clears_a_lessons_queue() {
    let run = |extra: &[&str]| {
        let base = ["--preset", "hot-prefix", "--des-num-requests", "300"];
        let args = [&base[..], &["--des-report-json", "-"], extra].concat();
        let (code, out, err) = kvfleet(&args);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("the JSON report");
        (
            v["config"]["queue_capacity"].clone(),
            v["summary"]["rejected"].clone(),
        )
    };
    assert_eq!(run(&[]), (32.into(), 0.into()));
    let (cap, rejected) = run(&["--des-queue-capacity", "unbounded"]);
    assert!(cap.is_null(), "{cap}");
    assert_eq!(rejected, 0);
    assert_eq!(run(&["--des-queue-capacity", "5"]), (5.into(), 5.into()));
    let (code, _, err) = kvfleet(&["--des-queue-capacity", "lots"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("--des-queue-capacity") && err.contains("or unbounded"),
        "{err}"
    );
}

#[test]
fn router_queue_unbounded_clears_a_lessons_queue() {
    let small = ["--preset", "router-bottleneck", "--des-num-requests", "300"];
    let (code, out, err) = kvfleet(&small);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("| router queue 64, rejected"), "{out}");
    let (code, out, err) = kvfleet(&[&small[..], &["--des-router-queue", "unbounded"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("| router queue unbounded, rejected 0"),
        "{out}"
    );
    let (code, out, err) = kvfleet(&[&small[..], &["--des-router-queue", "5"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("| router queue 5, rejected"), "{out}");
    let (code, _, err) = kvfleet(&["--des-router-vcpu", "1", "--des-router-queue", "lots"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("--des-router-queue") && err.contains("or unbounded"),
        "{err}"
    );
}

#[test]
fn plan_mix_flags_refused_together_exit_2_as_a_malformed_mix_does() {
    let base = [
        "plan",
        "-q",
        "--slo-ttft-p99-ms",
        "500",
        "--des-num-requests",
        "20",
    ];
    // A malformed --plan-mix (one preset) is refused by the flag parser with exit 2.
    let (code, _, err) = kvfleet(&[&base[..], &["--plan-mix", "llama3-8b-h100"]].concat());
    assert_eq!(code, 2, "{err}");
    // Flags that cannot go with --plan-mix are the same kind of error.
    for extra in [
        &["--plan-mix", "all", "--des-engine", "custom"][..],
        &["--plan-mix", "all", "--des-engine", "dynamo-mocker"][..],
        &[
            "--plan-mix",
            "llama3-8b-h100,llama3-8b-b200",
            "--plan-exhaustive",
        ][..],
        &[
            "--plan-mix",
            "all",
            "--des-fleet",
            "1:llama3-8b-h100,1:llama3-8b-b200",
        ][..],
        &["--des-fleet", "1:llama3-8b-h100,1:llama3-8b-b200"][..],
    ] {
        let (code, out, err) = kvfleet(&[&base[..], extra].concat());
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(err.starts_with("error: --"), "{extra:?}: {err}");
        assert!(out.is_empty(), "{extra:?}: nothing planned");
    }
    // A bad value is still exit 1: a price beyond the planner's bound.
    let (code, _, err) =
        kvfleet(&[&base[..], &["--plan-mix", "all", "--gpu-hour-usd", "20000"]].concat());
    assert_eq!(code, 1, "{err}");
}
