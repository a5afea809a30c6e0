//! Unit tests of the block cache: readiness, LRU eviction tail first, cached answers,
//! and the id hasher's spread.

use super::*;

#[test]
fn hits_need_computed_blocks() {
    let mut c = BlockCache::new(None);
    c.acquire(&[1, 2, 3], 1).unwrap();
    assert_eq!(
        c.hit_blocks(&[1, 2, 3], 3),
        0,
        "pending blocks are not hits"
    );
    c.mark_ready(&[1, 2]);
    assert_eq!(c.hit_blocks(&[1, 2, 3], 3), 2);
    assert_eq!(c.hit_blocks(&[1, 2, 3], 1), 1);
    c.mark_ready(&[3]);
    c.release(&[1, 2, 3], 1);
    assert_eq!(c.lru_order(), vec![3, 2, 1]);
    assert_eq!(c.used_blocks(), 3);
}

#[test]
fn evicts_least_recently_released_tail_first() {
    let mut c = BlockCache::new(Some(4));
    c.acquire(&[1, 2], 0).unwrap();
    c.mark_ready(&[1, 2]);
    c.release(&[1, 2], 0);
    c.acquire(&[7, 8, 9], 0).unwrap();
    assert_eq!(c.evictions(), 1);
    assert!(c.contains(1) && !c.contains(2));
    assert_eq!(
        c.acquire(&[10, 11], 0),
        Err(NoRoom {
            needed_blocks: 2,
            available_blocks: 1
        })
    );
    assert!(c.contains(1), "a failed acquire changes nothing");
}

#[test]
fn a_finished_answer_is_cached_and_evicted_before_the_prompt() {
    let mut c = BlockCache::new(Some(10));
    c.acquire(&[1, 2], 3).unwrap();
    c.mark_ready(&[1, 2]);
    c.release_with_output(&[1, 2], 3, &[7, 8]);
    assert_eq!(c.hit_blocks(&[1, 2, 7, 8], 4), 4);
    assert_eq!(c.lru_order(), vec![8, 7, 2, 1]);
    assert_eq!(
        (c.used_blocks(), c.private_blocks(), c.pinned_blocks()),
        (4, 0, 0)
    );
    let journal: Vec<(u64, bool)> = c.drain_journal().collect();
    assert_eq!(journal, vec![(1, true), (2, true), (8, true), (7, true)]);
}

#[test]
fn the_id_hasher_spreads_ids_over_the_low_bits() {
    // A HashMap picks buckets from the low bits of the hash: ids that are consecutive,
    // or far apart by powers of two (block ids of pools, sessions, traces), must not
    // collide there, or every lookup scans a chain. 4096 ids into 2^14 buckets: a
    // uniform hash fills about 3,600 distinct ones (4096 x (1 - e^-0.25) x 4 ≈ 3,640).
    let hash = |x: u64| {
        let mut h = IdHasher::default();
        h.write_u64(x);
        h.finish()
    };
    for ids in [
        (0..4096u64).collect::<Vec<u64>>(),
        (0..4096u64).map(|i| i << 32).collect(),
        (0..4096u64).map(|i| (i << 40) | i).collect(),
    ] {
        let full: std::collections::BTreeSet<u64> = ids.iter().map(|&x| hash(x)).collect();
        assert_eq!(full.len(), 4096, "distinct ids, distinct hashes");
        let low: std::collections::BTreeSet<u64> = ids.iter().map(|&x| hash(x) & 0x3FFF).collect();
        assert!(low.len() > 3300, "{} of 4096 distinct low bits", low.len());
    }
    // Bytes (a key that is not a u64) mix too: each single byte is its own hash.
    let bytes: std::collections::BTreeSet<u64> = (0..=255u8)
        .map(|b| {
            let mut h = IdHasher::default();
            h.write(&[b]);
            h.finish()
        })
        .collect();
    assert_eq!(bytes.len(), 256);
}

#[test]
fn counters_of_an_empty_and_an_unbounded_cache() {
    let c = BlockCache::new(None);
    assert_eq!(c.capacity_blocks(), None);
    assert_eq!(BlockCache::new(Some(7)).capacity_blocks(), Some(7));
    assert_eq!(
        (c.used_blocks(), c.pinned_blocks(), c.evictable_blocks()),
        (0, 0, 0)
    );
    let mut c = BlockCache::new(None);
    assert_eq!(c.room_for(&[1, 2, 3], 1_000_000), Ok(()), "no limit");
    c.acquire(&[1, 2, 3], 5).unwrap();
    assert_eq!(
        (c.used_blocks(), c.pinned_blocks(), c.private_blocks()),
        (8, 3, 5)
    );
    assert!(c.is_pinned(2) && c.contains(2) && !c.is_ready(2));
}
