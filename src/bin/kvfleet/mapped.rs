//! A trace file's bytes without copying them: on Linux the file is mapped read-only from
//! the page cache (its pages mapped at once, `MAP_POPULATE`), so reading a 3 MB trace
//! neither copies it nor faults in 3 MB of fresh memory, which on a virtual machine costs
//! more than the copy itself (the README's "Speed" section). Elsewhere, or when mapping
//! fails, the file is read into memory as before.
//!
//! A mapping shows the file as it is while mapped: like `grep` or `rg`, it assumes the
//! file is not truncated while a run parses it (a truncation would end the process with
//! SIGBUS; a file changed in place could give a report of mixed contents).

use std::fs::File;
use std::ops::Deref;

/// A file's bytes, mapped or read.
pub enum FileBytes {
    /// Mapped from the page cache (Linux).
    #[cfg(target_os = "linux")]
    Mapped(Mapping),
    /// Read into memory.
    Read(Vec<u8>),
}

impl Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            #[cfg(target_os = "linux")]
            FileBytes::Mapped(m) => m.bytes(),
            FileBytes::Read(v) => v,
        }
    }
}

/// The whole of the plain file `path`, if it can be opened and read.
pub fn file_bytes(path: &str) -> Option<FileBytes> {
    let file = File::open(path).ok()?;
    let len = usize::try_from(file.metadata().ok()?.len()).ok()?;
    #[cfg(target_os = "linux")]
    if let Some(m) = Mapping::of(&file, len) {
        return Some(FileBytes::Mapped(m));
    }
    let mut bytes = Vec::with_capacity(len);
    std::io::Read::read_to_end(&mut &file, &mut bytes).ok()?;
    Some(FileBytes::Read(bytes))
}

/// A read-only, private mapping of a whole file, unmapped on drop.
#[cfg(target_os = "linux")]
pub struct Mapping {
    ptr: *mut libc::c_void,
    len: usize,
}

#[cfg(target_os = "linux")]
impl Mapping {
    /// Maps the first `len` bytes of `file` (its length), populated; `None` for an empty
    /// file or when the system refuses.
    fn of(file: &File, len: usize) -> Option<Mapping> {
        use std::os::fd::AsRawFd;
        if len == 0 {
            return None;
        }
        // SAFETY: a new private read-only mapping of an open file descriptor; the result
        // is checked before use and owned by the returned value.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_POPULATE,
                file.as_raw_fd(),
                0,
            )
        };
        (ptr != libc::MAP_FAILED).then_some(Mapping { ptr, len })
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` maps `len` readable bytes for as long as `self` lives (see the
        // module's note on files truncated while mapped).
        unsafe { std::slice::from_raw_parts(self.ptr.cast::<u8>(), self.len) }
    }
}

#[cfg(target_os = "linux")]
impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping this value owns, once.
        unsafe {
            libc::munmap(self.ptr, self.len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_reads_back_byte_for_byte_and_an_empty_one_is_empty() {
        let dir = std::env::temp_dir().join(format!("kvfleet-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let full = dir.join("full.jsonl");
        let text: Vec<u8> = (0..100_000u32).flat_map(|i| i.to_le_bytes()).collect();
        std::fs::write(&full, &text).unwrap();
        let bytes = file_bytes(full.to_str().unwrap()).unwrap();
        assert!(bytes[..] == text[..], "the bytes read back differ");
        #[cfg(target_os = "linux")]
        assert!(matches!(bytes, FileBytes::Mapped(_)), "Linux maps it");
        let empty = dir.join("empty.jsonl");
        std::fs::write(&empty, b"").unwrap();
        assert!(file_bytes(empty.to_str().unwrap()).unwrap().is_empty());
        assert!(file_bytes(dir.join("missing").to_str().unwrap()).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
