//! Property tests of the block cache: capacity, pinning, leading-run hits and LRU order.
#![cfg(not(target_arch = "wasm32"))]

use kvfleet::cache::BlockCache;
use proptest::prelude::*;

/// One request's blocks: a chain that shares a prefix with others (ids from a small
/// space so requests overlap), plus private blocks.
fn request() -> impl Strategy<Value = (Vec<u64>, u64)> {
    (0u64..4, 1usize..6, 0u64..3).prop_map(|(root, len, private)| {
        let ids = (0..len as u64).map(|i| root * 100 + i).collect();
        (ids, private)
    })
}

#[derive(Debug, Clone)]
enum Op {
    Admit((Vec<u64>, u64)),
    Ready(usize),
    Finish(usize),
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            request().prop_map(Op::Admit),
            (0usize..8).prop_map(Op::Ready),
            (0usize..8).prop_map(Op::Finish),
        ],
        1..80,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn cache_invariants_hold(capacity in 6u64..20, ops in ops()) {
        let mut cache = BlockCache::new(Some(capacity));
        let mut running: Vec<(Vec<u64>, u64)> = Vec::new();
        for op in ops {
            match op {
                Op::Admit((ids, private)) => {
                    let admitted = cache.acquire(&ids, private).is_ok();
                    if admitted {
                        running.push((ids, private));
                    }
                }
                Op::Ready(i) if !running.is_empty() => {
                    let (ids, _) = &running[i % running.len()];
                    cache.mark_ready(ids);
                }
                Op::Finish(i) if !running.is_empty() => {
                    let (ids, private) = running.remove(i % running.len());
                    let before = cache.lru_order();
                    cache.release(&ids, private);
                    // LRU order: the old order is kept, released ready blocks go to the
                    // most-recent end, tail of the prompt first.
                    let after = cache.lru_order();
                    prop_assert_eq!(&after[..before.len()], &before[..]);
                    for w in after[before.len()..].windows(2) {
                        let (a, b) = (w[0] % 100, w[1] % 100);
                        prop_assert!(a > b, "released blocks go tail first: {:?}", after);
                    }
                }
                _ => {}
            }
            // Occupancy never exceeds capacity.
            prop_assert!(cache.used_blocks() <= capacity);
            // Pinned blocks are never evicted: every running request's blocks are resident.
            for (ids, _) in &running {
                for id in ids {
                    prop_assert!(cache.contains(*id), "pinned block {} was evicted", id);
                    prop_assert!(cache.is_pinned(*id));
                }
            }
            // A hit is always a leading run of ready blocks.
            for root in 0..4u64 {
                let probe: Vec<u64> = (0..6).map(|i| root * 100 + i).collect();
                let hit = cache.hit_blocks(&probe, probe.len());
                prop_assert!(probe[..hit].iter().all(|&id| cache.is_ready(id)));
                if hit < probe.len() {
                    prop_assert!(!cache.is_ready(probe[hit]));
                }
            }
        }
    }

    #[test]
    fn eviction_takes_the_least_recently_released(capacity in 4u64..12, n in 1usize..10) {
        let mut cache = BlockCache::new(Some(capacity));
        for i in 0..n as u64 {
            let ids = [1000 + i];
            cache.acquire(&ids, 0).unwrap();
            cache.mark_ready(&ids);
            cache.release(&ids, 0);
        }
        let order = cache.lru_order();
        let expected: Vec<u64> = (0..n as u64).map(|i| 1000 + i).skip(n.saturating_sub(capacity as usize)).collect();
        prop_assert_eq!(order, expected);
    }
}
