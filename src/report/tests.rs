//! Rejections by reason: a tiny cache with an unbounded queue refuses exactly the requests
//! too large for it, a bounded queue in front of an unbounded cache refuses only by a full
//! queue, and the text report names the reasons the report counted, never a guessed one.

use super::{rejection_reasons, Report};
use crate::api;
use crate::config::Config;

const BLOCK_TOKENS: u64 = 512;
const TINY_CACHE_BLOCKS: u64 = 4;

/// (prompt tokens, output tokens) of request `i`: prompts from 100 to 4,000 tokens, spread
/// so that some fit 4 blocks with their output and some do not.
fn lengths(i: u64) -> (u64, u64) {
    (100 + (i * 1_237) % 3_900, 8 + (i * 31) % 200)
}

/// A Mooncake trace of `n` requests with distinct content, one every 50 ms.
fn trace(n: u64) -> String {
    let mut next_id = 0;
    let mut out = String::new();
    for i in 0..n {
        let (prompt, output) = lengths(i);
        let blocks = prompt.div_ceil(BLOCK_TOKENS);
        let ids: Vec<String> = (next_id..next_id + blocks).map(|b| b.to_string()).collect();
        next_id += blocks;
        out.push_str(&format!(
            "{{\"timestamp\": {}, \"input_length\": {prompt}, \"output_length\": {output}, \"hash_ids\": [{}]}}\n",
            i * 50,
            ids.join(", ")
        ));
    }
    out
}

fn tiny_cache_run(n: u64) -> Report {
    let cfg = Config {
        instances: 2,
        kv_blocks: Some(TINY_CACHE_BLOCKS),
        queue_capacity: None,
        ..Config::default()
    };
    api::trace_report(&cfg, &trace(n), "tiny.jsonl").expect("valid trace")
}

#[test]
fn a_tiny_cache_refuses_exactly_the_requests_too_large_for_it() {
    let n = 120;
    // A request keeps its prompt's and its output's KV: worked out from the lengths alone.
    let too_large = (0..n)
        .map(lengths)
        .filter(|&(prompt, output)| (prompt + output).div_ceil(BLOCK_TOKENS) > TINY_CACHE_BLOCKS)
        .count() as u64;
    assert!(
        too_large > 10 && too_large < n - 10,
        "{too_large} of {n}: a mix"
    );
    let r = tiny_cache_run(n);
    let s = &r.summary;
    assert_eq!(s.rejected_too_large, too_large);
    assert_eq!(s.rejected_queue_full, 0, "the queue is unbounded");
    assert_eq!(s.rejected, too_large);
    assert_eq!(s.completed + s.rejected + s.timed_out, n);
    for p in &r.per_instance {
        assert_eq!(p.rejected, p.rejected_queue_full + p.rejected_too_large);
    }
    let per: u64 = r.per_instance.iter().map(|p| p.rejected_too_large).sum();
    assert_eq!(per, too_large);
}

#[test]
fn a_bounded_queue_before_a_huge_cache_refuses_only_by_a_full_queue() {
    let cfg = Config {
        instances: 2,
        kv_blocks: None,
        max_batch: 2,
        queue_capacity: Some(1),
        request_rate: 200.0,
        num_requests: 200,
        ..Config::default()
    };
    let r = api::synthetic_simulation(&cfg)
        .expect("valid")
        .into_report();
    let s = &r.summary;
    assert!(
        s.rejected > 50,
        "the queue overflows: {} rejected",
        s.rejected
    );
    assert_eq!(s.rejected_queue_full, s.rejected);
    assert_eq!(
        s.rejected_too_large, 0,
        "nothing is too large for an unbounded cache"
    );
    let per: u64 = r.per_instance.iter().map(|p| p.rejected_queue_full).sum();
    assert_eq!(per, s.rejected);
    let text = r.to_text();
    assert!(
        text.contains(&format!("rejected {} (queue full)", s.rejected)),
        "{text}"
    );
    assert!(!text.contains("too large"), "{text}");
}

#[test]
fn the_text_names_the_cache_not_a_full_queue_for_requests_too_large() {
    let r = tiny_cache_run(120);
    let s = &r.summary;
    let text = r.to_text();
    let want = format!(
        "rejected {} (too large for a 4-block cache)",
        s.rejected_too_large
    );
    assert!(text.contains(&want), "{want:?} not in\n{text}");
    assert!(!text.contains("queue full"), "{text}");
    assert!(!text.contains("full queue"), "{text}");
}

#[test]
fn the_pools_split_their_rejections_by_reason() {
    let cfg = Config {
        instances: 3,
        prefill_instances: Some(1),
        decode_instances: Some(2),
        kv_blocks: Some(TINY_CACHE_BLOCKS),
        ..Config::default()
    };
    let r = api::trace_report(&cfg, &trace(120), "tiny.jsonl").expect("valid trace");
    let pools = r.pools.as_ref().expect("disaggregated");
    for (pool, rows) in [
        (&pools.prefill, &r.per_instance[..1]),
        (&pools.decode, &r.per_instance[1..]),
    ] {
        assert_eq!(
            pool.rejected,
            pool.rejected_queue_full + pool.rejected_too_large
        );
        let too_large: u64 = rows.iter().map(|p| p.rejected_too_large).sum();
        assert_eq!(pool.rejected_too_large, too_large);
    }
    let both = pools.prefill.rejected_too_large + pools.decode.rejected_too_large;
    assert!(both > 0);
    assert_eq!(both, r.summary.rejected_too_large);
}

#[test]
fn the_reasons_read_one_or_both_and_never_guess() {
    assert_eq!(rejection_reasons(0, 0, 0, Some(9)), "");
    assert_eq!(
        rejection_reasons(5, 0, 5, Some(9)),
        "too large for a 9-block cache"
    );
    assert_eq!(rejection_reasons(5, 5, 0, None), "queue full");
    assert_eq!(
        rejection_reasons(5, 2, 3, Some(9)),
        "2 queue full, 3 too large for a 9-block cache"
    );
    // A count without a recorded reason is not given one.
    assert_eq!(rejection_reasons(5, 0, 0, Some(9)), "");
    // Beside recorded ones, the rest is said to have none: 6 - (2 + 3) = 1, 4 - (1 + 2) = 1.
    assert_eq!(
        rejection_reasons(6, 2, 3, None),
        "2 queue full, 3 too large for the cache, 1 reason not recorded"
    );
    assert_eq!(
        rejection_reasons(4, 1, 2, Some(9)),
        "1 queue full, 2 too large for a 9-block cache, 1 reason not recorded"
    );
}

#[test]
fn one_arrival_offers_no_rate_and_the_report_says_0_not_nan() {
    // (arrivals - 1) over the arrival span: 0 over 0 s is reported as 0.
    let cfg = Config {
        num_requests: 1,
        ..Config::default()
    };
    let r = api::synthetic_simulation(&cfg).unwrap().into_report();
    assert_eq!(r.summary.offered_rate, 0.0);
}
