//! The progress bar of long CLI runs (indicatif): on standard error, only when it is a
//! terminal, once the run has lasted `SHOW_AFTER`, and never with `--quiet`; it is
//! cleared when the run ends, so the report below it reads as without it.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A run shorter than this shows no bar.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Steps of the bar (the share done is shown in thousandths).
const STEPS: u64 = 1000;

/// Events a single run processes between two looks at the clock (tens of ms).
pub const SLICE_EVENTS: u64 = 20_000;

/// Progress of one run or one sweep, shown once it proves long.
pub struct Progress {
    label: &'static str,
    enabled: bool,
    start: Instant,
    bar: Mutex<Option<ProgressBar>>,
}

impl Progress {
    /// Progress labelled `label`; shown only if standard error is a terminal and `quiet`
    /// is off.
    pub fn new(label: &'static str, quiet: bool) -> Progress {
        Progress {
            label,
            enabled: !quiet && std::io::stderr().is_terminal(),
            start: Instant::now(),
            bar: Mutex::new(None),
        }
    }

    /// The run is `done` (0 to 1) through; callable from any thread.
    pub fn update(&self, done: f64) {
        if !self.enabled || self.start.elapsed() < SHOW_AFTER {
            return;
        }
        let Ok(mut bar) = self.bar.lock() else {
            return;
        };
        let bar = bar.get_or_insert_with(|| self.bar());
        bar.set_position((done.clamp(0.0, 1.0) * STEPS as f64) as u64);
    }

    fn bar(&self) -> ProgressBar {
        let bar = ProgressBar::with_draw_target(Some(STEPS), ProgressDrawTarget::stderr())
            .with_elapsed(self.start.elapsed());
        let style = ProgressStyle::with_template(
            "kvfleet: {prefix} [{bar:30}] {percent:>3}% ({elapsed} elapsed, about {eta} left)",
        )
        .map(|s| s.progress_chars("=> "));
        if let Ok(style) = style {
            bar.set_style(style);
        }
        bar.set_prefix(self.label);
        bar
    }

    /// Clears the bar, if it was shown.
    pub fn finish(&self) {
        if let Ok(mut bar) = self.bar.lock() {
            if let Some(bar) = bar.take() {
                bar.finish_and_clear();
            }
        }
    }
}
