//! The planner's two runners: a synthetic workload (its rate, or every rate of its rate
//! schedule and its number of requests, scaled) and a parsed trace (its arrival times divided by the scale). Both are
//! pure, for the CLI and the page.

use super::Runner;
use crate::config::{Config, WorkloadKind};
use crate::report::{Report, Summary};
use crate::run;
use crate::workload::{schedule, Request};

/// A synthetic pool or sessions workload: the scale multiplies `request_rate` (pool) or
/// `session_rate` (sessions). Under a rate schedule, which sets the rate in their place,
/// it multiplies every rate of the schedule and the number of requests (tasks), so the
/// scaled run covers the same stretch of the schedule (its expected arrivals by any time
/// scale alike); the rate named is the schedule's peak.
pub struct SyntheticRunner;

impl Runner for SyntheticRunner {
    fn run(&self, cfg: &Config, rate_scale: f64) -> Result<Summary, String> {
        Ok(self.report(cfg, rate_scale)?.summary)
    }

    fn report(&self, cfg: &Config, rate_scale: f64) -> Result<Report, String> {
        let mut cfg = cfg.clone();
        let count = |n: u32| libm::round(n as f64 * rate_scale).clamp(1.0, u32::MAX as f64) as u32;
        match (schedule::of(&cfg).is_some(), cfg.workload) {
            (true, kind) => {
                let scaled = schedule::scaled(&cfg.request_rate_schedule, rate_scale);
                cfg.request_rate_schedule = scaled.map_err(|e| e.to_string())?;
                match kind {
                    WorkloadKind::Pool => cfg.num_requests = count(cfg.num_requests),
                    WorkloadKind::Sessions => cfg.num_sessions = count(cfg.num_sessions),
                }
            }
            (false, WorkloadKind::Pool) => cfg.request_rate *= rate_scale,
            (false, WorkloadKind::Sessions) => cfg.session_rate *= rate_scale,
        }
        Ok(run::synthetic_simulation(&cfg)?.into_report())
    }

    fn base_rate(&self, cfg: &Config) -> (f64, &'static str) {
        match (schedule::of(cfg), cfg.workload) {
            (Some(s), WorkloadKind::Pool) => (s.peak(), "req/s at peak"),
            (Some(s), WorkloadKind::Sessions) => (s.peak(), "tasks/s at peak"),
            (None, WorkloadKind::Pool) => (cfg.request_rate, "req/s"),
            (None, WorkloadKind::Sessions) => (cfg.session_rate, "tasks/s"),
        }
    }

    /// The scales that keep the rate within its parameter's limits; under a schedule, its
    /// peak within the rate's limit and the scaled count within its parameter's.
    fn scale_limits(&self, cfg: &Config) -> (f64, f64) {
        let (key, count, n) = match cfg.workload {
            WorkloadKind::Pool => ("request_rate", "num_requests", cfg.num_requests),
            WorkloadKind::Sessions => ("session_rate", "num_sessions", cfg.num_sessions),
        };
        if let Some(s) = schedule::of(cfg) {
            let (_, most) = limits(count, n as f64);
            return (0.0, most.min(schedule::MAX_RATE / s.peak()));
        }
        limits(key, self.base_rate(cfg).0)
    }
}

/// The scales of `value` that keep it within parameter `key`'s limits.
fn limits(key: &str, value: f64) -> (f64, f64) {
    let spec = crate::params::specs().into_iter().find(|s| s.name == key);
    let lo = spec.as_ref().and_then(|s| s.min).unwrap_or(0.0);
    let hi = spec.as_ref().and_then(|s| s.max).unwrap_or(f64::INFINITY);
    (lo / value, hi / value)
}

/// A parsed trace: the scale divides every arrival time (2 = twice as fast).
pub struct TraceRunner {
    /// The requests, in arrival order, at the rate given.
    pub requests: Vec<Request>,
    /// The trace's name, for error messages.
    pub name: String,
}

impl TraceRunner {
    /// The requests with their arrivals sped up `rate_scale` times (rounded to the µs).
    pub fn scaled(&self, rate_scale: f64) -> Vec<Request> {
        let mut out = self.requests.clone();
        if rate_scale != 1.0 {
            for r in &mut out {
                r.arrival_us = libm::round(r.arrival_us as f64 / rate_scale) as u64;
            }
        }
        out
    }
}

impl Runner for TraceRunner {
    fn run(&self, cfg: &Config, rate_scale: f64) -> Result<Summary, String> {
        Ok(self.report(cfg, rate_scale)?.summary)
    }

    fn report(&self, cfg: &Config, rate_scale: f64) -> Result<Report, String> {
        let requests = self.scaled(rate_scale);
        Ok(run::replay_simulation(cfg, requests, &self.name)?.into_report())
    }

    /// Requests per second between the first and the last arrival ((n - 1) / span).
    fn base_rate(&self, _cfg: &Config) -> (f64, &'static str) {
        let first = self.requests.first().map_or(0, |r| r.arrival_us);
        let last = self.requests.last().map_or(0, |r| r.arrival_us);
        let span_s = (last - first) as f64 / 1e6;
        let rate = if span_s > 0.0 {
            (self.requests.len() - 1) as f64 / span_s
        } else {
            f64::NAN
        };
        (rate, "req/s")
    }
}
