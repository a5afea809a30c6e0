//! `IdTable` against a `BTreeMap`: dense, sparse, presized and windowed ids.

use super::*;
use crate::rng::splitmix64;
use std::collections::BTreeMap;

/// Random operations on ids from a few ranges (dense, far, huge), each checked
/// against a `BTreeMap` doing the same.
#[test]
fn behaves_as_a_map_over_dense_sparse_and_mixed_ids() {
    for (seed, spread) in [(1u64, 64u64), (2, 5_000), (3, 1 << 40), (4, u64::MAX)] {
        let mut state = seed;
        let mut next = || {
            state += 1;
            splitmix64(state)
        };
        let mut table = IdTable::<u32>::default();
        let mut model = BTreeMap::new();
        for step in 0..20_000u32 {
            let id = match next() % 3 {
                0 => next() % 2_000,
                1 => next() % spread,
                _ => u64::MAX - next() % 4,
            };
            match next() % 4 {
                0 => assert_eq!(table.remove(id), model.remove(&id), "remove {id}"),
                1 => {
                    if let Some(v) = table.get_mut(id) {
                        *v += 1;
                    }
                    if let Some(v) = model.get_mut(&id) {
                        *v += 1;
                    }
                }
                _ => assert_eq!(table.insert(id, step + 1), model.insert(id, step + 1)),
            }
            assert_eq!(table.get(id), model.get(&id), "get {id}");
            assert_eq!(table.len(), model.len());
        }
        for (id, v) in &model {
            assert_eq!(table.get(*id), Some(v));
        }
        assert_eq!(table.is_empty(), model.is_empty());
    }
}

#[test]
fn dense_ids_go_to_the_array_and_sparse_ones_to_the_flat_table() {
    let mut table = IdTable::<u32>::default();
    for id in 0..100_000u64 {
        table.insert(id, id as u32 + 1);
    }
    assert!(table.sparse.is_empty() && table.dense.covered() >= 100_000);
    let mut far = IdTable::<u32>::default();
    for k in 1..1_000u64 {
        far.insert(k << 32, 1);
    }
    assert!(far.dense.covered() == 0 && far.sparse.len() == 999);
    // An id the array later covers moves into it and stays found.
    let mut moved = IdTable::<u32>::default();
    moved.insert(5_000, 7);
    assert_eq!(moved.sparse.len(), 1);
    for id in 0..4_100u64 {
        moved.insert(id, 1);
    }
    assert!(moved.sparse.is_empty(), "5000 moved into the array");
    assert_eq!((moved.get(5_000), moved.len()), (Some(&7), 4_101));
}

/// An empty table may spend 1,024 slots (`MIN_SLOTS`) on its array: id 1,023 needs
/// exactly that many and goes to the array; id 1,024 needs one more and goes to the
/// flat table.
#[test]
fn the_array_grows_to_an_id_exactly_at_its_density_bound() {
    let mut at = IdTable::<u32>::default();
    at.insert(1_023, 1);
    assert!(at.sparse.is_empty() && at.dense.covered() >= 1_024);
    let mut past = IdTable::<u32>::default();
    past.insert(1_024, 1);
    assert_eq!((past.sparse.len(), past.dense.covered()), (1, 0));
    assert_eq!((at.get(1_023), past.get(1_024)), (Some(&1), Some(&1)));
}

/// The same random operations as above on presized tables: ids below, at and above
/// the presized end, far and huge ones, each checked against a `BTreeMap`.
#[test]
fn a_presized_table_behaves_as_a_map() {
    let cases = [(5u64, 0u64), (6, 1), (7, 3_000), (8, 40_000)];
    for ((seed, max_id), directory_only) in cases.into_iter().flat_map(|c| [(c, false), (c, true)])
    {
        let mut table = IdTable::<u64>::default();
        match directory_only {
            false => assert!(table.presize(max_id, 1 << 20)),
            true => assert!(table.presize_directory(max_id, 1 << 20)),
        }
        assert_eq!(table.dense.covered(), (max_id + 1).next_multiple_of(16));
        assert!(table.is_empty() && table.get(max_id).is_none());
        let mut state = seed;
        let mut next = || {
            state += 1;
            splitmix64(state)
        };
        let mut model = BTreeMap::new();
        for step in 1..20_000u64 {
            let id = match next() % 5 {
                0 => next() % (max_id + 1),
                1 => max_id + next() % 3,
                2 => max_id.saturating_sub(next() % 3),
                3 => next() % (4 * max_id + 100_000),
                _ => u64::MAX - next() % 4,
            };
            match next() % 4 {
                0 => assert_eq!(table.remove(id), model.remove(&id), "remove {id}"),
                1 => {
                    if let Some(v) = table.get_mut(id) {
                        *v += 1;
                    }
                    if let Some(v) = model.get_mut(&id) {
                        *v += 1;
                    }
                }
                _ => assert_eq!(table.insert(id, step), model.insert(id, step)),
            }
            assert_eq!(table.get(id), model.get(&id), "get {id}");
            assert_eq!(table.len(), model.len());
        }
        for (id, v) in &model {
            assert_eq!(table.get(*id), Some(v));
        }
    }
}

/// A table with a window, fed as the fleet index is on a synthetic workload: ids
/// from a counter, each removed some way behind the newest (now and then much later:
/// a straggler the window passes), with old small ids mixed in; checked against a
/// `BTreeMap` after every step. Then ids far ahead freeze the window.
#[test]
fn a_table_with_a_window_behaves_as_a_map() {
    for (seed, lag) in [(9u64, 600u64), (10, 5_000), (11, 40_000)] {
        let mut state = seed;
        let mut next = || {
            state += 1;
            splitmix64(state)
        };
        let mut table = IdTable::<u64, 8, true>::default();
        let mut model = BTreeMap::new();
        let mut live = std::collections::VecDeque::new();
        let mut counter = 0u64;
        let (mut opened, mut spilled) = (false, false);
        for step in 1..60_000u64 {
            let id = match next() % 8 {
                0 => next() % 512,
                _ => {
                    counter += 1 + next() % 3;
                    counter
                }
            };
            assert_eq!(
                table.insert(id, step),
                model.insert(id, step),
                "insert {id}"
            );
            live.push_back(id);
            while live.len() as u64 > lag {
                let old = live.pop_front().expect("live");
                // One in 50 is kept for good: a straggler the window will pass.
                if next() % 50 != 0 {
                    assert_eq!(table.remove(old), model.remove(&old), "remove {old}");
                }
            }
            if let Some(v) = table.get_mut(id) {
                *v += 1;
            }
            if let Some(v) = model.get_mut(&id) {
                *v += 1;
            }
            assert_eq!(table.get(id), model.get(&id), "get {id}");
            assert_eq!(table.len(), model.len());
            opened |= table.window.is_open();
            spilled |= table.window.is_open() && !table.sparse.is_empty();
        }
        // With the shorter lags the array stops growing, the window opens and passes
        // stragglers; with the longest, the array keeps up with the ids.
        assert_eq!((opened, spilled), (lag < 10_000, lag < 10_000), "lag {lag}");
        assert!(!table.frozen);
        for (id, v) in &model {
            assert_eq!(table.get(*id), Some(v), "{id}");
        }
        if !opened {
            continue;
        }
        // Far ahead (more than a width past the end): the flat table, and the window
        // stops sliding; ids it covers still go in it, ids past it to the flat table.
        let far = table.window.end() + table.window.width() as u64;
        assert_eq!((table.insert(far, 1), model.insert(far, 1)), (None, None));
        assert!(table.frozen);
        let end = table.window.end();
        for id in [end - 1, end, end + 1, far - 1, u64::MAX] {
            assert_eq!(table.insert(id, 2), model.insert(id, 2), "insert {id}");
        }
        assert_eq!((table.window.end(), table.get(far)), (end, Some(&1)));
        for (id, v) in &model {
            assert_eq!(table.get(*id), Some(v), "{id}");
            assert_eq!(table.remove(*id), Some(*v), "{id}");
        }
        assert_eq!(
            (table.dense_len, table.window.len(), table.sparse.len()),
            (0, 0, 0)
        );
    }
}

/// Ids from a counter, each removed 10,000 ids later: the array stops growing, the
/// window opens past it at least twice the entries wide and slides with the ids,
/// passing nothing to the flat table. A table without one (`WINDOW = false`) never opens it.
#[test]
fn the_window_opens_past_the_array_and_slides_with_counted_ids() {
    const LAG: u64 = 10_000;
    const IDS: u64 = 300_000;
    let mut table = IdTable::<u32, 8, true>::default();
    let mut plain = IdTable::<u32>::default();
    for id in 0..IDS {
        table.insert(id, 1);
        plain.insert(id, 1);
        if id >= LAG {
            assert_eq!(table.remove(id - LAG), Some(1));
            plain.remove(id - LAG);
        }
    }
    assert!(!plain.window.is_open() && plain.sparse.len() as u64 == LAG);
    assert!(table.window.is_open());
    assert!(
        table.dense.covered() < IDS - LAG,
        "the array stopped growing"
    );
    assert!(table.window.lo() >= table.dense.covered());
    assert!(table.window.width() as u64 >= 2 * LAG);
    assert!(table.sparse.is_empty(), "nothing was passed");
    assert_eq!(table.len() as u64, LAG);
    for id in 0..IDS {
        assert_eq!(table.get(id), (id >= IDS - LAG).then_some(&1), "{id}");
    }
}

/// A straggler the window passed (into the flat table) comes back into it when the
/// window widens far enough to cover it again, and stays found and removable.
#[test]
fn a_widened_window_takes_back_the_ids_it_covers_again() {
    const STRAGGLER: u64 = 20_000;
    let mut table = IdTable::<u32, 8, true>::default();
    for id in 0..30_000u64 {
        table.insert(id, 7);
        if id >= 2_000 && id - 2_000 != STRAGGLER {
            table.remove(id - 2_000);
        }
    }
    assert!(table.window.is_open() && !table.window.covers(STRAGGLER));
    assert_eq!((table.sparse.len(), table.get(STRAGGLER)), (1, Some(&7)));
    // No more removals: the entries grow to 12,001, the window to 32,768 cells.
    for id in 30_000..40_000u64 {
        table.insert(id, 7);
    }
    assert!(table.window.covers(STRAGGLER) && table.sparse.is_empty());
    assert_eq!((table.get(STRAGGLER), table.len()), (Some(&7), 12_001));
    assert_eq!(table.remove(STRAGGLER), Some(7));
    assert_eq!((table.get(STRAGGLER), table.len()), (None, 12_000));
}

/// The array is presized only within 8 slots per entry the table can hold, plus
/// 1,024, only when empty, and never past the address space.
#[test]
fn presizing_keeps_the_density_bound() {
    let fresh = IdTable::<u64>::default;
    // 1,000 entries at most: 8 * 1,000 + 1,024 = 9,024 slots, ids 0 ..= 9,023.
    let mut at_bound = fresh();
    assert!(at_bound.presize(9_023, 1_000));
    assert_eq!(at_bound.dense.covered(), 9_024);
    let mut past_bound = fresh();
    assert!(!past_bound.presize(9_024, 1_000));
    assert_eq!(past_bound.dense.covered(), 0);
    // No entries at all: 1,024 slots.
    assert!(fresh().presize(1_023, 0) && !fresh().presize(1_024, 0));
    // Far too many slots for the address space, or for the entries.
    assert!(!fresh().presize(u64::MAX, u64::MAX));
    assert!(!fresh().presize(u64::MAX - 1, u64::MAX / 8));
    // A table already holding entries keeps its array.
    let mut used = fresh();
    used.insert(3, 1);
    let before = used.dense.covered();
    assert!(!used.presize(5_000, 1_000_000));
    assert_eq!((used.dense.covered(), used.get(3)), (before, Some(&1)));
    // The directory alone: 256 ids per entry, plus 1,024; only when empty.
    let mut directory = fresh();
    assert!(!directory.presize_directory(256 * 1_000 + 1_024, 1_000));
    assert!(directory.presize_directory(256 * 1_000 + 1_023, 1_000));
    assert_eq!(directory.dense.covered(), 257_024);
    assert!(!used.presize_directory(5_000, 1_000_000));
    // The caches' 16 slots per entry: 16 * 100 + 1,024 = 2,624.
    let mut cache_table = IdTable::<u32, 16>::default();
    assert!(!cache_table.presize(2_624, 100) && cache_table.presize(2_623, 100));
}
