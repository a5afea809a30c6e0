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
            from_first_admission: false,
            after_change: false,
            settle_us: 0,
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
    assert_eq!(f.kind, FindingKind::LoadUneven);
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
    assert_eq!(
        (f.kind, f.replicas.clone()),
        (FindingKind::HitUneven, vec![0, 2])
    );
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
    assert_eq!(
        (f.kind, f.replicas.clone()),
        (FindingKind::Overloaded, vec![0])
    );
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

/// The finding's text, or "" when none fired.
fn text(f: Option<Finding>) -> String {
    f.map(|f| f.text).unwrap_or_default()
}

#[test]
fn the_load_rule_holds_at_its_exact_thresholds() {
    // Two replicas are a fleet: mean 60, chance 3 x sqrt(60) = 23.2; 100 >= 90, 40 above.
    assert!(load_finding(&rows(&[100, 20])).is_some());
    // A mean of exactly 30 is a sample: chance 16.4; 60 >= 45 and 30 above.
    assert!(load_finding(&rows(&[60, 10, 10, 40])).is_some());
    // Exactly 1.5 x the mean fires (mean 64, chance 24; 96 is 32 above).
    assert!(load_finding(&rows(&[96, 56, 56, 48])).is_some());
    // Mean 36, chance exactly 18: 54 is 1.5 x the mean but only 18 above, not beyond chance;
    // 18 is half the mean but also only 18 below.
    assert_eq!(load_finding(&rows(&[54, 30, 30, 30])), None);
    assert_eq!(load_finding(&rows(&[42, 42, 42, 18])), None);
    // Beyond chance is not enough on a big fleet: mean 1,000, chance 94.9; 1,150 is 150 above
    // but under 1.5 x, and 800 is 200 below but over half.
    assert_eq!(load_finding(&rows(&[1150, 950, 950, 950])), None);
    assert_eq!(load_finding(&rows(&[1050, 1050, 1100, 800])), None);
    // An idle replica that still got some: mean 100, chance 30; 40 is under half, 60 below.
    let f = load_finding(&rows(&[120, 120, 120, 40])).expect("idle replica");
    assert_eq!(f.replicas, vec![3]);
    assert!(f.text.contains("(the least, 40)"), "{}", f.text);
}

#[test]
fn the_busiest_replicas_queue_is_named_only_when_it_stands_out() {
    let fleet = |own: u32, others: u32| {
        let mut r = rows(&[86, 38, 38, 38]);
        r[0].peak_queue = own;
        for x in &mut r[1..] {
            x.peak_queue = others;
        }
        r[2].peak_queue = others.saturating_sub(1); // the others' most is replica 1's and 3's
        text(load_finding(&r))
    };
    let clause = |own: u32, others: u32| {
        format!(
            "; its queue peaked at {own} waiting, against at most {others} on any other replica."
        )
    };
    // 5 or more, and twice the others' or more: named.
    assert!(fleet(9, 1).ends_with(&clause(9, 1)), "{}", fleet(9, 1));
    assert!(fleet(5, 2).ends_with(&clause(5, 2)), "{}", fleet(5, 2));
    assert!(fleet(6, 3).ends_with(&clause(6, 3)), "{}", fleet(6, 3));
    // Under 5, or under twice the others': not named.
    for (own, others) in [(4, 0), (6, 4), (8, 5)] {
        let t = fleet(own, others);
        assert!(
            t.ends_with("an even share is 25%)."),
            "{own} vs {others}: {t}"
        );
    }
}

#[test]
fn the_hit_rule_holds_at_its_exact_thresholds() {
    let fleet = |requests: &[u64], rates: &[f64]| {
        let mut r = rows(requests);
        for (x, &h) in r.iter_mut().zip(rates) {
            x.hit_rate_tokens = h;
        }
        hit_finding(&r)
    };
    // Two replicas are a fleet; a mean of exactly 30 is a sample.
    assert!(fleet(&[40, 40], &[0.8, 0.2]).is_some());
    assert!(fleet(&[30, 30], &[0.8, 0.2]).is_some());
    // A spread of exactly 0.25 fires.
    assert!(fleet(&[40, 40], &[0.75, 0.5]).is_some());
    // Two replicas sampled, but a mean of 21 per replica: too small a run.
    assert_eq!(fleet(&[40, 40, 2, 2], &[0.8, 0.2, 0.5, 0.5]), None);
}

#[test]
fn a_pooled_fleet_judges_load_and_hits_in_its_prefill_pool_and_overload_anywhere() {
    // Four prefill replicas, evenly loaded, and two decode replicas the router never picks.
    let r = rows(&[50, 50, 50, 50, 0, 0]);
    let (flat, w) = series(&[|_| 3, |_| 3, |_| 3, |_| 3, |_| 3, |_| 3]);
    assert_eq!(pooled_findings(&r, 4, &flat, w), vec![]);
    // Over the whole fleet the two would read as idle.
    let all = findings(&r, &flat, w);
    assert_eq!((all.len(), all[0].replicas.clone()), (1, vec![4, 5]));
    // A decode replica whose backlog grows is overloaded.
    let r = rows(&[50, 50, 50, 50, 400, 400]);
    let (s, w) = series(&[|_| 3, |_| 3, |_| 3, |_| 3, |_| 3, |t| (10.0 * t) as u32]);
    let f = pooled_findings(&r, 4, &s, w);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(
        (f[0].kind, f[0].replicas.clone()),
        (FindingKind::Overloaded, vec![5])
    );
}

#[test]
fn backlog_halves_split_the_arrival_window_at_its_middle() {
    // Backlog 10 t sampled every 0.5 s over 0..=10 s; the window 2..8 s, its middle 5 s.
    let (s, _) = series(&[|t| (10.0 * t) as u32]);
    let w = Window {
        start_us: 2_000_000,
        end_us: 8_000_000,
        from_first_admission: false,
        after_change: false,
        settle_us: 0,
    };
    // [2, 5): 20, 25, ..., 45, mean 32.5; [5, 8]: 50, 55, ..., 80, mean 65.
    assert_eq!(backlog_halves(&s, 0, w), Some((32.5, 65.0)));
    // 0..3 s: 3 samples before 1.5 s and 4 from it: too few in the first half.
    let w = Window {
        start_us: 0,
        end_us: 3_000_000,
        from_first_admission: false,
        after_change: false,
        settle_us: 0,
    };
    assert_eq!(backlog_halves(&s, 0, w), None);
}

#[test]
fn growth_needs_both_the_factor_and_the_least_rise() {
    let r = rows(&[100, 100]);
    // 40 -> 55: 15 more, but under 1.5 x. 4 -> 8: twice, but only 4 more.
    let (s, w) = series(&[
        |t| if t < 5.0 { 40 } else { 55 },
        |t| if t < 5.0 { 4 } else { 8 },
    ]);
    assert_eq!(overload_finding(&r, &s, w), None);
    // 40 -> 60: both.
    let (s, w) = series(&[|t| if t < 5.0 { 40 } else { 60 }, |_| 2]);
    assert_eq!(
        overload_finding(&r, &s, w).map(|f| f.replicas),
        Some(vec![0])
    );
    // 1,000 requests each: the least rise is 5% of them, 50. 40 -> 80 is 40 more; 40 -> 90, 50.
    let big = rows(&[1000, 1000]);
    let (s, w) = series(&[
        |t| if t < 5.0 { 40 } else { 80 },
        |t| if t < 5.0 { 40 } else { 90 },
    ]);
    assert_eq!(
        overload_finding(&big, &s, w).map(|f| f.replicas),
        Some(vec![1])
    );
}
