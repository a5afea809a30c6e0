//! The trace summary printed before a replay's report, computed on a second thread while
//! the simulation runs (both only read the requests); it is written before the report,
//! and before any progress bar, so the output is the same as computing it first.

use std::io::Write;
use std::thread::JoinHandle;

use kvfleet::{trace, Request};

use crate::cli::write_error;

/// The summary still to write: none (a synthetic run), being computed, or ready.
pub enum PendingSummary {
    None,
    Running(JoinHandle<String>),
    Ready(String),
}

impl PendingSummary {
    /// Starts summarising a copy of `requests` with blocks of `block_size` tokens; without
    /// a second thread to be had, summarises here.
    pub fn start(requests: &[Request], block_size: u32) -> PendingSummary {
        let copy = requests.to_vec();
        std::thread::Builder::new()
            .name("trace-summary".into())
            .spawn(move || trace::analyze(&copy, block_size).render_text())
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
