//! A sliding window of an `IdTable`: values for the ids `lo .. lo + W` in a ring of `W`
//! cells (a power of two), each id in cell `id % W`, so sliding the window forward moves
//! no cell. It serves ids numbered by a counter that keeps growing (the synthetic
//! workload's suffix blocks): the live ones span a range much smaller than the ids seen,
//! new ids are written next to the last ones and the oldest are removed near one front,
//! so the fleet index touches two short stretches of memory instead of a random line of a
//! hash table per block.
//!
//! The window slides when an id arrives at most one width past its end: every cell it
//! passes is emptied, a held value handed back (the `IdTable` keeps it in its flat table).
//! So sliding costs one cell per id the window passes, at most `W` per slide. An id
//! further ahead does not move it (the caller keeps that id elsewhere and freezes the
//! window: it covers `lo .. lo + W` from then on), so ids that jump about never make
//! it scan. In a cell, `V::default()` marks an absent id.

/// Ids `lo .. lo + cells.len()` in a ring; empty (covering nothing) until `open`.
#[derive(Clone, Debug, Default)]
pub struct Window<V> {
    cells: Vec<V>,
    lo: u64,
    /// Cells holding a value (not `V::default()`).
    len: usize,
}

/// What `Window::place` did with an id past the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placed {
    /// The window slid to cover it.
    Slid,
    /// Too far ahead: the window did not move.
    TooFar,
}

impl<V: Copy + Default + PartialEq> Window<V> {
    /// A window of `width` cells (a power of two, at least 1) from id `lo`, or from
    /// `u64::MAX - width` if that is lower, so that `u64::MAX` is never covered.
    pub fn open(width: usize, lo: u64) -> Window<V> {
        debug_assert!(width.is_power_of_two());
        Window {
            cells: vec![V::default(); width],
            lo: lo.min(u64::MAX - width as u64),
            len: 0,
        }
    }

    /// Whether the window exists (has cells).
    pub fn is_open(&self) -> bool {
        !self.cells.is_empty()
    }

    /// Held values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Cells (0 when not open).
    pub fn width(&self) -> usize {
        self.cells.len()
    }

    /// Hands every held value to `take`, in id order.
    pub fn drain(self, mut take: impl FnMut(u64, V)) {
        for id in self.lo..self.end() {
            let v = *self.at(id);
            if v != V::default() {
                take(id, v);
            }
        }
    }

    /// The lowest id covered.
    pub fn lo(&self) -> u64 {
        self.lo
    }

    /// Ids covered: `lo .. end()` (`end()` is at most `u64::MAX`, never covered).
    pub fn end(&self) -> u64 {
        self.lo + self.cells.len() as u64
    }

    /// Whether `id` is covered.
    #[inline(always)]
    pub fn covers(&self, id: u64) -> bool {
        id.wrapping_sub(self.lo) < self.cells.len() as u64
    }

    #[inline(always)]
    fn cell(&self, id: u64) -> usize {
        (id as usize) & (self.cells.len() - 1)
    }

    /// The cell of a covered `id` (`V::default()` when absent).
    #[inline(always)]
    pub fn at(&self, id: u64) -> &V {
        &self.cells[self.cell(id)]
    }

    /// The cell of a covered `id`, to change in place; a value must not be set to
    /// `V::default()` through it (use `take`).
    #[inline(always)]
    pub fn at_mut(&mut self, id: u64) -> &mut V {
        let c = self.cell(id);
        &mut self.cells[c]
    }

    /// Writes `value` (not `V::default()`) into the empty cell of a covered `id`.
    pub fn fill(&mut self, id: u64, value: V) {
        let c = self.cell(id);
        debug_assert!(self.cells[c] == V::default(), "cell of {id} is taken");
        self.cells[c] = value;
        self.len += 1;
    }

    /// Empties the cell of a covered `id`, returning its value if it held one.
    pub fn take(&mut self, id: u64) -> Option<V> {
        let c = self.cell(id);
        let v = std::mem::take(&mut self.cells[c]);
        let held = v != V::default();
        self.len -= usize::from(held);
        held.then_some(v)
    }

    /// Makes an id at or past `end()` covered by sliding the window forward, handing each
    /// value it passes to `spill`, if the id is at most one width past the end; otherwise
    /// leaves the window as it is.
    pub fn place(&mut self, id: u64, mut spill: impl FnMut(u64, V)) -> Placed {
        let width = self.cells.len() as u64;
        debug_assert!(id >= self.end());
        if id == u64::MAX || id - self.end() >= width {
            return Placed::TooFar;
        }
        let new_lo = id + 1 - width;
        for passed in self.lo..new_lo {
            if let Some(v) = self.take(passed) {
                spill(passed, v);
            }
        }
        self.lo = new_lo;
        Placed::Slid
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_covers_its_range_and_slides_handing_back_what_it_passes() {
        let mut w = Window::<u32>::open(8, 100);
        assert!(w.is_open() && w.covers(100) && w.covers(107));
        assert!(!w.covers(99) && !w.covers(108) && w.end() == 108);
        w.fill(100, 1);
        w.fill(103, 4);
        w.fill(107, 8);
        assert_eq!((w.len(), *w.at(103), *w.at(101)), (3, 4, 0));
        // 111 is 3 past the end: the window becomes 104 .. 112, passing 100 .. 103.
        let mut spilled = Vec::new();
        assert_eq!(w.place(111, |id, v| spilled.push((id, v))), Placed::Slid);
        assert_eq!(spilled, vec![(100, 1), (103, 4)]);
        assert_eq!((w.lo(), w.end(), w.len()), (104, 112, 1));
        // 107 kept its value; 111 shares 103's old cell, which the slide emptied.
        assert_eq!((*w.at(107), *w.at(111)), (8, 0));
        w.fill(111, 12);
        assert_eq!(w.take(111), Some(12));
        assert_eq!((w.take(111), w.len()), (None, 1));
        // 120 is exactly one width past the end 112: too far, nothing moves.
        assert_eq!(w.place(120, |_, _| panic!("no spill")), Placed::TooFar);
        assert_eq!(w.place(u64::MAX, |_, _| panic!("no spill")), Placed::TooFar);
        assert_eq!((w.lo(), w.len()), (104, 1));
        // 119 is the furthest id it slides to: the window becomes 112 .. 120.
        assert_eq!(w.place(119, |id, v| spilled.push((id, v))), Placed::Slid);
        assert_eq!(spilled[2..], [(107, 8)]);
        assert_eq!((w.lo(), w.len()), (112, 0));
    }

    #[test]
    fn a_closed_window_covers_nothing_and_the_top_id_is_never_covered() {
        let w = Window::<u64>::default();
        assert!(!w.is_open() && !w.covers(0) && !w.covers(u64::MAX));
        let top = Window::<u64>::open(4, u64::MAX - 2);
        assert!(top.covers(u64::MAX - 1) && top.covers(u64::MAX - 4));
        assert!(!top.covers(u64::MAX) && !top.covers(u64::MAX - 5));
        assert_eq!((top.lo(), top.end()), (u64::MAX - 4, u64::MAX));
    }
}
