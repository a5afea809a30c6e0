//! The event loop: arrivals (pulled lazily from the workload, in order) merged with
//! per-replica step ends (a heap ordered by (time, seq)) and, for routers with cores,
//! their CPU ends; one dispatcher, integer time.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::config::Config;
use crate::engine::{DropKind, EngineSpec, Outbox, Replica, Role};
use crate::metrics::Recorder;
use crate::router::Router;
use crate::series::Sampler;
use crate::timing::EnginePreset;
use crate::view::{router_blocks, Knowledge, LiveViews};
use crate::workload::{EndedRequest, IdHint, Source};

pub mod autoscale;
mod decisions;
mod disagg;
mod ledger;
mod preset_ttft;
mod route;
mod router_cpu;
mod scaling;

pub use router_cpu::cpu_us as router_cpu_us;

pub use disagg::TransferStats;

pub use autoscale::{Billing, Change, ChangeKind, Slot};

pub use decisions::{Decision, DecisionLog, PreemptionRecord};
pub use ledger::{InFlight, Unended};
pub use preset_ttft::PresetTtft;

/// A caller timeout in whole µs: the largest `t` with `t / 1000 <= ms`, so that a
/// request whose first token comes `t` µs after arrival is in time and one more µs is not
/// (every completed request then has a TTFT in ms of at most `ms`).
pub fn timeout_us(ms: f64) -> u64 {
    // `ms * 1000` rounds either way: 0.117 gives 116.99999999999999 and 1.001 gives
    // 1000.9999999999999, so the floor may be one over or one under (never more for a
    // valid timeout, 1 ms to 1 h: the product's error is far below 1 µs).
    let t = libm::floor(ms * 1000.0) as u64;
    if t as f64 / 1000.0 > ms {
        t.saturating_sub(1)
    } else if (t + 1) as f64 / 1000.0 <= ms {
        t + 1
    } else {
        t
    }
}

/// A mixed fleet's replicas: each with its preset's timing and KV capacity.
fn mixed_replicas(cfg: &Config, spec: EngineSpec, presets: &[EnginePreset]) -> Vec<Replica> {
    let replica = |(i, &preset): (usize, &EnginePreset)| {
        let capacity_blocks = cfg.fleet_kv_blocks(preset);
        let timing = crate::timing::Timing {
            kv_capacity_tokens: (capacity_blocks.unwrap_or(0) * cfg.block_size as u64) as f64,
            ..preset.timing()
        };
        let own = EngineSpec {
            timing,
            step_admission: preset.step_admission(),
            ..spec
        };
        Replica::new(i as u32, own, capacity_blocks)
    };
    presets.iter().enumerate().map(replica).collect()
}

/// A simulation in progress; advance it in slices, then turn it into a report.
pub struct Simulation<'w> {
    pub(crate) cfg: Config,
    pub(crate) source: Box<dyn Source + 'w>,
    heap: BinaryHeap<Reverse<(u64, u64, u32, u64)>>,
    seq: u64,
    pub(crate) replicas: Vec<Replica>,
    routers: Vec<Router>,
    knowledge: Knowledge,
    hits: Vec<u32>,
    seen_hits: Vec<u32>,
    views: LiveViews,
    new_blocks: Vec<u32>,
    pub(crate) recorder: Recorder,
    pub(crate) sampler: Sampler,
    outbox: Outbox,
    pub(crate) events: u64,
    pub(crate) now_us: u64,
    pub(crate) arrived: u64,
    pub(crate) first_arrival_us: Option<u64>,
    pub(crate) last_arrival_us: u64,
    pub(crate) rejected: u64,
    pub(crate) timed_out: u64,
    pub(crate) decisions: Option<DecisionLog>,
    pub(crate) source_name: String,
    pub(crate) disagg: Option<Box<disagg::Disagg>>,
    pub(crate) router_cpu: Option<Box<router_cpu::RouterCpu>>,
    pub(crate) scaler: Option<Box<autoscale::Scaler>>,
    ledger: ledger::Ledger,
    /// The fleet's shared KV tier, when configured (every replica holds a handle).
    pub(crate) shared: Option<crate::engine::SharedPool>,
    /// A mixed fleet: the TTFT of each preset's finished requests.
    pub(crate) preset_ttft: Option<Box<PresetTtft>>,
}

impl<'w> Simulation<'w> {
    /// A simulation of a validated `cfg` over the requests of `source`.
    pub fn new(cfg: &Config, source: Box<dyn Source + 'w>, source_name: &str) -> Simulation<'w> {
        let timing = crate::params::timing_of(cfg);
        let spec = EngineSpec {
            timing,
            max_batch: cfg.max_batch,
            max_batched_tokens: cfg.max_batched_tokens,
            block_size: cfg.block_size,
            queue_capacity: cfg.queue_capacity,
            timeout_us: cfg.timeout_ms.map(timeout_us),
            step_admission: cfg.engine.step_admission(),
        };
        // An autoscaled fleet has a slot for every replica it may run at once (its routers
        // and the fleet's index are sized for them all).
        let mut router_cfg = cfg.clone();
        router_cfg.instances = cfg.replica_slots();
        let knowledge = Knowledge::new(&router_cfg);
        let n = router_cfg.instances as usize;
        let pools = cfg.pools();
        let mut replicas: Vec<Replica> = match cfg.replica_presets() {
            Some(presets) => mixed_replicas(cfg, spec, &presets),
            None => (0..n as u32)
                .map(|i| Replica::new(i, spec, cfg.kv_blocks))
                .collect(),
        };
        let shared = cfg
            .shared_tier()
            .map(|spec| (spec, crate::engine::Pool::shared(spec.capacity_blocks)));
        for r in &mut replicas {
            r.set_admission(cfg.admission);
            if let Some(tier) = cfg.cpu_tier() {
                r.set_cpu_tier(tier);
            }
            if let Some((spec, pool)) = &shared {
                r.set_shared_tier(*spec, pool.clone());
            }
        }
        if let Some(p) = pools {
            for (i, r) in replicas.iter_mut().enumerate() {
                r.set_role(if i < p.prefill as usize {
                    Role::Prefill
                } else {
                    Role::Decode
                });
            }
            router_cfg.instances = p.prefill;
        }
        Simulation {
            cfg: cfg.clone(),
            source,
            heap: BinaryHeap::new(),
            seq: 0,
            replicas,
            routers: (0..cfg.routers)
                .map(|k| Router::new(&router_cfg, k))
                .collect(),
            knowledge,
            hits: vec![0; n],
            seen_hits: vec![0; n],
            views: LiveViews::new(n),
            new_blocks: Vec::with_capacity(n),
            recorder: Recorder::new(n, cfg.block_size),
            sampler: sampler_for(cfg, n),
            outbox: Outbox::default(),
            events: 0,
            now_us: 0,
            arrived: 0,
            first_arrival_us: None,
            last_arrival_us: 0,
            rejected: 0,
            timed_out: 0,
            decisions: None,
            source_name: source_name.to_string(),
            disagg: pools.map(|p| Box::new(disagg::Disagg::new(cfg, p))),
            router_cpu: router_cpu::RouterCpu::of(cfg).map(Box::new),
            scaler: autoscale::Scaler::of(cfg).map(Box::new),
            ledger: ledger::Ledger::default(),
            shared: shared.map(|(_, pool)| pool),
            preset_ttft: PresetTtft::of(cfg).map(Box::new),
        }
        .with_accepting()
    }

    /// Sizes every block-id table once for a source whose ids are known in advance (a
    /// parsed trace's, `hint`), instead of growing them as they fill. Each replica's
    /// cache may take 16 slots per block reference of its even share of the trace (at
    /// most its capacity), the fleet's index 8 per reference (plus 1,024 each); with
    /// 8-byte slots, at most 192 bytes per block reference over the fleet (plus 8 kB
    /// per table), whatever the number of replicas. A replica whose share is too sparse
    /// for that (one of many) gets its cache's directory alone, within 256 ids per
    /// reference of its share (plus 1,024): at most 64 bytes more per reference over
    /// the fleet, its slots coming 16 at a time as written. Each replica's in-flight
    /// block counts may take 16 one-byte slots per reference of its share (plus 1,024):
    /// 16 bytes more per reference. Changes no result.
    pub fn presize_ids(&mut self, hint: IdHint) {
        let share = hint.refs / self.replicas.len().max(1) as u64;
        for r in &mut self.replicas {
            r.cache_mut().presize_ids(hint.max_id, share);
        }
        self.knowledge.presize_ids(hint.max_id, hint.refs);
        self.knowledge.inflight().presize_ids(hint.max_id, share);
    }

    /// Keeps one record per routing decision (off by default: it costs memory).
    pub fn record_decisions(&mut self) {
        self.record_decisions_range(0, u32::MAX);
    }

    /// Keeps the records of the requests with ids `first .. first + count` only.
    pub fn record_decisions_range(&mut self, first: u32, count: u32) {
        self.decisions = Some(DecisionLog::new(first, count));
    }

    /// The decision log, if recorded.
    pub fn decisions(&self) -> Option<&[Decision]> {
        self.decisions.as_ref().map(|d| d.records())
    }

    /// Takes the decision log out (empty if it was not recorded).
    pub fn take_decisions(&mut self) -> Vec<Decision> {
        self.decisions
            .take()
            .map(DecisionLog::take)
            .unwrap_or_default()
    }

    /// How many requests the run expects in all.
    pub fn total_requests(&self) -> u64 {
        self.source.total_hint()
    }

    /// Whether every request has arrived and every replica is idle.
    pub fn is_done(&self) -> bool {
        self.source.peek_arrival_us().is_none()
            && self.heap.is_empty()
            && !self.disagg.as_ref().is_some_and(|d| d.busy())
            && !self.router_cpu.as_ref().is_some_and(|c| c.busy())
    }

    /// Share of requests that have arrived, 0.0 to 1.0 (1.0 once done).
    pub fn progress(&self) -> f64 {
        let total = self.source.total_hint();
        if self.is_done() || total == 0 {
            return 1.0;
        }
        (self.arrived as f64 / total as f64).min(0.999)
    }

    /// Processes up to `max_events` events; returns true once the run is done.
    pub fn advance(&mut self, max_events: u64) -> bool {
        for _ in 0..max_events {
            if !self.next_event() {
                return true;
            }
        }
        self.is_done()
    }

    /// Runs to the end.
    pub fn run_to_end(&mut self) {
        while self.next_event() {}
    }

    /// Dispatches the earliest event (at equal times: the autoscaler's readiness and
    /// ticks, then step ends, then transfer ends, then router CPU ends, then arrivals).
    /// The autoscaler's events run only while others are pending: the run ends with its
    /// last request.
    fn next_event(&mut self) -> bool {
        if let Some(at) = self.scaler.as_ref().map(|s| s.next_us()) {
            match self.next_other_us() {
                None => return false,
                Some(first) if at <= first => {
                    self.on_scale(at);
                    return true;
                }
                Some(_) => {}
            }
        }
        self.next_other_event()
    }

    fn next_other_us(&self) -> Option<u64> {
        let step_at = self.heap.peek().map(|Reverse((t, ..))| *t);
        let transfer_at = self.disagg.as_ref().and_then(|d| d.next_end_us());
        let cpu_at = self.router_cpu.as_ref().and_then(|c| c.next_end_us());
        let arrival_at = self.source.peek_arrival_us();
        [step_at, transfer_at, cpu_at, arrival_at]
            .into_iter()
            .flatten()
            .min()
    }

    fn next_other_event(&mut self) -> bool {
        let step_at = self.heap.peek().map(|Reverse((t, ..))| *t);
        let transfer_at = self.disagg.as_ref().and_then(|d| d.next_end_us());
        let cpu_at = self.router_cpu.as_ref().and_then(|c| c.next_end_us());
        let arrival_at = self.source.peek_arrival_us();
        let Some(first) = [step_at, transfer_at, cpu_at, arrival_at]
            .into_iter()
            .flatten()
            .min()
        else {
            return false;
        };
        if step_at == Some(first) {
            self.on_step_end()
        } else if transfer_at == Some(first) {
            self.on_transfer_end()
        } else if cpu_at == Some(first) {
            self.on_router_cpu_end()
        } else {
            self.on_arrival()
        }
    }

    fn on_arrival(&mut self) -> bool {
        let req = self.source.pop().expect("an arrival is pending");
        self.advance_clock(req.arrival_us);
        self.events += 1;
        self.arrived += 1;
        self.sampler.arrived();
        self.first_arrival_us.get_or_insert(req.arrival_us);
        self.last_arrival_us = req.arrival_us;
        let k = ((self.arrived - 1) % self.routers.len() as u64) as usize;
        let Some(cpu) = self.router_cpu.as_mut() else {
            self.dispatch(k, req);
            return true;
        };
        if let router_cpu::Taken::Refused(req) = cpu.arrive(k, req, self.now_us) {
            self.refuse_at_router(req);
        }
        true
    }

    /// A router core finished a request's CPU time: route it now.
    fn on_router_cpu_end(&mut self) -> bool {
        let cpu = self
            .router_cpu
            .as_mut()
            .expect("a router CPU time is running");
        let t = cpu.next_end_us().expect("a router CPU time is running");
        self.advance_clock(t);
        self.events += 1;
        let cpu = self
            .router_cpu
            .as_mut()
            .expect("a router CPU time is running");
        let (k, req) = cpu.pop_done();
        for late in cpu.drain_expired() {
            self.time_out_at_router(late);
        }
        if let Some(req) = req {
            self.dispatch(k, req);
        }
        true
    }

    /// A request whose caller's timeout passed at the router ends here, timed out.
    fn time_out_at_router(&mut self, req: crate::workload::Request) {
        self.timed_out += 1;
        self.end_at_router(req);
    }

    /// A request refused at a full router queue ends here, rejected.
    fn refuse_at_router(&mut self, req: crate::workload::Request) {
        self.rejected += 1;
        self.end_at_router(req);
    }

    /// A request that never reaches a replica ends at the router, unserved.
    fn end_at_router(&mut self, req: crate::workload::Request) {
        self.ledger.end(req.id);
        let ended = EndedRequest {
            id: req.id,
            session: req.session,
            ok: false,
            output_tokens: 0,
        };
        self.source.on_end(ended, self.now_us);
    }

    /// Router `k` routes `req` now and sends it to the chosen replica.
    fn dispatch(&mut self, k: usize, req: crate::workload::Request) {
        let chosen = self.route(k, &req);
        let now = self.now_us;
        if let Some(scaler) = self.scaler.as_mut() {
            scaler.in_flight_moved(now, true);
        }
        let end = self.replicas[chosen].arrive(req, now, &mut self.outbox);
        self.schedule(chosen, end);
        self.sync_index(chosen);
        self.drain_outbox();
    }

    fn on_step_end(&mut self) -> bool {
        let Reverse((t, _, replica, generation)) = self.heap.pop().expect("a step is pending");
        if generation != self.replicas[replica as usize].generation() {
            return true;
        }
        self.advance_clock(t);
        self.events += 1;
        let end = self.replicas[replica as usize].step_end(t, &mut self.outbox);
        self.schedule(replica as usize, end);
        self.sync_index(replica as usize);
        self.drain_outbox();
        self.leave_if_idle(replica as usize);
        true
    }

    /// Call after anything that changed replica `r`: applies its cache store and evict
    /// events to the fleet's block index (and to the routers' lagged copy), and marks its
    /// load signals for recomputation at the next pick.
    fn sync_index(&mut self, r: usize) {
        self.views.touch(r);
        self.sampler.touch(r);
        let now = self.now_us;
        for (id, added) in self.replicas[r].cache_mut().drain_journal() {
            self.knowledge.cache_event(now, r, id, added);
        }
    }

    fn advance_clock(&mut self, t_us: u64) {
        debug_assert!(t_us >= self.now_us, "time went backwards");
        debug_assert!(
            t_us < crate::limits::MAX_TIME_US,
            "time {t_us} µs passed the clock's horizon: the run's bound was wrong"
        );
        let links = self.disagg.as_ref().map_or(&[][..], |d| &d.links[..]);
        self.sampler.advance_to(t_us, &mut self.replicas, links);
        if self.knowledge.refresh_due(self.now_us, t_us) {
            self.live_views();
            self.knowledge.refresh(self.views.views());
        }
        self.now_us = t_us;
    }

    fn schedule(&mut self, replica: usize, end_us: Option<u64>) {
        if let Some(end_us) = end_us {
            self.seq += 1;
            let generation = self.replicas[replica].generation();
            self.heap
                .push(Reverse((end_us, self.seq, replica as u32, generation)));
        }
    }

    fn drain_outbox(&mut self) {
        for a in self.outbox.admitted.drain(..) {
            self.recorder.admitted(&a);
            self.sampler.admitted(a.replica, a.hit_blocks > 0);
            if let Some(d) = self.decisions.as_mut().and_then(|d| d.get_mut(a.id)) {
                d.admit_s = Some(a.admit_us as f64 / 1e6);
                d.cached_blocks = Some(a.hit_blocks);
            }
        }
        for x in self.outbox.released.drain(..) {
            self.recorder.left(x.id);
            let bs = self.cfg.block_size;
            let (full, private) = router_blocks(x.prompt_tokens, !x.block_ids.is_empty(), bs);
            let replica = x.replica as usize;
            let inflight = self.knowledge.inflight();
            inflight.end(replica, &x.block_ids[..full], private);
            inflight.end_prefill(x.id);
        }
        for (id, ttft_us) in self.outbox.first_tokens.drain(..) {
            self.knowledge.inflight().end_prefill(id);
            if let Some(scaler) = self.scaler.as_mut() {
                scaler.first_token(ttft_us);
            }
        }
        for f in self.outbox.finished.drain(..) {
            self.ledger.end(f.id);
            if let Some(scaler) = self.scaler.as_mut() {
                scaler.in_flight_moved(self.now_us, false);
                let decode_us = f.done_us - f.first_token_us;
                scaler.completed(decode_us, f.output_tokens.saturating_sub(1) as u64);
            }
            self.recorder.finished(&f);
            if let Some(t) = self.preset_ttft.as_mut() {
                t.finished(f.replica, f.first_token_us - f.arrival_us);
            }
            let ttft_us = f.first_token_us - f.arrival_us;
            let met = self
                .cfg
                .slo_targets()
                .is_some_and(|t| t.met(ttft_us, f.done_us - f.first_token_us, f.output_tokens));
            self.sampler.completed(ttft_us, met);
            let ended = EndedRequest {
                id: f.id,
                session: f.session,
                ok: true,
                output_tokens: f.output_tokens,
            };
            self.source.on_end(ended, f.done_us);
            if let Some(d) = self.decisions.as_mut().and_then(|d| d.get_mut(f.id)) {
                d.ttft_ms = Some((f.first_token_us - f.arrival_us) as f64 / 1000.0);
                d.e2e_ms = Some((f.done_us - f.arrival_us) as f64 / 1000.0);
            }
        }
        for x in self.outbox.dropped.drain(..) {
            self.ledger.end(x.id);
            if let Some(scaler) = self.scaler.as_mut() {
                scaler.in_flight_moved(self.now_us, false);
            }
            let timed_out = x.kind == DropKind::TimedOut;
            if timed_out {
                self.timed_out += 1;
            } else {
                self.rejected += 1;
            }
            self.recorder.dropped(x.replica, x.kind);
            let ended = EndedRequest {
                id: x.id,
                session: x.session,
                ok: false,
                output_tokens: 0,
            };
            self.source.on_end(ended, self.now_us);
            if let Some(d) = self.decisions.as_mut().and_then(|d| d.get_mut(x.id)) {
                d.rejected = !timed_out;
                d.timed_out = timed_out;
            }
        }
        if !self.outbox.preempted.is_empty() || !self.outbox.resumed.is_empty() {
            decisions::note_preemptions(self.decisions.as_mut(), &mut self.outbox);
        }
        for run in self.outbox.itl_runs.drain(..) {
            self.recorder.itl.add_run(&run);
        }
        if !self.outbox.handoffs.is_empty() {
            self.start_transfers();
        }
    }
}

/// The series' sampler for `n` replicas, carrying `slo_attained` when `cfg` has a target.
fn sampler_for(cfg: &Config, n: usize) -> Sampler {
    let mut s = Sampler::new(n);
    if cfg.slo_targets().is_some() {
        s.track_slo();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::timeout_us;

    #[test]
    fn a_timeout_is_the_largest_whole_us_within_it() {
        // k / 1000 ms is k µs, although its `ms * 1000` rounds down below k for some k
        // (1.001 ms: 1000.9999999999999); the double just below it is k - 1 µs, although
        // its `ms * 1000` rounds back up to k for many k.
        let (mut rounded_up, mut rounded_down) = (0, 0);
        for k in 1..20_000u64 {
            let ms = k as f64 / 1000.0;
            assert_eq!(timeout_us(ms), k, "{ms} ms");
            rounded_down += usize::from(((ms * 1000.0).floor() as u64) < k);
            let below = f64::from_bits(ms.to_bits() - 1);
            assert_eq!(timeout_us(below), k - 1, "{below:e} ms");
            rounded_up += usize::from((below * 1000.0).floor() as u64 == k);
        }
        assert!(rounded_up > 100, "{rounded_up} floors one over");
        assert!(rounded_down > 100, "{rounded_down} floors one under");
        assert_eq!(timeout_us(0.0), 0);
        assert_eq!(timeout_us(0.0004), 0);
        assert_eq!(timeout_us(2.5), 2_500);
        // The largest timeout allowed (1 h), and the double just below it.
        assert_eq!(timeout_us(3_600_000.0), 3_600_000_000);
        assert_eq!(
            timeout_us(f64::from_bits(3_600_000f64.to_bits() - 1)),
            3_599_999_999
        );
    }
}
