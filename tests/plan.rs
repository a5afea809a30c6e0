//! `kvfleet plan` end to end: an answer worked out by hand, the verification rule checked
//! by re-running both points as ordinary runs, a real inversion (more replicas, worse
//! p99), the goodput's bracket, the cost arithmetic, `--des-kv-blocks auto`, and clear
//! errors.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::{kvfleet, tmp};
use serde_json::Value;

/// Deterministic arrivals 10 ms apart, every prompt unique (1,024 tokens), one output
/// token, one request at a time per replica, the 8B H100 preset.
const BY_HAND: &[&str] = &[
    "--arrival-model",
    "deterministic",
    "--request-rate",
    "100",
    "--des-num-requests",
    "200",
    "--des-input-len",
    "1024",
    "--des-output-len",
    "1",
    "--des-num-prefixes",
    "0",
    "--des-max-batch",
    "1",
];

fn plan_json(args: &[&str], name: &str) -> Value {
    plan_json_and_text(args, name).0
}

/// The plan's JSON and the text it printed.
fn plan_json_and_text(args: &[&str], name: &str) -> (Value, String) {
    let path = tmp(name);
    let mut all = vec!["plan", "-q", "--plan-json", path.as_str()];
    all.extend_from_slice(args);
    let (code, out, err) = kvfleet(&all);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("kvfleet plan: "), "{out}");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).ok();
    (serde_json::from_str(&text).unwrap(), out)
}

/// The JSON report of one ordinary run.
fn run_json(args: &[&str], name: &str) -> Value {
    let path = tmp(name);
    let mut all = vec!["-q", "--des-report-json", path.as_str()];
    all.extend_from_slice(args);
    let (code, _, err) = kvfleet(&all);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).ok();
    serde_json::from_str(&text).unwrap()
}

fn policy<'a>(plan: &'a Value, name: &str) -> &'a Value {
    plan["policies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["policy"] == name)
        .unwrap()
}

#[test]
fn the_answer_worked_out_by_hand() {
    // One prefill step of 1,024 tokens: 6,000 + 1,024 x 32 = 38,768 µs, and the single
    // output token comes with it. Round robin gives each of N replicas a request every
    // N x 10 ms: N = 4 (40 ms) keeps up, so every TTFT is 38.768 ms; N = 3 (30 ms) falls
    // 8.768 ms further behind with every request. Against a 50 ms p99 target the answer
    // is ceil(100 req/s x 38.768 ms) = 4.
    let mut args = BY_HAND.to_vec();
    args.extend([
        "--slo-ttft-p99-ms",
        "50",
        "--plan-routing",
        "round_robin,least_loaded",
    ]);
    let plan = plan_json(&args, "byhand.json");
    for name in ["round_robin", "least_loaded"] {
        let p = policy(&plan, name);
        assert_eq!(p["min_replicas"], 4, "{name}");
        assert_eq!(p["verified"], true, "{name}");
        let ttft = p["at_min"]["measured"]["ttft_ms_p99"].as_f64().unwrap();
        assert!((ttft - 38.768).abs() < 0.05, "{name}: {ttft}");
    }
    // The verification rule, re-checked as two ordinary runs: 4 meets, 3 fails.
    for (n, meets) in [("4", true), ("3", false)] {
        let mut run = BY_HAND.to_vec();
        run.extend(["--des-routing", "round_robin", "--des-instances", n]);
        let r = run_json(&run, &format!("byhand-{n}.json"));
        let p99 = r["summary"]["ttft_ms_p99"].as_f64().unwrap();
        assert_eq!(p99 <= 50.0, meets, "{n} replicas: p99 {p99} ms");
    }
    // The headline: both policies need 4 replicas, 4 H100s at $3.49 = $13.96/h; the 200
    // requests arrive from 0 to 1.99 s and the last finishes 38.768 ms later, so 200 output
    // tokens over 2.028768 s cost 13.96 x 2.028768 / 3600 / 200 x 1e6 = $39.34 per million.
    // The two runs are the same (every TTFT 38.768 ms, the same goodput), so tied on cost,
    // p99 TTFT and goodput the name decides: least_loaded before round_robin.
    let headline = plan["headline"].as_str().unwrap();
    let first = headline.lines().next().unwrap();
    assert_eq!(
        first,
        "Cheapest: least_loaded on 4 replicas (4 GPUs) at $13.96/h, $39.34 per million output \
         tokens, meeting the targets; tied on cost, p99 TTFT and goodput with round_robin, \
         least_loaded comes first by name.",
    );
    let details = headline.lines().nth(1).unwrap();
    assert!(
        details.starts_with("Tied at $13.96/h with round_robin. "),
        "{details}"
    );
    assert!(
        details.ends_with(
            " least_loaded and round_robin have the same p99 TTFT, 38.8 ms, and the same \
             goodput; least_loaded comes first by name. Against round_robin (4 replicas, $13.96/h), least_loaded saves \
             nothing: both cost the same per hour."
        ),
        "{details}"
    );
}

#[test]
fn more_replicas_can_do_worse_and_the_plan_says_so() {
    // The seed's example at 24 req/s under aibrix, a growing backlog allowed: 4 replicas
    // meet a 360 ms p99 TTFT (357 ms), 5 miss it (365 ms; the prefix table spreads the 8
    // prefixes over more cold caches); 3 miss it too (480 ms). (The target was 300 ms
    // while ties went to the lower index: 4 replicas had 284 ms, 5 had 313 ms. With ties
    // drawn among equals, as AIBrix draws them, 4 replicas have 357 ms and the inversion
    // sits at 360 ms.)
    let args = [
        "--request-rate",
        "24",
        "--slo-ttft-p99-ms",
        "360",
        "--plan-routing",
        "aibrix",
        "--plan-allow-overload",
    ];
    let plan = plan_json(&args, "inversion.json");
    let p = policy(&plan, "aibrix");
    assert_eq!(p["min_replicas"], 4);
    let inversions: Vec<Value> = p["non_monotone"].as_array().unwrap().clone();
    assert!(
        inversions.contains(&serde_json::json!([4, 5])),
        "{inversions:?}"
    );
    // Both sides re-checked as ordinary runs.
    for (n, meets) in [("4", true), ("5", false)] {
        let r = run_json(
            &[
                "--request-rate",
                "24",
                "--des-routing",
                "aibrix",
                "--des-instances",
                n,
            ],
            &format!("inversion-{n}.json"),
        );
        let p99 = r["summary"]["ttft_ms_p99"].as_f64().unwrap();
        assert_eq!(p99 <= 360.0, meets, "{n} replicas: p99 {p99} ms");
    }
    let (_, out, _) = kvfleet(&[&["plan", "-q"][..], &args[..]].concat());
    assert!(
        out.contains(
            "Not monotone: aibrix meets the targets at 4 replicas but misses them at 5 (ttft_p99)"
        ),
        "{out}"
    );
}

#[test]
fn goodput_and_cost_follow_from_the_points() {
    // The by-hand fleet at its own size (4 replicas) keeps up to 4 / 38.768 ms = 103.2
    // req/s, so the goodput must lie between the last rate that met and one within 1 %
    // above it that failed; around 100-103 req/s.
    let mut args = BY_HAND.to_vec();
    args.extend([
        "--des-instances",
        "4",
        "--slo-ttft-p99-ms",
        "50",
        "--plan-routing",
        "round_robin",
        "--gpu-hour-usd",
        "3",
        "--plan-gpus-per-replica",
        "2",
    ]);
    let plan = plan_json(&args, "goodput.json");
    let p = policy(&plan, "round_robin");
    let g = &p["goodput"];
    let rate = g["rate"].as_f64().unwrap();
    assert_eq!(g["rate_unit"], "req/s");
    assert!((100.0..=103.3).contains(&rate), "{rate}");
    let lo = g["rate_scale"].as_f64().unwrap();
    let points = g["points"].as_array().unwrap();
    let failed_above = points.iter().any(|x| {
        let s = x["rate_scale"].as_f64().unwrap();
        x["meets"] == false && s > lo && s <= lo * 1.01
    });
    assert!(failed_above, "a failing rate within 1 % above the goodput");
    // Cost: 4 replicas x 2 GPUs x $3 = $24/h; per million output tokens, the fleet's
    // price over the run's makespan divided by the tokens it produced.
    let at = &p["at_min"];
    assert_eq!(at["cost"]["gpus"], 8);
    assert_eq!(at["cost"]["usd_per_hour"], 24.0);
    let m = &at["measured"];
    let tokens = m["output_tokens"].as_f64().unwrap();
    assert_eq!(tokens, 200.0, "one output token per request");
    let want = 24.0 * m["makespan_s"].as_f64().unwrap() / 3600.0 / tokens * 1e6;
    let got = at["cost"]["usd_per_m_tokens"].as_f64().unwrap();
    assert!((got - want).abs() < 1e-9 * want, "{got} vs {want}");
    assert_eq!(plan["limits"]["gpus_per_replica"], 2);
}

#[test]
fn kv_blocks_auto_takes_the_presets_capacity() {
    // 8B on one H100 holds 833 blocks of 512 tokens (worked in src/timing/tests.rs);
    // 70B on one MI300X, 188.
    for (engine, blocks) in [("llama3-8b-h100", 833), ("llama3-70b-mi300x", 188)] {
        let r = run_json(
            &["--des-engine", engine, "--des-kv-blocks", "auto"],
            &format!("auto-{engine}.json"),
        );
        assert_eq!(r["config"]["kv_blocks"], blocks, "{engine}");
    }
    let (code, _, err) = kvfleet(&["--des-engine", "custom", "--des-kv-blocks", "auto"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("--des-kv-blocks auto: the custom engine has no hardware"),
        "{err}"
    );
    let (code, _, err) = kvfleet(&["--des-kv-blocks", "lots"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("auto (derived from the engine preset's HBM) or unbounded"),
        "{err}"
    );
}

#[test]
fn bad_plans_get_clear_errors() {
    let cases: &[(&[&str], &str)] = &[
        (&["plan"], "no target given"),
        (
            &["plan", "--slo-ttft-p99-ms", "0"],
            "expected a number of ms > 0",
        ),
        (
            &["plan", "--slo-max-rejected", "2"],
            "expected a share from 0 to 1",
        ),
        (
            &[
                "plan",
                "--slo-e2e-p99-ms",
                "9",
                "--plan-routing",
                "kv,fastest",
            ],
            "fastest: one of round_robin",
        ),
        (
            &["plan", "--slo-e2e-p99-ms", "9", "--plan-max-replicas", "0"],
            "--plan-max-replicas: invalid count: got 0; allowed: 1 to 256",
        ),
        (
            &["plan", "--slo-e2e-p99-ms", "9", "--plan-seeds", "99"],
            "--plan-seeds: invalid count: got 99; allowed: 1 to 16",
        ),
        (
            &[
                "plan",
                "--slo-e2e-p99-ms",
                "9",
                "--des-report-json",
                "x.json",
            ],
            "--des-report-json belongs to a single run",
        ),
        (
            &["plan", "--slo-e2e-p99-ms", "9", "--des-instances", "0"],
            "--des-instances: invalid instances: got 0",
        ),
        (
            &[
                "plan",
                "--slo-e2e-p99-ms",
                "9",
                "--plan-gpus-per-replica",
                "2147483648",
            ],
            "--plan-gpus-per-replica: invalid count: got 2147483648; allowed: 1 to 1024 GPUs \
             per replica",
        ),
        (
            &["plan", "--slo-e2e-p99-ms", "9", "--gpu-hour-usd", "1e308"],
            "--gpu-hour-usd: invalid price: got 1e308; allowed: 0 to 10000 dollars per GPU-hour",
        ),
        (
            &[
                "plan",
                "--slo-e2e-p99-ms",
                "9",
                "--seed",
                "9007199254740992",
                "--plan-seeds",
                "2",
            ],
            "--seed: invalid seed with --plan-seeds 2: got 9007199254740992; allowed: 0 to \
             9007199254740991",
        ),
    ];
    for (args, want) in cases {
        let (code, out, err) = kvfleet(args);
        assert_ne!(code, 0, "{args:?}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.contains("9007199254740993"), "a derived seed: {err}");
    }
}

#[test]
fn a_sessions_plan_keeps_the_rate_within_its_limits() {
    // Closed-loop sessions: 20 tasks of 5 turns on 4 replicas meet a 500 ms p99 TTFT at
    // any task rate, so the goodput search stops at the parameter's limit (1000 tasks/s)
    // instead of asking for a rate the simulator refuses.
    let plan = plan_json(
        &[
            "--des-workload",
            "sessions",
            "--des-num-sessions",
            "20",
            "--des-turns",
            "5",
            "--slo-ttft-p99-ms",
            "500",
            "--plan-routing",
            "sticky",
        ],
        "sessions.json",
    );
    let g = &policy(&plan, "sticky")["goodput"];
    assert_eq!(g["rate_unit"], "tasks/s");
    assert_eq!(g["at_limit"], true);
    assert_eq!(g["rate"], 1000.0);
    assert_eq!(plan["workload"], "sessions");
}

#[test]
fn a_growing_backlog_misses_unless_allowed() {
    // kv at 24 req/s: 3 replicas meet a 300 ms p99 TTFT, but their backlog grows through
    // the run (the report's "overloaded" finding), so by default the plan needs 5, the
    // first fleet whose backlog levels once its first requests can have finished (about
    // 20 requests a replica from 4 s on). Both re-checked as ordinary runs.
    let base = [
        "--request-rate",
        "24",
        "--slo-ttft-p99-ms",
        "300",
        "--plan-routing",
        "kv",
    ];
    let strict = plan_json(&base, "strict.json");
    let loose = plan_json(
        &[&base[..], &["--plan-allow-overload"]].concat(),
        "loose.json",
    );
    assert_eq!(policy(&strict, "kv")["min_replicas"], 5);
    assert_eq!(policy(&loose, "kv")["min_replicas"], 3);
    let four = policy(&strict, "kv")["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["instances"] == 4)
        .unwrap()
        .clone();
    assert_eq!(four["misses"], serde_json::json!(["overloaded"]));
    for (n, overloaded) in [("3", true), ("4", true), ("5", false)] {
        let r = run_json(
            &["--request-rate", "24", "--des-instances", n],
            &format!("backlog-{n}.json"),
        );
        assert_eq!(r["summary"]["overloaded"], overloaded, "{n} replicas");
        assert!(r["summary"]["ttft_ms_p99"].as_f64().unwrap() <= 300.0);
    }
    assert_eq!(strict["slo"]["sustained"], true);
    assert_eq!(loose["slo"]["sustained"], false);
}

#[test]
fn a_tie_on_the_seed_workload_is_not_decided_by_a_rounding_level_price() {
    // The page's default plan (the seed's workload, 300 ms p99 TTFT): round robin and
    // dynamo both need 2 replicas ($6.98/h at the H100's $3.49), and their $/M output tokens differ by 0.009%
    // (the makespans end 3 ms apart), which once named dynamo "the least per million output
    // tokens, $0.9050 against $0.9051" (at $2.50 a GPU-hour). That is level: tied on cost,
    // round robin's lower p99 TTFT decides, and the headline and the details say so. The case needs dynamo's ties given to the lower
    // index (`--des-tie-break lowest`): with its ties drawn, as Dynamo draws them, its
    // price is the higher one too ($0.9089 against $0.9051) and nothing is left to decide.
    let (plan, text) = plan_json_and_text(
        &[
            "--slo-ttft-p99-ms",
            "300",
            "--plan-max-replicas",
            "32",
            "--plan-routing",
            "round_robin,dynamo",
            "--des-tie-break",
            "lowest",
        ],
        "seed-tie.json",
    );
    let usd_m = |name: &str| {
        policy(&plan, name)["at_min"]["cost"]["usd_per_m_tokens"]
            .as_f64()
            .unwrap()
    };
    let goodput = |name: &str| policy(&plan, name)["goodput"]["rate"].as_f64().unwrap();
    let (rr, dynamo) = (usd_m("round_robin"), usd_m("dynamo"));
    assert!(dynamo < rr && rr < dynamo * 1.005, "{dynamo} {rr}");
    assert!(goodput("round_robin") > goodput("dynamo"));
    let ttft = |name: &str| {
        policy(&plan, name)["at_min"]["measured"]["ttft_ms_p99"]
            .as_f64()
            .unwrap()
    };
    let (rr_ttft, dynamo_ttft) = (ttft("round_robin"), ttft("dynamo"));
    assert!(
        rr_ttft < dynamo_ttft && rr_ttft >= 100.0,
        "{rr_ttft} {dynamo_ttft}"
    );
    // A headline that says what decided, then the details: the tie, the two p99s, and
    // (round robin being the cheapest) no comparison of round robin with itself.
    let head = format!(
        "Cheapest: round_robin on 2 replicas (2 GPUs) at $6.98/h, ${rr:.2} per million \
         output tokens, meeting the targets; tied on cost with dynamo, round_robin has the \
         lower p99 TTFT."
    );
    let details = format!(
        "Tied at $6.98/h with dynamo. Both cost the same per million output tokens to within \
         0.5% ($1.26), so the lower p99 TTFT decides between them. round_robin has the lower \
         p99 TTFT of the two: {rr_ttft:.0} ms against {dynamo_ttft:.0} ms. No other policy \
         costs less per hour, so cache-aware routing saves nothing here."
    );
    assert_eq!(plan["headline"], format!("{head}\n{details}"));
    // The CLI prints the headline, then the details on the next line, both indented.
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[lines.len() - 2..],
        [format!("  {head}"), format!("  {details}")]
    );
}

/// A disaggregated fleet worked by hand: a custom engine whose step is 1000 µs + 1 µs per
/// prefill token + 10 µs per decoding sequence, a 1 GB/s link with a 50 µs setup, 1000 KV
/// bytes per token; 3,000-token unique prompts, 13 output tokens, one request at a time
/// per replica, arrivals every 2.5 ms, both pools routed in turn.
const SPLIT: &[&str] = &[
    "--des-engine",
    "custom",
    "--des-step-fixed-us",
    "1000",
    "--des-prefill-token-us",
    "1",
    "--des-decode-seq-us",
    "10",
    "--des-kv-read-token-ns",
    "0",
    "--des-kv-bytes-per-token",
    "1000",
    "--des-kv-transfer-gbps",
    "1",
    "--des-kv-transfer-base-us",
    "50",
    "--arrival-model",
    "deterministic",
    "--request-rate",
    "400",
    "--des-num-requests",
    "200",
    "--des-input-len",
    "3000",
    "--des-output-len",
    "13",
    "--des-num-prefixes",
    "0",
    "--des-block-size",
    "16",
    "--des-max-batch",
    "1",
    "--des-decode-routing",
    "round_robin",
];

#[test]
fn a_split_fleet_is_planned_with_its_prefill_decode_split() {
    // Prefill: 1000 + 3000 = 4000 µs per request, so P replicas keep up with a request
    // every 2.5 ms when P x 2.5 >= 4 ms: P >= 2 (one falls 1.5 ms further behind with
    // every request). Transfer: 50 + 3000 x 1000 / 1000 = 3050 µs, so TTFT 7050 µs.
    // Decode: 12 more tokens at 1000 + 10 = 1010 µs, 12,120 µs, so D replicas keep up
    // when D x 2.5 >= 12.12 ms: D >= 5 (4 fall 2.12 ms further behind with each request).
    // E2E = 7050 + 12,120 = 19,170 µs within 25 ms: the fewest is 2 + 5 = 7 replicas, and
    // no split of 6 has both pools large enough.
    let mut args = SPLIT.to_vec();
    args.extend([
        "--des-prefill-instances",
        "2",
        "--des-decode-instances",
        "2",
        "--slo-e2e-p99-ms",
        "25",
        "--plan-routing",
        "round_robin",
    ]);
    let (plan, text) = plan_json_and_text(&args, "split.json");
    let p = policy(&plan, "round_robin");
    assert_eq!(p["min_replicas"], 7);
    assert_eq!(p["verified"], true);
    let at = &p["at_min"];
    assert_eq!(
        (&at["prefill_instances"], &at["decode_instances"]),
        (&2.into(), &5.into())
    );
    let e2e = at["measured"]["e2e_ms_p99"].as_f64().unwrap();
    assert!((e2e - 19.17).abs() < 0.05, "{e2e}");
    let six = p["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["instances"] == 6);
    assert_eq!(six.unwrap()["meets"], false);
    // The split, re-checked as ordinary runs: 2:5 meets; 1:6 (prefill) and 3:4 (decode)
    // do not.
    for (pools, meets) in [(["2", "5"], true), (["1", "6"], false), (["3", "4"], false)] {
        let mut run = SPLIT.to_vec();
        run.extend([
            "--des-routing",
            "round_robin",
            "--des-prefill-instances",
            pools[0],
        ]);
        run.extend(["--des-decode-instances", pools[1]]);
        let r = run_json(&run, &format!("split-{}-{}.json", pools[0], pools[1]));
        let p99 = r["summary"]["e2e_ms_p99"].as_f64().unwrap();
        assert_eq!(p99 <= 25.0, meets, "{pools:?}: p99 {p99} ms");
    }
    // 7 GPUs at $2.50: $17.50/h. The last of 200 arrivals comes at 199 x 2.5 = 497.5 ms
    // and ends 19.17 ms later: 2,600 output tokens over 0.51667 s cost
    // 17.5 x 0.51667 / 3600 / 2600 x 1e6 = $0.97 per million.
    let head = "Cheapest: round_robin on 7 replicas (2 prefill + 5 decode, 7 GPUs) at \
                $17.50/h, $0.97 per million output tokens, meeting the targets.";
    assert_eq!(
        plan["headline"].as_str().unwrap().lines().next(),
        Some(head)
    );
    assert!(
        text.contains("\n  round_robin    7 (2:5)     7     17.50     0.97 "),
        "{text}"
    );
    assert!(text.contains("7 meets, 6 fails"), "{text}");
    assert!(
        text.contains("Search: disaggregated fleets of 2 to 64 replicas"),
        "{text}"
    );
}

#[test]
fn a_schedule_is_scaled_whole_and_its_goodput_named_at_its_peak() {
    // The by-hand fleet: 4 replicas in turn, each request 38.768 ms. Under a schedule of
    // 50 req/s for 1 s, then 100 req/s, the goodput's scale multiplies both rates and the
    // 200 requests (the same stretch of the schedule). At a peak of L req/s a replica's
    // k-th request of the peak waits k x (38.768 - 4,000 / L) ms; near L = 104 the run has
    // 208 requests, about 156 at the peak, 39 a replica (k up to 38), and the p99 (the
    // 3rd longest TTFT of 208) is a k = 38: TTFT 38.768 ms + that wait <= 50 ms while
    // L <= 4,000 / (38.768 - 11.232 / 38) = 103.97 req/s. The bisection stops within 1 %
    // below it: the goodput, named at the peak, lies between 102.9 and 104.05 req/s.
    let mut args = BY_HAND.to_vec();
    args.extend([
        "--request-rate-schedule",
        "0s:50,1s:100",
        "--des-instances",
        "4",
        "--slo-ttft-p99-ms",
        "50",
        "--plan-routing",
        "round_robin",
    ]);
    let plan = plan_json(&args, "schedule-goodput.json");
    let g = &policy(&plan, "round_robin")["goodput"];
    assert_eq!(g["rate_unit"], "req/s at peak");
    assert_eq!(g["at_limit"], false);
    let rate = g["rate"].as_f64().unwrap();
    assert!((102.9..=104.05).contains(&rate), "{rate}");
    let scale = g["rate_scale"].as_f64().unwrap();
    assert!(
        (rate - 100.0 * scale).abs() < 1e-9,
        "{rate} at scale {scale}"
    );
}

/// A target no fleet meets: the CLI's headline is the one sentence the page shows, with
/// the lowest p99 TTFT over every policy and size tried (found here from the JSON's points)
/// and the flag to raise (the target alone: it is below any first token's least time).
#[test]
fn an_impossible_target_names_the_best_reached_and_the_flags_to_raise() {
    let mut args = BY_HAND.to_vec();
    args.extend([
        "--slo-ttft-p99-ms",
        "0.5",
        "--plan-max-replicas",
        "3",
        "--plan-routing",
        "round_robin,kv",
    ]);
    let (plan, out) = plan_json_and_text(&args, "impossible.json");
    let mut best: Option<(f64, u32, String)> = None;
    for p in plan["policies"].as_array().unwrap() {
        assert!(p["min_replicas"].is_null());
        for q in p["points"].as_array().unwrap() {
            let ms = q["measured"]["ttft_ms_p99"].as_f64().unwrap();
            let n = q["instances"].as_u64().unwrap() as u32;
            let better = best
                .as_ref()
                .is_none_or(|(b, bn, _)| ms < *b || (ms == *b && n < *bn));
            if better {
                best = Some((ms, n, p["policy"].as_str().unwrap().to_string()));
            }
        }
    }
    let (ms, n, policy) = best.unwrap();
    let shown = if ms >= 1000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else if ms < 10.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.0} ms")
    };
    let fleet = if n == 1 {
        "1 replica".into()
    } else {
        format!("{n} replicas")
    };
    // 0.5 ms is below one H100 step of one prompt token (6,000 µs fixed + 32 µs per
    // token = 6.032 ms, "6.0 ms"), the least any first token takes: only the target can change.
    for p in plan["policies"].as_array().unwrap() {
        assert_eq!(p["ttft_floor_ms"], 6.032);
    }
    let want = format!(
        "No policy meets the targets on up to 3 replicas: the lowest p99 TTFT reached was \
         {shown} ({policy} on {fleet}) against a target of 0.5 ms, which no fleet size \
         reaches: a first token takes at least one engine step, 6.0 ms for a lone request \
         with its prompt cached; raise --slo-ttft-p99-ms."
    );
    assert_eq!(plan["headline"], want.as_str());
    assert!(out.contains(&format!("  {want}\n")), "{out}");
}
