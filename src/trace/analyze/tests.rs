//! Unit tests of the trace analysis: ceilings under the simulator's rules, nearest-rank
//! percentiles, every hazard and the text, on small traces worked by hand.

use super::*;

fn request(id: u32, arrival_us: u64, prompt_tokens: u32, block_ids: Vec<u64>) -> Request {
    Request {
        id,
        arrival_us,
        prompt_tokens,
        output_tokens: 1,
        block_ids: block_ids.into(),
        session: None,
        output_block_ids: Vec::new(),
    }
}

#[test]
fn ceilings_follow_the_simulator_rules() {
    // Block size 4: request 1 repeats request 0's two full blocks; it may reuse
    // floor((8 - 1) / 4) = 1 of them, so 4 of 12 prompt tokens are cached.
    let requests = [
        request(0, 0, 4, vec![1]),
        request(1, 10, 8, vec![1, 2]),
        request(2, 20, 5, vec![1, 3]),
    ];
    let a = analyze(&requests, 4);
    assert_eq!((a.blocks, a.distinct_blocks), (5, 3));
    assert!((a.hit_ceiling - 0.4).abs() < 1e-12);
    // Request 1 reuses block 1 (4 tokens); request 2 reuses block 1 (4 tokens).
    assert!((a.token_hit_ceiling - 8.0 / 17.0).abs() < 1e-12);
    assert_eq!(a.distinct_first_blocks, 1);
    assert!(
        a.hazards.iter().any(|h| h.contains("ALL traffic")),
        "{:?}",
        a.hazards
    );
}

#[test]
fn percentile_is_nearest_rank() {
    // Nearest rank is the ceil(0.99 n)-th smallest: at n = 100 that is the 99th; at
    // n = 101, ceil(99.99) = 100th (a floor would give the 99th); at n = 201,
    // ceil(198.99) = 199th; at n = 1 the only value.
    let stats = length_stats(1..=100);
    assert_eq!((stats.p99, stats.max), (99, 100));
    assert!((stats.avg - 50.5).abs() < 1e-12);
    assert_eq!(length_stats(1..=101).p99, 100);
    assert_eq!(length_stats((1..=201).rev()).p99, 199, "sorted first");
    assert_eq!(length_stats([7].into_iter()).p99, 7);
    let none = length_stats(std::iter::empty());
    assert_eq!((none.avg, none.p99, none.max), (0.0, 0, 0));
}

#[test]
fn empty_and_id_less_inputs_do_not_panic() {
    let a = analyze(&[], 512);
    assert_eq!(a.requests, 0);
    assert!(!a.render_text().is_empty());
    let a = analyze(&[request(0, 0, 10, vec![]), request(1, 0, 10, vec![])], 0);
    assert!(a.hazards.iter().any(|h| h.contains("no content")));
    assert!(a.hazards.iter().any(|h| h.contains("same instant")));
}

#[test]
fn spread_out_arrivals_are_flagged() {
    let requests = [
        request(0, 0, 10, vec![1]),
        request(1, 100_000_000, 10, vec![2]),
    ];
    let a = analyze(&requests, 512);
    assert!(
        a.hazards.iter().any(|h| h.contains("never overlap")),
        "{:?}",
        a.hazards
    );
}

#[test]
fn a_small_trace_worked_by_hand_and_its_text() {
    // Block size 4. Requests 0 and 1 arrive together with the same 8 tokens (ids 1, 2);
    // request 2 (5 tokens, ids 3, 4) at 1 s; request 3 (5 tokens, no ids) at 3 s.
    // - lengths: avg (8 + 8 + 5 + 5) / 4 = 6.5, p99 = the 4th of 4 = 8;
    // - blocks: 6 ids, 4 distinct: ceiling 1 - 4/6 = 33.3 %;
    // - one infinite cache in order: request 1 may reuse floor(7 / 4) = 1 block (4
    //   tokens), request 2's block 3 is new: 4 of 26 prompt tokens = 15.4 %;
    // - first blocks 1 (twice) and 3: the top one starts 2 of the 3 requests with ids;
    // - gaps 0, 1 s, 2 s: one of three at the same instant, the shortest 0 s.
    let requests = [
        request(0, 0, 8, vec![1, 2]),
        request(1, 0, 8, vec![1, 2]),
        request(2, 1_000_000, 5, vec![3, 4]),
        request(3, 3_000_000, 5, vec![]),
    ];
    let a = analyze(&requests, 4);
    assert_eq!((a.requests, a.block_size, a.duration_s), (4, 4, 3.0));
    assert_eq!(a.offered_rate_per_s, Some(1.0));
    assert_eq!(
        (a.input_tokens_avg, a.input_tokens_p99, a.input_tokens_max),
        (6.5, 8, 8)
    );
    assert_eq!((a.output_tokens_avg, a.output_tokens_p99), (1.0, 1));
    assert_eq!((a.blocks, a.distinct_blocks), (6, 4));
    assert!((a.hit_ceiling - 2.0 / 6.0).abs() < 1e-12);
    assert!((a.token_hit_ceiling - 4.0 / 26.0).abs() < 1e-12);
    assert_eq!((a.distinct_first_blocks, a.top_first_block), (2, Some(1)));
    assert_eq!((a.top_first_block_requests, a.requests_without_ids), (2, 1));
    assert!((a.same_instant_share - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(a.min_gap_s, Some(0.0));
    assert_eq!(
        a.render_text(),
        "Trace: 4 requests over 3.0 s, offered 1.00 req/s (block_size=4 tok)\n\
         \x20 Input tokens: avg 6.5, p99 8, max 8 | output tokens: avg 1.0, p99 1\n\
         \x20 Blocks: 6 total, 4 distinct | hit ceiling of one infinite cache: 33.3% of \
         blocks, 15.4% of prompt tokens\n\
         \x20 First blocks: 2 distinct; the most common (id 1) starts 66.7% of requests\n\
         \x20 Hazard: 1 of 4 requests carry no block ids: they can never hit the cache\n\
         \x20 Hazard: first block 1 starts 66.7% of requests: prefix_aware hashes the \
         leading block, so one replica gets at least that share of the traffic (a hot \
         spot)\n"
    );
}

#[test]
fn hazards_fire_at_their_thresholds() {
    // Four first blocks, one of them twice: 2 of 5 = 40 % >= 25 %, a hot spot; with five
    // distinct first blocks (20 %), none.
    let firsts = |ids: [u64; 5]| {
        let requests: Vec<Request> = ids
            .iter()
            .enumerate()
            .map(|(i, &id)| request(i as u32, i as u64 * 1000, 4, vec![id]))
            .collect();
        analyze(&requests, 4)
    };
    let hot = firsts([7, 7, 8, 9, 10]);
    assert!(hot
        .hazards
        .iter()
        .any(|h| h.starts_with("first block 7 starts 40.0%")));
    let even = firsts([7, 8, 9, 10, 11]);
    assert!(
        even.hazards.iter().all(|h| !h.contains("first block")),
        "{:?}",
        even.hazards
    );
    // Every id distinct: no block repeats, under the 5 % floor.
    assert!(even.hazards.iter().any(|h| h
        == "little reuse: at most 0.0% of blocks repeat, so routing for cache locality cannot gain much"));
    // A tie for the most common first block goes to the lowest id.
    assert_eq!(firsts([9, 9, 4, 4, 6]).top_first_block, Some(4));
    // Half the gaps at the same instant is a burst; a 60 s gap or more, no overlap.
    let at = |times: &[u64]| {
        let requests: Vec<Request> = times
            .iter()
            .enumerate()
            .map(|(i, &t)| request(i as u32, t, 4, vec![i as u64]))
            .collect();
        analyze(&requests, 4).hazards
    };
    assert!(at(&[0, 0, 5, 5, 9])
        .iter()
        .any(|h| h.starts_with("50.0% of requests arrive at the same instant")));
    assert!(!at(&[0, 0, 5, 6, 9])
        .iter()
        .any(|h| h.contains("same instant")));
    let apart = at(&[0, 60_000_000, 130_000_000]);
    assert!(
        apart
            .iter()
            .any(|h| h.starts_with("arrivals are at least 60 s apart")),
        "{apart:?}"
    );
    assert!(!at(&[0, 59_999_999]).iter().any(|h| h.contains("apart")));
    // One request: no rate, no gap.
    let one = analyze(&[request(0, 5, 4, vec![1])], 4);
    assert_eq!(
        (one.offered_rate_per_s, one.min_gap_s, one.duration_s),
        (None, None, 0.0)
    );
    assert!(one.render_text().contains("all at once"));
}

#[test]
fn a_trace_where_every_request_has_ids_and_nothing_is_wrong_has_no_hazards() {
    // Block size 4, five requests 1 ms apart, request i with blocks [i, 100]:
    // - no request lacks ids, so no "carry no block ids" note (not even "0 of 5");
    // - 10 blocks, 6 distinct: 40 % of blocks repeat, above the 5 % floor;
    // - first blocks 1..5, each 1 of 5 = 20 %, under the 25 % hot-spot share;
    // - gaps of 1 ms: none at the same instant, none of 60 s.
    let requests: Vec<Request> = (1..=5u64)
        .map(|i| request(i as u32 - 1, (i - 1) * 1000, 8, vec![i, 100]))
        .collect();
    let a = analyze(&requests, 4);
    assert_eq!(a.requests_without_ids, 0);
    assert_eq!(a.hazards, Vec::<String>::new());
}

#[test]
fn a_trace_without_any_ids_gets_the_no_content_note_and_not_also_little_reuse() {
    // No ids at all: the one content note says it; "little reuse" (0 of 0 blocks)
    // would only repeat it. Gaps of 1 ms: no timing note.
    let requests = [request(0, 0, 10, vec![]), request(1, 1000, 10, vec![])];
    let a = analyze(&requests, 4);
    assert_eq!(
        a.hazards,
        [
            "no request carries block ids: there is no content to reuse, so every policy \
          gets a 0% hit rate and only load balance matters"
        ]
    );
}

#[test]
fn little_reuse_fires_below_five_percent_and_not_at_exactly_five() {
    // Five requests 1 ms apart, request i with four fresh blocks 10i+1..10i+4 (first
    // blocks 1, 11, 21, 31, 41: 20 % each, no hot spot); the last request's last block
    // repeats block 1. Then 1 of 20 blocks repeats: exactly 5 %, not below the floor.
    let blocks = |i: u64| -> Vec<u64> { (1..=4).map(|k| 10 * i + k).collect() };
    let mut last = blocks(4);
    last[3] = 1;
    let mut requests: Vec<Request> = (0..4u64)
        .map(|i| request(i as u32, i * 1000, 16, blocks(i)))
        .collect();
    requests.push(request(4, 4000, 16, last.clone()));
    let a = analyze(&requests, 4);
    assert_eq!((a.blocks, a.distinct_blocks), (20, 19));
    assert_eq!(a.hazards, Vec::<String>::new());
    // One more fresh block in the last request: 1 of 21 = 4.76 %, below the floor.
    last.push(99);
    requests[4].block_ids = last.into();
    requests[4].prompt_tokens = 20;
    let a = analyze(&requests, 4);
    assert_eq!((a.blocks, a.distinct_blocks), (21, 20));
    assert_eq!(
        a.hazards,
        [
            "little reuse: at most 4.8% of blocks repeat, so routing for cache locality \
          cannot gain much"
        ]
    );
}

#[test]
fn one_request_with_ids_is_no_first_block_hot_spot() {
    // Two requests, but only the first carries ids ([1, 1]: half its blocks repeat, no
    // "little reuse"): one request with ids cannot load one replica more than another,
    // so neither "all share first block" nor "first block starts 100%" is said.
    let requests = [request(0, 0, 8, vec![1, 1]), request(1, 1000, 8, vec![])];
    let a = analyze(&requests, 4);
    assert_eq!(
        a.hazards,
        ["1 of 2 requests carry no block ids: they can never hit the cache"]
    );
    // With a second request starting with the same block, all (2) share it.
    let requests = [
        request(0, 0, 8, vec![1, 1]),
        request(1, 1000, 8, vec![1, 1]),
    ];
    let a = analyze(&requests, 4);
    assert_eq!(
        a.hazards,
        [
            "all 2 requests share first block 1: prefix_aware hashes the leading block, so it \
          sends ALL traffic to one replica"
        ]
    );
}

/// The block counts the slow way: a sorted map of every id seen and whether a request
/// cached it as a full block, replayed in order.
fn block_stats_by_map(requests: &[Request], block_size: u32) -> (u64, u64, u64) {
    let mut seen = std::collections::BTreeMap::<u64, bool>::new();
    let (mut total, mut cached_tokens) = (0, 0);
    for r in requests {
        total += r.block_ids.len() as u64;
        let reusable = ((r.prompt_tokens.max(1) - 1) / block_size) as usize;
        let mut hits = 0;
        for id in r.block_ids.iter().take(reusable) {
            if seen.get(id) != Some(&true) {
                break;
            }
            hits += 1;
        }
        cached_tokens += hits * block_size as u64;
        for (i, id) in r.block_ids.iter().enumerate() {
            let full = (i as u32 + 1) * block_size <= r.prompt_tokens;
            *seen.entry(*id).or_insert(false) |= full;
        }
    }
    (total, seen.len() as u64, cached_tokens)
}

/// Seeded requests over `distinct` ids spread `stride` apart from `base`: shared
/// prefixes, repeats and partial last blocks.
fn seeded_requests(seed: u64, distinct: u64, base: u64, stride: u64) -> Vec<Request> {
    let block_size = 4;
    let mut x = seed;
    let mut next = |bound: u64| {
        x = crate::rng::splitmix64(x);
        x % bound
    };
    (0..300)
        .map(|i| {
            let blocks = 1 + next(12);
            let start = next(distinct);
            let ids: Vec<u64> = (0..blocks)
                .map(|k| base + ((start + k * next(3)) % distinct) * stride)
                .collect();
            let prompt = (blocks as u32 - 1) * block_size + 1 + next(4) as u32;
            request(i, u64::from(i), prompt, ids)
        })
        .collect()
}

#[test]
fn block_counts_agree_with_a_plain_map_for_dense_sparse_and_huge_ids() {
    // Dense ids from 0 (an array), ids spread too far for one (a hash map), and ids
    // next to u64::MAX; each against the sorted-map replay above.
    for (seed, base, stride, dense) in [
        (1, 0, 1, true),
        (2, 0, 1_000_003, false),
        (3, u64::MAX - 5_000, 1, false),
    ] {
        let requests = seeded_requests(seed, 800, base, stride);
        let table = SeenBlocks::for_requests(&requests, 0);
        assert_eq!(matches!(table, SeenBlocks::Dense(_)), dense, "seed {seed}");
        let stats = block_stats(&requests, 4);
        let expected = block_stats_by_map(&requests, 4);
        assert_eq!(
            (stats.total, stats.distinct, stats.cached_tokens),
            expected,
            "seed {seed}"
        );
        assert!(
            expected.2 > 0 && expected.1 < expected.0,
            "the trace reuses blocks"
        );
    }
}
