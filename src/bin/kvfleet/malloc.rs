//! One setting of glibc's allocator for a single replay: a fixed threshold above which a
//! block comes straight from the system (`mmap`), already zeroed.
//!
//! glibc raises the threshold whenever such a block is freed (up to 32 MiB), so once the
//! parsed trace's text (3 MB for the conversation trace) is freed, the block-id arrays a
//! replay then sizes in zeroed memory (`IdTable::presize`, `BlockCounts::presize`:
//! 14.6 MB for the conversation trace on 8 replicas) came from reused heap memory that
//! `calloc` had to clear byte by byte. With the threshold fixed at glibc's own starting
//! value, 128 KiB, they come from `mmap`: no clearing, and pages never used are never
//! touched. A sweep (many replays in one process) keeps the dynamic threshold, which lets
//! each replay reuse what the last one freed: fixed, an 8-point sweep of the conversation
//! trace faulted in twice the pages (59,000 against 115,000 minor faults). No result
//! depends on where memory comes from.

/// Fixes glibc's `mmap` threshold at 128 KiB (its default, which it then no longer
/// raises); returns whether glibc took it. Elsewhere (musl, macOS, Windows) it does
/// nothing and returns false.
pub fn fix_mmap_threshold() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::ffi::c_int;
        extern "C" {
            /// glibc's `mallopt(3)`.
            fn mallopt(param: c_int, value: c_int) -> c_int;
        }
        /// `M_MMAP_THRESHOLD` in glibc's `malloc.h`.
        const M_MMAP_THRESHOLD: c_int = -3;
        // SAFETY: `mallopt` takes two integers and only changes the allocator's tuning;
        // glibc serialises it with the allocator's own lock, and nothing depends on it.
        unsafe { mallopt(M_MMAP_THRESHOLD, 128 << 10) == 1 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    false
}

#[cfg(test)]
mod tests {
    #[test]
    fn glibc_takes_the_threshold() {
        let glibc = cfg!(all(target_os = "linux", target_env = "gnu"));
        assert_eq!(super::fix_mmap_threshold(), glibc);
    }
}
