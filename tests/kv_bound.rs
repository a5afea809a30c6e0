//! The KV-bound finding on whole runs from the CLI: it names the small-cache run (32
//! prefixes, 8 replicas, kv routing, 16 blocks per replica, `--des-admission reserve`),
//! where a cache that holds one request runs about one at a time, with the run's own
//! numbers; it stays silent when the slots are the limit (one slot, a large cache) and
//! when little waits (a low rate). On the same run the routing picks found blocks that
//! evictions took before admission. Under the default rule (`preempt`) the same cache is
//! still KV-bound, and the requests it lets in on their prompts preempt one another.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::kvfleet;
use serde_json::Value;

const SMALL_CACHE: &[&str] = &[
    "--des-num-prefixes",
    "32",
    "--des-instances",
    "8",
    "--des-routing",
    "kv",
    "--des-kv-blocks",
    "16",
    "--des-admission",
    "reserve",
];

/// Runs the CLI with `args`; returns the JSON report and the text report (on stderr when
/// the JSON goes to stdout).
fn run(args: &[&str]) -> (Value, String) {
    let mut all = args.to_vec();
    all.extend(["-q", "--des-report-json", "-"]);
    let (code, out, err) = kvfleet(&all);
    assert_eq!(code, 0, "{err}");
    (serde_json::from_str(&out).unwrap(), err)
}

fn kv_bound(report: &Value) -> Option<&Value> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "kv_bound")
}

fn column(report: &Value, key: &str) -> Vec<f64> {
    report["per_instance"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p[key].as_f64().unwrap())
        .collect()
}

#[test]
fn the_small_cache_run_is_kv_bound_and_the_report_says_why() {
    let (r, text) = run(SMALL_CACHE);
    let s = &r["summary"];
    // The symptom: seconds in the queue, a normal first token once admitted.
    assert!(s["ttft_ms_p50"].as_f64().unwrap() > 4000.0, "{s}");
    assert!(s["ttft_admit_ms_p50"].as_f64().unwrap() < 200.0, "{s}");
    // By hand from the defaults (docs/src/cli.md): a 4,096-token prompt and 256 output
    // tokens reserve ceil(4352 / 512) = 9 blocks; 16 blocks hold floor(16 / 9) = 1 such
    // request, 2 when both share their 4-block prefix (4 + 5 + 5 = 14), never 3 (19).
    let blocks = (4096u32 + 256).div_ceil(512);
    assert_eq!(blocks, 9);
    // The fleet's figures from the per-replica ones: a replica's wait share is its wait
    // over the run, so the fleet's is their mean; its batch is running x time over busy
    // time, so the fleet's weighs each replica's by its busy time.
    let wait = column(&r, "kv_wait_share");
    let (batch, busy) = (column(&r, "batch_mean"), column(&r, "busy_share"));
    let wait_mean = wait.iter().sum::<f64>() / wait.len() as f64;
    let batch_mean =
        batch.iter().zip(&busy).map(|(b, u)| b * u).sum::<f64>() / busy.iter().sum::<f64>();
    assert!((wait_mean - s["kv_wait_share"].as_f64().unwrap()).abs() < 1e-12);
    assert!((batch_mean - s["batch_mean"].as_f64().unwrap()).abs() < 1e-12);
    assert!((1.0..=2.0).contains(&batch_mean), "{batch_mean}");
    assert!(
        wait_mean > 0.5,
        "replicas waited for KV most of the run: {wait_mean}"
    );
    let words = format!(
        "KV-bound: KV capacity, not the 256 batch slots, limits how many requests run at once. \
         A 16-block cache holds 1 request of {blocks} blocks (prompt and output, before any sharing), \
         so a busy replica ran {batch_mean:.1} requests at once on average; a replica spent {:.0}% of the run, \
         on average, with a request waiting for KV room while slots were free. \
         More KV blocks per replica would let more run at once.",
        100.0 * wait_mean
    );
    let f = kv_bound(&r).expect("the KV-bound finding");
    assert_eq!(f["text"], words.as_str());
    assert!(text.contains(&format!("  WARNING: {words}\n")), "{text}");
    // It names the replicas that waited a quarter of the run or more.
    let named: Vec<u64> = (0..wait.len() as u64)
        .filter(|&i| wait[i as usize] >= 0.25)
        .collect();
    let got: Vec<u64> = f["replicas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert_eq!(got, named);
    assert!(!got.is_empty());
}

#[test]
fn under_the_default_rule_the_small_cache_is_kv_bound_and_preempts() {
    // The same run without `--des-admission reserve` (the last two flags): two 8-block
    // prompts fit in 16 blocks, and when both grow a ninth block one is preempted and
    // recomputes, so the first token after admission comes later than under reserve.
    let preempt = &SMALL_CACHE[..SMALL_CACHE.len() - 2];
    assert!(!preempt.contains(&"--des-admission"));
    let (r, text) = run(preempt);
    let (reserve, _) = run(SMALL_CACHE);
    let s = &r["summary"];
    let p = &s["preemption"];
    assert!(p["preemptions"].as_u64().unwrap() > 10, "{p}");
    assert!(p["recomputed_tokens"].as_u64().unwrap() > 0, "{p}");
    assert!(reserve["summary"].get("preemption").is_none());
    assert!(
        text.contains("  Preemptions (admission=preempt): "),
        "{text}"
    );
    let admit = |r: &Value| r["summary"]["ttft_admit_ms_p50"].as_f64().unwrap();
    assert!(
        admit(&r) > admit(&reserve),
        "{} {}",
        admit(&r),
        admit(&reserve)
    );
    assert!(kv_bound(&r).is_some(), "{}", r["findings"]);
    assert!(s["kv_wait_share"].as_f64().unwrap() > 0.5, "{s}");
}

#[test]
fn ten_times_the_cache_lets_requests_run_together_and_the_finding_goes() {
    let mut args = SMALL_CACHE.to_vec();
    args[7] = "160";
    let (r, _) = run(&args);
    let (small, _) = run(SMALL_CACHE);
    let batch = |r: &Value| r["summary"]["batch_mean"].as_f64().unwrap();
    assert!(
        batch(&r) > batch(&small) + 0.3,
        "{} vs {}",
        batch(&r),
        batch(&small)
    );
    assert!(kv_bound(&r).is_none(), "{}", r["findings"]);
    assert!(r["summary"]["ttft_ms_p50"].as_f64().unwrap() < 200.0);
}

#[test]
fn silent_when_the_slots_are_the_limit() {
    // One slot per replica and a 1,000-block cache: requests wait, for the slot.
    let mut args = SMALL_CACHE.to_vec();
    args[7] = "1000";
    args.extend(["--des-max-batch", "1"]);
    let (r, text) = run(&args);
    let saturated = column(&r, "saturated_share");
    assert!(
        saturated.iter().sum::<f64>() / saturated.len() as f64 > 0.5,
        "the replicas were saturated: {saturated:?}"
    );
    assert!(r["summary"]["queue_ms_p50"].as_f64().unwrap() > 1000.0);
    assert_eq!(r["summary"]["kv_wait_share"], 0.0);
    assert!(kv_bound(&r).is_none(), "{}", r["findings"]);
    assert!(!text.contains("KV-bound"));
}

#[test]
fn silent_when_little_waits() {
    // The small cache at 0.5 requests per second: a request rarely finds another running.
    let mut args = SMALL_CACHE.to_vec();
    args.extend(["--request-rate", "0.5"]);
    let (r, text) = run(&args);
    assert!(r["summary"]["kv_wait_share"].as_f64().unwrap() < 0.05);
    assert!(r["summary"]["ttft_ms_p99"].as_f64().unwrap() < 1000.0);
    assert!(kv_bound(&r).is_none(), "{}", r["findings"]);
    assert!(!text.contains("KV-bound"));
}

#[test]
fn on_the_small_cache_picks_found_blocks_that_evictions_took_before_admission() {
    // Each prompt opens with a 2,048-token (4-block) prefix and ends with unique text, so a
    // pick finds at most 4 blocks, fewer than the 7 admission may reuse (floor(4095 /
    // 512)): every block a pick found and admission did not was evicted in between, and
    // the picks' surplus over admissions is at most what evictions took.
    let (r, _) = run(SMALL_CACHE);
    let s = &r["summary"];
    let n = |k: &str| s[k].as_u64().unwrap();
    let (pick, cached, evicted) = (
        n("pick_hit_blocks"),
        n("cached_blocks"),
        n("evicted_after_pick_blocks"),
    );
    assert!(pick > cached, "{pick} {cached}");
    assert!(evicted >= pick - cached && evicted <= pick, "{evicted}");
    // With ten times the cache nothing a pick found was evicted before admission.
    let mut args = SMALL_CACHE.to_vec();
    args[7] = "160";
    let (big, _) = run(&args);
    assert_eq!(big["summary"]["evicted_after_pick_blocks"], 0);
}
