//! The dense part of an `IdTable`: values for ids `0 .. covered()`, kept in chunks of
//! `CHUNK` consecutive ids that exist only once one of their ids is written.
//!
//! A directory holds, per group of `CHUNK` ids, where the group's chunk starts in one
//! arena. The arena's first chunk is never written and stays `V::default()` throughout:
//! a group with no chunk of its own points there (offset 0), so a lookup is two
//! indexings and no branch, and a lookup of an unwritten group touches only the
//! directory and that one shared chunk. Chunks are handed out in the order groups are
//! first written, so the memory a table touches grows with the groups it uses, not with
//! the ids it covers: a replica that sees an eighth of a trace's blocks touches about a
//! quarter of the memory a full array over the trace's ids would. Chunks are never freed; a removed id's slot goes back
//! to `V::default()`.

use super::zeroed::{zeroed_vec, ZeroDefault};

/// Ids per chunk: 16 eight-byte values fill two cache lines.
pub const CHUNK: u64 = 16;

/// Values by id in chunks; `V::default()` is an empty slot.
#[derive(Clone, Debug, Default)]
pub struct Chunked<V> {
    /// Per group of `CHUNK` ids: the arena offset of its chunk, 0 (the shared empty
    /// chunk) for none.
    dir: Vec<u32>,
    /// The shared empty chunk (once anything is covered), then the chunks in the order
    /// they were handed out, `CHUNK` values each.
    arena: Vec<V>,
}

impl<V: Copy + Default> Chunked<V> {
    /// Ids `0 .. covered()` live here (written or not).
    #[inline]
    pub fn covered(&self) -> u64 {
        self.dir.len() as u64 * CHUNK
    }

    /// For a covered `id`, the arena offset of its group's chunk (0: none, the shared
    /// empty chunk); `None` for an id past `covered()`.
    #[inline(always)]
    pub fn chunk_of(&self, id: u64) -> Option<u32> {
        let group = usize::try_from(id / CHUNK).ok()?;
        self.dir.get(group).copied()
    }

    /// The slot of `id` in the chunk at `offset` (as `chunk_of` gives it); in the shared
    /// empty chunk, `V::default()`.
    #[inline(always)]
    pub fn at(&self, offset: u32, id: u64) -> &V {
        &self.arena[offset as usize + (id % CHUNK) as usize]
    }

    /// The slot of `id` in the chunk at `offset` (as `chunk_of` gives it), to change; it
    /// must not be written in the shared empty chunk (offset 0).
    #[inline(always)]
    pub fn at_mut(&mut self, offset: u32, id: u64) -> &mut V {
        &mut self.arena[offset as usize + (id % CHUNK) as usize]
    }

    /// The slot of a covered `id`, handing out its chunk first if it has none.
    #[inline(always)]
    pub fn slot(&mut self, id: u64) -> &mut V {
        let group = usize::try_from(id / CHUNK).expect("a covered id");
        let offset = match self.dir[group] {
            0 => self.hand_out(group),
            offset => offset,
        };
        self.at_mut(offset, id)
    }

    /// Hands out the next chunk to `group`; its offset.
    #[cold]
    #[inline(never)]
    fn hand_out(&mut self, group: usize) -> u32 {
        let offset = self.arena.len() as u32;
        self.arena
            .extend_from_slice(&[V::default(); CHUNK as usize]);
        self.dir[group] = offset;
        offset
    }

    /// Covers ids `0 .. slots` (rounded up to whole chunks), keeping every value; false,
    /// changing nothing, when the arena's offsets would not fit the directory's `u32`.
    pub fn cover(&mut self, slots: u64) -> bool {
        let Some(groups) = Self::groups(slots) else {
            return false;
        };
        if groups > self.dir.len() {
            self.dir.resize(groups, 0);
        }
        if self.arena.is_empty() {
            self.arena.resize(CHUNK as usize, V::default());
        }
        true
    }

    /// Groups of `CHUNK` ids needed to cover `slots` ids, if every chunk they may get
    /// (plus the shared empty one) starts at an offset that fits a `u32`.
    fn groups(slots: u64) -> Option<usize> {
        let groups = slots.div_ceil(CHUNK);
        (groups < u64::from(u32::MAX) / CHUNK - 1)
            .then(|| usize::try_from(groups).ok())
            .flatten()
    }
}

impl<V: ZeroDefault> Chunked<V> {
    /// Covers ids `0 .. slots` at once, for a table that has not covered any: the
    /// directory in zeroed memory and room for every chunk reserved, neither touched
    /// until used. False, changing nothing, when that does not fit.
    pub fn presize(&mut self, slots: u64) -> bool {
        let Some(groups) = Self::groups(slots) else {
            return false;
        };
        self.presize_chunks(slots, groups + 1)
    }

    /// Covers ids `0 .. slots` at once with the directory alone (in zeroed memory), for a
    /// table that will hold a sparse share of them: its chunks are handed out as they
    /// are written, the arena growing as a vector does. False, changing nothing, when
    /// that does not fit.
    pub fn presize_directory(&mut self, slots: u64) -> bool {
        self.presize_chunks(slots, 1)
    }

    /// Covers ids `0 .. slots` with a zeroed directory and room for `chunks` chunks (the
    /// shared empty one included) reserved.
    fn presize_chunks(&mut self, slots: u64, chunks: usize) -> bool {
        let Some(groups) = Self::groups(slots) else {
            return false;
        };
        let Some(dir) = zeroed_vec::<u32>(groups) else {
            return false;
        };
        let mut arena = Vec::new();
        if arena.try_reserve_exact(chunks * CHUNK as usize).is_err() {
            return false;
        }
        arena.resize(CHUNK as usize, V::default());
        (self.dir, self.arena) = (dir, arena);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slot of `id` through `chunk_of` and `at` (`V::default()` when it has no chunk).
    fn get<V: Copy + Default>(c: &Chunked<V>, id: u64) -> Option<&V> {
        c.chunk_of(id).map(|offset| c.at(offset, id))
    }

    #[test]
    fn chunks_are_handed_out_in_first_write_order_and_only_when_written() {
        let mut c = Chunked::<u64>::default();
        assert!(c.cover(100));
        assert_eq!(c.covered(), 112, "100 ids round up to 7 chunks of 16");
        assert_eq!(c.arena.len(), 16, "only the shared empty chunk");
        assert_eq!((get(&c, 5), get(&c, 99)), (Some(&0), Some(&0)));
        *c.slot(99) = 7;
        *c.slot(3) = 9;
        *c.slot(97) = 8;
        assert_eq!(
            c.arena.len(),
            48,
            "the empty chunk, then ids 96..112, then 0..16"
        );
        assert_eq!(&c.dir[..], &[32, 0, 0, 0, 0, 0, 16]);
        assert_eq!(
            (get(&c, 99), get(&c, 3), get(&c, 97)),
            (Some(&7), Some(&9), Some(&8))
        );
        assert_eq!(
            get(&c, 98),
            Some(&0),
            "an unwritten id of a handed-out chunk"
        );
        assert_eq!(get(&c, 50), Some(&0), "an id of a group with no chunk");
        assert!(
            c.arena[..16].iter().all(|&v| v == 0),
            "the empty chunk stays empty"
        );
        let offset = c.chunk_of(99).unwrap();
        *c.at_mut(offset, 99) = 1;
        assert_eq!(
            (offset, get(&c, 99)),
            (16, Some(&1)),
            "the first chunk handed out"
        );
        assert_eq!((c.chunk_of(20), c.chunk_of(112)), (Some(0), None));
        assert!(c.cover(40), "covering less keeps what is covered");
        assert_eq!(c.covered(), 112);
    }

    #[test]
    fn a_presized_store_touches_no_chunk_until_written() {
        let mut c = Chunked::<u64>::default();
        assert!(c.presize(1_000));
        assert_eq!((c.covered(), c.arena.len()), (1_008, 16));
        assert!(
            c.arena.capacity() >= 1_024,
            "room for every chunk and the empty one"
        );
        *c.slot(1_007) = 3;
        assert_eq!((get(&c, 1_007), c.arena.len()), (Some(&3), 32));
        assert!(!c.presize(u64::MAX), "no directory for that many ids");
        let mut d = Chunked::<u64>::default();
        assert!(d.presize_directory(1_000));
        assert_eq!((d.covered(), d.arena.len(), d.dir.len()), (1_008, 16, 63));
        *d.slot(500) = 4;
        assert_eq!(
            (get(&d, 500), get(&d, 501), d.arena.len()),
            (Some(&4), Some(&0), 32)
        );
        assert!(!d.presize_directory(u64::MAX));
        assert!(!Chunked::<u64>::default().cover(u64::MAX));
        // Offsets fit a u32: the largest coverage leaves room for every chunk's offset.
        let most = (u64::from(u32::MAX) / CHUNK - 2) * CHUNK;
        assert!(Chunked::<u64>::groups(most).is_some());
        assert!(Chunked::<u64>::groups(most + CHUNK).is_none());
    }
}
