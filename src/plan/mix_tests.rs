//! The mix search's tests on runners whose answer is known by hand: a fleet meets when its
//! weighted replica count reaches a threshold.

use std::cell::Cell;

use super::mix::*;
use super::mix_fleet::*;
use super::{Knobs, PlanLimits, Runner, Slo};
use crate::config::{Config, Policy};
use crate::report::Summary;
use crate::timing::EnginePreset;
use crate::timing::EnginePreset as P;

/// Meets when the sum over the fleet's groups of count x weight reaches `need` (a TTFT
/// p99 of 100 ms, else 1000 ms less that sum, against 500); counts every run.
struct Linear {
    weights: Vec<(EnginePreset, u32)>,
    need: u32,
    runs: Cell<usize>,
}

impl Runner for Linear {
    fn run(&self, cfg: &Config, _scale: f64) -> Result<Summary, String> {
        self.runs.set(self.runs.get() + 1);
        let groups = cfg.fleet_groups().unwrap_or_default();
        let weight = |p: EnginePreset| self.weights.iter().find(|w| w.0 == p).map_or(0, |w| w.1);
        let have: u32 = groups.iter().map(|g| g.count * weight(g.preset)).sum();
        let ok = have >= self.need;
        Ok(Summary {
            requests: 1,
            completed: 1,
            ttft_ms_p99: if ok { 100.0 } else { 1000.0 - have as f64 },
            output_tokens: 1,
            makespan_s: 1.0,
            ..Summary::default()
        })
    }

    fn base_rate(&self, _cfg: &Config) -> (f64, &'static str) {
        (1.0, "req/s")
    }
}

/// The plan of `presets` (each with its weight and price per GPU-hour; every llama3-8b
/// preset has one GPU) against `need`, on fleets of at most `max` replicas, on `seeds`
/// seeds; and the runs it made.
fn plan_of(
    presets: &[(EnginePreset, u32, f64)],
    need: u32,
    max: u32,
    seeds: u32,
) -> (MixPlan, usize) {
    let runner = Linear {
        weights: presets.iter().map(|p| (p.0, p.1)).collect(),
        need,
        runs: Cell::new(0),
    };
    let mix: Vec<MixPreset> = presets
        .iter()
        .map(|p| MixPreset {
            preset: p.0,
            gpu_hour_usd: p.2,
        })
        .collect();
    let slo = Slo {
        ttft_p99_ms: Some(500.0),
        tpot_p99_ms: None,
        e2e_p99_ms: None,
        max_rejected: 0.0,
        sustained: true,
    };
    let limits = PlanLimits {
        max_replicas: max,
        seeds,
        exhaustive: false,
        gpus_per_replica: 1,
        gpu_hour_usd: 2.5,
    };
    let plan = plan_mix(&Config::default(), Policy::Kv, &mix, &slo, &limits, &runner).unwrap();
    (plan, runner.runs.get())
}

/// H100 of weight 2 and B200 of weight 3 at `prices`, meeting when 2a + 3b >= 13.
fn two(prices: [f64; 2]) -> MixPlan {
    let presets = [
        (P::Llama3_8bH100, 2, prices[0]),
        (P::Llama3_8bB200, 3, prices[1]),
    ];
    plan_of(&presets, 13, 16, 1).0
}

#[test]
fn the_staircase_finds_each_fewest_and_the_cheapest() {
    // 2a + 3b >= 13: the fewest b for a = 0..7 is ceil((13 - 2a) / 3), never more than
    // the previous: 5, 4, 3, 3, 2, 1, 1, 0.
    let p = two([2.0, 3.0]);
    let want: Vec<Vec<u32>> = vec![
        vec![0, 5],
        vec![1, 4],
        vec![2, 3],
        vec![3, 3],
        vec![4, 2],
        vec![5, 1],
        vec![6, 1],
        vec![7, 0],
    ];
    assert_eq!(p.frontier, want);
    // At $2 and $3 per GPU-hour: $15, 14, 13, 15, 14, 13, 15, 14. Two tie at $13 and
    // the fewer replicas win: 2 + 3, a true mix. 1 + 3 (11) and 2 + 2 (10) fail.
    assert_eq!(p.answer, Some(vec![2, 3]));
    assert!(p.verified);
    assert_eq!(p.at_answer.as_ref().unwrap().usd_per_hour, 13.0);
    for fewer in [[1, 3], [2, 2]] {
        assert!(p.points.iter().any(|x| x.counts == fewer && !x.meets));
    }
    assert!(p.non_monotone.is_empty());
    // At $1 and $3 seven of the first alone are cheapest ($7); six (12) fail.
    let p = two([1.0, 3.0]);
    assert_eq!((p.answer, p.verified), (Some(vec![7, 0]), true));
    // At $3 and $2 five of the second alone ($10); four (12) fail.
    let p = two([3.0, 2.0]);
    assert_eq!((p.answer, p.verified), (Some(vec![0, 5]), true));
}

/// The targets every plan of these tests has: a p99 TTFT of 500 ms.
fn slo() -> Slo {
    Slo {
        ttft_p99_ms: Some(500.0),
        tpot_p99_ms: None,
        e2e_p99_ms: None,
        max_rejected: 0.0,
        sustained: true,
    }
}

/// With at most 4 replicas, 2a + 3b reaches 12 at most (four B200s), short of 13: no mix
/// meets, and the best p99 TTFT reached is four B200s' 1000 - 12 = 988 ms.
#[test]
fn no_mix_meeting_says_the_best_reached_and_what_to_raise() {
    let presets = [(P::Llama3_8bH100, 2, 2.0), (P::Llama3_8bB200, 3, 3.0)];
    let p = plan_of(&presets, 13, 4, 1).0;
    assert_eq!(p.answer, None);
    assert!(
        p.points.iter().any(|x| x.counts == [0, 4]),
        "four B200s tried"
    );
    assert_eq!(
        super::mix_headline(std::slice::from_ref(&p), &slo(), 4, &Knobs::CLI),
        "No mix meets the targets on up to 4 replicas: the lowest p99 TTFT reached was 988 ms \
         (kv on 4 x llama3-8b-b200) against a target of 500 ms; raise --slo-ttft-p99-ms or \
         --plan-max-replicas above 4 replicas."
    );
}

#[test]
fn the_headline_names_a_mix_or_one_preset_alone() {
    // $2 and $3: 2 H100 + 3 B200 (5 GPUs, 4 + 9 = $13); the cheapest one-preset fleet on
    // the walk is 7 H100 ($14) against 5 B200 ($15).
    assert_eq!(
        super::mix_headline(&[two([2.0, 3.0])], &slo(), 64, &Knobs::CLI),
        "Cheapest mix: kv, 2 x llama3-8b-h100 + 3 x llama3-8b-b200 (5 GPUs, $13.00/h); \
         the cheapest fleet of one preset, kv, 7 x llama3-8b-h100, costs more ($14.00/h)"
    );
    // $1 and $3: 7 H100 alone ($7) is the answer, said once, not as a mix.
    assert_eq!(
        super::mix_headline(&[two([1.0, 3.0])], &slo(), 64, &Knobs::CLI),
        "Cheapest: kv, 7 x llama3-8b-h100 (7 GPUs, $7.00/h), one preset alone; no mix \
         searched costs less"
    );
}

#[test]
fn two_presets_simulate_the_walk_alone() {
    // The walk of 2a + 3b >= 13 by hand. The second alone: 1, 2, 4 fail, 8 meets; then
    // 6, 5 meet (6 points). a = 1: b = 5, 4 meet, 3 fails (3); a = 2: 4, 3, 2 (3);
    // a = 3: 3, 2 (2); a = 4: 3, 2, 1 (3); a = 5: 2, 1, 0 (3); a = 6: 1, 0 (2);
    // a = 7: 1, 0 meets and ends (2). 24 points; the verification's 1 + 3 and 2 + 2 are
    // among them, and there is no third preset for a local move.
    let p = two([2.0, 3.0]);
    assert_eq!(p.points.len(), 24);
    assert!(p.local_moves.is_empty());
}

/// H100 (weight 6, $6), B200 (weight 10, $10), MI300X (weight 5, `mi300x_usd`), meeting at
/// 21: one replica of each reaches 21 exactly.
fn three(mi300x_usd: f64) -> (MixPlan, usize) {
    let presets = [
        (P::Llama3_8bH100, 6, 6.0),
        (P::Llama3_8bB200, 10, 10.0),
        (P::Llama3_8bMi300x, 5, mi300x_usd),
    ];
    plan_of(&presets, 21, 16, 1)
}

#[test]
fn a_local_move_finds_a_cheaper_mix_of_three() {
    // With the MI300X at $5.50 (weight 5), by hand. The pairs: H100 + B200 reach 22 at
    // best (6a + 10b is even), 2 + 1 for $22; H100 + MI300X: 1 + 3 reaches 21 for $22.50,
    // 3 + 1 (23) $23.50; B200 + MI300X: 2 + 1 (25) $25.50; one preset alone: 4 H100 $24,
    // 3 B200 $30, 5 MI300X $27.50. The cheapest pair is 2 H100 + 1 B200 at $22. From it,
    // one H100 fewer and one MI300X more is 1 + 1 + 1: 6 + 10 + 5 = 21 meets, $21.50. No
    // fleet is cheaper: every replica costs at least $1 per unit of weight and the
    // MI300X $1.10, so 21 units cost at least $21, and 21 needs an odd number of MI300X
    // (the others are even): one costs 6 + 10 + 5.5 = $21.50, three $22.50.
    let (p, _) = three(5.5);
    assert_eq!(p.local_moves, vec![vec![1, 1, 1]]);
    assert_eq!(p.answer, Some(vec![1, 1, 1]));
    assert_eq!(p.at_answer.as_ref().unwrap().usd_per_hour, 21.5);
    // The cheapest frontier point was the pair's 2 + 1 at $22.
    assert!(p.frontier.contains(&vec![2, 1, 0]));
    // Verified: 0 + 1 + 1 (15), 1 + 0 + 1 (11), 1 + 1 + 0 (16) each miss 21.
    assert!(p.verified);
    for fewer in [[0, 1, 1], [1, 0, 1], [1, 1, 0]] {
        assert!(p.points.iter().any(|x| x.counts == fewer && !x.meets));
    }
    assert!(p.non_monotone.is_empty());
}

#[test]
fn no_local_move_when_three_presets_are_dearer() {
    // With the MI300X at $7 the pairs' best is still 2 H100 + 1 B200 at $22 (H100 +
    // MI300X: 1 + 3 is $27, 3 + 1 $25). The moves from it: one H100 for one MI300X is
    // dearer ($7 > $6), one B200 for one MI300X (2 + 0 + 1: 17) misses, the rest are
    // dearer or leave two presets. 1 + 1 + 1 would cost $23.
    let (p, _) = three(7.0);
    assert!(p.local_moves.is_empty());
    assert_eq!((p.answer, p.verified), (Some(vec![2, 1, 0]), true));
    assert_eq!(p.at_answer.unwrap().usd_per_hour, 22.0);
}

#[test]
fn the_points_stay_within_the_stated_bound() {
    // The bound: N presets, M the largest fleet, P = N(N - 1)/2 pairs, D distinct replica
    // prices (at most N). Each pair's walk: 3M + 2 ceil(log2 M) + 1; the local moves
    // (N >= 3): (D M - 2) rounds of at most N(N + 1)/2; the verification N.
    // N = 3, M = 16: 3 x (48 + 8 + 1) + (48 - 2) x 6 + 3 = 171 + 276 + 3 = 450.
    let (p, runs) = three(5.5);
    assert_eq!(runs, p.points.len(), "every point simulated once");
    assert!(runs <= 450, "{runs}");
    // N = 4, M = 16, on two seeds: 6 x 57 + (64 - 2) x 10 + 4 = 342 + 620 + 4 = 966
    // points, each simulated on both seeds.
    let presets = [
        (P::Llama3_8bH100, 6, 6.0),
        (P::Llama3_8bH200, 7, 7.5),
        (P::Llama3_8bMi300x, 5, 5.5),
        (P::Llama3_8bB200, 10, 10.0),
    ];
    let (p, runs) = plan_of(&presets, 21, 16, 2);
    assert_eq!(
        runs,
        2 * p.points.len(),
        "every point simulated once per seed"
    );
    assert!(p.points.len() <= 966, "{}", p.points.len());
    // With the H200 (7, $7.50) too: every unit of weight costs at least $1, so 22 costs
    // at least $22, and the only fleet of weight 21 under $22.50 is 1 H100 + 1 MI300X +
    // 1 B200 (6 + 5 + 10) at $21.50 (3 H200 and 1 H100 + 3 MI300X cost $22.50).
    assert_eq!(p.answer, Some(vec![1, 0, 1, 1]));
    assert_eq!(p.at_answer.unwrap().usd_per_hour, 21.5);
}
