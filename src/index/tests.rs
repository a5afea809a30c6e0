//! Unit tests of the block index: leading runs per replica, and long random runs of
//! stores and evictions on a sliding window of ids (the synthetic workload's pattern),
//! checked against a `BTreeMap` of `BTreeSet`s.

use super::*;
use crate::rng::splitmix64;
use std::collections::{BTreeMap, BTreeSet};

#[test]
fn leading_runs_per_replica() {
    let mut ix = BlockIndex::new(70);
    for id in [1, 2, 3] {
        ix.insert(id, 0);
    }
    ix.insert(1, 5);
    ix.insert(1, 69);
    ix.insert(2, 69);
    ix.insert(3, 5); // not a leading run on 5: block 2 is missing
    assert!(ix.holds(3, 5) && ix.holds(1, 69) && !ix.holds(2, 5) && !ix.holds(9, 0));
    let mut hits = vec![0; 70];
    ix.hits(&[1, 2, 3, 4], 4, &mut hits);
    assert_eq!((hits[0], hits[5], hits[69], hits[1]), (3, 1, 2, 0));
    ix.hits(&[1, 2, 3, 4], 2, &mut hits);
    assert_eq!((hits[0], hits[69]), (2, 2));
    ix.remove(1, 0);
    ix.hits(&[1, 2, 3], 3, &mut hits);
    assert_eq!((hits[0], hits[5]), (0, 1));
    ix.remove(1, 5);
    ix.remove(1, 69);
    assert_eq!(ix.len(), 2, "block 1 left the index");
}

/// The leading run of `ids[..max]` replica `r` holds in the model, block by block.
fn model_hits(model: &BTreeMap<u64, BTreeSet<usize>>, ids: &[u64], max: usize, r: usize) -> u32 {
    ids.iter()
        .take(max)
        .take_while(|id| model.get(id).is_some_and(|set| set.contains(&r)))
        .count() as u32
}

/// Stores and evictions on a window of ids that slides up (as a synthetic run's unique
/// blocks do) or on crowded ids, thousands of blocks entering and leaving the index so
/// its table grows and removes by shifting; every few steps the index's `holds`, `hits`
/// and `len` are checked against the model.
fn against_the_model(replicas: usize, seed: u64, id_of: fn(u64, u64) -> u64, presize: bool) {
    let mut state = seed;
    let mut next = || {
        state += 1;
        splitmix64(state)
    };
    let mut index = BlockIndex::new(replicas);
    if presize {
        // An array over ids 0 ..= 2,000: the dense ones are found by index, the rest
        // (above it) in the tables beside it.
        assert!(index.presize_ids(2_000, 40_000), "{replicas} replicas");
    }
    let mut model: BTreeMap<u64, BTreeSet<usize>> = BTreeMap::new();
    let mut hits = vec![u32::MAX; replicas];
    for step in 0..40_000u64 {
        let id = id_of(step, next());
        let r = (next() % replicas as u64) as usize;
        if next() % 2 == 0 {
            index.insert(id, r);
            model.entry(id).or_default().insert(r);
        } else {
            index.remove(id, r);
            if let Some(set) = model.get_mut(&id) {
                set.remove(&r);
                if set.is_empty() {
                    model.remove(&id);
                }
            }
        }
        assert_eq!(index.len(), model.len(), "step {step}");
        assert_eq!(
            index.holds(id, r),
            model.get(&id).is_some_and(|s| s.contains(&r))
        );
        if step % 50 == 0 {
            let start = id_of(step, next());
            let ids: Vec<u64> = (0..8).map(|k| id_of(step, start.wrapping_add(k))).collect();
            let max = (next() % 9) as usize;
            index.hits(&ids, max, &mut hits);
            for (r, &h) in hits.iter().enumerate() {
                assert_eq!(
                    h,
                    model_hits(&model, &ids, max, r),
                    "replica {r} step {step}"
                );
            }
        }
    }
    for (&id, set) in &model {
        for r in 0..replicas {
            assert_eq!(index.holds(id, r), set.contains(&r), "{id} on {r}");
        }
    }
}

#[test]
fn agrees_with_a_model_on_sliding_and_crowded_ids() {
    // A window of 600 ids sliding up by one every 8 steps; ids 4 apart and 2^32 apart
    // (every one at the same offset of its table line); the top of the id range. Each
    // with and without an array presized over ids 0 ..= 2,000, narrow sets and wide.
    let patterns: [fn(u64, u64) -> u64; 4] = [
        |step, x| step / 8 + x % 600,
        |_, x| 4 * (x % 900),
        |_, x| (x % 700) << 32,
        |_, x| u64::MAX - x % 300,
    ];
    for (k, id_of) in patterns.into_iter().enumerate() {
        for replicas in [1usize, 16, 64, 65, 130] {
            for presize in [false, true] {
                against_the_model(replicas, 10 * k as u64 + replicas as u64, id_of, presize);
            }
        }
    }
}
