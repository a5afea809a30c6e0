//! Workloads: the `Request` every source produces, and the seeded synthetic generator
//! (arrival model, length spread, prefix pool with popularity, unique suffixes).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::histogram::Quantiles;

pub mod schedule;

pub use schedule::{Clock, Schedule};

/// One request as the simulator sees it. Block ids chain: an equal id at position i
/// means an equal prompt prefix up to and including block i. The last block may be
/// partial (`prompt_tokens` need not be a multiple of the block size).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// Position in arrival order, from 0.
    pub id: u32,
    /// Arrival time, integer microseconds from the start of the run.
    pub arrival_us: u64,
    /// Prompt length, tokens.
    pub prompt_tokens: u32,
    /// Tokens to generate (at least 1).
    pub output_tokens: u32,
    /// One id per block of the prompt (`ceil(prompt_tokens / block_size)` of them), or
    /// empty when the source has no content (a plain workload file). Shared, not copied,
    /// by the runs that replay one parsed trace.
    pub block_ids: Arc<[u64]>,
    /// The session and turn this request belongs to, for multi-turn workloads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionTag>,
    /// Ids of the blocks that become full while the answer is generated (the partial last
    /// prompt block and the output), which the engine caches at completion as vLLM does.
    /// Only multi-turn sources set them: the next turn's prompt starts with these blocks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub output_block_ids: Vec<u64>,
}

/// What a source knows of its block ids in advance: the largest, and how many ids its
/// requests carry in all (prompt and output blocks; at least the distinct ids).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IdHint {
    /// The largest block id (0 when there are none).
    pub max_id: u64,
    /// Block ids over all requests, repeats counted.
    pub refs: u64,
}

impl IdHint {
    /// The hint of a list of requests.
    pub fn of(requests: &[Request]) -> IdHint {
        let mut hint = IdHint::default();
        for r in requests {
            hint.refs += (r.block_ids.len() + r.output_block_ids.len()) as u64;
            let most = max_of(&r.block_ids).max(max_of(&r.output_block_ids));
            hint.max_id = hint.max_id.max(most);
        }
        hint
    }
}

/// The largest of `ids` (0 when empty), kept in four lanes so the comparisons do not wait
/// on each other.
fn max_of(ids: &[u64]) -> u64 {
    let mut lanes = [0u64; 4];
    let chunks = ids.chunks_exact(4);
    let rest = chunks.remainder().iter().copied().max().unwrap_or(0);
    for c in chunks {
        for (lane, &id) in lanes.iter_mut().zip(c) {
            *lane = (*lane).max(id);
        }
    }
    lanes.into_iter().fold(rest, u64::max)
}

/// A request's place in a multi-turn session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionTag {
    /// Session (task) index, from 0.
    pub session: u32,
    /// Turn within the session, from 0.
    pub turn: u32,
}

/// A source of requests in arrival order. Closed-loop sources (sessions) learn when
/// each request ends, and may then schedule the next one.
pub trait Source {
    /// Arrival time of the next request, if any is known now.
    fn peek_arrival_us(&self) -> Option<u64>;
    /// Removes and returns the next request (the one `peek_arrival_us` described).
    fn pop(&mut self) -> Option<Request>;
    /// A request ended at `now_us`: completed (`ok`), or rejected or timed out.
    fn on_end(&mut self, _req: EndedRequest, _now_us: u64) {}
    /// How many requests the source expects to produce in all (for progress).
    fn total_hint(&self) -> u64;
    /// Per-session results, for sources that have sessions.
    fn session_report(&self) -> Option<SessionReport> {
        None
    }
}

/// What a source learns about a request that ended.
#[derive(Clone, Copy, Debug)]
pub struct EndedRequest {
    /// Request id.
    pub id: u32,
    /// Its session, if any.
    pub session: Option<SessionTag>,
    /// Whether it completed (false: rejected or timed out).
    pub ok: bool,
    /// Output tokens it generated (its answer joins the next turn's prompt).
    pub output_tokens: u32,
}

/// Adapts an iterator of requests in arrival order into a `Source`.
pub struct IterSource<I: Iterator<Item = Request>> {
    iter: I,
    peeked: Option<Request>,
    total: u64,
}

impl<I: Iterator<Item = Request>> IterSource<I> {
    /// Wraps `iter`, which yields `total` requests.
    pub fn new(mut iter: I, total: u64) -> Self {
        let peeked = iter.next();
        IterSource {
            iter,
            peeked,
            total,
        }
    }
}

impl<I: Iterator<Item = Request>> Source for IterSource<I> {
    fn peek_arrival_us(&self) -> Option<u64> {
        self.peeked.as_ref().map(|r| r.arrival_us)
    }

    fn pop(&mut self) -> Option<Request> {
        let next = self.iter.next();
        std::mem::replace(&mut self.peeked, next)
    }

    fn total_hint(&self) -> u64 {
        self.total
    }
}

use crate::config::{ArrivalModel, Config, Popularity};
use crate::rng::{Rng, Stream};

/// Seeded inter-arrival gaps of one arrival model at one mean rate.
pub struct Arrivals {
    model: ArrivalModel,
    burstiness: f64,
    gap_mean_us: f64,
    rng: Rng,
}

impl Arrivals {
    /// Gaps for `rate_per_s` under the config's arrival model and seed.
    pub fn new(cfg: &Config, rate_per_s: f64) -> Arrivals {
        Arrivals {
            model: cfg.arrival_model,
            burstiness: cfg.burstiness,
            gap_mean_us: 1e6 / rate_per_s,
            rng: Rng::fork(cfg.seed, Stream::Arrivals),
        }
    }

    /// The longest gap `gap_us` can draw, µs (for the run's worst-case duration).
    ///
    /// Deterministic gaps are the mean. A Poisson gap is `-mean × ln(u)` with u at least
    /// 2^-53, so at most 36.74 means. A gamma gap of shape k (Marsaglia and Tsang) is
    /// `d × (1 + c × x)^3 × scale` with d = k - 1/3, c = 1 / sqrt(9d), scale = mean / k
    /// and x a Box-Muller normal, |x| <= sqrt(-2 ln 2^-53) = 8.57; that is at most 60.73
    /// means for k >= 1 (the ratio falls as k grows), and for k < 1 the draw of shape
    /// k + 1 times a boost u^(1/k) <= 1, at most 60.73 × mean / k.
    pub fn max_gap_us(&self) -> f64 {
        match self.model {
            ArrivalModel::Deterministic => self.gap_mean_us,
            ArrivalModel::Poisson => 37.0 * self.gap_mean_us,
            ArrivalModel::Gamma => 61.0 * self.gap_mean_us / self.burstiness.min(1.0),
        }
    }

    /// The next gap, µs.
    pub fn gap_us(&mut self) -> f64 {
        match self.model {
            ArrivalModel::Deterministic => self.gap_mean_us,
            ArrivalModel::Poisson => self.rng.exponential(self.gap_mean_us),
            ArrivalModel::Gamma => self
                .rng
                .gamma(self.burstiness, self.gap_mean_us / self.burstiness),
        }
    }
}

/// Seeded lengths, uniform in mean x (1 - r) ..= mean x (1 + r).
pub struct Lengths {
    range_ratio: f64,
    rng: Rng,
}

impl Lengths {
    /// Lengths under the config's range ratio and seed.
    pub fn new(cfg: &Config) -> Lengths {
        Lengths {
            range_ratio: cfg.range_ratio,
            rng: Rng::fork(cfg.seed, Stream::Lengths),
        }
    }

    /// One length around `mean` (at least 1).
    pub fn draw(&mut self, mean: u32) -> u32 {
        if self.range_ratio <= 0.0 {
            return mean;
        }
        let lo = libm::floor(mean as f64 * (1.0 - self.range_ratio)) as u64;
        let hi = libm::floor(mean as f64 * (1.0 + self.range_ratio)) as u64;
        self.rng.range_inclusive(lo, hi).max(1) as u32
    }
}

/// The seeded synthetic generator: yields requests lazily, in arrival order, so memory
/// does not grow with the number of requests generated.
pub struct Synthetic {
    remaining: u32,
    next_id: u32,
    input_len: u32,
    output_len: u32,
    block_size: u32,
    prefix_len: u32,
    prefix_blocks: u64,
    prefix_cdf: Vec<f64>,
    next_unique_id: u64,
    clock: Clock,
    lengths: Lengths,
    prefixes: Rng,
}

impl Synthetic {
    /// A generator for a validated config.
    pub fn new(cfg: &Config, popularity: Popularity) -> Synthetic {
        let prefix_blocks = (cfg.prefix_len / cfg.block_size) as u64;
        Synthetic {
            remaining: cfg.num_requests,
            next_id: 0,
            input_len: cfg.input_len,
            output_len: cfg.output_len,
            block_size: cfg.block_size,
            prefix_len: cfg.prefix_len,
            prefix_blocks,
            prefix_cdf: prefix_cdf(cfg.num_prefixes, popularity),
            next_unique_id: cfg.num_prefixes as u64 * prefix_blocks,
            clock: Clock::new(cfg, cfg.request_rate),
            lengths: Lengths::new(cfg),
            prefixes: Rng::fork(cfg.seed, Stream::Prefixes),
        }
    }

    /// How many requests the generator will still yield.
    pub fn remaining(&self) -> u32 {
        self.remaining
    }

    fn pick_prefix(&mut self) -> Option<u64> {
        if self.prefix_cdf.is_empty() {
            return None;
        }
        let u = self.prefixes.next_f64();
        let index = self.prefix_cdf.partition_point(|&c| c <= u);
        Some(index.min(self.prefix_cdf.len() - 1) as u64)
    }

    /// The prefix's blocks (none without one), then fresh unique ids.
    fn block_ids(&mut self, prompt_tokens: u32, prefix: Option<u64>) -> Arc<[u64]> {
        let total = prompt_tokens.div_ceil(self.block_size) as u64;
        let shared = match prefix {
            Some(_) if self.prefix_len <= prompt_tokens => self.prefix_blocks.min(total),
            _ => 0,
        };
        let (first_shared, first_unique) = (
            prefix.unwrap_or(0) * self.prefix_blocks,
            self.next_unique_id,
        );
        self.next_unique_id += total - shared;
        (0..total)
            .map(|j| match j < shared {
                true => first_shared + j,
                false => first_unique + (j - shared),
            })
            .collect()
    }
}

impl Iterator for Synthetic {
    type Item = Request;

    fn next(&mut self) -> Option<Request> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let arrival_us = self.clock.next_us();
        let prompt_tokens = self.lengths.draw(self.input_len);
        let output_tokens = self.lengths.draw(self.output_len);
        let prefix = self.pick_prefix();
        let block_ids = self.block_ids(prompt_tokens, prefix);
        let id = self.next_id;
        self.next_id += 1;
        Some(Request {
            id,
            arrival_us,
            prompt_tokens,
            output_tokens,
            block_ids,
            session: None,
            output_block_ids: Vec::new(),
        })
    }
}

/// Cumulative popularity of the prefixes (empty when there is no pool).
fn prefix_cdf(num_prefixes: u32, popularity: Popularity) -> Vec<f64> {
    let n = num_prefixes as usize;
    if n == 0 {
        return Vec::new();
    }
    let weights: Vec<f64> = (0..n)
        .map(|i| match popularity {
            Popularity::Uniform => 1.0,
            Popularity::Zipf(s) => 1.0 / libm::pow(i as f64 + 1.0, s),
            Popularity::Hot(share) if n == 1 => share.max(1.0),
            Popularity::Hot(share) if i == 0 => share,
            Popularity::Hot(share) => (1.0 - share) / (n - 1) as f64,
        })
        .collect();
    let total: f64 = weights.iter().sum();
    let mut acc = 0.0;
    weights
        .iter()
        .map(|w| {
            acc += w / total;
            acc
        })
        .collect()
}

/// Task-level results of a sessions run (`sessions`).
#[derive(Clone, Debug, Default, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SessionReport {
    /// Tasks started.
    pub tasks: u32,
    /// Tasks whose every turn completed.
    pub completed_tasks: u32,
    /// Tasks cut short because a turn was rejected or timed out.
    pub failed_tasks: u32,
    /// Task completion time, from the first turn's arrival to the last turn's answer, s
    /// (each statistic `null` when no task completed).
    pub task_s: Quantiles,
    /// Per turn (index = turn): fraction of the admitted requests with a cache hit (`null`
    /// when none of that turn was admitted).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "(number | null)[]"))]
    #[cfg_attr(feature = "schema", schemars(with = "Vec<Option<f64>>"))]
    pub hit_rate_by_turn: Vec<f64>,
    /// Per turn: cached tokens / prompt tokens, a fraction (`null` when none of that turn
    /// was admitted).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "(number | null)[]"))]
    #[cfg_attr(feature = "schema", schemars(with = "Vec<Option<f64>>"))]
    pub token_hit_rate_by_turn: Vec<f64>,
    /// Per turn: mean time to first token, ms (`null` when none of that turn completed).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "(number | null)[]"))]
    #[cfg_attr(feature = "schema", schemars(with = "Vec<Option<f64>>"))]
    pub ttft_ms_by_turn: Vec<f64>,
    /// Per turn: mean prompt length, tokens (`null` when none of that turn was admitted).
    #[cfg_attr(target_arch = "wasm32", tsify(type = "(number | null)[]"))]
    #[cfg_attr(feature = "schema", schemars(with = "Vec<Option<f64>>"))]
    pub prompt_tokens_by_turn: Vec<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_gaps_have_the_mean_and_the_spread_of_their_shape() {
        // A gamma gap of shape k and scale mean / k has the mean of the rate and a squared
        // coefficient of variation of 1 / k (k < 1 burstier than Poisson). 20,000 draws
        // at 10 req/s (a mean gap of 100,000 µs), shapes 0.5 and 4.
        for k in [0.5, 4.0] {
            let cfg = Config {
                arrival_model: ArrivalModel::Gamma,
                burstiness: k,
                ..Config::default()
            };
            let mut a = Arrivals::new(&cfg, 10.0);
            let xs: Vec<f64> = (0..20_000).map(|_| a.gap_us()).collect();
            let n = xs.len() as f64;
            let mean = xs.iter().sum::<f64>() / n;
            let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
            assert!((mean / 100_000.0 - 1.0).abs() < 0.05, "k {k}: mean {mean}");
            let cv2 = var / (mean * mean);
            assert!((cv2 * k - 1.0).abs() < 0.15, "k {k}: cv^2 {cv2}");
        }
    }

    fn generate(cfg: &Config) -> Vec<Request> {
        let popularity = Popularity::parse(&cfg.prefix_popularity).unwrap();
        Synthetic::new(cfg, popularity).collect()
    }

    #[test]
    fn prefixes_share_leading_ids_and_suffixes_are_unique() {
        let reqs = generate(&Config::default());
        assert_eq!(reqs.len(), 200);
        let mut seen = std::collections::HashSet::new();
        for r in &reqs {
            assert_eq!(r.block_ids.len(), 8);
            assert!(r.block_ids[0] < 32, "prefix ids come from the pool");
            for &id in &r.block_ids[4..] {
                assert!(seen.insert(id), "suffix id {id} repeats");
            }
        }
        let firsts: std::collections::BTreeSet<u64> = reqs.iter().map(|r| r.block_ids[0]).collect();
        assert_eq!(firsts.len(), 8);
    }

    #[test]
    fn popularity_cdfs_worked_by_hand() {
        let close = |got: Vec<f64>, want: &[f64]| {
            assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(want) {
                assert!((g - w).abs() < 1e-12, "{got:?} vs {want:?}");
            }
        };
        close(prefix_cdf(4, Popularity::Uniform), &[0.25, 0.5, 0.75, 1.0]);
        // Zipf s = 1: weights 1, 1/2, 1/3, 1/4, total 25/12.
        close(
            prefix_cdf(4, Popularity::Zipf(1.0)),
            &[12.0 / 25.0, 18.0 / 25.0, 22.0 / 25.0, 1.0],
        );
        // Zipf s = 2: 1, 1/4, 1/9, total 49/36.
        close(
            prefix_cdf(3, Popularity::Zipf(2.0)),
            &[36.0 / 49.0, 45.0 / 49.0, 1.0],
        );
        // A single prefix takes every request, whatever the hot share (0 included: its
        // weight would otherwise be 0 of 0).
        close(prefix_cdf(1, Popularity::Hot(0.0)), &[1.0]);
        close(prefix_cdf(1, Popularity::Hot(0.3)), &[1.0]);
        // Hot 0.85 over 4: the rest split evenly, 0.05 each.
        close(
            prefix_cdf(4, Popularity::Hot(0.85)),
            &[0.85, 0.9, 0.95, 1.0],
        );
        close(prefix_cdf(1, Popularity::Hot(0.3)), &[1.0]);
        assert!(prefix_cdf(0, Popularity::Uniform).is_empty());
    }

    #[test]
    fn the_first_request_arrives_at_zero_and_deterministic_gaps_are_the_mean() {
        let cfg = Config {
            num_requests: 4,
            request_rate: 8.0,
            arrival_model: ArrivalModel::Deterministic,
            ..Config::default()
        };
        let mut gen = Synthetic::new(&cfg, Popularity::Uniform);
        assert_eq!(gen.remaining(), 4);
        let first = gen.next().unwrap();
        assert_eq!((first.id, first.arrival_us), (0, 0));
        assert_eq!(gen.remaining(), 3);
        let rest: Vec<(u32, u64)> = gen.by_ref().map(|r| (r.id, r.arrival_us)).collect();
        assert_eq!(rest, vec![(1, 125_000), (2, 250_000), (3, 375_000)]);
        assert_eq!(gen.remaining(), 0);
        assert!(gen.next().is_none());
    }

    #[test]
    fn gap_bounds_worked_by_hand() {
        // Mean gap at 2 req/s: 500,000 µs.
        let bound = |model, burstiness| {
            let cfg = Config {
                arrival_model: model,
                burstiness,
                ..Config::default()
            };
            Arrivals::new(&cfg, 2.0).max_gap_us()
        };
        assert_eq!(bound(ArrivalModel::Deterministic, 1.0), 500_000.0);
        assert_eq!(bound(ArrivalModel::Poisson, 1.0), 37.0 * 500_000.0);
        assert_eq!(bound(ArrivalModel::Gamma, 4.0), 61.0 * 500_000.0);
        assert_eq!(bound(ArrivalModel::Gamma, 0.25), 61.0 * 500_000.0 / 0.25);
    }

    #[test]
    fn a_prompt_shorter_than_the_prefix_shares_nothing() {
        // Prompts of 1024 to 3072 tokens (2048 x (1 -/+ 0.5)), a 2048-token prefix: a
        // prompt shorter than it carries only unique ids; one at least as long starts
        // with its prefix's 4 pool ids (prefix p owns ids 4p to 4p + 3, all below 32).
        let cfg = Config {
            num_requests: 400,
            input_len: 2048,
            range_ratio: 0.5,
            ..Config::default()
        };
        let (mut short, mut long) = (0, 0);
        for r in generate(&cfg) {
            assert_eq!(r.block_ids.len(), r.prompt_tokens.div_ceil(512) as usize);
            let pooled = r.block_ids.iter().filter(|&&id| id < 32).count();
            if r.prompt_tokens < 2048 {
                short += 1;
                assert_eq!(pooled, 0, "{} tokens", r.prompt_tokens);
            } else {
                long += 1;
                assert_eq!(pooled, 4, "{} tokens", r.prompt_tokens);
                let p = r.block_ids[0] / 4;
                assert_eq!(r.block_ids[..4], [4 * p, 4 * p + 1, 4 * p + 2, 4 * p + 3]);
            }
        }
        assert!(short > 100 && long > 100, "{short} short, {long} long");
    }

    #[test]
    fn an_iterator_source_peeks_pops_and_counts() {
        let reqs = generate(&Config {
            num_requests: 3,
            ..Config::default()
        });
        let arrivals: Vec<u64> = reqs.iter().map(|r| r.arrival_us).collect();
        let mut src = IterSource::new(reqs.clone().into_iter(), 3);
        assert_eq!(src.total_hint(), 3);
        assert!(src.session_report().is_none());
        for (want, arrival) in reqs.iter().zip(arrivals) {
            assert_eq!(src.peek_arrival_us(), Some(arrival));
            assert_eq!(src.pop().as_ref(), Some(want));
        }
        assert_eq!((src.peek_arrival_us(), src.pop()), (None, None));
    }

    #[test]
    fn no_gap_exceeds_the_stated_maximum() {
        for (model, burstiness) in [
            (ArrivalModel::Deterministic, 1.0),
            (ArrivalModel::Poisson, 1.0),
            (ArrivalModel::Gamma, 0.01),
            (ArrivalModel::Gamma, 0.5),
            (ArrivalModel::Gamma, 1.0),
            (ArrivalModel::Gamma, 100.0),
        ] {
            let cfg = Config {
                arrival_model: model,
                burstiness,
                ..Config::default()
            };
            let mut a = Arrivals::new(&cfg, 2.0);
            let max = a.max_gap_us();
            let longest = (0..100_000).map(|_| a.gap_us()).fold(0.0, f64::max);
            assert!(longest <= max, "{model:?} {burstiness}: {longest} > {max}");
        }
    }

    #[test]
    fn hot_prefix_takes_its_share() {
        let cfg = Config {
            num_requests: 4000,
            prefix_popularity: "hot:0.85".into(),
            ..Config::default()
        };
        let hot = generate(&cfg)
            .iter()
            .filter(|r| r.block_ids[0] == 0)
            .count();
        let share = hot as f64 / 4000.0;
        assert!((share - 0.85).abs() < 0.02, "{share}");
    }

    #[test]
    fn rate_and_spread_hold() {
        let cfg = Config {
            num_requests: 5000,
            range_ratio: 0.5,
            ..Config::default()
        };
        let reqs = generate(&cfg);
        let span_s = reqs.last().unwrap().arrival_us as f64 / 1e6;
        assert!((4999.0 / span_s - 6.0).abs() < 0.3);
        let min = reqs.iter().map(|r| r.prompt_tokens).min().unwrap();
        let max = reqs.iter().map(|r| r.prompt_tokens).max().unwrap();
        assert!(min >= 2048 && max <= 6144 && max - min > 3500);
    }
}
