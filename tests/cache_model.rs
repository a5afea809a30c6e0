//! The block cache against a second, naive implementation of the same rules (a list of
//! entries and an eviction queue, every operation a linear scan): after each random
//! operation both must agree on every observable, from admission results to the journal.
#![cfg(not(target_arch = "wasm32"))]

use kvfleet::cache::{BlockCache, NoRoom};
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct Entry {
    id: u64,
    refs: u32,
    ready: bool,
}

/// The rules, written out plainly: resident entries, an eviction queue (front = next
/// victim), private blocks, and the store/evict events of computed entries.
#[derive(Default)]
struct Model {
    capacity: Option<u64>,
    entries: Vec<Entry>,
    lru: Vec<u64>,
    private: u64,
    evictions: u64,
    journal: Vec<(u64, bool)>,
}

impl Model {
    fn find(&self, id: u64) -> Option<usize> {
        self.entries.iter().position(|e| e.id == id)
    }

    fn used(&self) -> u64 {
        self.entries.len() as u64 + self.private
    }

    fn pinned(&self) -> u64 {
        self.entries.iter().filter(|e| e.refs > 0).count() as u64
    }

    fn ready(&self, id: u64) -> bool {
        self.find(id).is_some_and(|i| self.entries[i].ready)
    }

    fn hits(&self, ids: &[u64], max: usize) -> usize {
        ids.iter()
            .take(max)
            .take_while(|&&id| self.ready(id))
            .count()
    }

    fn remove(&mut self, i: usize) {
        let e = self.entries.remove(i);
        if e.ready {
            self.journal.push((e.id, false));
        }
    }

    fn make_room(&mut self) {
        let Some(cap) = self.capacity else { return };
        while self.used() > cap && !self.lru.is_empty() {
            let victim = self.lru.remove(0);
            let i = self.find(victim).unwrap();
            self.remove(i);
            self.evictions += 1;
        }
    }

    fn acquire(&mut self, ids: &[u64], private: u64) -> Result<(), NoRoom> {
        if let Some(cap) = self.capacity {
            let missing = ids.iter().filter(|&&id| self.find(id).is_none()).count() as u64;
            let own = ids.iter().filter(|&&id| self.lru.contains(&id)).count() as u64;
            let needed_blocks = missing + private;
            let available_blocks = cap.saturating_sub(self.used()) + self.lru.len() as u64 - own;
            if needed_blocks > available_blocks {
                return Err(NoRoom {
                    needed_blocks,
                    available_blocks,
                });
            }
        }
        for &id in ids {
            match self.find(id) {
                Some(i) => {
                    self.lru.retain(|&x| x != id);
                    self.entries[i].refs += 1;
                }
                None => self.entries.push(Entry {
                    id,
                    refs: 1,
                    ready: false,
                }),
            }
        }
        self.private += private;
        self.make_room();
        Ok(())
    }

    fn mark_ready(&mut self, ids: &[u64]) {
        for &id in ids {
            if let Some(i) = self.find(id) {
                if !self.entries[i].ready {
                    self.entries[i].ready = true;
                    self.journal.push((id, true));
                }
            }
        }
    }

    fn release(&mut self, ids: &[u64], private: u64) {
        for &id in ids.iter().rev() {
            let Some(i) = self.find(id) else { continue };
            self.entries[i].refs -= 1;
            if self.entries[i].refs > 0 {
                continue;
            }
            if self.entries[i].ready {
                self.lru.push(id);
            } else {
                self.remove(i);
            }
        }
        self.private -= private;
    }

    fn release_with_output(&mut self, ids: &[u64], private: u64, output: &[u64]) {
        self.private -= private;
        for &id in output.iter().rev() {
            if self.find(id).is_none() {
                self.entries.push(Entry {
                    id,
                    refs: 0,
                    ready: true,
                });
                self.journal.push((id, true));
                self.lru.push(id);
            }
        }
        self.release(ids, 0);
        self.make_room();
    }
}

#[derive(Debug, Clone)]
enum Op {
    Admit(Vec<u64>, u64),
    /// Marks the first `n` blocks of a running request computed.
    Ready(usize, usize),
    /// Finishes a running request; with output ids, caches its answer too.
    Finish(usize, Vec<u64>),
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    let chain = (0u64..4, 1usize..6, 0u64..3).prop_map(|(root, len, private)| {
        Op::Admit((0..len as u64).map(|i| root * 100 + i).collect(), private)
    });
    let output = prop::collection::vec(0u64..12, 0..3).prop_map(|v| {
        v.into_iter()
            .map(|x| 50 + x)
            .collect::<std::collections::BTreeSet<u64>>()
    });
    prop::collection::vec(
        prop_oneof![
            chain,
            (0usize..8, 0usize..6).prop_map(|(i, n)| Op::Ready(i, n)),
            (0usize..8, output).prop_map(|(i, o)| Op::Finish(i, o.into_iter().collect())),
        ],
        1..80,
    )
}

/// Every id the operations can name, for the per-id observables.
fn all_ids() -> Vec<u64> {
    (0..4u64)
        .flat_map(|r| (0..6).map(move |i| r * 100 + i))
        .chain(50..62)
        .collect()
}

/// How the operations' small ids are spelled: as they are (the id table's array), far
/// apart (its hash table, every id at the same offset of a table line), at the top of the
/// range (`u64::MAX`, the hash table's free marker, among them), or mixed.
const ID_FORMS: [fn(u64) -> u64; 4] = [
    |x| x,
    |x| (x + 1) << 32,
    |x| u64::MAX - x,
    |x| {
        if x % 3 == 0 {
            x
        } else {
            x.wrapping_mul(0x9E37_79B9) << 7
        }
    },
];

fn agree(cache: &mut BlockCache, model: &mut Model, form: usize) -> Result<(), TestCaseError> {
    let spell = ID_FORMS[form];
    prop_assert_eq!(cache.capacity_blocks(), model.capacity);
    prop_assert_eq!(cache.used_blocks(), model.used());
    prop_assert_eq!(cache.pinned_blocks(), model.pinned());
    prop_assert_eq!(cache.evictable_blocks(), model.lru.len() as u64);
    prop_assert_eq!(cache.private_blocks(), model.private);
    prop_assert_eq!(cache.evictions(), model.evictions);
    prop_assert_eq!(cache.lru_order(), model.lru.clone());
    let journal: Vec<(u64, bool)> = cache.drain_journal().collect();
    prop_assert_eq!(journal, std::mem::take(&mut model.journal));
    for id in all_ids().into_iter().map(spell) {
        let e = model.find(id).map(|i| model.entries[i].clone());
        prop_assert_eq!(cache.contains(id), e.is_some(), "contains {}", id);
        prop_assert_eq!(
            cache.is_ready(id),
            e.as_ref().is_some_and(|e| e.ready),
            "ready {}",
            id
        );
        prop_assert_eq!(
            cache.is_pinned(id),
            e.is_some_and(|e| e.refs > 0),
            "pinned {}",
            id
        );
    }
    for root in 0..4u64 {
        let probe: Vec<u64> = (0..6).map(|i| spell(root * 100 + i)).collect();
        for max in [0, 3, 6] {
            prop_assert_eq!(cache.hit_blocks(&probe, max), model.hits(&probe, max));
        }
    }
    Ok(())
}

fn replay(capacity: Option<u64>, ops: Vec<Op>, form: usize) -> Result<(), TestCaseError> {
    replay_with(BlockCache::new(capacity), capacity, ops, form)
}

fn replay_with(
    mut cache: BlockCache,
    capacity: Option<u64>,
    ops: Vec<Op>,
    form: usize,
) -> Result<(), TestCaseError> {
    let spell = ID_FORMS[form];
    let spelled = |ids: Vec<u64>| ids.into_iter().map(spell).collect::<Vec<u64>>();
    let mut model = Model {
        capacity,
        ..Model::default()
    };
    let mut running: Vec<(Vec<u64>, u64)> = Vec::new();
    for op in ops {
        let op = match op {
            Op::Admit(ids, private) => Op::Admit(spelled(ids), private),
            Op::Finish(i, output) => Op::Finish(i, spelled(output)),
            other => other,
        };
        match op {
            Op::Admit(ids, private) => {
                let got = cache.acquire(&ids, private);
                prop_assert_eq!(got, model.acquire(&ids, private));
                if got.is_ok() {
                    running.push((ids, private));
                }
            }
            Op::Ready(i, n) if !running.is_empty() => {
                let ids = &running[i % running.len()].0;
                let ids = &ids[..n.min(ids.len())];
                cache.mark_ready(ids);
                model.mark_ready(ids);
            }
            Op::Finish(i, output) if !running.is_empty() => {
                let (ids, private) = running.remove(i % running.len());
                if output.is_empty() {
                    cache.release(&ids, private);
                    model.release(&ids, private);
                } else {
                    cache.release_with_output(&ids, private, &output);
                    model.release_with_output(&ids, private, &output);
                }
            }
            _ => {}
        }
        agree(&mut cache, &mut model, form)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn a_bounded_cache_behaves_as_the_model(capacity in 4u64..20, ops in ops()) {
        replay(Some(capacity), ops, 0)?;
    }

    #[test]
    fn far_and_extreme_ids_behave_as_the_model(
        form in 1usize..4,
        capacity in prop::option::of(4u64..20),
        ops in ops(),
    ) {
        replay(capacity, ops, form)?;
    }

    #[test]
    fn an_unbounded_cache_behaves_as_the_model(ops in ops()) {
        replay(None, ops, 0)?;
    }

    /// The eviction queue compacting (and stamping afresh) all the time: past 0 to 3
    /// stale places, every 1 to 8 releases; the defaults are 1,024 and 2^31.
    #[test]
    fn a_cache_whose_queue_compacts_often_behaves_as_the_model(
        form in 0usize..4,
        capacity in prop::option::of(4u64..20),
        slack in 0usize..4,
        stamps in 1u32..9,
        ops in ops(),
    ) {
        let cache = BlockCache::with_queue_limits(capacity, Some((slack, stamps)));
        replay_with(cache, capacity, ops, form)?;
    }
}
