//! The fit by simulation: a coordinate search, in log space, over the linear engine's four
//! coefficients, for the engine whose replay of the measured requests reproduces their
//! TTFT and TPOT quantiles. Deterministic (nothing is drawn at random); the caller
//! evaluates each round's candidates (serially, or in parallel natively) and may stop it.
//!
//! The method is Nelder-Mead over the coefficients' logarithms: a simplex of five engines
//! (the start, and the start with each coefficient times `first_factor`); each step
//! scores the reflection, the expansion and both contractions of the worst vertex as one
//! batch, then keeps the one the textbook rule picks, or shrinks toward the best. When
//! the simplex has collapsed (no vertex more than `min_factor` from the best in any
//! coefficient) it is rebuilt around the best (half as far, in log space, alternately
//! up and down), four times, then the search ends; also after
//! `max_evaluations`, or when the caller stops it. Ties keep the earlier vertex.

use serde::Serialize;

use super::replay::{self, quantiles, Replica, QUANTILES};
use super::requests::Measured;
use crate::timing::Timing;
use crate::workload::Request;

mod stepper;
pub use stepper::Stepper;

/// The coefficients searched, in `Timing`'s order.
pub const NAMES: [&str; 4] = [
    "step_fixed_us",
    "prefill_token_us",
    "decode_seq_us",
    "kv_read_token_ns",
];

/// The smallest value a coefficient may take (the search works on its logarithm).
pub(super) const FLOOR: f64 = 1e-6;

/// What is fitted: the requests as the simulator replays them, and the measured quantiles.
pub struct Problem {
    requests: Vec<Request>,
    replica: Replica,
    measured_ttft_ms: Vec<f64>,
    measured_tpot_ms: Vec<f64>,
}

/// One candidate's fit: its quantiles, their relative errors and the distance.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Score {
    /// Simulated TTFT at each quantile, ms.
    pub ttft_ms: Vec<f64>,
    /// Simulated TPOT at each quantile, ms.
    pub tpot_ms: Vec<f64>,
    /// (simulated − measured) / measured, per TTFT quantile.
    pub ttft_rel_err: Vec<f64>,
    /// (simulated − measured) / measured, per TPOT quantile (empty when no request
    /// generated two tokens).
    pub tpot_rel_err: Vec<f64>,
    /// Root mean square of every relative error above.
    pub distance: f64,
}

impl Problem {
    /// The problem of a read log replayed on `replica`.
    pub fn new(log: &[Measured], replica: Replica) -> Problem {
        let ttft: Vec<f64> = log.iter().map(|m| m.ttft_ms).collect();
        let tpot: Vec<f64> = log.iter().filter_map(|m| m.tpot_ms).collect();
        Problem {
            requests: replay::requests_of(log, replica.block_size),
            replica,
            measured_ttft_ms: quantiles(&ttft),
            measured_tpot_ms: if tpot.is_empty() {
                Vec::new()
            } else {
                quantiles(&tpot)
            },
        }
    }

    /// Measured TTFT at each quantile, ms.
    pub fn measured_ttft_ms(&self) -> &[f64] {
        &self.measured_ttft_ms
    }

    /// Measured TPOT at each quantile, ms (empty when no request generated two tokens).
    pub fn measured_tpot_ms(&self) -> &[f64] {
        &self.measured_tpot_ms
    }

    /// The replica replayed on.
    pub fn replica(&self) -> Replica {
        self.replica
    }

    /// Replays the requests with `timing` and scores the quantiles (a replay the
    /// simulator refuses scores infinitely far).
    pub fn score(&self, timing: &Timing) -> Score {
        let Ok(out) = replay::replay(&self.requests, timing, &self.replica) else {
            return far(self);
        };
        let rel = |sim: &[f64], meas: &[f64]| -> Vec<f64> {
            sim.iter().zip(meas).map(|(s, m)| (s - m) / m).collect()
        };
        let ttft_rel_err = rel(&out.ttft_ms, &self.measured_ttft_ms);
        let tpot_rel_err = rel(&out.tpot_ms, &self.measured_tpot_ms);
        let all: Vec<f64> = ttft_rel_err.iter().chain(&tpot_rel_err).copied().collect();
        let mean_sq = all.iter().map(|e| e * e).sum::<f64>() / all.len() as f64;
        let distance = if mean_sq.is_finite() {
            libm::sqrt(mean_sq)
        } else {
            f64::INFINITY
        };
        Score {
            ttft_ms: out.ttft_ms,
            tpot_ms: if self.measured_tpot_ms.is_empty() {
                Vec::new()
            } else {
                out.tpot_ms
            },
            ttft_rel_err,
            tpot_rel_err,
            distance,
        }
    }
}

/// The score of a replay the simulator refused: infinitely far.
pub fn far(p: &Problem) -> Score {
    Score {
        ttft_ms: vec![f64::NAN; QUANTILES.len()],
        tpot_ms: vec![f64::NAN; p.measured_tpot_ms.len()],
        ttft_rel_err: vec![f64::INFINITY; QUANTILES.len()],
        tpot_rel_err: vec![f64::INFINITY; p.measured_tpot_ms.len()],
        distance: f64::INFINITY,
    }
}

/// How to search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchOptions {
    /// Where to start (its four linear coefficients; a preset's or a step fit's).
    pub start: Timing,
    /// How far the first simplex reaches from the start: each coefficient times this.
    pub first_factor: f64,
    /// The simplex has collapsed once its spread is below this (1.01: about 1 %).
    pub min_factor: f64,
    /// Stop after this many replays.
    pub max_evaluations: u32,
}

impl SearchOptions {
    /// The defaults from `start`: a first simplex of factor 2, collapsed at 1.01, at most
    /// 1,000 replays.
    pub fn from(start: Timing) -> SearchOptions {
        SearchOptions {
            start,
            first_factor: 2.0,
            min_factor: 1.01,
            max_evaluations: 1000,
        }
    }
}

/// Where a search is, for progress reports.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Replays so far.
    pub evaluations: u32,
    /// The most it will make.
    pub max_evaluations: u32,
    /// The best distance so far.
    pub distance: f64,
    /// The simplex's spread: its largest ratio, in any coefficient, to the best vertex.
    pub factor: f64,
}

/// Whether the search goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep searching.
    Go,
    /// Stop now and keep the best so far.
    Stop,
}

/// How a search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ended {
    /// The simplex collapsed after its last restart.
    Converged,
    /// The replay budget ran out.
    Budget,
    /// The caller stopped it.
    Stopped,
}

/// The best engine found, its score and how the search went.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    /// The best engine (four linear coefficients, no polynomial).
    pub engine: Timing,
    /// Its score.
    pub score: Score,
    /// The start's score.
    pub start_score: Score,
    /// Replays made.
    pub evaluations: u32,
    /// Why it stopped.
    pub ended: Ended,
}

pub(super) fn coefficients(t: &Timing) -> [f64; 4] {
    [
        t.step_fixed_us,
        t.prefill_token_us,
        t.decode_seq_us,
        t.kv_read_token_ns,
    ]
}

/// The linear engine of four coefficients, in `NAMES`' order.
pub fn with_coefficients(c: [f64; 4]) -> Timing {
    Timing {
        step_fixed_us: c[0],
        prefill_token_us: c[1],
        decode_seq_us: c[2],
        kv_read_token_ns: c[3],
        prefill_poly_ms: crate::timing::NO_POLY,
        decode_poly_ms: crate::timing::NO_POLY,
        kv_capacity_tokens: 0.0,
    }
}

pub(super) type Point = [f64; 4];

pub(super) fn timing_at(x: &Point) -> Timing {
    with_coefficients(x.map(|v| libm::exp(v).max(FLOOR)))
}

/// `a + t·(b − a)`, coordinate by coordinate.
pub(super) fn along(a: &Point, b: &Point, t: f64) -> Point {
    let mut out = *a;
    for i in 0..4 {
        out[i] = a[i] + t * (b[i] - a[i]);
    }
    out
}

/// The largest spread of the simplex from its best vertex, as a factor.
pub(super) fn spread(simplex: &[(Point, Score)]) -> f64 {
    let best = &simplex[0].0;
    let most = simplex
        .iter()
        .flat_map(|(x, _)| (0..4).map(move |i| (x[i] - best[i]).abs()))
        .fold(0.0, f64::max);
    libm::exp(most)
}

/// Searches from `opts.start` by Nelder-Mead in log space, restarted `RESTARTS` times
/// around the best point once the simplex collapses. `evaluate` scores a batch of candidates, in
/// order (the CLI spreads it over threads); `progress` hears after each step and may stop
/// the search. The steps are `Stepper`'s, which the page drives a batch at a time.
pub fn search(
    problem: &Problem,
    opts: &SearchOptions,
    evaluate: &dyn Fn(&[Timing]) -> Vec<Score>,
    progress: &mut dyn FnMut(&Progress) -> Flow,
) -> Found {
    let mut s = Stepper::new(opts);
    while let Some(batch) = s.next_batch() {
        let scores = if s.started() {
            evaluate(&batch)
        } else {
            batch.iter().map(|t| problem.score(t)).collect()
        };
        let now = s.tell(scores).expect("one score per candidate");
        if now.is_some_and(|p| progress(&p) == Flow::Stop) {
            s.stop();
        }
    }
    s.found()
}

/// `search` with the candidates scored one after another (no threads).
pub fn search_serial(
    problem: &Problem,
    opts: &SearchOptions,
    progress: &mut dyn FnMut(&Progress) -> Flow,
) -> Found {
    let evaluate = |batch: &[Timing]| batch.iter().map(|t| problem.score(t)).collect();
    search(problem, opts, &evaluate, progress)
}
