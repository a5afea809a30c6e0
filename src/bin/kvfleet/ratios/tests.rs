//! The ratio arithmetic on given numbers, and the CPU-time field reader on given lines.

use super::*;
use crate::bench::children_cpu_ms_of;

fn run(requests: u64, wall_ms: f64, cpu_ms: Option<f64>) -> Run {
    Run {
        requests,
        wall_ms,
        cpu_ms,
    }
}

#[test]
fn spread_takes_the_middle_value_or_the_mean_of_the_two_middle_ones() {
    assert_eq!(spread(&[]), None);
    let odd = spread(&[1.52, 1.33, 1.53]).unwrap();
    assert_eq!((odd.median, odd.min, odd.max), (1.52, 1.33, 1.53));
    let even = spread(&[4.0, 1.0, 3.0, 2.0]).unwrap();
    assert_eq!((even.median, even.min, even.max), (2.5, 1.0, 4.0));
    let one = spread(&[7.25]).unwrap();
    assert_eq!((one.median, one.min, one.max), (7.25, 7.25, 7.25));
}

#[test]
fn replica_ratio_is_per_request() {
    // 3,000 ms for 1,000 requests against 2,000 ms for 500: 3.0 against 4.0 ms each.
    let (wall, cpu) = per_request_ratio(
        run(1_000, 3_000.0, Some(2_900.0)),
        run(500, 2_000.0, Some(1_000.0)),
    );
    assert_eq!(wall, 0.75);
    assert_eq!(cpu, Some(1.45));
    let (_, cpu) = per_request_ratio(run(1, 1.0, None), run(1, 1.0, Some(1.0)));
    assert_eq!(cpu, None);
    // A CPU time under the clock's tick reads 0: no ratio rather than NaN or infinity.
    let (_, cpu) = per_request_ratio(run(1, 1.0, Some(10.0)), run(1, 1.0, Some(0.0)));
    assert_eq!(cpu, None);
    let (_, cpu) = per_request_ratio(run(1, 1.0, Some(0.0)), run(1, 1.0, Some(0.0)));
    assert_eq!(cpu, None);
}

#[test]
fn request_ratio_divides_by_the_mean_of_its_neighbours() {
    // The example of the README: 40,686 ms between 3,774 and 3,125 ms.
    let (wall, cpu) = bracketed_ratio(
        run(1, 3_774.0, Some(3_000.0)),
        run(10, 40_686.0, Some(35_000.0)),
        run(1, 3_125.0, Some(4_000.0)),
    );
    assert_eq!(wall, 40_686.0 / 3_449.5);
    assert_eq!(cpu, Some(10.0));
    let (_, cpu) = bracketed_ratio(
        run(1, 1.0, Some(1.0)),
        run(1, 1.0, Some(1.0)),
        run(1, 1.0, None),
    );
    assert_eq!(cpu, None);
    let (_, cpu) = bracketed_ratio(
        run(1, 1.0, Some(0.0)),
        run(1, 1.0, Some(10.0)),
        run(1, 1.0, Some(0.0)),
    );
    assert_eq!(cpu, None);
}

#[test]
fn pairs_alternate_which_side_runs_first() {
    let order: Vec<bool> = (0..4).map(sixteen_first).collect();
    assert_eq!(order, [true, false, true, false]);
}

#[test]
fn summary_prints_median_and_spread_of_both_ratios() {
    assert_eq!(
        summary("64/16", &[1.5, 1.25, 1.0], &[1.125, 1.0]),
        "64/16 wall ratio: median 1.250x (min 1.000x, max 1.500x); \
         CPU ratio: median 1.062x (min 1.000x, max 1.125x)\n"
    );
    assert_eq!(
        summary("x", &[2.0], &[]),
        "x wall ratio: median 2.000x (min 2.000x, max 2.000x); CPU ratio: -\n"
    );
}

#[test]
fn children_cpu_time_is_read_after_the_command_name() {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
    // utime stime cutime cstime ...; the name holds a space and a ')'.
    let line = "4242 (kv fl)eet) S 1 4242 4242 0 -1 4194304 100 200 0 0 7 3 250 41 20 0 1 0";
    assert_eq!(children_cpu_ms_of(line), Some(2_910.0));
    assert_eq!(children_cpu_ms_of("4242 (kvfleet) S 1 2"), None);
    assert_eq!(children_cpu_ms_of("no name here"), None);
}

#[test]
fn a_block_of_runs_is_their_mean_and_has_a_cpu_time_only_if_each_run_has() {
    let m = mean_run(&[
        run(7, 3_000.0, Some(2_000.0)),
        run(7, 4_000.0, Some(2_600.0)),
        run(7, 5_500.0, Some(4_000.0)),
    ]);
    assert_eq!(m, run(7, 4_166.666666666667, Some(2_866.6666666666665)));
    let one = mean_run(&[run(3, 12.5, None)]);
    assert_eq!(one, run(3, 12.5, None));
    let m = mean_run(&[run(1, 1.0, Some(1.0)), run(1, 3.0, None)]);
    assert_eq!((m.wall_ms, m.cpu_ms), (2.0, None));
}
