//! The fit by simulation of a request log, driven a batch at a time (the page's workers):
//! the log read as `kvfleet calibrate --requests FILE` reads it (format guessed, one
//! replica of the default limits), the search's batches (`Stepper`) handed out as
//! coefficients, each candidate's score passed between workers as a flat array of numbers
//! (exact, NaN and infinity included), and the fit as the JSON `--calibrate-json` writes.
//!
//! ```text
//! open(text, start, budget) --next_batch--> [[4 coefficients]] --score (any worker)--> [flat]
//!   --tell--> progress ... --next_batch--> None --fit_json--> RequestFit as JSON
//! ```

use super::read_requests;
use super::replay::{Replica, QUANTILES};
use super::requests::RequestFormat;
use super::search::{with_coefficients, Problem, Progress, Score, SearchOptions, Stepper};
use super::RequestFit;
use crate::timing::{EnginePreset, Timing};

/// A request log's fit by simulation, in progress.
pub struct RequestSearch {
    problem: Problem,
    stepper: Stepper,
    start: Timing,
    assumptions: Vec<String>,
    requests: usize,
}

impl RequestSearch {
    /// Reads the log (`name` for messages) and prepares the search from `start`'s engine
    /// (a preset's name), with at most `max_evaluations` replays: the CLI's defaults
    /// otherwise (format guessed, max batch 256, 8,192 tokens per step).
    pub fn open(
        text: &str,
        name: &str,
        start: &str,
        max_evaluations: u32,
    ) -> Result<RequestSearch, String> {
        let preset = EnginePreset::parse(start).ok_or_else(|| {
            format!(
                "start: expected one of {}, got \"{}\"",
                EnginePreset::names(),
                crate::echo::shown(start)
            )
        })?;
        if max_evaluations == 0 {
            return Err("max evaluations: expected a whole number of replays >= 1".to_string());
        }
        let log = read_requests(text, name, RequestFormat::guess(text), None)?;
        let problem = Problem::new(&log.requests, Replica::default());
        let start = preset.timing();
        let opts = SearchOptions {
            max_evaluations,
            ..SearchOptions::from(start)
        };
        Ok(RequestSearch {
            problem,
            stepper: Stepper::new(&opts),
            start,
            assumptions: log.assumptions,
            requests: log.requests.len(),
        })
    }

    /// Requests replayed.
    pub fn requests(&self) -> usize {
        self.requests
    }

    /// The next batch's candidates, four coefficients each (`search::NAMES`' order), one
    /// after another; empty once the search has ended.
    pub fn next_batch(&mut self) -> Vec<f64> {
        let batch = self.stepper.next_batch().unwrap_or_default();
        batch
            .iter()
            .flat_map(|t| {
                [
                    t.step_fixed_us,
                    t.prefill_token_us,
                    t.decode_seq_us,
                    t.kv_read_token_ns,
                ]
            })
            .collect()
    }

    /// Replays the log on the engine of four coefficients; its score as a flat array.
    pub fn score(&self, coefficients: &[f64]) -> Result<Vec<f64>, String> {
        let c: [f64; 4] = coefficients
            .try_into()
            .map_err(|_| format!("score: expected 4 coefficients, got {}", coefficients.len()))?;
        Ok(to_flat(&self.problem.score(&with_coefficients(c))))
    }

    /// The flat scores of the last batch, one after another, in its order; the progress
    /// when a step has just finished.
    pub fn tell(&mut self, flat: &[f64]) -> Result<Option<Progress>, String> {
        let k = self.problem.measured_tpot_ms().len();
        let each = flat_len(k);
        if !flat.len().is_multiple_of(each) {
            return Err(format!(
                "tell: {} numbers are not whole scores of {each}",
                flat.len()
            ));
        }
        let scores = flat.chunks(each).map(|c| from_flat(c, k)).collect();
        self.stepper.tell(scores)
    }

    /// Where the search is.
    pub fn progress(&self) -> Progress {
        self.stepper.progress()
    }

    /// Stops the search: the fit is the best so far.
    pub fn stop(&mut self) {
        self.stepper.stop();
    }

    /// The fit (the best so far, `ended` = `stopped`, while the search goes on) as JSON,
    /// the numbers `kvfleet calibrate --requests FILE --calibrate-json` writes; `None`
    /// before the start has been scored.
    pub fn fit_json(&self) -> Option<String> {
        if !self.stepper.started() {
            return None;
        }
        let fit = RequestFit::of(
            &self.problem,
            self.stepper.found(),
            self.assumptions.clone(),
            self.requests,
            self.start,
        );
        Some(serde_json::to_string(&fit).expect("a fit serialises"))
    }
}

/// The numbers in a score of `k` TPOT quantiles.
fn flat_len(k: usize) -> usize {
    1 + 2 * QUANTILES.len() + 2 * k
}

/// A score as numbers: distance, TTFT ms, TTFT relative errors, TPOT ms, TPOT relative errors.
fn to_flat(s: &Score) -> Vec<f64> {
    let mut out = vec![s.distance];
    for v in [&s.ttft_ms, &s.ttft_rel_err, &s.tpot_ms, &s.tpot_rel_err] {
        out.extend_from_slice(v);
    }
    out
}

fn from_flat(c: &[f64], k: usize) -> Score {
    let q = QUANTILES.len();
    let (ttft, rest) = c[1..].split_at(q);
    let (ttft_rel, rest) = rest.split_at(q);
    let (tpot, tpot_rel) = rest.split_at(k);
    Score {
        ttft_ms: ttft.to_vec(),
        ttft_rel_err: ttft_rel.to_vec(),
        tpot_ms: tpot.to_vec(),
        tpot_rel_err: tpot_rel.to_vec(),
        distance: c[0],
    }
}
