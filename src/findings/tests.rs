//! Unit tests of each finding rule on hand-built fleets (expectations worked by hand).

use super::*;

fn rows(requests: &[u64]) -> Vec<ReplicaFacts> {
    requests
        .iter()
        .map(|&n| ReplicaFacts {
            requests: n,
            admitted: n,
            hit_rate_tokens: 0.5,
            rejected: 0,
            peak_queue: if n > 50 { 9 } else { 1 },
        })
        .collect()
}

/// A series sampled every 0.5 s over 0..=10 s with the given backlog (running) per replica.
fn series(backlog: &[fn(f64) -> u32]) -> (Series, Window) {
    let t_s: Vec<f64> = (0..=20).map(|k| k as f64 * 0.5).collect();
    let running = backlog
        .iter()
        .map(|f| t_s.iter().map(|&t| f(t)).collect())
        .collect();
    let s = Series {
        queue: vec![vec![0; t_s.len()]; backlog.len()],
        running,
        t_s,
        ..Series::default()
    };
    (
        s,
        Window {
            start_us: 0,
            end_us: 10_000_000,
        },
    )
}

#[test]
fn an_exactly_even_split_never_fires() {
    // Round robin: 16 x 125 and 4 x 50 are exactly even.
    assert_eq!(load_finding(&rows(&[125; 16])), None);
    assert_eq!(load_finding(&rows(&[50; 4])), None);
}

#[test]
fn below_the_minimum_sample_nothing_fires() {
    // Mean 6.5 requests per replica: far below 30, however skewed.
    assert_eq!(load_finding(&rows(&[20, 2, 2, 2])), None);
    let mut r = rows(&[20, 2, 2, 2]);
    r[0].hit_rate_tokens = 0.9;
    r[1].hit_rate_tokens = 0.0;
    assert_eq!(hit_finding(&r), None);
    // Round robin at 16 replicas on 200 requests: 12 or 13 each.
    let rr: Vec<u64> = (0..16).map(|i| if i < 8 { 13 } else { 12 }).collect();
    assert_eq!(load_finding(&rows(&rr)), None);
}

#[test]
fn a_hot_replica_fires_with_its_share() {
    // Mean 50, chance 3 x sqrt(50) = 21.2; 86 >= 1.5 x 50 and 86 - 50 = 36 > 21.2.
    let f = load_finding(&rows(&[86, 38, 38, 38])).expect("hot replica");
    assert_eq!(f.kind, Kind::LoadUneven);
    assert_eq!(f.replicas, vec![0]);
    assert!(
        f.text
            .contains("replica 0 received 43% of requests (86 of 200; an even share is 25%)"),
        "{}",
        f.text
    );
}

#[test]
fn a_skew_within_chance_does_not_fire() {
    // Mean 30, chance 3 x sqrt(30) = 16.4; 45 is 1.5 x the mean but only 15 above it.
    assert_eq!(load_finding(&rows(&[45, 25, 25, 25])), None);
    // Mean 40, chance 19.0; 60 is 1.5 x and 20 above: beyond chance.
    assert!(load_finding(&rows(&[60, 34, 33, 33])).is_some());
}

#[test]
fn idle_replicas_fire_when_no_replica_is_hot() {
    // Mean 33.3: the busiest (40) is under 1.5 x; replica 5 (0) is under half and 33 > 3 x 5.8.
    let f = load_finding(&rows(&[40, 40, 40, 40, 40, 0])).expect("idle replica");
    assert_eq!(f.replicas, vec![5]);
    assert!(
        f.text.starts_with("Uneven load: 1 of 6 replicas"),
        "{}",
        f.text
    );
}

#[test]
fn uneven_hit_rates_fire_only_over_sampled_replicas() {
    let mut r = rows(&[40, 40, 40]);
    r[0].hit_rate_tokens = 0.8;
    r[2].hit_rate_tokens = 0.2;
    let f = hit_finding(&r).expect("spread 0.6");
    assert_eq!((f.kind, f.replicas.clone()), (Kind::HitUneven, vec![0, 2]));
    assert!(
        f.text.contains("replica 0 serves 80%") && f.text.contains("replica 2 only 20%"),
        "{}",
        f.text
    );
    // Rates 0.5, 0.5, 0.26: spread 0.24 < 0.25, silent.
    r[0].hit_rate_tokens = 0.5;
    r[2].hit_rate_tokens = 0.26;
    assert_eq!(hit_finding(&r), None);
    // A replica with 10 admitted requests does not count, however far off its rate.
    let mut r = rows(&[40, 40, 40]);
    r[0].admitted = 10;
    r[0].hit_rate_tokens = 0.95;
    assert_eq!(hit_finding(&r), None);
}

#[test]
fn a_growing_backlog_is_overload_and_a_flat_one_is_not() {
    let (s, w) = series(&[|t| (10.0 * t) as u32, |_| 3]);
    let r = rows(&[400, 100]);
    let f = overload_finding(&r, &s, w).expect("replica 0 grows");
    assert_eq!((f.kind, f.replicas.clone()), (Kind::Overloaded, vec![0]));
    // First half t in [0, 5): mean of 0, 5, ..., 45 = 22.5; second half [5, 10]: 50..100 -> 75.
    assert!(
        f.text
            .contains("replica 0 cannot keep up (backlog grew from 22 to 75"),
        "{}",
        f.text
    );
    let (flat, w) = series(&[|_| 40, |t| 3 + (t as u32 % 2)]);
    assert_eq!(overload_finding(&r, &flat, w), None);
}

#[test]
fn every_replica_growing_is_a_fleet_overload() {
    let (s, w) = series(&[|t| (10.0 * t) as u32, |t| (8.0 * t) as u32]);
    let f = overload_finding(&rows(&[300, 300]), &s, w).expect("fleet");
    assert_eq!(f.replicas, vec![0, 1]);
    assert!(
        f.text.starts_with("Overloaded: the fleet cannot keep up"),
        "{}",
        f.text
    );
}

#[test]
fn a_full_queue_that_rejects_is_overload() {
    let (s, w) = series(&[|_| 34, |_| 2]);
    let mut r = rows(&[200, 100]);
    r[0].rejected = 10; // exactly 5% of 200
    let f = overload_finding(&r, &s, w).expect("rejections");
    assert_eq!(f.replicas, vec![0]);
    assert!(
        f.text.contains("10 requests rejected by full queues"),
        "{}",
        f.text
    );
    r[0].rejected = 9;
    assert_eq!(overload_finding(&r, &s, w), None);
}

#[test]
fn counts_of_a_thousand_or_more_are_grouped_as_the_page_prints_them() {
    // 8,600 of 20,000: the same 43% as the 86-of-200 fleet above, ten times the requests.
    let f = load_finding(&rows(&[8600, 3800, 3800, 3800])).expect("hot replica");
    assert!(
        f.text.contains("(8,600 of 20,000; an even share is 25%)"),
        "{}",
        f.text
    );
    // Backlog 1000 t: first half 2,250, second half 7,500 (the 22.5 -> 75 case above, x 100).
    let (s, w) = series(&[|t| (1000.0 * t) as u32, |_| 3]);
    let f = overload_finding(&rows(&[40_000, 10_000]), &s, w).expect("replica 0 grows");
    assert!(
        f.text.contains("backlog grew from 2,250 to 7,500 requests"),
        "{}",
        f.text
    );
    // Rounded as `{:.0}` rounds (half to even), then grouped.
    assert_eq!(
        [count(22.5), count(1584.5), count(1585.0), count(999.6)],
        ["22", "1,584", "1,585", "1,000"]
    );
}
