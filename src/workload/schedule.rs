//! Rate schedules (`request_rate_schedule`): an offered rate that changes over time, as
//! points joined by steps or linear ramps, or a daily shape compressed into a period; and
//! the arrival clock that draws arrivals under one exactly, by inverting the integrated
//! rate (a time change: unit-rate gaps in "expected arrivals", mapped back to seconds).
//!
//! Grammar: `TIME:RATE` points, the first at `0s`, times increasing, each followed by `,`
//! (a step: the rate holds until the next point) or `~` (a ramp: the rate moves linearly
//! to the next point's). The last rate holds for ever. TIME is a number with a unit `ms`,
//! `s`, `m` or `h`; RATE is per second, 0 to 100,000, the last one above 0.
//! `daily:PEAK:PERIOD[:TROUGH]` is a day compressed into PERIOD and repeated: 24 hourly
//! points, hour h at `h × PERIOD / 24` with rate
//! `TROUGH + (PEAK - TROUGH) × (1 - cos(2π h / 24)) / 2` (TROUGH PEAK / 10 by default: the
//! trough at hour 0, the peak at hour 12), joined by linear ramps. Its mean over a period
//! is exactly (PEAK + TROUGH) / 2 (the cosines of 24 even hours sum to 0), and it inverts
//! in closed form like any ramp.

use crate::config::{Config, ConfigError};

use super::Arrivals;

const FIELD: &str = "request_rate_schedule";
const GRAMMAR: &str = "TIME:RATE points from 0s, times rising, joined by ',' (a step) or '~' (a linear ramp), e.g. 0s:4,120s:16,300s:4 or 0s:2~60s:20; or daily:PEAK:PERIOD[:TROUGH], e.g. daily:16:600s";
/// Most points a schedule may have.
pub const MAX_POINTS: usize = 1000;
/// Latest point, and longest daily period, seconds (about 11.6 days).
pub const MAX_TIME_S: f64 = 1e6;
/// Highest rate, per second (the request rate's own limit).
pub const MAX_RATE: f64 = 100_000.0;
/// Points of the daily shape per period (hours of the day).
const DAILY_POINTS: usize = 24;

/// A parsed rate schedule: points joined by steps or ramps, the last rate held, or (a
/// daily shape) repeated every period.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    /// Point times, seconds, increasing from 0.
    times_s: Vec<f64>,
    /// The rate at each point, per second.
    rates: Vec<f64>,
    /// Whether the piece after point i ramps (false: a step).
    ramp: Vec<bool>,
    /// The points repeat every this many seconds (the daily shape), or never (infinite).
    period_s: f64,
}

/// The error for `value`: what is wrong, then the grammar.
fn bad(value: &str, why: &str) -> ConfigError {
    ConfigError::because(FIELD, value, why, GRAMMAR)
}

fn number(text: &str, value: &str, what: &str) -> Result<f64, ConfigError> {
    // Read as `str::parse` would, through the reader the wasm build already carries.
    crate::decimal::finite_f64(text.trim())
        .ok_or_else(|| bad(value, &format!("{what} '{text}' is not a number")))
}

/// A time with its unit (`ms`, `s`, `m`, `h`), in seconds.
fn time_s(text: &str, value: &str) -> Result<f64, ConfigError> {
    let t = text.trim();
    let scale = match t.as_bytes().last() {
        Some(b's') if t.ends_with("ms") => 1e-3,
        Some(b's') => 1.0,
        Some(b'm') => 60.0,
        Some(b'h') => 3600.0,
        _ => {
            return Err(bad(
                value,
                &format!("time '{t}' needs a unit: ms, s, m or h"),
            ))
        }
    };
    let digits = &t[..t.len() - if scale == 1e-3 { 2 } else { 1 }];
    let x = number(digits, value, "time")? * scale;
    if !(0.0..=MAX_TIME_S).contains(&x) {
        return Err(bad(value, &format!("time '{t}' is outside 0 to 1000000 s")));
    }
    Ok(x)
}

fn rate(text: &str, value: &str) -> Result<f64, ConfigError> {
    let x = number(text, value, "rate")?;
    if !(0.0..=MAX_RATE).contains(&x) {
        let t = text.trim();
        return Err(bad(
            value,
            &format!("rate '{t}' is outside 0 to 100000 per second"),
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

    /// `PEAK:PERIOD[:TROUGH]`: the cosine's value at each of 24 hours of the period,
    /// joined by ramps, repeated.
    fn parse_daily(rest: &str, value: &str) -> Result<Schedule, ConfigError> {
        let mut parts = rest.split(':');
        let (Some(peak), Some(period), trough, None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad(value, "daily takes PEAK:PERIOD or PEAK:PERIOD:TROUGH"));
        };
        let peak = rate(peak, value)?;
        let period_s = time_s(period, value)?;
        let trough = match trough {
            Some(t) => rate(t, value)?,
            None => peak / 10.0,
        };
        if peak <= 0.0 || trough > peak {
            return Err(bad(value, "daily needs PEAK > 0 and TROUGH at most PEAK"));
        }
        if period_s < 1.0 {
            return Err(bad(value, "daily needs a PERIOD of at least 1s"));
        }
        let hours = 0..=DAILY_POINTS;
        let swing = |h: usize| (1.0 - cos_hour(h)) / 2.0;
        Ok(Schedule {
            times_s: hours
                .clone()
                .map(|h| period_s * h as f64 / DAILY_POINTS as f64)
                .collect(),
            rates: hours
                .clone()
                .map(|h| trough + (peak - trough) * swing(h))
                .collect(),
            ramp: hours.map(|_| true).collect(),
            period_s,
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
            let point = rest[..end].trim();
            let (t, r) = point
                .split_once(':')
                .ok_or_else(|| bad(value, &format!("'{point}' is not TIME:RATE")))?;
            let (t, r) = (time_s(t, value)?, rate(r, value)?);
            if times_s.is_empty() && t != 0.0 {
                return Err(bad(value, "the first point must be at 0s"));
            }
            if times_s.last().is_some_and(|&last| t <= last) {
                return Err(bad(
                    value,
                    &format!("times must increase: '{point}' does not"),
                ));
            }
            times_s.push(t);
            rates.push(r);
            if times_s.len() > MAX_POINTS {
                return Err(bad(value, "at most 1000 points"));
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
                "the last rate must be above 0, as it holds for ever",
            ));
        }
        ramp.push(false);
        Ok(Schedule {
            times_s,
            rates,
            ramp,
            period_s: f64::INFINITY,
        })
    }

    /// The rate of a schedule with one point, if that is what it is.
    pub fn constant(&self) -> Option<f64> {
        (self.rates.len() == 1).then(|| self.rates[0])
    }

    /// The highest rate the schedule reaches, per second.
    pub fn peak(&self) -> f64 {
        self.rates.iter().fold(0.0, |m, &r| m.max(r))
    }

    /// Whole periods before `t_s` (0 for a schedule that does not repeat).
    fn periods(&self, t_s: f64) -> f64 {
        libm::floor(t_s / self.period_s)
    }

    /// The rate at `t_s` seconds, per second.
    pub fn rate_at(&self, t_s: f64) -> f64 {
        let t_s = t_s - self.periods(t_s) * self.period_s.min(f64::MAX);
        let i = self.times_s.partition_point(|&t| t <= t_s).max(1) - 1;
        let (r, slope, _) = self.piece(i);
        r + slope * (t_s - self.times_s[i])
    }

    /// When the piece holding `t_s` began, seconds: the last point at or before it (a
    /// step's or a ramp's start), in `t_s`'s period for a daily shape.
    pub fn piece_start_s(&self, t_s: f64) -> f64 {
        let base = self.periods(t_s) * self.period_s.min(f64::MAX);
        let i = self.times_s.partition_point(|&t| t <= t_s - base).max(1) - 1;
        base + self.times_s[i]
    }

    /// Piece i: its start rate, slope (per s²) and length (s; infinite for the last).
    fn piece(&self, i: usize) -> (f64, f64, f64) {
        let Some(&next_s) = self.times_s.get(i + 1) else {
            return (self.rates[i], 0.0, f64::INFINITY);
        };
        let len = next_s - self.times_s[i];
        let slope = if self.ramp[i] {
            (self.rates[i + 1] - self.rates[i]) / len
        } else {
            0.0
        };
        (self.rates[i], slope, len)
    }

    /// The expected arrivals from 0 to `t_s`: the integral of the rate.
    pub fn integral(&self, t_s: f64) -> f64 {
        let whole = self.periods(t_s);
        if whole > 0.0 {
            let p = self.period_s;
            return whole * self.integral_within(p) + self.integral_within(t_s - whole * p);
        }
        self.integral_within(t_s)
    }

    fn integral_within(&self, t_s: f64) -> f64 {
        let mut total = 0.0;
        for (i, &start) in self.times_s.iter().enumerate() {
            if start >= t_s {
                break;
            }
            let (r, slope, len) = self.piece(i);
            let x = (t_s - start).min(len);
            total += r * x + slope * x * x / 2.0;
        }
        total
    }

    /// The earliest time, seconds, by which `u` arrivals are expected (the inverse of
    /// `integral`; a stretch at rate 0 is skipped).
    pub fn inverse(&self, u: f64) -> f64 {
        let u = u.max(0.0);
        if self.period_s.is_finite() {
            let per_period = self.integral_within(self.period_s);
            let whole = libm::floor(u / per_period);
            return whole * self.period_s + self.inverse_within(u - whole * per_period);
        }
        self.inverse_within(u)
    }

    fn inverse_within(&self, mut left: f64) -> f64 {
        for (i, &start) in self.times_s.iter().enumerate() {
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

/// cos(2π h / 24), from the exact values of 0° to 90° in steps of 15° (a table: `libm::cos`
/// here would stop the wasm build inlining it where the gamma draw needs it).
fn cos_hour(h: usize) -> f64 {
    const QUARTER: [f64; 7] = [
        1.0,
        0.965_925_826_289_068_3,
        0.866_025_403_784_438_6,
        std::f64::consts::FRAC_1_SQRT_2,
        0.5,
        0.258_819_045_102_520_76,
        0.0,
    ];
    match h % 24 {
        h @ 0..=6 => QUARTER[h],
        h @ 7..=12 => -QUARTER[12 - h],
        h @ 13..=18 => -QUARTER[h - 12],
        h => QUARTER[24 - h],
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

/// The schedule a config runs under: `None` when it sets none, or a single constant
/// point (the plain arrival process at that rate, drawn as without a schedule).
pub fn of(cfg: &Config) -> Option<Schedule> {
    if cfg.request_rate_schedule.trim().is_empty() {
        return None;
    }
    Schedule::parse(&cfg.request_rate_schedule).ok()
}

/// The schedule `text` with every rate multiplied by `factor`, times as written: the
/// planner's rate scale applied to a schedule (its shape kept). A daily shape's peak and
/// trough are both multiplied, the default trough written out. A product is capped at
/// `MAX_RATE` (the planner's highest scale is `MAX_RATE / peak`, which rounding can pass).
pub fn scaled(text: &str, factor: f64) -> Result<String, ConfigError> {
    Schedule::parse(text)?;
    let rate_of = |r: &str| crate::decimal::finite_f64(r.trim()).unwrap_or(0.0);
    let times = |r: f64| number_text((r * factor).min(MAX_RATE));
    let mut out = String::new();
    if let Some(rest) = text.trim().strip_prefix("daily:") {
        let mut parts = rest.split(':');
        let peak = parts.next().map_or(0.0, rate_of);
        let period = parts.next().unwrap_or("").trim();
        let trough = parts.next().map_or(peak / 10.0, rate_of);
        for piece in ["daily:", &times(peak), ":", period, ":", &times(trough)] {
            out.push_str(piece);
        }
        return Ok(out);
    }
    let mut rest = text.trim();
    loop {
        let end = rest
            .bytes()
            .position(|b| b == b',' || b == b'~')
            .unwrap_or(rest.len());
        let (t, r) = rest[..end].split_once(':').unwrap_or(("", ""));
        out.push_str(t.trim());
        out.push(':');
        out.push_str(&times(rate_of(r)));
        let Some(sep) = rest.get(end..end + 1) else {
            return Ok(out);
        };
        out.push_str(sep);
        rest = &rest[end + 1..];
    }
}

/// `x` as the shortest text that reads back to it (`8` for 8.0; core's float writer, which
/// the wasm already carries for the reports' text).
fn number_text(x: f64) -> String {
    format!("{x}")
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
    fn the_hours_cosines_are_libms() {
        for h in 0..=24 {
            let want = libm::cos(2.0 * std::f64::consts::PI * h as f64 / 24.0);
            assert!((cos_hour(h) - want).abs() < 1e-15, "{h}");
        }
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
