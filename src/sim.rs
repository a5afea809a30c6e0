//! The event loop: arrivals (pulled lazily from the workload, in order) merged with
//! per-replica step ends (a heap ordered by (time, seq)), one dispatcher, integer time.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use serde::Serialize;

use crate::config::Config;
use crate::engine::{DropKind, EngineSpec, Outbox, Replica};
use crate::index::BlockIndex;
use crate::metrics::Recorder;
use crate::router::{Ask, Candidate, Reason, ReplicaView, Router};
use crate::series::Sampler;
use crate::view::Inflight;
use crate::workload::{EndedRequest, Request, Source};

/// One routing decision, as written to the decision log.
#[derive(Clone, Debug, Serialize)]
pub struct Decision {
    /// Request id.
    pub id: u32,
    /// Arrival time, seconds.
    pub arrival_s: f64,
    /// Full prompt blocks the router scored.
    pub request_blocks: u32,
    /// Every replica's terms and cost.
    pub candidates: Vec<Candidate>,
    /// The replica picked.
    pub chosen: u32,
    /// Why: the policy's choice, session affinity (`sticky`), or a `spill`.
    pub reason: Reason,
    /// The request's session, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<u32>,
    /// Admission time, seconds (null if never admitted).
    pub admit_s: Option<f64>,
    /// Leading blocks found in the chosen replica's cache at admission.
    pub cached_blocks: Option<u32>,
    /// Time to first token from arrival, ms.
    pub ttft_ms: Option<f64>,
    /// End-to-end latency, ms.
    pub e2e_ms: Option<f64>,
    /// Whether the replica refused the request (queue full, or too large to ever fit).
    pub rejected: bool,
    /// Whether the caller's timeout dropped it.
    pub timed_out: bool,
}

/// A caller timeout in whole µs: the largest `t` with `t / 1000 <= ms`, so that a
/// request whose first token comes `t` µs after arrival is in time and one more µs is not
/// (every completed request then has a TTFT in ms of at most `ms`).
pub fn timeout_us(ms: f64) -> u64 {
    let mut t = libm::floor(ms * 1000.0) as u64;
    while t > 0 && t as f64 / 1000.0 > ms {
        t -= 1;
    }
    t
}

/// A simulation in progress; advance it in slices, then turn it into a report.
pub struct Simulation<'w> {
    pub(crate) cfg: Config,
    pub(crate) source: Box<dyn Source + 'w>,
    heap: BinaryHeap<Reverse<(u64, u64, u32, u64)>>,
    seq: u64,
    pub(crate) replicas: Vec<Replica>,
    router: Router,
    index: BlockIndex,
    inflight: Inflight,
    hits: Vec<u32>,
    views: Vec<ReplicaView>,
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
    pub(crate) decisions: Option<Vec<Decision>>,
    pub(crate) source_name: String,
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
        };
        let n = cfg.instances as usize;
        Simulation {
            cfg: cfg.clone(),
            source,
            heap: BinaryHeap::new(),
            seq: 0,
            replicas: (0..n as u32)
                .map(|i| Replica::new(i, spec, cfg.kv_blocks))
                .collect(),
            router: Router::new(cfg),
            index: BlockIndex::new(n),
            inflight: Inflight::new(n),
            hits: vec![0; n],
            views: Vec::with_capacity(n),
            recorder: Recorder::new(n, cfg.block_size),
            sampler: Sampler::new(n),
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
        }
    }

    /// Keeps one record per routing decision (off by default: it costs memory).
    pub fn record_decisions(&mut self) {
        self.decisions = Some(Vec::new());
    }

    /// The decision log, if recorded.
    pub fn decisions(&self) -> Option<&[Decision]> {
        self.decisions.as_deref()
    }

    /// Takes the decision log out (empty if it was not recorded).
    pub fn take_decisions(&mut self) -> Vec<Decision> {
        self.decisions.take().unwrap_or_default()
    }

    /// How many requests the run expects in all.
    pub fn total_requests(&self) -> u64 {
        self.source.total_hint()
    }

    /// Whether every request has arrived and every replica is idle.
    pub fn is_done(&self) -> bool {
        self.source.peek_arrival_us().is_none() && self.heap.is_empty()
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

    /// Dispatches the earliest event (step ends before arrivals at equal times).
    fn next_event(&mut self) -> bool {
        let step_at = self.heap.peek().map(|Reverse((t, ..))| *t);
        let arrival_at = self.source.peek_arrival_us();
        match (step_at, arrival_at) {
            (None, None) => false,
            (Some(s), Some(a)) if a < s => self.on_arrival(),
            (None, Some(_)) => self.on_arrival(),
            _ => self.on_step_end(),
        }
    }

    fn on_arrival(&mut self) -> bool {
        let req = self.source.pop().expect("an arrival is pending");
        self.advance_clock(req.arrival_us);
        self.events += 1;
        self.arrived += 1;
        self.first_arrival_us.get_or_insert(req.arrival_us);
        self.last_arrival_us = req.arrival_us;
        let chosen = self.route(&req);
        let now = self.now_us;
        let end = self.replicas[chosen].arrive(req, now, &mut self.outbox);
        self.schedule(chosen, end);
        self.sync_index(chosen);
        self.drain_outbox();
        true
    }

    /// Asks the router for a replica (hits from the fleet index) and logs the decision.
    fn route(&mut self, req: &Request) -> usize {
        let full = if req.block_ids.is_empty() {
            0
        } else {
            (req.prompt_tokens / self.cfg.block_size) as usize
        };
        self.views.clear();
        let inflight = &self.inflight;
        self.views
            .extend(self.replicas.iter().enumerate().map(|(i, r)| ReplicaView {
                active_blocks: inflight.active_blocks(i),
                waiting: r.waiting(),
                running: r.running(),
            }));
        #[cfg(debug_assertions)]
        for (r, rep) in self.replicas.iter().enumerate() {
            if rep.waiting() == 0 {
                debug_assert_eq!(
                    self.views[r].active_blocks,
                    rep.active_blocks(),
                    "with nothing waiting, replica {r}'s dispatched blocks are its running ones"
                );
            }
        }
        self.index.hits(&req.block_ids, full, &mut self.hits);
        #[cfg(debug_assertions)]
        for (r, rep) in self.replicas.iter().enumerate() {
            let direct = rep.cache().hit_blocks(&req.block_ids, full) as u32;
            debug_assert_eq!(
                self.hits[r], direct,
                "block index out of step with replica {r}"
            );
        }
        let session = req.session.map(|t| t.session);
        let ask = Ask {
            block_ids: &req.block_ids,
            full_blocks: full,
            session,
            hits: &self.hits,
        };
        let mut log = self.decisions.as_ref().map(|_| Vec::new());
        let (chosen, reason) = self.router.pick(ask, &self.views, log.as_mut());
        let prompt_blocks = req.prompt_tokens.div_ceil(self.cfg.block_size) as u64;
        self.inflight.dispatch(
            req.id,
            chosen,
            &req.block_ids[..full],
            prompt_blocks - full as u64,
        );
        if let (Some(decisions), Some(candidates)) = (self.decisions.as_mut(), log) {
            decisions.push(Decision {
                id: req.id,
                arrival_s: req.arrival_us as f64 / 1e6,
                request_blocks: full as u32,
                candidates,
                chosen: chosen as u32,
                reason,
                session,
                admit_s: None,
                cached_blocks: None,
                ttft_ms: None,
                e2e_ms: None,
                rejected: false,
                timed_out: false,
            });
        }
        chosen
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
        true
    }

    /// Applies a replica's cache store and evict events to the fleet's block index.
    fn sync_index(&mut self, r: usize) {
        for (id, added) in self.replicas[r].cache_mut().drain_journal() {
            if added {
                self.index.insert(id, r);
            } else {
                self.index.remove(id, r);
            }
        }
    }

    fn advance_clock(&mut self, t_us: u64) {
        debug_assert!(t_us >= self.now_us, "time went backwards");
        debug_assert!(
            t_us < crate::limits::MAX_TIME_US,
            "time {t_us} µs passed the clock's horizon: the run's bound was wrong"
        );
        self.sampler.advance_to(t_us, &self.replicas);
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
            if let Some(d) = self
                .decisions
                .as_mut()
                .and_then(|d| d.get_mut(a.id as usize))
            {
                d.admit_s = Some(a.admit_us as f64 / 1e6);
                d.cached_blocks = Some(a.hit_blocks);
            }
        }
        for f in self.outbox.finished.drain(..) {
            self.inflight.end(f.id);
            self.recorder.finished(&f);
            let ended = EndedRequest {
                id: f.id,
                session: f.session,
                ok: true,
                output_tokens: f.output_tokens,
            };
            self.source.on_end(ended, f.done_us);
            if let Some(d) = self
                .decisions
                .as_mut()
                .and_then(|d| d.get_mut(f.id as usize))
            {
                d.ttft_ms = Some((f.first_token_us - f.arrival_us) as f64 / 1000.0);
                d.e2e_ms = Some((f.done_us - f.arrival_us) as f64 / 1000.0);
            }
        }
        for x in self.outbox.dropped.drain(..) {
            self.inflight.end(x.id);
            let timed_out = x.kind == DropKind::TimedOut;
            if timed_out {
                self.timed_out += 1;
            } else {
                self.rejected += 1;
            }
            self.recorder.dropped(x.replica, timed_out);
            let ended = EndedRequest {
                id: x.id,
                session: x.session,
                ok: false,
                output_tokens: 0,
            };
            self.source.on_end(ended, self.now_us);
            if let Some(d) = self
                .decisions
                .as_mut()
                .and_then(|d| d.get_mut(x.id as usize))
            {
                d.rejected = !timed_out;
                d.timed_out = timed_out;
            }
        }
        for run in self.outbox.itl_runs.drain(..) {
            self.recorder.itl.add_run(&run);
        }
    }
}
