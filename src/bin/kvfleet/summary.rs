//! The trace summary printed before a replay's report, computed on a second thread while
//! the simulation runs (both only read the requests); it is written before the report,
//! and before any progress bar, so the output is the same as computing it first.

use std::io::Write;
use std::sync::Arc;
use std::thread::JoinHandle;

use kvfleet::{trace, Request};

use crate::output::write_error;

/// The summary still to write: none (a synthetic run), being computed, or ready.
pub enum PendingSummary {
    None,
    Running(JoinHandle<String>),
    Ready(String),
}

impl PendingSummary {
    /// Starts summarising `requests` (shared with the thread, not copied) with blocks of
    /// `block_size` tokens; without a second thread to be had, summarises here.
    pub fn start(requests: &Arc<Vec<Request>>, block_size: u32) -> PendingSummary {
        let shared = Arc::clone(requests);
        std::thread::Builder::new()
            .name("trace-summary".into())
            .spawn(move || trace::analyze(&shared, block_size).render_text())
            .map_or_else(
                |_| PendingSummary::Ready(trace::analyze(requests, block_size).render_text()),
                PendingSummary::Running,
            )
    }

    /// Whether the summary is still to write.
    pub fn pending(&self) -> bool {
        !matches!(self, PendingSummary::None)
    }

    /// Writes the summary if it is ready, or with `wait` once it is.
    pub fn write_when_ready(&mut self, out: &mut dyn Write, wait: bool) -> Result<(), String> {
        if let PendingSummary::Running(handle) = self {
            if !wait && !handle.is_finished() {
                return Ok(());
            }
        }
        let text = match std::mem::replace(self, PendingSummary::None) {
            PendingSummary::None => return Ok(()),
            PendingSummary::Ready(text) => text,
            PendingSummary::Running(handle) => handle
                .join()
                .map_err(|_| "the trace summary failed".to_string())?,
        };
        write!(out, "{text}").map_err(write_error("-"))
    }
}

/// The requests in arrival order from the list the summary thread reads: each is cloned
/// while the thread may still read it, and moved out once the thread is done (this is
/// then the list's only owner), so the list is never copied whole.
pub struct SharedRequests {
    all: Arc<Vec<Request>>,
    next: usize,
}

impl SharedRequests {
    /// The requests of `all`, from the first.
    pub fn new(all: Arc<Vec<Request>>) -> SharedRequests {
        SharedRequests { all, next: 0 }
    }
}

impl Iterator for SharedRequests {
    type Item = Request;

    fn next(&mut self) -> Option<Request> {
        let i = self.next;
        if i >= self.all.len() {
            return None;
        }
        self.next += 1;
        let Some(all) = Arc::get_mut(&mut self.all) else {
            return Some(self.all[i].clone());
        };
        let r = &mut all[i];
        let block_ids = std::mem::take(&mut r.block_ids);
        let output_block_ids = std::mem::take(&mut r.output_block_ids);
        // The rest is plain data (the emptied lists clone without allocating).
        Some(Request {
            block_ids,
            output_block_ids,
            ..r.clone()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn requests(n: u32) -> Vec<Request> {
        (0..n)
            .map(|i| Request {
                id: i,
                arrival_us: i as u64 * 10,
                prompt_tokens: 100 + i,
                output_tokens: 1 + i,
                block_ids: vec![i as u64, 1_000 + i as u64].into(),
                session: None,
                output_block_ids: vec![i as u64 + 7],
            })
            .collect()
    }

    /// The requests come out whole and in order, copied while another holder reads the
    /// list (which stays intact) and moved out of it once none does.
    #[test]
    fn shared_requests_come_out_whole_copied_then_moved() {
        let want = requests(6);
        let reader = Arc::new(want.clone());
        let mut it = SharedRequests::new(Arc::clone(&reader));
        let mut got: Vec<Request> = it.by_ref().take(3).collect();
        assert_eq!(reader[..], want[..], "copies leave the list intact");
        drop(reader);
        got.extend(it.by_ref());
        assert_eq!(got, want);
        assert!(it.all[..3].iter().all(|r| !r.block_ids.is_empty()));
        assert!(it.all[3..].iter().all(|r| r.block_ids.is_empty()));
        assert_eq!(it.next(), None);
    }
}
