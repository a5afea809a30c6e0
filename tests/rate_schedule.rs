//! Rate schedules (`request_rate_schedule`): the grammar (good and bad), the arrivals each
//! piece draws against its integral worked by hand, a step's effect on the served-rate
//! series, session starts on the schedule, and determinism (a constant schedule is the
//! plain rate, draw for draw).

use kvfleet::config::{Config, Popularity, WorkloadKind};
use kvfleet::sessions::Sessions;
use kvfleet::workload::{Schedule, Source, Synthetic};
use serde_json::Value;

fn close(got: f64, want: f64, what: &str) {
    assert!((got - want).abs() < 1e-9, "{what}: {got} vs {want}");
}

#[test]
fn steps_ramps_and_units_parse_to_the_rates_written() {
    let s = Schedule::parse("0s:4,2m:16,300s:4").unwrap();
    for (t, r) in [
        (0.0, 4.0),
        (119.9, 4.0),
        (120.0, 16.0),
        (299.0, 16.0),
        (300.0, 4.0),
        (1e5, 4.0),
    ] {
        close(s.rate_at(t), r, &format!("step at {t}"));
    }
    // A ramp from 4 at 60 s to 16 at 120 s: 10 halfway; the last rate holds.
    let s = Schedule::parse(" 0s:4, 60s:4 ~ 120s:16 ").unwrap();
    close(s.rate_at(90.0), 10.0, "ramp midpoint");
    close(s.rate_at(500.0), 16.0, "held");
    // Units: 500 ms, 1 m, 1 h.
    let s = Schedule::parse("0ms:1,500ms:2,1m:3,1h:4").unwrap();
    close(s.rate_at(0.7), 2.0, "ms");
    close(s.rate_at(61.0), 3.0, "m");
    close(s.rate_at(3601.0), 4.0, "h");
    assert_eq!(Schedule::parse("0s:6").unwrap().constant(), Some(6.0));
    assert_eq!(Schedule::parse("0s:6,1s:6").unwrap().constant(), None);
    // daily:PEAK:PERIOD: trough PEAK / 10 at 0, the peak at half the period.
    let d = Schedule::parse("daily:10:100s").unwrap();
    close(d.rate_at(0.0), 1.0, "trough");
    close(d.rate_at(50.0), 10.0, "peak");
    close(d.rate_at(25.0), 5.5, "quarter");
    let d = Schedule::parse("daily:10:1h:0").unwrap();
    close(d.rate_at(0.0), 0.0, "explicit trough");
}

#[test]
fn bad_schedules_say_what_is_wrong_and_what_is_allowed() {
    for (text, why) in [
        (
            "4",
            "got 4 ('4' is not TIME:RATE); allowed: TIME:RATE points from 0s, times rising,",
        ),
        ("0:4", "needs a unit"),
        ("1s:4", "first point must be at 0s"),
        (
            "0s:4,60s:8,30s:2",
            "(times must increase: '30s:2' does not)",
        ),
        ("0s:4,0s:8", "times must increase"),
        ("0s:-1", "rate '-1' is outside 0 to 100000"),
        ("0s:4,60s:0", "last rate must be above 0"),
        ("0s:x", "rate 'x' is not a number"),
        ("0s:4,", "is not TIME:RATE"),
        ("0s:4~", "is not TIME:RATE"),
        ("0s:4,2000000s:1", "outside 0 to 1000000 s"),
        ("daily:10", "daily takes PEAK:PERIOD"),
        ("daily:0:60s", "PEAK > 0"),
        ("daily:10:60s:20", "TROUGH at most PEAK"),
        ("daily:10:0.5s", "PERIOD of at least 1s"),
        ("", "is not TIME:RATE"),
    ] {
        let e = Schedule::parse(text).unwrap_err();
        assert_eq!(e.field, "request_rate_schedule", "{text}");
        let msg = e.to_string();
        assert!(msg.contains(why), "{text}: {msg}");
        assert!(
            msg.contains("joined by ',' (a step) or '~' (a linear ramp)"),
            "{text}: {msg}"
        );
    }
    // What is wrong, then what is allowed, each in its place.
    assert_eq!(
        Schedule::parse("banana").unwrap_err().to_string(),
        "invalid request_rate_schedule: got banana ('banana' is not TIME:RATE); allowed: TIME:RATE points from 0s, times rising, joined by ',' (a step) or '~' (a linear ramp), e.g. 0s:4,120s:16,300s:4 or 0s:2~60s:20; or daily:PEAK:PERIOD[:TROUGH], e.g. daily:16:600s"
    );
    // Validation of a whole config refuses it under the same field.
    let cfg = Config {
        request_rate_schedule: "0s:4,60s:0".into(),
        ..Config::default()
    };
    assert_eq!(
        kvfleet::params::validate(&cfg).unwrap_err().field,
        "request_rate_schedule"
    );
}

/// Arrival times, seconds, of a synthetic run of `cfg`.
fn arrivals_s(cfg: &Config) -> Vec<f64> {
    Synthetic::new(cfg, Popularity::Uniform)
        .map(|r| r.arrival_us as f64 / 1e6)
        .collect()
}

/// Mean over seeds 1..=20 of the arrivals in each `[from, to)` of `pieces`.
fn mean_counts(schedule: &str, n: u32, pieces: &[(f64, f64)]) -> Vec<f64> {
    let seeds = 20;
    let mut sums = vec![0.0; pieces.len()];
    for seed in 1..=seeds {
        let cfg = Config {
            seed,
            num_requests: n,
            request_rate_schedule: schedule.into(),
            ..Config::default()
        };
        let times = arrivals_s(&cfg);
        assert!(
            times.windows(2).all(|w| w[0] <= w[1]),
            "seed {seed}: out of order"
        );
        for (sum, &(from, to)) in sums.iter_mut().zip(pieces) {
            *sum += times.iter().filter(|&&t| t >= from && t < to).count() as f64;
        }
    }
    sums.iter().map(|s| s / seeds as f64).collect()
}

/// Each piece's count is Poisson with the integral as its mean; the mean of 20 seeds has
/// a standard deviation of sqrt(mean / 20), and each must fall within 4 of them.
fn within_four_sigma(got: &[f64], want: &[f64]) {
    for (g, w) in got.iter().zip(want) {
        let sigma = (w / 20.0).sqrt();
        assert!((g - w).abs() < 4.0 * sigma, "got {got:?}, want {want:?}");
    }
}

#[test]
fn each_piece_draws_its_integral_worked_by_hand() {
    // 4/s for 60 s: 240. A ramp 4 -> 16 over 60 s: (4 + 16) / 2 x 60 = 600. 16/s for
    // 60 s: 960. 2/s after. 2,100 requests reach past 180 s (1,800 by then).
    let got = mean_counts(
        "0s:4,60s:4~120s:16,180s:2",
        2100,
        &[(0.0, 60.0), (60.0, 90.0), (90.0, 120.0), (120.0, 180.0)],
    );
    // Within the ramp: 60 to 90 s, 4 -> 10: (4 + 10) / 2 x 30 = 210; 90 to 120 s: 390.
    within_four_sigma(&got, &[240.0, 210.0, 390.0, 960.0]);
}

#[test]
fn the_daily_shape_draws_its_integral_worked_by_hand() {
    // daily:10:100s: hour h (every 100 / 24 s) at 1 + 4.5 (1 - cos(2 pi h / 24)), ramps
    // between. From 0 to 25 s (hours 0 to 6) the integral is the trapezoid sum
    // 100 / 24 x [(r0 + r6) / 2 + r1 + ... + r5] = 66.29; 25 to 50 s: 275 - 66.29 (the
    // half period is (10 + 1) / 2 x 50 = 275); a whole period: 550.
    let r = |h: f64| 1.0 + 4.5 * (1.0 - (std::f64::consts::PI * h / 12.0).cos());
    let quarter =
        100.0 / 24.0 * ((r(0.0) + r(6.0)) / 2.0 + (1..6).map(|h| r(h as f64)).sum::<f64>());
    assert!((quarter - 66.29).abs() < 0.01, "{quarter}");
    let s = Schedule::parse("daily:10:100s").unwrap();
    assert!((s.integral(25.0) - quarter).abs() < 1e-9);
    assert!((s.integral(100.0) - 550.0).abs() < 1e-9);
    // Two periods and a half: 2 x 550 + 275; the rate repeats.
    assert!((s.integral(250.0) - 1375.0).abs() < 1e-9);
    close(s.rate_at(225.0), s.rate_at(25.0), "a period later");
    let got = mean_counts(
        "daily:10:100s",
        600,
        &[(0.0, 25.0), (25.0, 50.0), (0.0, 100.0)],
    );
    within_four_sigma(&got, &[quarter, 275.0 - quarter, 550.0]);
}

#[test]
fn sessions_start_on_the_schedule() {
    // 0.5 tasks/s for 60 s (30), then 4/s for 60 s (240); the session rate is inert.
    let mut sums = [0.0; 2];
    for seed in 1..=20 {
        let cfg = Config {
            seed,
            workload: WorkloadKind::Sessions,
            num_sessions: 400,
            session_rate: 100.0,
            request_rate_schedule: "0s:0.5,60s:4".into(),
            ..Config::default()
        };
        let mut s = Sessions::new(&cfg);
        while let Some(r) = s.pop() {
            let t = r.arrival_us as f64 / 1e6;
            if t < 60.0 {
                sums[0] += 1.0;
            } else if t < 120.0 {
                sums[1] += 1.0;
            }
        }
    }
    within_four_sigma(&sums.map(|s| s / 20.0), &[30.0, 240.0]);
}

fn report(cfg: &Config) -> Value {
    let json = serde_json::to_string(cfg).unwrap();
    serde_json::from_str(&kvfleet::run::run_json(&json).unwrap()).unwrap()
}

/// The text report of `cfg`.
fn text(cfg: &Config) -> String {
    let report = kvfleet::run::synthetic_simulation(cfg)
        .unwrap()
        .into_report();
    kvfleet::report::text::render(&report)
}

/// The mean of `column` over the windows that end in `[from, to)`, seconds.
fn mean_between(r: &Value, column: &str, from: f64, to: f64) -> f64 {
    let s = &r["series"];
    let t = s["t_s"].as_array().unwrap();
    let xs: Vec<f64> = t
        .iter()
        .zip(s[column].as_array().unwrap())
        .filter(|(t, _)| (from..to).contains(&t.as_f64().unwrap()))
        .filter_map(|(_, x)| x.as_f64())
        .collect();
    assert!(
        xs.len() >= 5,
        "{column}: {} windows in {from}..{to}",
        xs.len()
    );
    xs.iter().sum::<f64>() / xs.len() as f64
}

#[test]
fn a_step_shows_in_the_offered_and_served_rate_series() {
    // 2/s for 60 s, then 12/s: both well within 4 replicas' capacity, so the fleet
    // serves what it is offered; 1,200 requests last about 60 + 1,080 / 12 = 150 s.
    let cfg = Config {
        num_requests: 1200,
        request_rate_schedule: "0s:2,60s:12".into(),
        ..Config::default()
    };
    let r = report(&cfg);
    for column in ["offered_rate", "served_rate"] {
        let before = mean_between(&r, column, 15.0, 58.0);
        let after = mean_between(&r, column, 75.0, 140.0);
        // Poisson counts over ~40 s at 2/s and ~65 s at 12/s: within 25% and 10%.
        assert!(
            (before / 2.0 - 1.0).abs() < 0.25,
            "{column} before: {before}"
        );
        assert!((after / 12.0 - 1.0).abs() < 0.1, "{column} after: {after}");
    }
    let s = &r["series"];
    let t: Vec<f64> = s["t_s"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    for (t, rate) in t.iter().zip(s["schedule_rate"].as_array().unwrap()) {
        let want = if *t < 60.0 { 2.0 } else { 12.0 };
        assert_eq!(rate.as_f64().unwrap(), want, "at {t} s");
    }
    // Every arrival and completion is in some window (the first, at 0 s, in the first
    // window, [0, t1]): the counts add up to the run's.
    let counted = |column: &str| -> f64 {
        (1..t.len())
            .map(|k| s[column][k].as_f64().unwrap() * (t[k] - t[k - 1]))
            .sum()
    };
    assert!((counted("offered_rate") - 1200.0).abs() < 1e-6);
    assert!((counted("served_rate") - 1200.0).abs() < 1e-6);
    // The text's table: ten rows of 15.36 s; the first row's schedule is 2/s, the fifth's
    // (61.44 to 76.80 s) 12/s.
    let text = text(&cfg);
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.contains("Over time"))
        .collect();
    assert!(rows[0].contains("rows of 15.36 s"), "{text}");
    let scheduled = |row: &str| {
        row.split_whitespace()
            .nth(4)
            .unwrap()
            .parse::<f64>()
            .unwrap()
    };
    assert_eq!(scheduled(rows[3]), 2.0, "{text}");
    assert_eq!(scheduled(rows[7]), 12.0, "{text}");
}

#[test]
fn a_constant_schedule_is_the_plain_rate_draw_for_draw() {
    let plain = Config::default();
    let constant = Config {
        request_rate_schedule: "0s:6".into(),
        ..Config::default()
    };
    let (mut a, mut b) = (report(&plain), report(&constant));
    // The config echo and the schedule's own column are the only differences.
    assert_eq!(b["config"]["request_rate_schedule"], "0s:6");
    assert!(a["series"].get("schedule_rate").is_none());
    for r in [&mut a, &mut b] {
        r.as_object_mut().unwrap().remove("config");
        r["series"].as_object_mut().unwrap().remove("schedule_rate");
    }
    assert_eq!(a, b);
}

#[test]
fn a_schedule_run_is_byte_identical_per_seed() {
    let cfg = Config {
        num_requests: 400,
        request_rate_schedule: "0s:2~30s:20,40s:5".into(),
        ..Config::default()
    };
    let run = |cfg: &Config| kvfleet::run::run_json(&serde_json::to_string(cfg).unwrap()).unwrap();
    assert_eq!(run(&cfg), run(&cfg));
    let other = Config {
        seed: 43,
        ..cfg.clone()
    };
    assert_ne!(run(&cfg), run(&other));
}

#[test]
fn a_scaled_schedule_multiplies_every_rate_worked_by_hand() {
    use kvfleet::workload::schedule::scaled;
    // Times as written; each rate x 1.5: 4 -> 6, 16 -> 24.
    assert_eq!(
        scaled(" 0s:4, 60s:4 ~ 2m:16", 1.5).unwrap(),
        "0s:6,60s:6~2m:24"
    );
    // A daily shape: the peak and the (default PEAK / 10) trough both doubled.
    assert_eq!(scaled("daily:10:100s", 2.0).unwrap(), "daily:20:100s:2");
    assert_eq!(scaled("daily:10:1h:4", 0.5).unwrap(), "daily:5:1h:2");
    // A product past the rate's limit is held at it.
    assert_eq!(
        scaled("0s:1,1s:80000", 1.25000001).unwrap(),
        "0s:1.25000001,1s:100000"
    );
    // A bad schedule is the parser's error.
    let e = scaled("0s:4,60s:0", 2.0).unwrap_err();
    assert_eq!(e.field, "request_rate_schedule");
}

/// The planner's synthetic runner scales the schedule it runs under: at scale 2 a run of
/// `0s:4,30s:16` over 300 requests is the run of `0s:8,30s:32` over 600 (the same stretch
/// of the schedule, twice the load), and the rate it names is the peak.
#[test]
fn the_planner_scales_the_whole_schedule() {
    use kvfleet::plan::{Runner, SyntheticRunner};
    let cfg = |schedule: &str, n: u32| Config {
        num_requests: n,
        request_rate_schedule: schedule.into(),
        ..Config::default()
    };
    let json = |s: kvfleet::report::Summary| serde_json::to_value(s).unwrap();
    let base = cfg("0s:4,30s:16", 300);
    let scaled = SyntheticRunner.run(&base, 2.0).unwrap();
    let by_hand = SyntheticRunner.run(&cfg("0s:8,30s:32", 600), 1.0).unwrap();
    let unscaled = SyntheticRunner.run(&base, 1.0).unwrap();
    assert_eq!(json(scaled.clone()), json(by_hand));
    assert_ne!(json(scaled), json(unscaled));
    assert_eq!(SyntheticRunner.base_rate(&base), (16.0, "req/s at peak"));
    // The highest scale keeps the peak within the rate's limit (100,000 / 16) and the
    // requests within theirs (10,000,000 / 300 is more).
    assert_eq!(SyntheticRunner.scale_limits(&base), (0.0, 6250.0));
    // 10,000,000 requests / 40,000 = 250, below 100,000 / 16.
    let many = cfg("0s:4,30s:16", 40_000);
    assert_eq!(SyntheticRunner.scale_limits(&many), (0.0, 250.0));
    let sessions = Config {
        workload: WorkloadKind::Sessions,
        ..cfg("daily:10:100s", 300)
    };
    assert_eq!(
        SyntheticRunner.base_rate(&sessions),
        (10.0, "tasks/s at peak")
    );
}

#[test]
fn a_rate_sweep_under_a_schedule_is_refused_naming_it() {
    let cfg = Config {
        request_rate_schedule: "0s:4,30s:16".into(),
        ..Config::default()
    };
    for spec in ["request_rate=2,4", "session-rate=1:3"] {
        let e = kvfleet::sweep::plan(&cfg, spec).unwrap_err();
        let name = spec.split('=').next().unwrap().replace('-', "_");
        let want = format!("{name} does nothing under request_rate_schedule \"0s:4,30s:16\"");
        assert!(e.contains(&want), "{spec}: {e}");
        assert!(e.contains("clear the schedule"), "{spec}: {e}");
    }
    // Other parameters sweep under it; the rate sweeps without one.
    assert!(kvfleet::sweep::plan(&cfg, "instances=2,4").is_ok());
    assert!(kvfleet::sweep::plan(&Config::default(), "request_rate=2,4").is_ok());
}

/// The first window spans [0, t1], so it counts the arrival at 0 s: deterministic arrivals
/// at 4/s come at 0, 0.25, 0.5, ... s, and the first window's rate is the arrivals at or
/// before t1, the one at 0 included, over t1.
#[test]
fn the_first_window_counts_the_arrival_at_zero_worked_by_hand() {
    let cfg = Config {
        num_requests: 400,
        request_rate: 4.0,
        arrival_model: kvfleet::config::ArrivalModel::Deterministic,
        ..Config::default()
    };
    let r = report(&cfg);
    let s = &r["series"];
    let t1 = s["t_s"][1].as_f64().unwrap();
    // 400 arrivals over about 100 s: the grid has coarsened from 10 ms to a power-of-two
    // multiple of it, well over 0.25 s, so the first window holds several arrivals.
    assert!(t1 >= 0.32, "{t1}");
    let by_hand = (0..400).filter(|i| *i as f64 * 0.25 <= t1).count() as f64;
    let got = s["offered_rate"][1].as_f64().unwrap();
    assert!(
        (got - by_hand / t1).abs() < 1e-9,
        "{got} vs {by_hand} / {t1}"
    );
    assert!(s["offered_rate"][0].is_null());
}
