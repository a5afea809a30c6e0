//! Measurement: per-request latencies, a log-bucketed inter-token histogram fed in
//! closed form, cache counters per replica, and an adaptive columnar time-series sampler.

use serde::Serialize;

use crate::engine::{Admitted, Finished, ItlRun};

/// mean / p50 / p90 / p99 of one latency, milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Quantiles {
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
}

/// Linear-interpolated quantile of sorted values (q in 0..=1).
pub fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let pos = q * (sorted.len() - 1) as f64;
    let lo = libm::floor(pos) as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// Quantiles of values in µs, reported in ms. Sorts in place.
pub fn quantiles_ms(values_us: &mut [f64]) -> Quantiles {
    if values_us.is_empty() {
        return Quantiles::default();
    }
    values_us.sort_by(f64::total_cmp);
    let n = values_us.len() as f64;
    Quantiles {
        mean: values_us.iter().sum::<f64>() / n / 1000.0,
        p50: quantile_sorted(values_us, 0.50) / 1000.0,
        p90: quantile_sorted(values_us, 0.90) / 1000.0,
        p99: quantile_sorted(values_us, 0.99) / 1000.0,
    }
}

/// A histogram with 1 %-wide log buckets from 1 µs up, fed with whole arithmetic runs.
#[derive(Clone, Debug)]
pub struct LogHistogram {
    counts: Vec<u64>,
    total: u64,
    sum_us: f64,
}

const LOG_BASE: f64 = 1.01;
const BUCKETS: usize = 2400;

impl Default for LogHistogram {
    fn default() -> Self {
        LogHistogram {
            counts: vec![0; BUCKETS],
            total: 0,
            sum_us: 0.0,
        }
    }
}

impl LogHistogram {
    fn bucket(value_us: f64) -> usize {
        if value_us <= 1.0 {
            return 0;
        }
        ((libm::log(value_us) / libm::log(LOG_BASE)) as usize).min(BUCKETS - 1)
    }

    fn lower_bound(bucket: usize) -> f64 {
        libm::pow(LOG_BASE, bucket as f64)
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
        let (b0, b1) = (Self::bucket(run.first_us), Self::bucket(last));
        if b0 == b1 || run.delta_us <= 0.0 {
            self.counts[b0] += run.count * run.tokens;
            return;
        }
        let mut placed = 0u64;
        for b in b0..=b1 {
            let upper_steps = if b == b1 {
                run.count
            } else {
                let hi = Self::lower_bound(b + 1);
                (libm::ceil((hi - run.first_us) / run.delta_us).max(0.0) as u64).min(run.count)
            };
            let here = upper_steps.saturating_sub(placed);
            self.counts[b] += here * run.tokens;
            placed = placed.max(upper_steps);
        }
    }

    /// mean / p50 / p90 / p99 in ms (bucket geometric midpoints).
    pub fn quantiles_ms(&self) -> Quantiles {
        if self.total == 0 {
            return Quantiles::default();
        }
        let at = |q: f64| {
            let rank = libm::ceil(q * self.total as f64).max(1.0) as u64;
            let mut seen = 0;
            for (b, &c) in self.counts.iter().enumerate() {
                seen += c;
                if seen >= rank {
                    return Self::lower_bound(b) * libm::sqrt(LOG_BASE) / 1000.0;
                }
            }
            0.0
        };
        Quantiles {
            mean: self.sum_us / self.total as f64 / 1000.0,
            p50: at(0.50),
            p90: at(0.90),
            p99: at(0.99),
        }
    }
}

/// Cache and load counters of one replica.
#[derive(Clone, Debug, Default)]
pub struct ReplicaCounters {
    /// Requests admitted.
    pub admitted: u64,
    /// Admitted requests with at least one cached block.
    pub hit_requests: u64,
    /// Prompt tokens of admitted requests.
    pub prompt_tokens: u64,
    /// Prompt blocks of admitted requests.
    pub prompt_blocks: u64,
    /// Cached (reused) blocks.
    pub cached_blocks: u64,
    /// Requests refused (queue full, or too large to ever fit).
    pub rejected: u64,
    /// Requests dropped by the caller's timeout.
    pub timed_out: u64,
}

/// Cache and latency counters of one session turn index.
#[derive(Clone, Debug, Default)]
pub struct TurnCounters {
    /// Requests admitted at this turn.
    pub admitted: u64,
    /// Of them, with at least one cached block.
    pub hit_requests: u64,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Cached tokens.
    pub cached_tokens: u64,
    /// Completed requests at this turn.
    pub completed: u64,
    /// Sum of their TTFT, µs.
    pub ttft_us_sum: f64,
}

/// Everything recorded while the simulation runs.
#[derive(Clone, Debug)]
pub struct Recorder {
    /// Per-replica counters.
    pub replicas: Vec<ReplicaCounters>,
    /// TTFT from arrival, µs, one per completed request.
    pub ttft_us: Vec<f64>,
    /// TTFT from admission, µs.
    pub ttft_admit_us: Vec<f64>,
    /// Queue wait, µs.
    pub queue_us: Vec<f64>,
    /// Time per output token after the first, µs (requests with >1 token).
    pub tpot_us: Vec<f64>,
    /// End-to-end latency, µs.
    pub e2e_us: Vec<f64>,
    /// Inter-token latency histogram.
    pub itl: LogHistogram,
    /// Completed requests.
    pub completed: u64,
    /// Output tokens of completed requests.
    pub output_tokens: u64,
    /// Latest completion time, µs.
    pub last_done_us: u64,
    /// Block size, tokens.
    pub block_size: u32,
    /// Per session turn (empty without sessions).
    pub turns: Vec<TurnCounters>,
}

impl Recorder {
    /// An empty recorder for `replicas` replicas.
    pub fn new(replicas: usize, block_size: u32) -> Recorder {
        Recorder {
            replicas: vec![ReplicaCounters::default(); replicas],
            ttft_us: Vec::new(),
            ttft_admit_us: Vec::new(),
            queue_us: Vec::new(),
            tpot_us: Vec::new(),
            e2e_us: Vec::new(),
            itl: LogHistogram::default(),
            completed: 0,
            output_tokens: 0,
            last_done_us: 0,
            block_size,
            turns: Vec::new(),
        }
    }

    /// Records an admission (cache lookup result).
    pub fn admitted(&mut self, a: &Admitted) {
        let c = &mut self.replicas[a.replica as usize];
        c.admitted += 1;
        c.hit_requests += (a.hit_blocks > 0) as u64;
        c.prompt_tokens += a.prompt_tokens as u64;
        c.prompt_blocks += a.prompt_blocks as u64;
        c.cached_blocks += a.hit_blocks as u64;
        if let Some(turn) = a.turn {
            let block_size = self.block_size as u64;
            let t = self.turn(turn);
            t.admitted += 1;
            t.hit_requests += (a.hit_blocks > 0) as u64;
            t.prompt_tokens += a.prompt_tokens as u64;
            t.cached_tokens += a.hit_blocks as u64 * block_size;
        }
    }

    fn turn(&mut self, turn: u32) -> &mut TurnCounters {
        let i = turn as usize;
        if self.turns.len() <= i {
            self.turns.resize(i + 1, TurnCounters::default());
        }
        &mut self.turns[i]
    }

    /// Records a completion.
    pub fn finished(&mut self, f: &Finished) {
        self.completed += 1;
        self.output_tokens += f.output_tokens as u64;
        self.last_done_us = self.last_done_us.max(f.done_us);
        self.ttft_us.push((f.first_token_us - f.arrival_us) as f64);
        self.ttft_admit_us
            .push((f.first_token_us - f.admit_us) as f64);
        self.queue_us.push((f.admit_us - f.arrival_us) as f64);
        self.e2e_us.push((f.done_us - f.arrival_us) as f64);
        if let Some(tag) = f.session {
            let t = self.turn(tag.turn);
            t.completed += 1;
            t.ttft_us_sum += (f.first_token_us - f.arrival_us) as f64;
        }
        if f.output_tokens > 1 {
            let gaps = (f.output_tokens - 1) as f64;
            self.tpot_us
                .push((f.done_us - f.first_token_us) as f64 / gaps);
        }
    }

    /// Records a rejection or a timeout at `replica`.
    pub fn dropped(&mut self, replica: u32, timed_out: bool) {
        let c = &mut self.replicas[replica as usize];
        if timed_out {
            c.timed_out += 1;
        } else {
            c.rejected += 1;
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
        let mut whole = LogHistogram::default();
        whole.add_run(&run);
        let mut single = LogHistogram::default();
        for i in 0..run.count {
            let step = ItlRun {
                first_us: run.first_us + run.delta_us * i as f64,
                delta_us: 0.0,
                count: 1,
                tokens: 3,
            };
            single.add_run(&step);
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

    #[test]
    fn quantiles_interpolate() {
        let mut v = vec![4000.0, 1000.0, 3000.0, 2000.0];
        let q = quantiles_ms(&mut v);
        assert_eq!((q.mean, q.p50), (2.5, 2.5));
        assert!((q.p99 - 3.97).abs() < 1e-12);
    }
}
