//! An open-addressing hash table from block id to a small `Copy` value, stored inline:
//! one probe sequence in one array, no control bytes, no separate buckets, so a cold
//! lookup costs one cache miss (two when a probe crosses a line).
//!
//! Layout. Entries are `(id, value)`; a free entry holds the id `u64::MAX`, whose own
//! value, if any, lives beside the array. The table has a power-of-two number of entries,
//! in lines of 4: ids `4g .. 4g + 3` share the home line of `g` (a hash of `g`), each at
//! its own offset, so a request's consecutive block ids (synthetic suffixes, a trace's
//! new blocks) land in one cache line when entries are 16 bytes. Collisions probe
//! linearly; removal shifts the following entries back (no tombstones), so a table that
//! sees millions of inserts and removals never fills up with dead entries. At most half
//! the entries are in use.
//!
//! It is never iterated, so its layout cannot change any result.

const FREE: u64 = u64::MAX;
/// Entries of the smallest non-empty table.
const MIN_ENTRIES: usize = 16;

/// Block id -> `V`.
#[derive(Clone, Debug)]
pub struct FlatTable<V> {
    entries: Vec<(u64, V)>,
    /// The value of id `u64::MAX` (the free marker), if held.
    max_id: Option<V>,
    len: usize,
    /// `64 - log2(lines)`: a hash's top bits pick the home line.
    shift: u32,
}

impl<V> Default for FlatTable<V> {
    fn default() -> Self {
        FlatTable {
            entries: Vec::new(),
            max_id: None,
            len: 0,
            shift: 64,
        }
    }
}

impl<V: Copy + Default> FlatTable<V> {
    /// Entries held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no entry is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The home entry of `id`: its group's line, its offset in it.
    #[inline]
    fn home(&self, id: u64) -> usize {
        let g = id >> 2;
        let line = (g ^ (g >> 29)).wrapping_mul(0xBF58_476D_1CE4_E5B9) >> self.shift;
        ((line << 2) | (id & 3)) as usize
    }

    /// Where `id` is, if held (never for `u64::MAX`).
    #[inline]
    fn find(&self, id: u64) -> Option<usize> {
        self.find_or_free(id).ok()
    }

    /// The value of `id`, if held.
    #[inline]
    pub fn get(&self, id: u64) -> Option<&V> {
        if id == FREE {
            return self.max_id.as_ref();
        }
        self.find(id).map(|i| &self.entries[i].1)
    }

    /// The value of `id` to change in place, if held.
    #[inline]
    pub fn get_mut(&mut self, id: u64) -> Option<&mut V> {
        if id == FREE {
            return self.max_id.as_mut();
        }
        self.find(id).map(|i| &mut self.entries[i].1)
    }

    /// Whether `id` is held.
    #[inline]
    pub fn contains_key(&self, id: u64) -> bool {
        self.get(id).is_some()
    }

    /// The value of `id`, inserting `default` first if it is not held.
    pub fn get_or_insert(&mut self, id: u64, default: V) -> &mut V {
        if id == FREE {
            if self.max_id.is_none() {
                self.len += 1;
            }
            return self.max_id.get_or_insert(default);
        }
        if (self.len + 1) * 2 > self.entries.len() {
            self.grow();
        }
        let mask = self.entries.len() - 1;
        let mut i = self.home(id);
        loop {
            let key = self.entries[i].0;
            if key == id {
                return &mut self.entries[i].1;
            }
            if key == FREE {
                self.entries[i] = (id, default);
                self.len += 1;
                return &mut self.entries[i].1;
            }
            i = (i + 1) & mask;
        }
    }

    /// Sets `id` to `value`, returning the value it replaced. One probe finds `id` or the
    /// free entry it would take; the table grows (and is probed again) only when a new id
    /// would fill it past half, as `get_or_insert` does.
    pub fn insert(&mut self, id: u64, value: V) -> Option<V> {
        if id == FREE {
            let old = self.max_id.replace(value);
            self.len += usize::from(old.is_none());
            return old;
        }
        match self.find_or_free(id) {
            Ok(i) => return Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(Some(i)) if (self.len + 1) * 2 <= self.entries.len() => {
                self.entries[i] = (id, value);
                self.len += 1;
                return None;
            }
            Err(_) => {}
        }
        *self.get_or_insert(id, value) = value;
        None
    }

    /// Where `id` is (`Ok`), or the free entry that ends its probe (`Err`; `None` when
    /// the table has no entries yet).
    #[inline]
    fn find_or_free(&self, id: u64) -> Result<usize, Option<usize>> {
        if self.entries.is_empty() {
            return Err(None);
        }
        let mask = self.entries.len() - 1;
        let mut i = self.home(id);
        loop {
            match self.entries[i].0 {
                key if key == id => return Ok(i),
                FREE => return Err(Some(i)),
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Removes `id`, returning its value. The entries after it in its run move back to
    /// close the gap, each only towards its home, so every id stays reachable.
    pub fn remove(&mut self, id: u64) -> Option<V> {
        if id == FREE {
            let old = self.max_id.take();
            self.len -= usize::from(old.is_some());
            return old;
        }
        let mut hole = self.find(id)?;
        let old = self.entries[hole].1;
        let mask = self.entries.len() - 1;
        let mut j = hole;
        loop {
            j = (j + 1) & mask;
            let key = self.entries[j].0;
            if key == FREE {
                break;
            }
            // The entry at j may fill the hole if the hole lies between its home and j.
            let from_home = j.wrapping_sub(self.home(key)) & mask;
            if from_home >= (j.wrapping_sub(hole) & mask) {
                self.entries[hole] = self.entries[j];
                hole = j;
            }
        }
        self.entries[hole] = (FREE, V::default());
        self.len -= 1;
        Some(old)
    }

    /// Removes every id below `limit`, handing each to `take` (in the array's order,
    /// which only the caller's placement by id may depend on).
    pub fn take_below(&mut self, limit: u64, take: impl FnMut(u64, V)) {
        self.take_in(0, limit, take);
    }

    /// Removes every id in `lo .. end`, handing each to `take` (as `take_below` does).
    pub fn take_in(&mut self, lo: u64, end: u64, mut take: impl FnMut(u64, V)) {
        let below: Vec<u64> = self
            .entries
            .iter()
            .map(|e| e.0)
            .filter(|&id| id != FREE && (lo..end).contains(&id))
            .collect();
        for id in below {
            let value = self.remove(id).expect("held");
            take(id, value);
        }
    }

    /// Doubles the entries (or makes the first ones) and puts every id back.
    fn grow(&mut self) {
        let entries = (self.entries.len() * 2).max(MIN_ENTRIES);
        let old = std::mem::replace(&mut self.entries, vec![(FREE, V::default()); entries]);
        self.shift = 64 - (entries / 4).trailing_zeros();
        let mask = entries - 1;
        for (id, value) in old.into_iter().filter(|e| e.0 != FREE) {
            let mut i = self.home(id);
            while self.entries[i].0 != FREE {
                i = (i + 1) & mask;
            }
            self.entries[i] = (id, value);
        }
    }
}

#[cfg(test)]
mod tests;
