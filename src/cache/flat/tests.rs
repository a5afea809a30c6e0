//! The flat table against a `BTreeMap` doing the same operations, on id patterns that
//! stress linear probing and backward-shift removal: runs of consecutive ids, ids that
//! all share a home line, runs that wrap around the end of the array, the free marker
//! `u64::MAX` itself, and heavy churn at the highest load.

use super::*;
use crate::rng::splitmix64;
use std::collections::BTreeMap;

/// Every held entry sits in an unbroken run from its home: no free entry between them.
/// A removal that left a gap (a missing or wrong shift) breaks this before any lookup
/// fails.
fn assert_runs_unbroken<V: Copy + Default>(t: &FlatTable<V>) {
    let mask = t.entries.len().wrapping_sub(1);
    for (j, &(id, _)) in t.entries.iter().enumerate() {
        if id == FREE {
            continue;
        }
        let mut i = t.home(id);
        while i != j {
            assert_ne!(
                t.entries[i].0, FREE,
                "gap before id {id} (home {i}, at {j})"
            );
            i = (i + 1) & mask;
        }
    }
    let held = t.entries.iter().filter(|e| e.0 != FREE).count();
    assert_eq!(held + usize::from(t.max_id.is_some()), t.len);
    assert!(
        t.entries.is_empty() || 2 * held <= t.entries.len(),
        "over half full"
    );
}

/// Random operations over `draw`'s ids, checked against a `BTreeMap` after every step.
fn against_the_model(seed: u64, steps: u32, mut draw: impl FnMut(u64) -> u64) {
    let mut state = seed;
    let mut next = || {
        state += 1;
        splitmix64(state)
    };
    let mut table = FlatTable::<u32>::default();
    let mut model = BTreeMap::new();
    for step in 0..steps {
        let id = draw(next());
        match next() % 5 {
            0 | 1 => assert_eq!(table.remove(id), model.remove(&id), "remove {id}"),
            2 => {
                *table.get_or_insert(id, 7) += 1;
                *model.entry(id).or_insert(7) += 1;
            }
            _ => assert_eq!(
                table.insert(id, step),
                model.insert(id, step),
                "insert {id}"
            ),
        }
        assert_eq!(table.get(id), model.get(&id), "get {id}");
        assert_eq!(
            table.contains_key(id),
            model.contains_key(&id),
            "contains {id}"
        );
        assert_eq!(table.len(), model.len());
        // At most half the entries in use after every operation, not only once it grows.
        let held = table.len() - usize::from(table.max_id.is_some());
        assert!(
            2 * held <= table.entries.len(),
            "{held} held in {}",
            table.entries.len()
        );
        if step % 97 == 0 {
            assert_runs_unbroken(&table);
            for (k, v) in &model {
                assert_eq!(table.get(*k), Some(v), "held {k}");
            }
        }
    }
    assert_runs_unbroken(&table);
    for (k, v) in &model {
        assert_eq!(table.get(*k), Some(v));
        assert!(table.contains_key(*k));
    }
    // Emptying it in a scrambled order leaves nothing behind.
    let mut ids: Vec<u64> = model.keys().copied().collect();
    ids.sort_by_key(|&k| splitmix64(k ^ seed));
    for k in ids {
        assert_eq!(table.remove(k), model.remove(&k));
        assert_eq!(table.get(k), None);
        assert!(!table.contains_key(k), "{k} removed");
    }
    assert_runs_unbroken(&table);
    assert!(table.is_empty());
}

#[test]
fn small_key_sets_churn_at_the_highest_load() {
    // 20 to 200 distinct ids: the table sits at or near half full all the time, runs are
    // long, and removals shift entries across the array's end.
    for (seed, universe) in [(1u64, 20u64), (2, 33), (3, 64), (4, 200)] {
        against_the_model(seed, 30_000, |x| x % universe);
    }
}

#[test]
fn consecutive_runs_sparse_ids_and_the_free_marker() {
    // Runs of a request's consecutive ids from a sliding window (the synthetic pattern),
    // multiples of 4 and of 2^32 (every id at offset 0 of its line), ids at the top of
    // the range, u64::MAX among them.
    type Draw = fn(u64) -> u64;
    let patterns: [(u64, Draw); 5] = [
        (5, |x| (x >> 8) % 3_000),
        (6, |x| 4 * (x % 500)),
        (7, |x| (x % 400) << 32),
        (8, |x| u64::MAX - x % 40),
        (9, |x| match x % 4 {
            0 => x % 50,
            1 => u64::MAX,
            2 => (x % 50) << 40,
            _ => 1_000_000 + (x >> 10) % 700,
        }),
    ];
    for (seed, draw) in patterns {
        against_the_model(seed, 20_000, draw);
    }
}

#[test]
fn removing_from_one_crowded_line_keeps_every_id_reachable() {
    // Ids chosen to share one home entry in a 64-entry table: they form one run, and
    // removing any of them must shift the rest back (a tombstone-free delete that only
    // cleared the entry would cut the run and lose the ids after it).
    let mut table = FlatTable::<u64>::default();
    for id in 0..20 {
        table.insert(id, id); // 16 -> 32 -> 64 entries
    }
    for id in 0..20 {
        table.remove(id);
    }
    assert_eq!(table.entries.len(), 64);
    let target = table.home(0);
    let crowd: Vec<u64> = (0..u64::MAX)
        .filter(|&id| table.home(id) == target)
        .take(12)
        .collect();
    for (order, victim) in [(0usize, 0usize), (1, 5), (2, 11), (3, 3)] {
        let mut t = table.clone();
        for &id in &crowd {
            t.insert(id, id * 3);
        }
        assert_runs_unbroken(&t);
        let mut kept: Vec<u64> = crowd.clone();
        kept.rotate_left(order);
        let gone = kept.remove(victim);
        assert_eq!(t.remove(gone), Some(gone * 3));
        assert_runs_unbroken(&t);
        for &id in &kept {
            assert_eq!(t.get(id), Some(&(id * 3)), "{id} after removing {gone}");
        }
        assert_eq!(t.get(gone), None);
    }
}

#[test]
fn a_request_s_consecutive_ids_share_a_line() {
    let mut table = FlatTable::<u64>::default();
    for id in 0..1_000u64 {
        table.insert(id, 1);
    }
    // Ids 4g..4g+3 have homes in one line of 4 entries.
    for g in [0u64, 1, 77, 249] {
        let homes: Vec<usize> = (4 * g..4 * g + 4).map(|id| table.home(id)).collect();
        assert_eq!(homes[0] % 4, 0);
        assert_eq!(
            homes,
            vec![homes[0], homes[0] + 1, homes[0] + 2, homes[0] + 3]
        );
    }
    assert_runs_unbroken(&table);
}

#[test]
fn home_lines_spread_ids_of_every_shape() {
    // The home line is the top bits of a hash of the id's group (id / 4). Groups that are
    // consecutive, far apart by powers of two, or differ only in bits the fold mixes down
    // (29 and above) must spread over the lines: 4,096 groups into 2^14 lines fill about
    // 3,640 distinct ones when the hash is uniform (4096 x (1 - e^-0.25) x 4). Folding
    // with `|` instead of `^` merges groups whose low bits already hold the high ones.
    let table = FlatTable::<u32> {
        shift: 64 - 14,
        ..FlatTable::default()
    };
    let shapes: [(&str, Vec<u64>); 3] = [
        ("consecutive", (0..4096).collect()),
        ("strided by 2^32", (0..4096).map(|i| i << 32).collect()),
        (
            "high and low bits",
            (0..4096).map(|i| ((i >> 6) << 29) | (i & 63)).collect(),
        ),
    ];
    for (shape, groups) in shapes {
        let lines: std::collections::BTreeSet<usize> =
            groups.iter().map(|&g| table.home(g << 2) >> 2).collect();
        assert!(
            lines.len() > 3_300,
            "{shape}: {} of 4096 groups' lines distinct",
            lines.len()
        );
    }
}

#[test]
fn a_table_grows_only_past_half_full() {
    // 16 entries hold 8 ids; the 9th doubles the table, by either way in (the memory a
    // replica's cache index takes is this many entries, so growing early doubles it).
    for via_insert in [true, false] {
        let mut table = FlatTable::<u32>::default();
        let add = |t: &mut FlatTable<u32>, id: u64| {
            if via_insert {
                t.insert(id, 1);
            } else {
                *t.get_or_insert(id, 0) += 1;
            }
        };
        for id in 0..8u64 {
            add(&mut table, id * 1_000);
        }
        assert_eq!((table.len(), table.entries.len()), (8, 16), "{via_insert}");
        add(&mut table, 8_000);
        assert_eq!((table.len(), table.entries.len()), (9, 32), "{via_insert}");
        for id in 9..16u64 {
            add(&mut table, id * 1_000);
        }
        assert_eq!((table.len(), table.entries.len()), (16, 32), "{via_insert}");
    }
}
