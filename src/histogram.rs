//! Log-bucketed histograms for latencies: fixed relative resolution, an exact mean, and
//! memory bounded by the value range (never by the number of samples), fed one value at
//! a time or with a whole arithmetic run of decode steps at once.

use serde::Serialize;

/// Most buckets a histogram may grow to (values beyond the last one share it); bucket
/// numbers fit a `u16`.
const MAX_BUCKETS: usize = 60_000;

/// Values whose buckets wait to be counted, at most. Counting them sorted walks the
/// counts in order instead of missing the cache once a value: the simulation's tables
/// push the counts out of cache between two completions.
const PENDING_MAX: usize = 1024;

/// A step run for inter-token gaps: `count` steps of `first_us + i x delta_us`, each
/// emitting `tokens` gaps.
#[derive(Clone, Copy, Debug)]
pub struct ItlRun {
    /// Duration of the first step, µs.
    pub first_us: f64,
    /// Growth of the duration per step, µs.
    pub delta_us: f64,
    /// Steps.
    pub count: u64,
    /// Tokens (sequences) per step that count as inter-token gaps.
    pub tokens: u64,
}

/// mean / p50 / p90 / p99 of one latency, milliseconds (in the report's `sessions.task_s`,
/// seconds); each NaN, `null` in the JSON, over no values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Quantiles {
    /// Mean; `null` over no values.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub mean: f64,
    /// Median; `null` over no values.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub p50: f64,
    /// 90th percentile; `null` over no values.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub p90: f64,
    /// 99th percentile; `null` over no values.
    #[cfg_attr(target_arch = "wasm32", tsify(type = "number | null"))]
    #[cfg_attr(feature = "schema", schemars(with = "Option<f64>"))]
    pub p99: f64,
}

/// Bucket 0 holds values below 1 µs (reported as 0); bucket k >= 1 holds
/// [base^(k-1), base^k) and reports its geometric midpoint. Single values' buckets are
/// counted in batches (`pending`, then `settle`); every query sees them.
#[derive(Clone, Debug)]
pub struct LogHistogram {
    base: f64,
    ln_base: f64,
    counts: Vec<u64>,
    /// Buckets of values added but not yet in `counts`.
    pending: Vec<u16>,
    total: u64,
    sum_us: f64,
}

impl LogHistogram {
    /// 0.1 % resolution, for per-request latencies.
    pub fn fine() -> LogHistogram {
        LogHistogram::with_base(1.001)
    }

    /// 1 % resolution, for inter-token gaps fed in runs (fewer buckets per run).
    pub fn coarse() -> LogHistogram {
        LogHistogram::with_base(1.01)
    }

    fn with_base(base: f64) -> LogHistogram {
        LogHistogram {
            base,
            ln_base: libm::log(base),
            counts: Vec::new(),
            pending: Vec::new(),
            total: 0,
            sum_us: 0.0,
        }
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.total
    }

    fn bucket(&self, value_us: f64) -> usize {
        if value_us < 1.0 {
            return 0;
        }
        (1 + (libm::log(value_us) / self.ln_base) as usize).min(MAX_BUCKETS - 1)
    }

    fn upper(&self, bucket: usize) -> f64 {
        libm::pow(self.base, bucket as f64)
    }

    fn value(&self, bucket: usize) -> f64 {
        if bucket == 0 {
            return 0.0;
        }
        libm::pow(self.base, bucket as f64 - 1.0) * libm::sqrt(self.base)
    }

    fn bump(&mut self, bucket: usize, n: u64) {
        if self.counts.len() <= bucket {
            self.counts.resize(bucket + 1, 0);
        }
        self.counts[bucket] += n;
    }

    /// Records one value.
    pub fn add(&mut self, value_us: f64) {
        self.total += 1;
        self.sum_us += value_us;
        let b = self.bucket(value_us);
        self.pending.push(b as u16);
        if self.pending.len() == PENDING_MAX {
            self.settle();
        }
    }

    /// Counts the pending buckets a group of 256 neighbouring buckets (2 KB of counts) at
    /// a time, the groups in order: one counting pass on each bucket's high byte, where a
    /// full sort cost five times as much for the same walk through the counts.
    fn settle(&mut self) {
        let Some(&top) = self.pending.iter().max() else {
            return;
        };
        if self.counts.len() <= usize::from(top) {
            self.counts.resize(usize::from(top) + 1, 0);
        }
        let mut starts = [0usize; 257];
        for &b in &self.pending {
            starts[usize::from(b >> 8) + 1] += 1;
        }
        for g in 1..starts.len() {
            starts[g] += starts[g - 1];
        }
        let mut grouped = [0u16; PENDING_MAX];
        for &b in &self.pending {
            let at = &mut starts[usize::from(b >> 8)];
            grouped[*at] = b;
            *at += 1;
        }
        for &b in &grouped[..self.pending.len()] {
            self.counts[usize::from(b)] += 1;
        }
        self.pending.clear();
    }

    /// This histogram with every pending bucket counted, borrowed as it is when none is.
    fn settled(&self) -> std::borrow::Cow<'_, LogHistogram> {
        if self.pending.is_empty() {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut h = self.clone();
        h.settle();
        std::borrow::Cow::Owned(h)
    }

    /// Adds `run.count` values `first + i x delta`, each `run.tokens` times, in time
    /// proportional to the buckets the run spans (not to its length).
    pub fn add_run(&mut self, run: &ItlRun) {
        if run.count == 0 || run.tokens == 0 {
            return;
        }
        let n = run.count as f64;
        self.sum_us += run.tokens as f64 * (n * run.first_us + run.delta_us * n * (n - 1.0) / 2.0);
        self.total += run.count * run.tokens;
        let last = run.first_us + run.delta_us * (n - 1.0);
        let (b0, b1) = (self.bucket(run.first_us), self.bucket(last));
        if b0 == b1 || run.delta_us <= 0.0 {
            self.bump(b0, run.count * run.tokens);
            return;
        }
        let mut placed = 0u64;
        for b in b0..=b1 {
            let below = if b == b1 {
                run.count
            } else {
                let steps = libm::ceil((self.upper(b) - run.first_us) / run.delta_us);
                (steps.max(0.0) as u64).min(run.count)
            };
            self.bump(b, below.saturating_sub(placed) * run.tokens);
            placed = placed.max(below);
        }
    }

    /// Nearest-rank quantiles (ascending `qs` in 0..=1), ms, in one pass.
    pub fn at_ms(&self, qs: &[f64]) -> Vec<f64> {
        let settled = self.settled();
        settled.settled_at_ms(qs)
    }

    /// `at_ms` with nothing pending.
    fn settled_at_ms(&self, qs: &[f64]) -> Vec<f64> {
        let mut out = Vec::with_capacity(qs.len());
        if self.total == 0 {
            out.resize(qs.len(), f64::NAN);
            return out;
        }
        let (mut seen, mut b) = (0u64, 0usize);
        for &q in qs {
            let rank = (libm::ceil(q * self.total as f64) as u64).clamp(1, self.total);
            while seen + self.counts[b] < rank {
                seen += self.counts[b];
                b += 1;
            }
            out.push(self.value(b) / 1000.0);
        }
        out
    }

    /// mean / p50 / p90 / p99, ms.
    pub fn quantiles_ms(&self) -> Quantiles {
        let q = self.at_ms(&[0.50, 0.90, 0.99]);
        let mean = if self.total == 0 {
            f64::NAN
        } else {
            self.sum_us / self.total as f64 / 1000.0
        };
        Quantiles {
            mean,
            p50: q[0],
            p90: q[1],
            p99: q[2],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_counts_like_its_steps_one_by_one() {
        let run = ItlRun {
            first_us: 6000.0,
            delta_us: 37.0,
            count: 500,
            tokens: 3,
        };
        let mut whole = LogHistogram::coarse();
        whole.add_run(&run);
        let mut single = LogHistogram::coarse();
        for i in 0..run.count {
            let at = run.first_us + run.delta_us * i as f64;
            single.add_run(&ItlRun {
                first_us: at,
                delta_us: 0.0,
                count: 1,
                tokens: 3,
            });
        }
        assert_eq!(whole.total, single.total);
        assert_eq!(whole.counts, single.counts);
        assert!((whole.sum_us - single.sum_us).abs() < 1e-3 * single.sum_us);
        let q = whole.quantiles_ms();
        let exact_p50 = (6000.0 + 37.0 * 249.5) / 1000.0;
        assert!(
            (q.p50 - exact_p50).abs() / exact_p50 < 0.01,
            "{} vs {exact_p50}",
            q.p50
        );
    }

    /// Buckets counted in batches give the counts of counting each value as it comes:
    /// 5,000 values (four full batches and a partial one), some equal, some below 1 µs.
    #[test]
    fn batched_counts_equal_counting_each_value() {
        let mut batched = LogHistogram::fine();
        let mut expected: Vec<u64> = Vec::new();
        let mut state = 7u64;
        for i in 0..5_000u64 {
            state = crate::rng::splitmix64(state);
            let value_us = match i % 5 {
                0 => 0.5,
                1 => 123_456.0,
                _ => (state % 20_000_000) as f64 / 7.0,
            };
            batched.add(value_us);
            let b = batched.bucket(value_us);
            if expected.len() <= b {
                expected.resize(b + 1, 0);
            }
            expected[b] += 1;
            if i == 2_500 {
                assert_eq!(batched.pending.len(), 2_501 - 2 * PENDING_MAX);
            }
        }
        let qs = [0.0, 0.1, 0.5, 0.9, 0.99, 1.0];
        let before = batched.at_ms(&qs);
        assert!(
            !batched.pending.is_empty(),
            "a query leaves the batch pending"
        );
        batched.settle();
        assert!(batched.pending.is_empty());
        assert_eq!(batched.counts, expected);
        assert_eq!(batched.at_ms(&qs), before, "queries see pending values");
        assert_eq!(batched.count(), 5_000);
    }

    #[test]
    fn fine_quantiles_are_within_half_a_bucket() {
        // A value is reported as its bucket's geometric midpoint, at most a factor
        // sqrt(1.001) (0.05 %) away: that is the resolution, checked here; the rank rule
        // is checked below, where one rank step is far wider than a bucket.
        let mut h = LogHistogram::fine();
        for v in 1..=10_000u32 {
            h.add(v as f64 * 10.0);
        }
        h.add(0.0);
        let q = h.quantiles_ms();
        assert!((q.mean - 500_050_000.0 / 10_001.0 / 1000.0).abs() < 1e-9);
        // Nearest rank over 10,001 values (0, then 10 µs ... 100 ms): ceil(0.5 x 10,001)
        // = 5,001st is 50.00 ms; ceil(0.9 x 10,001) = 9,001st is 90.00 ms; 9,901st is 99.00.
        for (got, want) in [(q.p50, 50.0), (q.p90, 90.0), (q.p99, 99.0)] {
            assert!((got - want).abs() / want <= 0.0005, "{got} vs {want}");
        }
        assert_eq!(h.at_ms(&[0.0])[0], 0.0, "values below 1 µs report 0");
        // A statistic over nothing is NaN (null in the JSON), not 0.
        let empty = LogHistogram::fine().quantiles_ms();
        assert!([empty.mean, empty.p50, empty.p90, empty.p99]
            .iter()
            .all(|x| x.is_nan()));
        assert!(LogHistogram::fine().at_ms(&[0.5])[0].is_nan());
    }

    #[test]
    fn nearest_rank_at_101_values_is_exact() {
        // 1, 2, ..., 101 ms. Nearest rank is the ceil(q x n)-th smallest value: p50 is the
        // 51st (50.5 rounded up), p90 the 91st (90.9), p99 the 100th (99.99), p100 the
        // 101st and p0 the 1st. A floor would give 50, 90, 99: 1-2 % away, 20 to 40
        // buckets of 0.05 %.
        for h in [LogHistogram::fine(), LogHistogram::coarse()] {
            let mut h = h;
            for v in 1..=101u32 {
                h.add(v as f64 * 1000.0);
            }
            let half_bucket = libm::sqrt(h.base) - 1.0;
            let got = h.at_ms(&[0.0, 0.5, 0.9, 0.99, 1.0]);
            for (got, want) in got.into_iter().zip([1.0, 51.0, 91.0, 100.0, 101.0]) {
                assert!(
                    (got - want).abs() / want <= half_bucket + 1e-12,
                    "base {}: {got} vs {want}",
                    h.base
                );
            }
            assert_eq!(h.count(), 101);
            // Mean: (1 + 101) / 2 = 51 ms, exactly (the sum is kept, not bucketed).
            assert_eq!(h.quantiles_ms().mean, 51.0);
        }
    }

    #[test]
    fn a_run_spanning_buckets_keeps_its_count_and_sum() {
        // 4 steps of 1000, 1500, 2000, 2500 µs, 2 tokens each: 8 gaps, sum 14,000 µs.
        let mut h = LogHistogram::coarse();
        h.add_run(&ItlRun {
            first_us: 1000.0,
            delta_us: 500.0,
            count: 4,
            tokens: 2,
        });
        assert_eq!(h.count(), 8);
        assert!((h.quantiles_ms().mean - 14_000.0 / 8.0 / 1000.0).abs() < 1e-12);
        // Nearest rank: ranks 1-2 are 1.0 ms, 3-4 1.5, 5-6 2.0, 7-8 2.5 (1 % buckets).
        let got = h.at_ms(&[0.25, 0.5, 0.75, 1.0]);
        for (got, want) in got.into_iter().zip([1.0, 1.5, 2.0, 2.5]) {
            assert!((got - want).abs() / want <= 0.005, "{got} vs {want}");
        }
        // Empty runs add nothing.
        h.add_run(&ItlRun {
            first_us: 1.0,
            delta_us: 0.0,
            count: 0,
            tokens: 3,
        });
        h.add_run(&ItlRun {
            first_us: 1.0,
            delta_us: 0.0,
            count: 3,
            tokens: 0,
        });
        assert_eq!(h.count(), 8);
    }

    #[test]
    fn one_microsecond_is_the_first_real_bucket_and_huge_values_share_the_last() {
        // Bucket 0 holds values below 1 µs; 1 µs itself is bucket 1, reported as its
        // midpoint sqrt(1.001) µs.
        let mut h = LogHistogram::fine();
        h.add(1.0);
        assert_eq!(h.at_ms(&[1.0])[0], libm::sqrt(1.001) / 1000.0);
        let mut h = LogHistogram::fine();
        h.add(0.999);
        assert_eq!(h.at_ms(&[1.0])[0], 0.0);
        // Memory is bounded by the bucket cap, not by the value: 1e30 and 1e40 µs (far past
        // the clock's 2^62 µs) share the last bucket, number MAX_BUCKETS - 1.
        let mut h = LogHistogram::fine();
        h.add(1e30);
        h.add(1e40);
        h.settle();
        assert_eq!(h.counts.len(), MAX_BUCKETS);
        assert_eq!(h.counts[MAX_BUCKETS - 1], 2);
        let last = libm::pow(1.001, (MAX_BUCKETS - 2) as f64 + 0.5) / 1000.0;
        let got = h.at_ms(&[0.5])[0];
        assert!((got - last).abs() / last < 1e-9, "{got} vs {last}");
    }
}
