//! The KV-bound rule on hand-built fleets: the figures and the words worked by hand.

use super::*;

const S: u64 = 1_000_000;

/// Two replicas over a 10 s run. Replica 0: 12 requests, busy 9 s, 1.5 running on
/// average while busy (13.5 request·s), 4 s waiting for KV. Replica 1: 10 requests, busy
/// 8 s, one at a time (8 request·s), 2 s waiting. Every request reserved 9 blocks.
fn fleet(wait0_s: u64, wait1_s: u64) -> Vec<KvFacts> {
    vec![
        KvFacts {
            requests: 12,
            busy_us: 9 * S,
            kv_wait_us: wait0_s * S,
            running_us: 27 * S / 2,
            admissions: 12,
            admitted_kv_blocks: 12 * 9,
        },
        KvFacts {
            requests: 10,
            busy_us: 8 * S,
            kv_wait_us: wait1_s * S,
            running_us: 8 * S,
            admissions: 10,
            admitted_kv_blocks: 10 * 9,
        },
    ]
}

fn limits(capacity_blocks: Option<u64>) -> KvLimits {
    KvLimits {
        capacity_blocks,
        max_batch: 256,
        makespan_us: 10 * S,
    }
}

#[test]
fn the_figures_are_fleet_sums() {
    // Wait: (4 + 2) s over 2 x 10 s = 30%. Batch: 21.5 request·s over 17 busy s = 1.2647.
    let f = figures(&fleet(4, 2), 10 * S).unwrap();
    assert_eq!(f.wait_share, 0.3);
    assert_eq!(f.batch_mean, 21.5 / 17.0);
    assert_eq!(f.blocks_per_request, 9.0);
    assert_eq!(figures(&fleet(4, 2), 0), None, "a run of no length");
    assert_eq!(figures(&[], 10 * S), None);
}

#[test]
fn a_fleet_waiting_for_kv_with_slots_free_is_kv_bound() {
    // A 20-block cache holds floor(20 / 9) = 2 requests of 9 blocks; only replica 0
    // waited a quarter of the run or more (4 s of 10; replica 1 2 s).
    let f = kv_finding(&fleet(4, 2), limits(Some(20))).unwrap();
    assert_eq!(f.kind, FindingKind::KvBound);
    assert_eq!(f.replicas, vec![0]);
    assert_eq!(
        f.text,
        "KV-bound: KV capacity, not the 256 batch slots, limits how many requests run at once. \
         A 20-block cache holds 2 requests of 9 blocks (prompt and output, before any sharing), \
         so a busy replica ran 1.3 requests at once on average; a replica spent 30% of the run, \
         on average, with a request waiting for KV room while slots were free. \
         More KV blocks per replica would let more run at once."
    );
    let one = kv_finding(&fleet(4, 2), limits(Some(16))).unwrap();
    assert!(
        one.text
            .contains("A 16-block cache holds 1 request of 9 blocks"),
        "{}",
        one.text
    );
}

#[test]
fn silent_below_a_quarter_of_the_run_without_a_bound_or_a_sample() {
    // (3 + 1.9) s of 20 s = 24.5%: below the quarter.
    let mut rows = fleet(3, 2);
    rows[1].kv_wait_us = 19 * S / 10;
    assert_eq!(kv_finding(&rows, limits(Some(20))), None);
    // 25% exactly fires.
    assert!(kv_finding(&fleet(3, 2), limits(Some(20))).is_some());
    assert_eq!(
        kv_finding(&fleet(4, 2), limits(None)),
        None,
        "unbounded cache"
    );
    assert_eq!(
        kv_finding(&fleet(0, 0), limits(Some(20))),
        None,
        "nothing waited"
    );
    // 9 requests per replica on average: below the sample.
    let mut few = fleet(4, 2);
    few[0].requests = 8;
    assert_eq!(kv_finding(&few, limits(Some(20))), None);
}

#[test]
fn a_fractional_request_size_keeps_one_decimal() {
    let mut rows = fleet(4, 2);
    rows[0].admitted_kv_blocks = 12 * 9 + 8; // 206 blocks over 22 admissions: 9.36
    let f = kv_finding(&rows, limits(Some(40))).unwrap();
    assert!(
        f.text
            .contains("A 40-block cache holds 4 requests of 9.4 blocks"),
        "{}",
        f.text
    );
}
