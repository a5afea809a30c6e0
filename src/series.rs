//! Columnar time series for charts: per-replica queue depth, running requests, cache
//! occupancy and windowed hit rate, and the fleet's offered and served rates, mean TTFT
//! and (with an SLO target) the share of completions that met it per window, on a grid that coarsens (by decimation) so a run of
//! any length keeps at most a few hundred points and sampling costs O(points).
//!
//! A sample reads only the replicas touched since their last one (`touch`, called after
//! anything that changes a replica); an untouched replica's state is what it was then,
//! so its columns are padded with those values when it is next read (or before a
//! decimation, or at the end). A sample's cost grows with the replicas that changed, not
//! with the fleet.

use serde::Serialize;

use crate::engine::Replica;
use crate::link::Link;

/// Most samples kept; the grid doubles its interval when it would exceed this.
pub const MAX_POINTS: usize = 240;
const FIRST_INTERVAL_US: u64 = 10_000;

/// The sampled series as the report carries them (`series`): columnar, one array per
/// replica per metric, on a time grid that coarsens to at most 240 points.
#[derive(Clone, Debug, Default, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Series {
    /// Sample times, seconds.
    pub t_s: Vec<f64>,
    /// Waiting requests per replica at each sample, requests.
    pub queue: Vec<Vec<u32>>,
    /// The longest waiting queue per replica in the window ending at each sample, an
    /// arrival admitted at once included, requests: the series' highest point is the
    /// replica's `peak_queue`, however coarse the grid, where `queue` can step over a short
    /// peak.
    pub queue_peak: Vec<Vec<u32>>,
    /// Running requests per replica at each sample, requests.
    pub running: Vec<Vec<u32>>,
    /// KV blocks in use per replica at each sample, blocks.
    pub cache_blocks: Vec<Vec<u64>>,
    /// Fraction of the requests admitted in the window ending at each sample that hit the
    /// cache, per replica (`null` when none was admitted).
    pub hit_rate: Vec<Vec<Option<f64>>>,
    /// The same, over the whole fleet (`null` when none was admitted).
    pub hit_rate_fleet: Vec<Option<f64>>,
    /// The grid's interval at the end of the run, seconds: each window but the last (which
    /// ends at the run's end) is this long. The first sample, at 0, has no length to take a
    /// rate over; the first window, ending at the second sample, spans [0, that sample],
    /// so an arrival at 0 s counts in its rate.
    pub interval_s: f64,
    /// Arrivals in the window ending at each sample over its length, req/s (`null` for the
    /// first sample; the first window also holds the arrivals at 0 s).
    pub offered_rate: Vec<Option<f64>>,
    /// Requests completed in the window ending at each sample over its length, req/s
    /// (`null` for the first sample).
    pub served_rate: Vec<Option<f64>>,
    /// Requests admitted fleet-wide in the window ending at each sample (the count behind
    /// `hit_rate_fleet`), requests.
    pub admitted: Vec<u32>,
    /// Mean time to first token of the requests completed in the window ending at each
    /// sample, ms (`null` when none completed).
    pub ttft_ms_mean: Vec<Option<f64>>,
    /// With an SLO target only (the `slo` scaler's, defaults included, or `slo_ttft_ms` /
    /// `slo_itl_ms` when set): the share of the requests completed in the window
    /// ending at each sample whose TTFT, and TPOT, met the targets, a fraction 0..=1 (`null`
    /// when none completed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub slo_attained: Vec<Option<f64>>,
    /// With a rate schedule only: the schedule's rate at each sample, per second (requests,
    /// or tasks started for sessions).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub schedule_rate: Vec<f64>,
    /// Autoscaled runs only: the replicas ready at each sample.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub replicas: Vec<u32>,
    /// Disaggregated fleet only: per decode replica, the fraction of the window ending at
    /// each sample that its inbound KV link was busy (`null` for the first sample).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(target_arch = "wasm32", tsify(optional))]
    pub link_busy: Vec<Vec<Option<f64>>>,
}

impl Series {
    /// With an SLO target: the share of all the requests completed in the run that met it
    /// (each window's share times its completions, summed, over all completions); `None`
    /// without a target or a completion.
    pub fn slo_attained_share(&self) -> Option<f64> {
        if self.slo_attained.is_empty() {
            return None;
        }
        let (mut met, mut done) = (0.0, 0.0);
        for k in 1..self.t_s.len() {
            let completed = self.served_rate[k].unwrap_or(0.0) * (self.t_s[k] - self.t_s[k - 1]);
            let completed = libm::round(completed);
            met += libm::round(self.slo_attained[k].unwrap_or(0.0) * completed);
            done += completed;
        }
        (done > 0.0).then(|| met / done)
    }
}

/// Samples replica state on a regular grid as the simulation advances.
#[derive(Clone, Debug)]
pub struct Sampler {
    interval_us: u64,
    next_us: u64,
    times_us: Vec<u64>,
    queue: Vec<Vec<u32>>,
    queue_peak: Vec<Vec<u32>>,
    running: Vec<Vec<u32>>,
    cache_blocks: Vec<Vec<u64>>,
    admits: Vec<Vec<u32>>,
    hits: Vec<Vec<u32>>,
    window_admits: Vec<u32>,
    window_hits: Vec<u32>,
    /// Per replica: the longest queue of a sample dropped by decimation, for the next one.
    window_queue: Vec<u32>,
    /// Per link: busy µs up to each sample.
    link_busy_us: Vec<Vec<u64>>,
    /// Per replica: the samples written in its columns so far.
    filled: Vec<usize>,
    /// Per replica: its state at its last sample written, which pads its columns while it
    /// is untouched.
    held: Vec<Held>,
    /// Per replica: touched since its last sample written (then also in `touched`).
    is_touched: Vec<bool>,
    touched: Vec<u32>,
    /// Reads every replica at every sample, as if each were touched (for tests: the
    /// series must be the same).
    read_all: bool,
    /// Fleet counts per window: arrivals, completions, their TTFTs summed (µs), and the
    /// completions that met the SLO targets; the last entry of each is the open window.
    fleet: FleetCounts,
    /// Whether the series carries `slo_attained`.
    slo: bool,
}

/// A replica's sampled state: waiting and running requests, KV blocks in use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Held {
    queue: u32,
    running: u32,
    cache_blocks: u64,
}

impl Held {
    fn of(rep: &Replica) -> Held {
        Held {
            queue: rep.waiting(),
            running: rep.running(),
            cache_blocks: rep.cache().used_blocks(),
        }
    }
}

/// The fleet's per-window counts (arrivals, completions, their TTFTs summed in µs, the
/// completions that met the SLO targets), one entry per sample, plus the open window's.
#[derive(Clone, Debug, Default)]
struct FleetCounts {
    closed: Vec<[u64; 4]>,
    open: [u64; 4],
}

impl FleetCounts {
    fn close(&mut self) {
        self.closed.push(std::mem::take(&mut self.open));
    }

    /// Merges pairs as `decimate` does; a dropped trailing window reopens.
    fn decimate(&mut self, trailing_odd: bool) {
        let c = &self.closed;
        let n = c.len();
        let add = |a: [u64; 4], b: [u64; 4]| [0, 1, 2, 3].map(|i| a[i] + b[i]);
        if trailing_odd {
            self.open = add(self.open, c[n - 1]);
        }
        let merged = (0..n.div_ceil(2))
            .map(|j| match j {
                0 => c[0],
                _ => add(c[2 * j], c[2 * j - 1]),
            })
            .collect();
        self.closed = merged;
    }

    /// Per window: (offered req/s, served req/s, mean TTFT ms, share of completions that
    /// met the SLO); rates `null` for the first sample, whose window has no length. The
    /// first window with a length spans [0, t1]: it takes what the sample at 0 closed (the
    /// arrivals at 0 s) with its own.
    fn columns(&self, times_us: &[u64]) -> [Vec<Option<f64>>; 4] {
        let mut out: [Vec<Option<f64>>; 4] = Default::default();
        let at_zero = self.closed.first().copied().unwrap_or_default();
        for (k, &counts) in self.closed.iter().enumerate() {
            let [arrivals, completions, ttft_us, met] = match k {
                1 => [0, 1, 2, 3].map(|i| counts[i] + at_zero[i]),
                _ => counts,
            };
            let span = k.checked_sub(1).map_or(0, |p| times_us[k] - times_us[p]);
            let per_s = |n: u64| (span > 0).then(|| n as f64 * 1e6 / span as f64);
            out[0].push(per_s(arrivals));
            out[1].push(per_s(completions));
            out[2].push((completions > 0).then(|| ttft_us as f64 / completions as f64 / 1000.0));
            out[3].push((completions > 0).then(|| met as f64 / completions as f64));
        }
        out
    }
}

impl Default for Sampler {
    fn default() -> Self {
        Sampler::new(0)
    }
}

impl Sampler {
    /// An empty sampler for `replicas` replicas.
    pub fn new(replicas: usize) -> Sampler {
        Sampler {
            interval_us: FIRST_INTERVAL_US,
            next_us: 0,
            times_us: Vec::new(),
            queue: vec![Vec::new(); replicas],
            queue_peak: vec![Vec::new(); replicas],
            running: vec![Vec::new(); replicas],
            cache_blocks: vec![Vec::new(); replicas],
            admits: vec![Vec::new(); replicas],
            hits: vec![Vec::new(); replicas],
            window_admits: vec![0; replicas],
            window_hits: vec![0; replicas],
            window_queue: vec![0; replicas],
            link_busy_us: Vec::new(),
            filled: vec![0; replicas],
            held: vec![Held::default(); replicas],
            is_touched: vec![true; replicas],
            touched: (0..replicas as u32).collect(),
            read_all: false,
            fleet: FleetCounts::default(),
            slo: false,
        }
    }

    /// Carries `slo_attained` (the run has an SLO target; `completed` says which met it).
    pub fn track_slo(&mut self) {
        self.slo = true;
    }

    /// Reads every replica at every sample from now on (the series must not change).
    #[cfg(test)]
    pub(crate) fn read_every_replica(&mut self) {
        self.read_all = true;
    }

    /// Replica `r` changed (or may have): the next sample reads it.
    pub fn touch(&mut self, r: usize) {
        if !self.is_touched[r] {
            self.is_touched[r] = true;
            self.touched.push(r as u32);
        }
    }

    /// Emits every grid sample strictly before `now_us` (state is constant since the
    /// previous event). Call before processing each event.
    pub fn advance_to(&mut self, now_us: u64, replicas: &mut [Replica], links: &[Link]) {
        while self.next_us < now_us {
            let pending = (now_us - self.next_us) / self.interval_us.max(1);
            if self.times_us.len() >= MAX_POINTS || pending as usize > MAX_POINTS {
                self.decimate();
                continue;
            }
            self.push_sample(replicas, links);
        }
    }

    /// Counts an admission (and whether it hit) in the current window.
    pub fn admitted(&mut self, replica: u32, hit: bool) {
        self.window_admits[replica as usize] += 1;
        self.window_hits[replica as usize] += hit as u32;
        self.touch(replica as usize);
    }

    /// Counts an arrival in the current window.
    pub fn arrived(&mut self) {
        self.fleet.open[0] += 1;
    }

    /// Counts a completion, its time to first token, and whether it met the SLO targets,
    /// in the current window.
    pub fn completed(&mut self, ttft_us: u64, met_slo: bool) {
        self.fleet.open[1] += 1;
        self.fleet.open[2] += ttft_us;
        self.fleet.open[3] += met_slo as u64;
    }

    /// Closes the series with one last sample at `end_us` and converts to columns.
    pub fn finish(mut self, end_us: u64, replicas: &mut [Replica], links: &[Link]) -> Series {
        self.advance_to(end_us, replicas, links);
        self.next_us = end_us;
        self.push_sample(replicas, links);
        self.pad_all();
        let rate = |h: u32, a: u32| (a > 0).then(|| h as f64 / a as f64);
        let points = self.times_us.len();
        let admitted = (0..points)
            .map(|k| self.admits.iter().map(|v| v[k]).sum())
            .collect();
        let hit_rate_fleet = (0..points)
            .map(|k| {
                let a = self.admits.iter().map(|v| v[k]).sum();
                let h = self.hits.iter().map(|v| v[k]).sum();
                rate(h, a)
            })
            .collect();
        let hit_rate = self
            .admits
            .iter()
            .zip(&self.hits)
            .map(|(a, h)| a.iter().zip(h).map(|(&a, &h)| rate(h, a)).collect())
            .collect();
        let link_busy = self.link_busy_shares();
        let [offered_rate, served_rate, ttft_ms_mean, slo_attained] =
            self.fleet.columns(&self.times_us);
        Series {
            interval_s: self.interval_us as f64 / 1e6,
            offered_rate,
            served_rate,
            admitted,
            ttft_ms_mean,
            slo_attained: if self.slo { slo_attained } else { Vec::new() },
            schedule_rate: Vec::new(),
            replicas: Vec::new(),
            t_s: self.times_us.iter().map(|&t| t as f64 / 1e6).collect(),
            queue: self.queue,
            queue_peak: self.queue_peak,
            running: self.running,
            cache_blocks: self.cache_blocks,
            hit_rate,
            hit_rate_fleet,
            link_busy,
        }
    }

    /// Per link, busy time over each window's length.
    fn link_busy_shares(&self) -> Vec<Vec<Option<f64>>> {
        let t = &self.times_us;
        self.link_busy_us
            .iter()
            .map(|busy| {
                (0..busy.len())
                    .map(|k| {
                        let span = t[k].checked_sub(*t.get(k.wrapping_sub(1))?)?;
                        (span > 0).then(|| (busy[k] - busy[k - 1]) as f64 / span as f64)
                    })
                    .collect()
            })
            .collect()
    }

    fn push_sample(&mut self, replicas: &mut [Replica], links: &[Link]) {
        self.times_us.push(self.next_us);
        self.fleet.close();
        if self.link_busy_us.len() < links.len() {
            self.link_busy_us.resize(links.len(), Vec::new());
        }
        for (busy, link) in self.link_busy_us.iter_mut().zip(links) {
            busy.push(link.busy_until(self.next_us));
        }
        #[cfg(debug_assertions)]
        for (r, rep) in replicas.iter().enumerate() {
            debug_assert!(
                self.is_touched[r] || self.held[r] == Held::of(rep),
                "replica {r} changed without a touch"
            );
        }
        if self.read_all {
            (0..replicas.len()).for_each(|r| self.touch(r));
        }
        let mut touched = std::mem::take(&mut self.touched);
        for r in touched.drain(..) {
            let r = r as usize;
            self.is_touched[r] = false;
            self.pad(r, self.times_us.len() - 1);
            self.record(r, &mut replicas[r]);
        }
        self.touched = touched;
        self.next_us = self.next_us.saturating_add(self.interval_us);
    }

    /// Writes replica `r`'s sample at the grid's last time from its state now.
    fn record(&mut self, r: usize, rep: &mut Replica) {
        let held = Held::of(rep);
        let dropped = std::mem::take(&mut self.window_queue[r]);
        self.queue[r].push(held.queue);
        self.queue_peak[r].push(rep.take_window_peak().max(dropped));
        self.running[r].push(held.running);
        self.cache_blocks[r].push(held.cache_blocks);
        self.admits[r].push(std::mem::take(&mut self.window_admits[r]));
        self.hits[r].push(std::mem::take(&mut self.window_hits[r]));
        self.held[r] = held;
        self.filled[r] = self.times_us.len();
    }

    /// Fills replica `r`'s columns up to sample `upto` (not included) with its state at
    /// its last sample: untouched since, its queue was also its window's longest, and
    /// nothing was admitted.
    fn pad(&mut self, r: usize, upto: usize) {
        let missing = upto.saturating_sub(self.filled[r]);
        if missing == 0 {
            return;
        }
        let h = self.held[r];
        let pad = |v: &mut Vec<u32>, x: u32| v.resize(v.len() + missing, x);
        pad(&mut self.queue[r], h.queue);
        pad(&mut self.queue_peak[r], h.queue);
        pad(&mut self.running[r], h.running);
        pad(&mut self.admits[r], 0);
        pad(&mut self.hits[r], 0);
        let c = &mut self.cache_blocks[r];
        c.resize(c.len() + missing, h.cache_blocks);
        self.filled[r] = upto;
    }

    /// Fills every replica's columns to the grid's whole length, as `pad` does: a
    /// replica's samples not written yet were all taken while it was untouched.
    fn pad_all(&mut self) {
        let len = self.times_us.len();
        for r in 0..self.filled.len() {
            self.pad(r, len);
        }
    }

    /// Keeps every other sample, merging window counts (and queue peaks), and doubles the
    /// interval.
    fn decimate(&mut self) {
        self.pad_all();
        let n = self.times_us.len();
        self.interval_us = self.interval_us.saturating_mul(2);
        if n == 0 {
            self.next_us = 0;
            return;
        }
        let trailing_odd = n.is_multiple_of(2);
        keep_even(&mut self.times_us);
        self.fleet.decimate(trailing_odd);
        for busy in &mut self.link_busy_us {
            keep_even(busy);
        }
        for r in 0..self.queue.len() {
            keep_even(&mut self.queue[r]);
            // The longest queue of the window a dropped sample closed moves into the next.
            let q = &mut self.queue_peak[r];
            if trailing_odd {
                self.window_queue[r] = self.window_queue[r].max(q[n - 1]);
            }
            *q = (0..n.div_ceil(2))
                .map(|j| q[2 * j].max(if j > 0 { q[2 * j - 1] } else { 0 }))
                .collect();
            keep_even(&mut self.running[r]);
            keep_even(&mut self.cache_blocks[r]);
            for (counts, window) in [
                (&mut self.admits[r], &mut self.window_admits[r]),
                (&mut self.hits[r], &mut self.window_hits[r]),
            ] {
                if trailing_odd {
                    *window += counts[n - 1];
                }
                let merged: Vec<u32> = (0..n.div_ceil(2))
                    .map(|j| counts[2 * j] + if j > 0 { counts[2 * j - 1] } else { 0 })
                    .collect();
                *counts = merged;
            }
        }
        self.next_us =
            (self.times_us.last().copied().unwrap_or(0)).saturating_add(self.interval_us);
        self.filled.fill(self.times_us.len());
        // A replica whose next sample carries a merged window is read for it.
        for r in 0..self.filled.len() {
            if self.window_queue[r] > 0 || self.window_admits[r] > 0 || self.window_hits[r] > 0 {
                self.touch(r);
            }
        }
    }
}

fn keep_even<T: Copy>(values: &mut Vec<T>) {
    let kept = values.len().div_ceil(2);
    for j in 1..kept {
        values[j] = values[2 * j];
    }
    values.truncate(kept);
}
