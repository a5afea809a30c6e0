//! The router zoo's worked examples: a small fleet state per policy, each replica's
//! score worked by hand from the policy's published formula (the arithmetic is in the
//! comments), and the pick. Also: bad zoo flags fail with a message naming what is
//! allowed, and temperature runs are reproducible.
#![cfg(not(target_arch = "wasm32"))]

use kvfleet::config::parse_llmd_weights;
use kvfleet::rng::{Rng, Stream};
use kvfleet::router::zoo::{aibrix, dynamo, llmd, sglang, simple, Fleet};
use kvfleet::router::{Ask, ReplicaView, Ties};
use kvfleet::{api, params, Config, Policy, SglangMiss, TieBreak};

/// The old rule, the lower index: the worked examples below without a tie hold under
/// either rule, the ones with a tie name the rule they use.
fn lowest() -> Ties {
    Ties::new(TieBreak::Lowest, 0, 0)
}

fn view(waiting: u32, running: u32) -> ReplicaView {
    ReplicaView {
        waiting,
        running,
        ..ReplicaView::default()
    }
}

fn ask<'a>(ids: &'a [u64], hits: &'a [u32], new_blocks: &'a [u32], prompt: u32) -> Ask<'a> {
    Ask {
        block_ids: ids,
        full_blocks: ids.len(),
        session: None,
        hits,
        prompt_tokens: prompt,
        new_blocks,
        now_us: 0,
    }
}

fn fleet<'a>(ask: &'a Ask<'a>, views: &'a [ReplicaView], bs: u32, cap: Option<u64>) -> Fleet<'a> {
    Fleet {
        ask,
        views,
        block_size: bs,
        capacity_blocks: cap,
    }
}

#[test]
fn least_loaded_takes_the_fewest_in_flight_and_the_lower_index_on_ties_under_lowest() {
    // In flight: 2+1 = 3, 0+1 = 1, 1+0 = 1, 4+0 = 4 -> replicas 1 and 2 tie at 1 -> 1.
    let views = [view(2, 1), view(0, 1), view(1, 0), view(4, 0)];
    let a = ask(&[], &[0; 4], &[], 10);
    let j = simple::least_loaded(&fleet(&a, &views, 16, None), &mut lowest());
    assert_eq!(j.chosen, 1);
    let costs: Vec<f64> = j.rows.iter().map(|r| r.cost).collect();
    assert_eq!(costs, [3.0, 1.0, 1.0, 4.0]);
    let terms: Vec<(&str, f64)> = j
        .rows
        .iter()
        .map(|r| (r.terms[0].name, r.terms[0].value))
        .collect();
    assert_eq!(
        terms,
        [
            ("in_flight", 3.0),
            ("in_flight", 1.0),
            ("in_flight", 1.0),
            ("in_flight", 4.0)
        ]
    );
}

#[test]
fn p2c_draws_two_distinct_replicas_and_one_replica_needs_no_draw() {
    // One replica: (0, 0), and the stream is left untouched for the next pick.
    let mut rng = Rng::fork(7, Stream::Router);
    let mut fresh = Rng::fork(7, Stream::Router);
    assert_eq!(simple::two_distinct(&mut rng, 1), (0, 0));
    assert_eq!(rng.next_u64(), fresh.next_u64());
    // Two replicas: always both, in either order, each order about half the time (the
    // first draw is uniform over 2): over 400 draws each order between 150 and 250 times.
    let mut first_is_0 = 0;
    for _ in 0..400 {
        let (a, b) = simple::two_distinct(&mut rng, 2);
        assert!(a < 2 && b < 2 && a != b, "({a}, {b})");
        first_is_0 += u32::from(a == 0);
    }
    assert!((150..=250).contains(&first_is_0), "{first_is_0}");
}

#[test]
fn dynamo_on_a_split_fleets_prefill_pool_leaves_out_the_decode_term() {
    // Dynamo 1.4.2's disaggregated replay routes prefill with router_track_active_blocks
    // = false: cost = max(0, (active_prefill_tokens + prompt) / block_size - cached).
    // The fleet of `dynamo_worked_example` (block size 4, prompt 16 tokens):
    // r0: (8 + 16) / 4 = 6 - 3 cached = 3; r1: 16 / 4 = 4 - 0 = 4; r2: (4 + 16) / 4 = 5 - 4
    // = 1. Lowest: r2 (the colocated cost, 14, 10, 13, picks r1).
    let mut views = [view(0, 1), view(0, 1), view(0, 1)];
    for (v, (tokens, active)) in views.iter_mut().zip([(8, 10), (0, 2), (4, 12)]) {
        v.prefill_tokens = tokens;
        v.active_blocks = active;
    }
    let ids = [1, 2, 3, 4];
    let a = ask(&ids, &[3, 0, 4], &[1, 4, 0], 16);
    let f = fleet(&a, &views, 4, None);
    let mut rng = kvfleet::rng::Rng::fork(1, kvfleet::rng::Stream::Router);
    let p = dynamo::Params {
        temperature: 0.0,
        overlap_credit: 1.0,
        track_active_blocks: false,
    };
    let j = dynamo::judge(&f, p, &mut rng, &mut lowest());
    let costs: Vec<f64> = j.rows.iter().map(|r| r.cost).collect();
    assert_eq!(costs, [3.0, 4.0, 1.0]);
    assert_eq!(j.chosen, 2);
}

#[test]
fn dynamo_worked_example() {
    // block size 4, prompt 16 tokens = 4 full blocks; overlap credit 1, scale 1.
    // r0: prefill tokens 8, 3 cached, 10 active blocks, 1 new:
    //     raw = (8 + 16) / 4 = 6; prefill = max(0, 6 - 3) = 3; decode = 10 + 1 = 11 -> 14
    // r1: 0 tokens, 0 cached, 2 active, 4 new: raw = 16/4 = 4; prefill 4; decode 6 -> 10
    // r2: 4 tokens, 4 cached, 12 active, 0 new: raw = 20/4 = 5; prefill 1; decode 12 -> 13
    let mut views = [view(0, 1), view(0, 1), view(0, 1)];
    for (v, (tokens, active)) in views.iter_mut().zip([(8, 10), (0, 2), (4, 12)]) {
        v.prefill_tokens = tokens;
        v.active_blocks = active;
    }
    let ids = [1, 2, 3, 4];
    let a = ask(&ids, &[3, 0, 4], &[1, 4, 0], 16);
    let f = fleet(&a, &views, 4, None);
    let mut rng = kvfleet::rng::Rng::fork(1, kvfleet::rng::Stream::Router);
    let p = dynamo::Params {
        temperature: 0.0,
        overlap_credit: 1.0,
        track_active_blocks: true,
    };
    let j = dynamo::judge(&f, p, &mut rng, &mut lowest());
    let costs: Vec<f64> = j.rows.iter().map(|r| r.cost).collect();
    assert_eq!(costs, [14.0, 10.0, 13.0]);
    assert_eq!(j.chosen, 1);
    // Credit 0.5: r0 = max(0, 6 - 1.5) + 11 = 15.5; r1 = 10; r2 = max(0, 5 - 2) + 12 = 15.
    let half = dynamo::Params {
        overlap_credit: 0.5,
        ..p
    };
    let costs: Vec<f64> = dynamo::judge(&f, half, &mut rng, &mut lowest())
        .rows
        .iter()
        .map(|r| r.cost)
        .collect();
    assert_eq!(costs, [15.5, 10.0, 15.0]);
    // Credit larger than the prompt's blocks clamps at 0: r2 with 4 cached at credit 1
    // and no queued prefill would be max(0, 16/4 - 4) = 0.
    // T = 1 samples (costs 14, 10, 13: shares 0.1999, 0.5434, 0.2567, worked in
    // `dynamo_softmax_by_hand`): over 3,000 picks each share within 0.03.
    let warm = dynamo::Params {
        temperature: 1.0,
        ..p
    };
    let mut picks = [0u32; 3];
    for _ in 0..3000 {
        let j = dynamo::judge(&f, warm, &mut rng, &mut lowest());
        assert_eq!(j.rule, Some("sampled"));
        picks[j.chosen] += 1;
    }
    for (got, want) in picks.iter().zip([0.1999, 0.5434, 0.2567]) {
        let share = *got as f64 / 3000.0;
        assert!((share - want).abs() < 0.03, "{picks:?}");
    }
}

#[test]
fn dynamo_softmax_by_hand() {
    // Costs 14, 10, 13 at T = 1: min 10, max 14, span 4.
    // weights e^-(4/4) = 0.3679, e^0 = 1, e^-(3/4) = 0.4724; total 1.8403
    // p = 0.1999, 0.5434, 0.2567; cumulative 0.1999, 0.7433, 1.
    let costs = [14.0, 10.0, 13.0];
    assert_eq!(dynamo::softmax_index(&costs, 1.0, 0.10), 0);
    assert_eq!(dynamo::softmax_index(&costs, 1.0, 0.1998), 0);
    assert_eq!(dynamo::softmax_index(&costs, 1.0, 0.2000), 1);
    assert_eq!(dynamo::softmax_index(&costs, 1.0, 0.7432), 1);
    assert_eq!(dynamo::softmax_index(&costs, 1.0, 0.7434), 2);
    // Equal costs: uniform, 1/3 each.
    assert_eq!(dynamo::softmax_index(&[5.0; 3], 1.0, 0.34), 1);
    // T = 0.5 sharpens: the divisor is span × T = 2, weights e^-2 = 0.1353, 1,
    // e^-1.5 = 0.2231; total 1.3585; cumulative 0.0996, 0.8357, 1.
    assert_eq!(dynamo::softmax_index(&costs, 0.5, 0.0995), 0);
    assert_eq!(dynamo::softmax_index(&costs, 0.5, 0.0997), 1);
    assert_eq!(dynamo::softmax_index(&costs, 0.5, 0.8356), 1);
    assert_eq!(dynamo::softmax_index(&costs, 0.5, 0.8358), 2);
    // Only differences from the minimum count, so costs in the thousands of blocks do
    // not underflow: 1000 and 1001 at T = 1 weigh 1 and e^-1, p0 = 1 / (1 + e^-1) = 0.7311.
    assert_eq!(dynamo::softmax_index(&[1000.0, 1001.0], 1.0, 0.7310), 0);
    assert_eq!(dynamo::softmax_index(&[1000.0, 1001.0], 1.0, 0.7312), 1);
    // The shares can sum to just under 1 in floating point: for 17, 20, 20 at T = 0.5 the
    // cumulative share ends at 1 - 2^-52, below the largest sample the stream can draw,
    // 1 - 2^-53; that sample still lands on the last replica.
    let top = 1.0 - f64::EPSILON / 2.0;
    assert_eq!(dynamo::softmax_index(&[17.0, 20.0, 20.0], 0.5, top), 2);
}

#[test]
fn sglang_worked_example() {
    // Trees: r0 holds [1,2,3,4], r1 [1,2], r2 nothing. Loads 2, 0, 1 (balanced: 2 - 0 <= 64).
    let mut trees = sglang::Trees::new(3, 512, SglangMiss::Load);
    trees.record(0, &[1, 2, 3, 4]);
    trees.record(1, &[1, 2]);
    let views = [view(1, 1), view(0, 0), view(0, 1)];
    // [1,2,3,9,10]: matched 3, 2, 0; best r0 at 3/5 = 0.6 > 0.3 -> r0, "match".
    let ids = [1, 2, 3, 9, 10];
    let a = ask(&ids, &[0; 3], &[], 2560);
    let j = sglang::judge(&fleet(&a, &views, 512, None), &mut trees, 0);
    assert_eq!((j.chosen, j.rule), (0, Some("match")));
    assert_eq!(j.rows[0].score, Some(0.6));
    let terms: Vec<(&str, f64)> = j.rows[0].terms.iter().map(|t| (t.name, t.value)).collect();
    assert_eq!(
        terms,
        [
            ("match_rate", 0.6),
            ("in_flight", 2.0),
            ("tree_blocks", 4.0)
        ]
    );
    // [1,7,8,9]: matched 1, 1, 0; best 1/4 = 0.25 <= 0.3 -> miss; load rule: loads 2, 0, 1 -> r1.
    let ids = [1, 7, 8, 9];
    let a = ask(&ids, &[0; 3], &[], 2048);
    let j = sglang::judge(&fleet(&a, &views, 512, None), &mut trees, 0);
    assert_eq!((j.chosen, j.rule), (1, Some("miss")));
    // Tree rule: tree sizes 4, 2, 0 -> r2, whatever its load.
    let mut old = sglang::Trees::new(3, 512, SglangMiss::Tree);
    old.record(0, &[1, 2, 3, 4]);
    old.record(1, &[1, 2]);
    let j = sglang::judge(&fleet(&a, &views, 512, None), &mut old, 0);
    assert_eq!((j.chosen, j.rule), (2, Some("miss")));
    // Imbalance needs both: 70 - 3 = 67 > 64 and 70 > 1.5 x 3 = 4.5 -> least loaded, r1.
    assert!(sglang::imbalanced(&[70, 3, 5]));
    // 200 - 135 = 65 > 64 but 200 <= 1.5 x 135 = 202.5 -> balanced.
    assert!(!sglang::imbalanced(&[200, 135, 150]));
    // 100 - 40 = 60 <= 64 -> balanced.
    assert!(!sglang::imbalanced(&[100, 40, 50]));
    // Both thresholds are strict: a gap of exactly 64 is balanced, 65 is not; and with a
    // gap of 65, max = 1.5 x min exactly (195 = 1.5 x 130) is balanced, 196 is not.
    assert!(!sglang::imbalanced(&[64, 0]) && sglang::imbalanced(&[65, 0]));
    assert!(!sglang::imbalanced(&[195, 130]) && sglang::imbalanced(&[196, 130]));
}

#[test]
fn sglang_evicts_every_120_s_down_to_its_bound_in_blocks() {
    // The bound: max_tree_size 2^26 characters at 4 a token is 2^24 tokens, which at
    // 2^22-token blocks is 4 nodes a tree. `judge` runs the eviction due first.
    let bs = 1 << 22;
    let mut trees = sglang::Trees::new(1, bs, SglangMiss::Load);
    trees.record(0, &[1, 2, 3]); // used at stamp 1
    trees.record(0, &[4, 5, 6]); // stamp 2
    let views = [view(0, 0)];
    let ids = [4, 5, 6];
    let a = ask(&ids, &[0], &[], 3 * bs);
    let judge_at = |trees: &mut sglang::Trees, us: u64| {
        sglang::judge(&fleet(&a, &views, bs, None), trees, us);
    };
    judge_at(&mut trees, 119_999_999);
    assert_eq!(trees.tree(0).node_count(), 6, "nothing before 120 s");
    // At 120 s, 6 -> 4 nodes: the least recently used go first, the deepest first among
    // those used together: 3, then 2; [1] and [4, 5, 6] stay.
    judge_at(&mut trees, 120_000_000);
    let t = trees.tree(0);
    assert_eq!(t.node_count(), 4);
    assert_eq!((t.matched(&[1, 2, 3]), t.matched(&[4, 5, 6])), (1, 3));
    // The next eviction is 120 s later: [7, 8] at stamp 3 makes 6 nodes until 240 s, then
    // 1 (stamp 1) and 6 (the deepest of stamp 2) go.
    trees.record(0, &[7, 8]);
    judge_at(&mut trees, 239_999_999);
    assert_eq!(trees.tree(0).node_count(), 6, "nothing between evictions");
    judge_at(&mut trees, 240_000_000);
    let t = trees.tree(0);
    assert_eq!(t.node_count(), 4);
    let kept = (t.matched(&[1]), t.matched(&[4, 5, 6]), t.matched(&[7, 8]));
    assert_eq!(kept, (0, 2, 2));
}

#[test]
fn sglang_trims_trees_to_their_bound_least_recently_used_leaves_first() {
    let mut t = sglang::Tree::default();
    t.insert(&[1, 2, 3], 1);
    t.insert(&[1, 5], 2);
    // Nodes 1@2, 2@1, 3@1, 5@2. Trim to 2: the oldest are 2 and 3 (stamp 1), the deeper
    // (3) first, then 2 -> left 1 and 5, still a prefix-closed tree.
    t.trim(2);
    assert_eq!(t.node_count(), 2);
    assert_eq!(t.matched(&[1, 5]), 2);
    assert_eq!(t.matched(&[1, 2]), 1);
}

#[test]
fn llm_d_worked_example() {
    // hits 4, 2, 0; waiting 2, 0, 6; KV used 50, 20, 90 of 100.
    // prefix: held by r0, r1 (min 2, max 4): (4-2)/2 = 1, (2-2)/2 = 0; r2 holds none: 0
    // queue: (6-2)/6 = 0.6667, (6-0)/6 = 1, (6-6)/6 = 0
    // kv: 1 - 0.5 = 0.5, 1 - 0.2 = 0.8, 1 - 0.9 = 0.1
    // 3/2/2: r0 = 3 + 1.3333 + 1 = 5.3333; r1 = 0 + 2 + 1.6 = 3.6; r2 = 0 + 0 + 0.2 = 0.2
    let mut views = [view(2, 0), view(0, 0), view(6, 0)];
    for (v, used) in views.iter_mut().zip([50, 20, 90]) {
        v.cache_blocks = used;
    }
    let ids = [1, 2, 3, 4];
    let a = ask(&ids, &[4, 2, 0], &[], 64);
    let f = fleet(&a, &views, 16, Some(100));
    let j = llmd::judge(&f, [3.0, 2.0, 2.0], &mut lowest());
    let s: Vec<f64> = j.rows.iter().map(|r| r.score.unwrap()).collect();
    assert!((s[0] - 16.0 / 3.0).abs() < 1e-12 && (s[1] - 3.6).abs() < 1e-12);
    assert!((s[2] - 0.2).abs() < 1e-12);
    assert_eq!(j.chosen, 0);
    let terms: Vec<(&str, f64)> = j.rows[0].terms.iter().map(|t| (t.name, t.value)).collect();
    assert_eq!(terms[0], ("prefix", 1.0));
    assert_eq!((terms[1].0, terms[2]), ("queue", ("kv_cache", 0.5)));
    assert!((terms[1].1 - 4.0 / 6.0).abs() < 1e-12, "{terms:?}");
    // 1/2/2: r0 = 1 + 1.3333 + 1 = 3.3333 < r1 = 3.6 -> r1.
    assert_eq!(llmd::judge(&f, [1.0, 2.0, 2.0], &mut lowest()).chosen, 1);
    // Only one replica holding any prefix, or all holding the same: 1.0 each.
    assert_eq!(llmd::prefix_scores(&[0, 3, 0]), [0.0, 1.0, 0.0]);
    assert_eq!(llmd::prefix_scores(&[2, 2, 0]), [1.0, 1.0, 0.0]);
    assert_eq!(llmd::queue_scores(&[3, 3]), [1.0, 1.0]);
    // The queue's min-max over a shortest queue above 0: waiting 2, 4, 6 -> (6 - q) / 4.
    assert_eq!(llmd::queue_scores(&[2, 4, 6]), [1.0, 0.5, 0.0]);
}

#[test]
fn aibrix_worked_example() {
    // Table: r0 [1,2,3], r1 [1,2,3,4], r2 [1], r3 nothing. Request [1,2,3,4]:
    // percent 3x100/4 = 75, 100, 25, 0. Loads 1, 6, 2, 3: max - min = 5 <= 8, balanced.
    // mean 3; variance (4 + 9 + 1 + 0) / 4 = 3.5; sigma 1.8708; limit 4.8708.
    // By match: r1 (100) has 6 > 4.87, skipped; r0 (75) has 1 <= 4.87 -> r0.
    let mut table = aibrix::Table::new(4);
    table.record(0, &[1, 2, 3]);
    table.record(1, &[1, 2, 3, 4]);
    table.record(2, &[1]);
    let ids = [1, 2, 3, 4];
    let a = ask(&ids, &[0; 4], &[], 64);
    let views = [view(0, 1), view(2, 4), view(0, 2), view(1, 2)];
    let j = aibrix::judge(&fleet(&a, &views, 16, None), &table, &mut lowest());
    assert_eq!((j.chosen, j.rule), (0, Some("match")));
    let pct: Vec<f64> = j.rows.iter().map(|r| r.score.unwrap()).collect();
    assert_eq!(pct, [75.0, 100.0, 25.0, 0.0]);
    assert!(j.rows[1].excluded && j.rows[3].excluded && !j.rows[2].excluded);
    // Loads 5, 14, 6, 4: 14 - 4 = 10 > 8 -> the least loaded, r3.
    let busy = [view(0, 5), view(4, 10), view(0, 6), view(0, 4)];
    let j = aibrix::judge(&fleet(&a, &busy, 16, None), &table, &mut lowest());
    assert_eq!((j.chosen, j.rule), (3, Some("imbalanced")));
    // No replica holds [7, 8]: the least loaded (loads 1, 6, 2, 3 -> r0).
    let miss = [7, 8];
    let a = ask(&miss, &[0; 4], &[], 32);
    let j = aibrix::judge(&fleet(&a, &views, 16, None), &table, &mut lowest());
    assert_eq!((j.chosen, j.rule), (0, Some("fallback")));
}

#[test]
fn aibrix_logs_its_terms_and_holds_its_boundaries() {
    let mut table = aibrix::Table::new(4);
    table.record(0, &[1, 2, 3]);
    table.record(1, &[1, 2, 3, 4]);
    table.record(2, &[1]);
    let ids = [1, 2, 3, 4];
    let a = ask(&ids, &[0; 4], &[], 64);
    // Imbalanced (loads 5, 14, 6, 4): the rows' costs are the loads, the argmin's input;
    // the table's matches are 3, 4, 1 and 0 blocks; mean 7.25, variance
    // (5.0625 + 45.5625 + 1.5625 + 10.5625) / 4 = 15.6875, sigma 3.9608, limit 11.2108.
    let busy = [view(0, 5), view(4, 10), view(0, 6), view(0, 4)];
    let j = aibrix::judge(&fleet(&a, &busy, 16, None), &table, &mut lowest());
    let costs: Vec<f64> = j.rows.iter().map(|r| r.cost).collect();
    assert_eq!(costs, [5.0, 14.0, 6.0, 4.0]);
    let hits: Vec<Option<u32>> = j.rows.iter().map(|r| r.hit_blocks).collect();
    assert_eq!(hits, [Some(3), Some(4), Some(1), Some(0)]);
    let terms: Vec<(&str, f64)> = j.rows[1].terms.iter().map(|t| (t.name, t.value)).collect();
    assert_eq!(terms[..2], [("match_percent", 100.0), ("in_flight", 14.0)]);
    assert_eq!(terms[2].0, "mean_plus_sigma");
    assert!((terms[2].1 - 11.2108).abs() < 1e-4, "{terms:?}");
    // max - min exactly 8 (loads 1, 9, 2, 3) is not imbalanced: mean 3.75, variance
    // (7.5625 + 27.5625 + 3.0625 + 0.5625) / 4 = 9.6875, limit 3.75 + 3.1125 = 6.8625;
    // r1 (100 %) has 9 > 6.86, r0 (75 %) has 1 -> r0 by match.
    let edge = [view(0, 1), view(3, 6), view(0, 2), view(1, 2)];
    let j = aibrix::judge(&fleet(&a, &edge, 16, None), &table, &mut lowest());
    assert_eq!((j.chosen, j.rule), (0, Some("match")));
    // Equal loads (2 each): sigma 0, limit 2; a load equal to the limit is a candidate, so
    // only r3 (no match) is excluded; r1 has the best match.
    let level = [view(0, 2), view(1, 1), view(2, 0), view(0, 2)];
    let j = aibrix::judge(&fleet(&a, &level, 16, None), &table, &mut lowest());
    assert_eq!((j.chosen, j.rule), (1, Some("match")));
    let excluded: Vec<bool> = j.rows.iter().map(|r| r.excluded).collect();
    assert_eq!(excluded, [false, false, false, true]);
}

#[test]
fn bad_zoo_settings_name_what_is_allowed() {
    for text in ["3,x", "3,2", "-1,2,2", "0,0,0", "1,2,3,4", "inf,1,1"] {
        let e = parse_llmd_weights(text).unwrap_err().to_string();
        assert!(
            e.contains("llmd_weights") && e.contains("P,Q,K"),
            "{text}: {e}"
        );
    }
    assert_eq!(parse_llmd_weights(" 3, 2 ,2").unwrap(), [3.0, 2.0, 2.0]);
    let cold = Config {
        dynamo_temperature: -0.5,
        ..Config::default()
    };
    let e = params::validate(&cold).unwrap_err().to_string();
    assert_eq!(e, "invalid dynamo_temperature: got -0.5; allowed: 0 to 100");
    let credit = Config {
        dynamo_overlap_credit: 1.5,
        ..Config::default()
    };
    let e = params::validate(&credit).unwrap_err().to_string();
    assert!(
        e.contains("dynamo_overlap_credit") && e.contains("0 to 1"),
        "{e}"
    );
    assert!(kvfleet::SglangMiss::parse("smallest").is_err());
}

fn json_of(cfg: &Config) -> String {
    api::synthetic_simulation(cfg)
        .unwrap()
        .into_report()
        .to_json()
}

#[test]
fn temperature_zero_is_deterministic_and_above_zero_is_seeded() {
    let base = Config {
        routing: Policy::Dynamo,
        num_requests: 120,
        ..Config::default()
    };
    assert_eq!(json_of(&base), json_of(&base));
    let warm = Config {
        dynamo_temperature: 0.5,
        ..base.clone()
    };
    assert_eq!(json_of(&warm), json_of(&warm), "same seed, same samples");
    let other = Config {
        seed: 7,
        ..warm.clone()
    };
    assert_ne!(
        json_of(&warm),
        json_of(&other),
        "another seed, other samples"
    );
    for p in [Policy::P2c, Policy::Sglang, Policy::LlmD, Policy::Aibrix] {
        let c = Config {
            routing: p,
            ..base.clone()
        };
        assert_eq!(json_of(&c), json_of(&c), "{p:?}");
    }
}
