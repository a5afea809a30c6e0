//! Rate schedules (`request_rate_schedule`): an offered rate that changes over time, as
//! points joined by steps or linear ramps, or a daily shape compressed into a period; and
//! the arrival clock that draws arrivals under one exactly, by inverting the integrated
//! rate (a time change: unit-rate gaps in "expected arrivals", mapped back to seconds).
//!
//! Grammar: `TIME:RATE` points, the first at `0s`, times increasing, each followed by `,`
//! (a step: the rate holds until the next point) or `~` (a ramp: the rate moves linearly
//! to the next point's). The last rate holds for ever. TIME is a number with a unit `ms`,
//! `s`, `m` or `h`; RATE is per second, 0 to 100,000, the last one above 0.
//! `daily:PEAK:PERIOD[:TROUGH]` is a day compressed into PERIOD:
//! `rate(t) = TROUGH + (PEAK - TROUGH) × (1 - cos(2π t / PERIOD)) / 2`, TROUGH PEAK / 10
//! by default: the trough at 0, the peak at PERIOD / 2.

use crate::config::{Config, ConfigError};

use super::Arrivals;

const FIELD: &str = "request_rate_schedule";
const GRAMMAR: &str = "TIME:RATE points from 0s, joined by ',' (a step) or '~' (a linear ramp), e.g. 0s:4,120s:16,300s:4 or 0s:2~60s:20; or daily:PEAK:PERIOD[:TROUGH], e.g. daily:16:600s";
/// Most points a schedule may have.
pub const MAX_POINTS: usize = 1000;
/// Latest point, and longest daily period, seconds (about 11.6 days).
pub const MAX_TIME_S: f64 = 1e6;
/// Highest rate, per second (the request rate's own limit).
pub const MAX_RATE: f64 = 100_000.0;
const TAU: f64 = 2.0 * std::f64::consts::PI;

/// A parsed rate schedule.
#[derive(Clone, Debug, PartialEq)]
pub enum Schedule {
    /// Points `(time_s, rate)`; `ramp[i]` joins point i to point i + 1 linearly.
    Points {
        /// Point times, seconds, increasing from 0.
        times_s: Vec<f64>,
        /// The rate at each point, per second.
        rates: Vec<f64>,
        /// Whether the piece after point i ramps (false: a step).
        ramp: Vec<bool>,
    },
    /// A smooth day compressed into `period_s`.
    Daily {
        /// Highest rate, at half the period, per second.
        peak: f64,
        /// The period, seconds.
        period_s: f64,
        /// Lowest rate, at 0 and each whole period, per second.
        trough: f64,
    },
}

/// The error for `value`: why, in parts (joined without the formatting machinery, which
/// the wasm build would pay for at each call), then the grammar.
fn bad(value: &str, why: &[&str]) -> ConfigError {
    let mut allowed = why.concat();
    allowed.push_str("; a schedule is ");
    allowed.push_str(GRAMMAR);
    ConfigError::new(FIELD, value, allowed)
}

fn number(text: &str, value: &str, what: &str) -> Result<f64, ConfigError> {
    // Read as `str::parse` would, through the reader the wasm build already carries.
    crate::decimal::finite_f64(text.trim())
        .ok_or_else(|| bad(value, &[what, " '", text, "' is not a number"]))
}

/// A time with its unit (`ms`, `s`, `m`, `h`), in seconds.
fn time_s(text: &str, value: &str) -> Result<f64, ConfigError> {
    let t = text.trim();
    let (digits, scale) = [("ms", 1e-3), ("s", 1.0), ("m", 60.0), ("h", 3600.0)]
        .into_iter()
        .find_map(|(unit, scale)| t.strip_suffix(unit).map(|d| (d, scale)))
        .ok_or_else(|| bad(value, &["time '", t, "' needs a unit: ms, s, m or h"]))?;
    let x = number(digits, value, "time")? * scale;
    if !(0.0..=MAX_TIME_S).contains(&x) {
        return Err(bad(value, &["time '", t, "' is outside 0 to 1000000 s"]));
    }
    Ok(x)
}

fn rate(text: &str, value: &str) -> Result<f64, ConfigError> {
    let x = number(text, value, "rate")?;
    if !(0.0..=MAX_RATE).contains(&x) {
        return Err(bad(
            value,
            &["rate '", text.trim(), "' is outside 0 to 100000 per second"],
        ));
    }
    Ok(x)
}

impl Schedule {
    /// Parses a schedule (see the module's grammar).
    pub fn parse(text: &str) -> Result<Schedule, ConfigError> {
        match text.trim().strip_prefix("daily:") {
            Some(rest) => Schedule::parse_daily(rest, text),
            None => Schedule::parse_points(text),
        }
    }

    fn parse_daily(rest: &str, value: &str) -> Result<Schedule, ConfigError> {
        let parts: Vec<&str> = rest.split(':').collect();
        if !(2..=3).contains(&parts.len()) {
            return Err(bad(
                value,
                &["daily takes PEAK:PERIOD or PEAK:PERIOD:TROUGH"],
            ));
        }
        let peak = rate(parts[0], value)?;
        let period_s = time_s(parts[1], value)?;
        let trough = match parts.get(2) {
            Some(t) => rate(t, value)?,
            None => peak / 10.0,
        };
        if peak <= 0.0 || trough > peak {
            return Err(bad(
                value,
                &["daily needs PEAK > 0 and TROUGH at most PEAK"],
            ));
        }
        if period_s < 1.0 {
            return Err(bad(value, &["daily needs a PERIOD of at least 1s"]));
        }
        Ok(Schedule::Daily {
            peak,
            period_s,
            trough,
        })
    }

    fn parse_points(value: &str) -> Result<Schedule, ConfigError> {
        let (mut times_s, mut rates, mut ramp) = (Vec::new(), Vec::new(), Vec::new());
        let mut rest = value.trim();
        loop {
            let end = rest
                .bytes()
                .position(|b| b == b',' || b == b'~')
                .unwrap_or(rest.len());
            let point = &rest[..end];
            let (t, r) = point
                .split_once(':')
                .ok_or_else(|| bad(value, &["point '", point.trim(), "' is not TIME:RATE"]))?;
            let (t, r) = (time_s(t, value)?, rate(r, value)?);
            if times_s.is_empty() && t != 0.0 {
                return Err(bad(value, &["the first point must be at 0s"]));
            }
            if times_s.last().is_some_and(|&last| t <= last) {
                return Err(bad(
                    value,
                    &["times must increase ('", point.trim(), "' does not)"],
                ));
            }
            times_s.push(t);
            rates.push(r);
            if times_s.len() > MAX_POINTS {
                return Err(bad(value, &["at most 1000 points"]));
            }
            let Some(&sep) = rest.as_bytes().get(end) else {
                break;
            };
            ramp.push(sep == b'~');
            rest = &rest[end + 1..];
        }
        if rates.last().is_some_and(|&r| r <= 0.0) {
            return Err(bad(
                value,
                &["the last rate must be above 0 (it holds for ever)"],
            ));
        }
        ramp.push(false);
        Ok(Schedule::Points {
            times_s,
            rates,
            ramp,
        })
    }

    /// The rate of a schedule with one point, if that is what it is.
    pub fn constant(&self) -> Option<f64> {
        match self {
            Schedule::Points { rates, .. } if rates.len() == 1 => Some(rates[0]),
            _ => None,
        }
    }

    /// The rate at `t_s` seconds, per second.
    pub fn rate_at(&self, t_s: f64) -> f64 {
        match self {
            Schedule::Daily {
                peak,
                period_s,
                trough,
            } => trough + (peak - trough) * (1.0 - libm::cos(TAU * t_s / period_s)) / 2.0,
            Schedule::Points { times_s, .. } => {
                let i = times_s.partition_point(|&t| t <= t_s).max(1) - 1;
                let (r, slope, _) = self.piece(i);
                r + slope * (t_s - times_s[i])
            }
        }
    }

    /// Piece i of a points schedule: its start rate, slope (per s²) and length (s;
    /// infinite for the last).
    fn piece(&self, i: usize) -> (f64, f64, f64) {
        let Schedule::Points {
            times_s,
            rates,
            ramp,
        } = self
        else {
            unreachable!("pieces are of a points schedule")
        };
        let Some(&next_s) = times_s.get(i + 1) else {
            return (rates[i], 0.0, f64::INFINITY);
        };
        let len = next_s - times_s[i];
        let slope = if ramp[i] {
            (rates[i + 1] - rates[i]) / len
        } else {
            0.0
        };
        (rates[i], slope, len)
    }

    /// The expected arrivals from 0 to `t_s`: the integral of the rate.
    pub fn integral(&self, t_s: f64) -> f64 {
        match *self {
            Schedule::Daily {
                peak,
                period_s,
                trough,
            } => daily_integral(peak, trough, period_s, t_s),
            Schedule::Points { ref times_s, .. } => {
                let mut total = 0.0;
                for (i, &start) in times_s.iter().enumerate() {
                    if start >= t_s {
                        break;
                    }
                    let (r, slope, len) = self.piece(i);
                    let x = (t_s - start).min(len);
                    total += r * x + slope * x * x / 2.0;
                }
                total
            }
        }
    }

    /// The earliest time, seconds, by which `u` arrivals are expected (the inverse of
    /// `integral`; a stretch at rate 0 is skipped).
    pub fn inverse(&self, u: f64) -> f64 {
        match *self {
            Schedule::Daily {
                peak,
                period_s,
                trough,
            } => daily_inverse(peak, trough, period_s, u),
            Schedule::Points { ref times_s, .. } => {
                let mut left = u.max(0.0);
                for (i, &start) in times_s.iter().enumerate() {
                    let (r, slope, len) = self.piece(i);
                    let mass = r * len + slope * len * len / 2.0;
                    if left < mass || len.is_infinite() {
                        return start + within(r, slope, left).min(len);
                    }
                    left -= mass;
                }
                unreachable!("the last piece is unbounded")
            }
        }
    }
}

/// The x >= 0 with r x + slope x² / 2 = v (the rate r + slope x stays >= 0 up to it), in
/// the form that does not cancel when slope is small.
fn within(r: f64, slope: f64, v: f64) -> f64 {
    if v <= 0.0 {
        return 0.0;
    }
    let root = libm::sqrt((r * r + 2.0 * slope * v).max(0.0));
    2.0 * v / (r + root)
}

fn daily_integral(peak: f64, trough: f64, period_s: f64, t_s: f64) -> f64 {
    let mean = (peak + trough) / 2.0;
    let swing = (peak - trough) / 2.0;
    mean * t_s - swing * period_s / TAU * libm::sin(TAU * t_s / period_s)
}

/// Inverts the daily integral: whole periods first, then Newton's method kept inside a
/// shrinking bracket (bisection when a step leaves it).
fn daily_inverse(peak: f64, trough: f64, period_s: f64, u: f64) -> f64 {
    let per_period = (peak + trough) / 2.0 * period_s;
    let whole = libm::floor(u.max(0.0) / per_period);
    let v = u.max(0.0) - whole * per_period;
    let f = |t: f64| daily_integral(peak, trough, period_s, t) - v;
    let (mut lo, mut hi) = (0.0, period_s);
    let mut t = v / per_period * period_s;
    for _ in 0..100 {
        let y = f(t);
        if hi - lo < 1e-9 || y.abs() < 1e-12 * per_period.max(1.0) {
            break;
        }
        if y > 0.0 {
            hi = t;
        } else {
            lo = t;
        }
        let rate = trough + (peak - trough) * (1.0 - libm::cos(TAU * t / period_s)) / 2.0;
        let next = if rate > 0.0 { t - y / rate } else { f64::NAN };
        t = if next > lo && next < hi {
            next
        } else {
            (lo + hi) / 2.0
        };
    }
    whole * period_s + t
}

/// The schedule a config runs under: `None` when it sets none, or a single constant
/// point (the plain arrival process at that rate, drawn as without a schedule).
pub fn of(cfg: &Config) -> Option<Schedule> {
    if cfg.request_rate_schedule.trim().is_empty() {
        return None;
    }
    Schedule::parse(&cfg.request_rate_schedule).ok()
}

/// Arrival times under a rate and an optional schedule, from the config's seeded arrival
/// stream. Without a schedule (or with a constant one) the gaps are the arrival model's at
/// that rate, as they always were; with one, the model's gaps at rate 1 are steps of the
/// integrated rate, and each arrival is at the time that integral reaches.
pub struct Clock {
    arrivals: Arrivals,
    schedule: Option<Schedule>,
    /// Microseconds (no schedule) or expected arrivals (a schedule) so far.
    acc: f64,
    started: bool,
    last_us: u64,
}

impl Clock {
    /// A clock at `rate` per second, or on the config's schedule when it has one.
    pub fn new(cfg: &Config, rate: f64) -> Clock {
        let schedule = of(cfg);
        let (rate, schedule) = match schedule.as_ref().and_then(Schedule::constant) {
            Some(r) => (r, None),
            None => (if schedule.is_some() { 1.0 } else { rate }, schedule),
        };
        Clock {
            arrivals: Arrivals::new(cfg, rate),
            schedule,
            acc: 0.0,
            started: false,
            last_us: 0,
        }
    }

    /// The next arrival, µs (the first at the start of the schedule's first positive
    /// rate; at 0 without one).
    pub fn next_us(&mut self) -> u64 {
        if self.started {
            let gap = self.arrivals.gap_us();
            self.acc += if self.schedule.is_some() {
                gap / 1e6
            } else {
                gap
            };
        }
        self.started = true;
        let t = match &self.schedule {
            None => libm::round(self.acc) as u64,
            Some(s) => libm::round(s.inverse(self.acc) * 1e6) as u64,
        };
        self.last_us = self.last_us.max(t);
        self.last_us
    }

    /// The latest the `n`-th arrival can come, µs (for the run's worst-case duration).
    pub fn max_span_us(&self, n: f64) -> f64 {
        let gaps = (n - 1.0).max(0.0) * self.arrivals.max_gap_us();
        match &self.schedule {
            None => gaps,
            Some(s) => s.inverse(gaps / 1e6) * 1e6,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_and_a_ramp_integrate_by_hand() {
        // 4/s for 60 s (240), a ramp 4 -> 16 over 60 s (600), then 16/s.
        let s = Schedule::parse("0s:4,60s:4~2m:16").unwrap();
        assert_eq!(s.integral(60.0), 240.0);
        assert_eq!(s.integral(120.0), 840.0);
        assert_eq!(s.integral(130.0), 1000.0);
        assert_eq!(s.rate_at(90.0), 10.0);
        for u in [0.0, 100.0, 240.0, 500.0, 840.0, 1000.0] {
            let t = s.inverse(u);
            assert!((s.integral(t) - u).abs() < 1e-9, "{u}: {t}");
        }
    }

    #[test]
    fn a_stretch_at_rate_zero_is_skipped() {
        let s = Schedule::parse("0s:0,10s:2").unwrap();
        assert_eq!(s.inverse(0.0), 10.0);
        assert_eq!(s.inverse(4.0), 12.0);
    }

    #[test]
    fn the_daily_inverse_undoes_its_integral() {
        let s = Schedule::parse("daily:10:100s").unwrap();
        for u in [0.0, 1.0, 50.0, 275.0, 550.0, 1234.5] {
            let t = s.inverse(u);
            assert!((s.integral(t) - u).abs() < 1e-6, "{u}: {t}");
        }
    }
}
