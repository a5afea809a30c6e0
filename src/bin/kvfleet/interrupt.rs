//! Ctrl-C as a request to stop a long search: while `Catch` lives, the first SIGINT sets
//! a flag the search polls (and puts the default handler back, so a second Ctrl-C ends
//! the program at once). Linux only; elsewhere Ctrl-C ends the program as usual.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// SIGINT caught while alive; the default handler again when dropped.
pub struct Catch;

#[cfg(target_os = "linux")]
extern "C" fn on_sigint(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
    // Async-signal-safe: a second Ctrl-C ends the program.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
}

impl Catch {
    /// Starts catching SIGINT.
    pub fn start() -> Catch {
        INTERRUPTED.store(false, Ordering::SeqCst);
        #[cfg(target_os = "linux")]
        // SAFETY: the handler only stores to an atomic and resets the disposition, both
        // async-signal-safe.
        unsafe {
            let handler = on_sigint as extern "C" fn(libc::c_int);
            libc::signal(libc::SIGINT, handler as libc::sighandler_t);
        }
        Catch
    }

    /// Whether Ctrl-C was pressed since `start`.
    pub fn interrupted(&self) -> bool {
        INTERRUPTED.load(Ordering::SeqCst)
    }
}

impl Drop for Catch {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        // SAFETY: restoring the default disposition.
        unsafe {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
        }
    }
}
