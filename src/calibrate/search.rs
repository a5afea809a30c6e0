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

/// The coefficients searched, in `Timing`'s order.
pub const NAMES: [&str; 4] = [
    "step_fixed_us",
    "prefill_token_us",
    "decode_seq_us",
    "kv_read_token_ns",
];

/// The smallest value a coefficient may take (the search works on its logarithm).
const FLOOR: f64 = 1e-6;

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

fn far(p: &Problem) -> Score {
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

fn coefficients(t: &Timing) -> [f64; 4] {
    [
        t.step_fixed_us,
        t.prefill_token_us,
        t.decode_seq_us,
        t.kv_read_token_ns,
    ]
}

fn with_coefficients(c: [f64; 4]) -> Timing {
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

type Point = [f64; 4];

fn timing_at(x: &Point) -> Timing {
    with_coefficients(x.map(|v| libm::exp(v).max(FLOOR)))
}

/// `a + t·(b − a)`, coordinate by coordinate.
fn along(a: &Point, b: &Point, t: f64) -> Point {
    let mut out = *a;
    for i in 0..4 {
        out[i] = a[i] + t * (b[i] - a[i]);
    }
    out
}

/// The largest spread of the simplex from its best vertex, as a factor.
fn spread(simplex: &[(Point, Score)]) -> f64 {
    let best = &simplex[0].0;
    let most = simplex
        .iter()
        .flat_map(|(x, _)| (0..4).map(move |i| (x[i] - best[i]).abs()))
        .fold(0.0, f64::max);
    libm::exp(most)
}

/// A search's state: the simplex (best first) and the replays made.
struct State<'a> {
    simplex: Vec<(Point, Score)>,
    evaluations: u32,
    evaluate: &'a dyn Fn(&[Timing]) -> Vec<Score>,
}

impl State<'_> {
    fn scored(&mut self, points: Vec<Point>) -> Vec<(Point, Score)> {
        let timings: Vec<Timing> = points.iter().map(timing_at).collect();
        let scores = (self.evaluate)(&timings);
        self.evaluations += points.len() as u32;
        points.into_iter().zip(scores).collect()
    }

    /// The simplex around `x`: it and each coordinate times `factor`.
    fn around(&mut self, x: Point, x_score: Score, factor: f64) {
        let step = libm::log(factor);
        let points = (0..4)
            .map(|i| {
                let mut p = x;
                p[i] += step;
                p
            })
            .collect();
        self.simplex = vec![(x, x_score)];
        let scored = self.scored(points);
        self.simplex.extend(scored);
        self.sort();
    }

    fn sort(&mut self) {
        self.simplex
            .sort_by(|a, b| a.1.distance.total_cmp(&b.1.distance));
    }

    /// One Nelder-Mead step: reflection, expansion and both contractions scored as one
    /// batch, then the textbook choice among them (or a shrink toward the best).
    fn step(&mut self) {
        let n = self.simplex.len();
        let mut centroid = [0.0; 4];
        for (x, _) in &self.simplex[..n - 1] {
            for i in 0..4 {
                centroid[i] += x[i] / (n - 1) as f64;
            }
        }
        let worst = self.simplex[n - 1].0;
        let tries = vec![
            along(&centroid, &worst, -1.0),
            along(&centroid, &worst, -2.0),
            along(&centroid, &worst, -0.5),
            along(&centroid, &worst, 0.5),
        ];
        let mut got = self.scored(tries).into_iter();
        let (r, e, oc, ic) = (
            got.next().unwrap(),
            got.next().unwrap(),
            got.next().unwrap(),
            got.next().unwrap(),
        );
        let d = |p: &(Point, Score)| p.1.distance;
        let (best, second_worst, worst_d) = (
            d(&self.simplex[0]),
            d(&self.simplex[n - 2]),
            d(&self.simplex[n - 1]),
        );
        let keep = if d(&r) < best {
            Some(if d(&e) < d(&r) { e } else { r })
        } else if d(&r) < second_worst {
            Some(r)
        } else if d(&r) < worst_d {
            (d(&oc) <= d(&r)).then_some(oc)
        } else {
            (d(&ic) < worst_d).then_some(ic)
        };
        match keep {
            Some(p) => self.simplex[n - 1] = p,
            None => self.shrink(),
        }
        self.sort();
    }

    fn shrink(&mut self) {
        let best = self.simplex[0].0;
        let points = self.simplex[1..]
            .iter()
            .map(|(x, _)| along(&best, x, 0.5))
            .collect();
        let scored = self.scored(points);
        self.simplex.truncate(1);
        self.simplex.extend(scored);
    }
}

/// Restarts after the simplex first collapses (a collapsed simplex may sit in a valley),
/// each around the best vertex, reaching the other way from the one before.
const RESTARTS: u32 = 4;

/// Searches from `opts.start` by Nelder-Mead in log space, restarted `RESTARTS` times
/// around the best point once the simplex collapses. `evaluate` scores a batch of candidates, in
/// order (the CLI spreads it over threads); `progress` hears after each step and may stop
/// the search.
pub fn search(
    problem: &Problem,
    opts: &SearchOptions,
    evaluate: &dyn Fn(&[Timing]) -> Vec<Score>,
    progress: &mut dyn FnMut(&Progress) -> Flow,
) -> Found {
    let x0: Point = coefficients(&opts.start).map(|c| libm::log(c.max(FLOOR)));
    let start_score = problem.score(&timing_at(&x0));
    let mut state = State {
        simplex: Vec::new(),
        evaluations: 1,
        evaluate,
    };
    let first = opts.first_factor.max(opts.min_factor * opts.min_factor);
    state.around(x0, start_score.clone(), first);
    let mut restarts = 0;
    let ended = loop {
        if spread(&state.simplex) < opts.min_factor {
            if restarts == RESTARTS {
                break Ended::Converged;
            }
            restarts += 1;
            let (x, score) = state.simplex[0].clone();
            let factor = if restarts % 2 == 1 {
                1.0 / libm::sqrt(first)
            } else {
                libm::sqrt(first)
            };
            state.around(x, score, factor);
        }
        if state.evaluations >= opts.max_evaluations {
            break Ended::Budget;
        }
        state.step();
        let now = Progress {
            evaluations: state.evaluations,
            max_evaluations: opts.max_evaluations,
            distance: state.simplex[0].1.distance,
            factor: spread(&state.simplex),
        };
        if progress(&now) == Flow::Stop {
            break Ended::Stopped;
        }
    };
    let (x, score) = state.simplex.swap_remove(0);
    Found {
        engine: timing_at(&x),
        score,
        start_score,
        evaluations: state.evaluations,
        ended,
    }
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
