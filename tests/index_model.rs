//! The fleet's block index against a naive second implementation (a map from block id to
//! the set of replicas, every hit a walk per replica), over random stores and evictions
//! on fleets of 1 to 140 replicas (one to three 64-bit words per set).
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};

use kvfleet::index::BlockIndex;
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    Insert(u64, usize),
    Remove(u64, usize),
}

/// Replica counts that cover one word, a full word, and several words with a partial one.
fn fleet() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(1usize),
        Just(3),
        Just(64),
        Just(65),
        Just(130),
        1usize..140
    ]
}

fn ops(replicas: usize) -> impl Strategy<Value = Vec<Op>> {
    // A few replicas take most of the traffic, so that leading runs grow long.
    let replica = prop_oneof![0..replicas.min(3), 0..replicas, Just(replicas - 1)];
    let op = (any::<bool>(), 0u64..8, replica).prop_map(|(insert, id, r)| {
        if insert {
            Op::Insert(id, r)
        } else {
            Op::Remove(id, r)
        }
    });
    prop::collection::vec(op, 0..200)
}

/// The leading run of `ids[..max]` that replica `r` holds, walked one block at a time.
fn naive_hits(held: &BTreeMap<u64, BTreeSet<usize>>, ids: &[u64], max: usize, r: usize) -> u32 {
    ids.iter()
        .take(max)
        .take_while(|id| held.get(id).is_some_and(|s| s.contains(&r)))
        .count() as u32
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_index_agrees_with_a_walk_per_replica(
        (replicas, ops) in fleet().prop_flat_map(|n| (Just(n), ops(n))),
        probes in prop::collection::vec(prop::collection::vec(0u64..8, 0..8), 1..6),
        max in 0usize..9,
    ) {
        let mut index = BlockIndex::new(replicas);
        let mut held: BTreeMap<u64, BTreeSet<usize>> = BTreeMap::new();
        let mut hits = vec![u32::MAX; replicas];
        for op in ops {
            match op {
                Op::Insert(id, r) => {
                    index.insert(id, r);
                    held.entry(id).or_default().insert(r);
                }
                Op::Remove(id, r) => {
                    index.remove(id, r);
                    if let Some(set) = held.get_mut(&id) {
                        set.remove(&r);
                        if set.is_empty() {
                            held.remove(&id);
                        }
                    }
                }
            }
            prop_assert_eq!(index.len(), held.len());
            prop_assert_eq!(index.is_empty(), held.is_empty());
            for ids in &probes {
                index.hits(ids, max, &mut hits);
                for (r, &h) in hits.iter().enumerate() {
                    prop_assert_eq!(h, naive_hits(&held, ids, max, r), "replica {} of {}", r, replicas);
                }
            }
        }
    }
}

#[test]
fn a_freed_slot_is_reused_for_a_new_block() {
    // Block 1 leaves (its last holder drops it), block 2 arrives and takes the slot:
    // nothing of block 1's replicas may leak into block 2's set.
    let mut index = BlockIndex::new(130);
    index.insert(1, 5);
    index.insert(1, 129);
    index.remove(1, 5);
    index.remove(1, 129);
    assert!(index.is_empty());
    index.insert(2, 70);
    let mut hits = vec![0; 130];
    index.hits(&[2], 1, &mut hits);
    let holders: Vec<usize> = (0..130).filter(|&r| hits[r] == 1).collect();
    assert_eq!(holders, vec![70]);
    index.hits(&[1], 1, &mut hits);
    assert!(hits.iter().all(|&h| h == 0));
}
