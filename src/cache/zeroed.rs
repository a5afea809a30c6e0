//! Arrays of absent ids from zeroed memory: the values whose zero bytes are their default
//! (`ZeroDefault`) and a vector of them allocated zeroed (`zeroed_vec`), shared by the id
//! table and its chunked array.

use std::alloc::{alloc_zeroed, handle_alloc_error, Layout};

/// A value whose all-zero bytes are a valid value equal to `Default::default()`, so an
/// array of absent ids can come from zeroed memory.
///
/// # Safety
/// Implement it only for types (integers, structs of integers) for which every byte 0 is
/// a valid value and that value is `Default::default()`.
pub unsafe trait ZeroDefault: Copy + Default + PartialEq {}

// SAFETY: an integer of zero bytes is 0, its default.
unsafe impl ZeroDefault for u64 {}
// SAFETY: as above.
unsafe impl ZeroDefault for u32 {}
// SAFETY: as above.
unsafe impl ZeroDefault for u8 {}

/// `slots` values of `V::default()` in zeroed memory (not written when it is fresh), or
/// `None` when the size does not fit the address space.
pub(crate) fn zeroed_vec<V: ZeroDefault>(slots: usize) -> Option<Vec<V>> {
    let layout = Layout::array::<V>(slots).ok()?;
    if layout.size() == 0 {
        return Some(vec![V::default(); slots]);
    }
    // SAFETY: the layout is non-zero in size; a null result is reported as an allocation
    // failure, as `Vec` does.
    let ptr = unsafe { alloc_zeroed(layout) }.cast::<V>();
    if ptr.is_null() {
        handle_alloc_error(layout);
    }
    // SAFETY: `ptr` comes from the global allocator with the layout of `slots` values of
    // `V`, and all of them are initialised: zero bytes are a valid `V` (`ZeroDefault`).
    Some(unsafe { Vec::from_raw_parts(ptr, slots, slots) })
}
