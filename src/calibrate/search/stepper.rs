//! The fit by simulation's search as a machine that asks for batches and is told their
//! scores (ask/tell), so its caller decides where the replays run: rayon's threads in the
//! CLI (`search::search`), the page's workers between messages. Every caller gets the same
//! steps, so the same fit for the same log, start and budget.
//!
//! ```text
//! new --next_batch--> [start] --tell--> the first simplex --tell--> a step's four tries
//!   (--tell--> the shrink's four, when none is kept) --tell--> Progress ... None --found--> Found
//! ```
//! The steps are `search`'s (its head comment): Nelder-Mead in log space, rebuilt around
//! the best `RESTARTS` times once the simplex collapses.

use super::{
    along, coefficients, spread, timing_at, Ended, Found, Point, Progress, Score, SearchOptions,
    FLOOR,
};
use crate::timing::Timing;

/// Restarts after the simplex first collapses (a collapsed simplex may sit in a valley),
/// each around the best vertex, reaching the other way from the one before.
const RESTARTS: u32 = 4;

/// What the batch asked for is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Asked {
    /// The start alone.
    Start,
    /// A simplex around its best vertex (`restart`: after a collapse).
    Around { restart: bool },
    /// A step's reflection, expansion and both contractions of the worst vertex.
    Step,
    /// The other vertices, halfway to the best.
    Shrink,
    /// Nothing yet: a step has just finished, and the loop's head decides what is next
    /// (after the caller has heard the progress, and perhaps stopped the search).
    Stepped,
}

/// A search in progress: the simplex (best first), the batch asked for, the replays made.
pub struct Stepper {
    opts: SearchOptions,
    first: f64,
    simplex: Vec<(Point, Score)>,
    start_score: Option<Score>,
    asked: Asked,
    points: Vec<Point>,
    evaluations: u32,
    restarts: u32,
    ended: Option<Ended>,
}

impl Stepper {
    /// A search from `opts.start`; its first batch is the start alone.
    pub fn new(opts: &SearchOptions) -> Stepper {
        let x0: Point = coefficients(&opts.start).map(|c| libm::log(c.max(FLOOR)));
        Stepper {
            opts: *opts,
            first: opts.first_factor.max(opts.min_factor * opts.min_factor),
            simplex: Vec::new(),
            start_score: None,
            asked: Asked::Start,
            points: vec![x0],
            evaluations: 0,
            restarts: 0,
            ended: None,
        }
    }

    /// Whether the start has been scored.
    pub fn started(&self) -> bool {
        self.start_score.is_some()
    }

    /// Whether the search has ended.
    pub fn ended(&self) -> bool {
        self.ended.is_some()
    }

    /// The candidates to score next, in order; `None` once the search has ended.
    pub fn next_batch(&mut self) -> Option<Vec<Timing>> {
        if self.ended.is_none() && self.asked == Asked::Stepped {
            self.head();
        }
        if self.ended() {
            return None;
        }
        Some(self.points.iter().map(timing_at).collect())
    }

    /// Where the search is.
    pub fn progress(&self) -> Progress {
        Progress {
            evaluations: self.evaluations,
            max_evaluations: self.opts.max_evaluations,
            distance: self.best().map_or(f64::INFINITY, |s| s.distance),
            factor: if self.simplex.is_empty() {
                f64::INFINITY
            } else {
                spread(&self.simplex)
            },
        }
    }

    fn best(&self) -> Option<&Score> {
        self.simplex
            .first()
            .map(|(_, s)| s)
            .or(self.start_score.as_ref())
    }

    /// Stops the search: `found` gives the best so far.
    pub fn stop(&mut self) {
        if self.ended.is_none() {
            self.ended = Some(Ended::Stopped);
        }
    }

    /// The scores of `next_batch`'s candidates, in order. Returns the progress when a
    /// step (not a start or a rebuilt simplex) has just finished: the moment `search`
    /// reports. A batch of another length is an error (and changes nothing).
    pub fn tell(&mut self, scores: Vec<Score>) -> Result<Option<Progress>, String> {
        if self.ended() || self.asked == Asked::Stepped || scores.len() != self.points.len() {
            return Err(format!(
                "calibration search: expected {} scores, got {}",
                if self.ended() || self.asked == Asked::Stepped {
                    0
                } else {
                    self.points.len()
                },
                scores.len()
            ));
        }
        self.evaluations += scores.len() as u32;
        let scored: Vec<(Point, Score)> = std::mem::take(&mut self.points)
            .into_iter()
            .zip(scores)
            .collect();
        match self.asked {
            Asked::Start => {
                let (x0, score) = scored.into_iter().next().expect("the start");
                self.start_score = Some(score.clone());
                self.around(x0, score, self.first, false);
                Ok(None)
            }
            Asked::Around { restart } => {
                self.simplex.extend(scored);
                self.sort();
                if restart {
                    self.budget_then_step();
                } else {
                    self.head();
                }
                Ok(None)
            }
            Asked::Step => {
                if !self.kept(scored) {
                    return Ok(None); // the shrink is asked for
                }
                Ok(Some(self.after_step()))
            }
            Asked::Shrink => {
                self.simplex.truncate(1);
                self.simplex.extend(scored);
                self.sort();
                Ok(Some(self.after_step()))
            }
            Asked::Stepped => unreachable!("refused above"),
        }
    }

    /// The best engine found so far, its score and how the search went (`Stopped` while
    /// it has not ended).
    pub fn found(&self) -> Found {
        let start_score = self
            .start_score
            .clone()
            .expect("a search scores its start first");
        let (x, score) = match self.simplex.first() {
            Some(best) => best.clone(),
            None => (
                coefficients(&self.opts.start).map(|c| libm::log(c.max(FLOOR))),
                start_score.clone(),
            ),
        };
        Found {
            engine: timing_at(&x),
            score,
            start_score,
            evaluations: self.evaluations,
            ended: self.ended.unwrap_or(Ended::Stopped),
        }
    }

    /// Asks for the simplex around `x`: it and each coordinate times `factor`.
    fn around(&mut self, x: Point, x_score: Score, factor: f64, restart: bool) {
        let step = libm::log(factor);
        self.simplex = vec![(x, x_score)];
        self.points = (0..4)
            .map(|i| {
                let mut p = x;
                p[i] += step;
                p
            })
            .collect();
        self.asked = Asked::Around { restart };
    }

    fn sort(&mut self) {
        self.simplex
            .sort_by(|a, b| a.1.distance.total_cmp(&b.1.distance));
    }

    /// A step has finished: its progress; the loop's head waits for the next batch.
    fn after_step(&mut self) -> Progress {
        self.asked = Asked::Stepped;
        self.progress()
    }

    /// The loop's head: rebuild a collapsed simplex (or end), else step.
    fn head(&mut self) {
        if spread(&self.simplex) < self.opts.min_factor {
            if self.restarts == RESTARTS {
                self.ended = Some(Ended::Converged);
                return;
            }
            self.restarts += 1;
            let (x, score) = self.simplex[0].clone();
            let factor = if self.restarts % 2 == 1 {
                1.0 / libm::sqrt(self.first)
            } else {
                libm::sqrt(self.first)
            };
            self.around(x, score, factor, true);
            return;
        }
        self.budget_then_step();
    }

    fn budget_then_step(&mut self) {
        if self.evaluations >= self.opts.max_evaluations {
            self.ended = Some(Ended::Budget);
            return;
        }
        let n = self.simplex.len();
        let mut centroid = [0.0; 4];
        for (x, _) in &self.simplex[..n - 1] {
            for i in 0..4 {
                centroid[i] += x[i] / (n - 1) as f64;
            }
        }
        let worst = self.simplex[n - 1].0;
        self.points = vec![
            along(&centroid, &worst, -1.0),
            along(&centroid, &worst, -2.0),
            along(&centroid, &worst, -0.5),
            along(&centroid, &worst, 0.5),
        ];
        self.asked = Asked::Step;
    }

    /// The textbook choice among a step's tries (reflection, expansion, outer and inner
    /// contraction); false when none is kept and the shrink is asked for.
    fn kept(&mut self, tries: Vec<(Point, Score)>) -> bool {
        let n = self.simplex.len();
        let mut got = tries.into_iter();
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
            Some(p) => {
                self.simplex[n - 1] = p;
                self.sort();
                true
            }
            None => {
                let best = self.simplex[0].0;
                self.points = self.simplex[1..]
                    .iter()
                    .map(|(x, _)| along(&best, x, 0.5))
                    .collect();
                self.asked = Asked::Shrink;
                false
            }
        }
    }
}
