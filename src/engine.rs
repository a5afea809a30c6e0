//! One engine replica: a waiting queue, continuous batching under concurrency slots and
//! a chunked-prefill token budget, KV admission against the block cache, and decode
//! advanced in closed form between events (cost grows with events, not tokens).

use std::collections::VecDeque;

mod admit;
mod apply;
mod batch;
mod budget;
mod deadline;
mod disagg;
mod outbox;
mod preempt;
mod shared;
mod tier;

pub use crate::config::TierSpec;
pub use disagg::{Prefilled, Role};
pub use outbox::{
    Admitted, DropKind, Dropped, Finished, Handoff, ItlRun, Outbox, Preempted, Released, Resumed,
};
pub use shared::{Pool, SharedPool, SharedStats};
pub use tier::TierStats;

use crate::cache::{BlockCache, IdMap};
use crate::config::Admission;
use crate::timing::{StepAdmission, Timing};
use crate::workload::Request;

/// A request a replica still holds, and in which state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stuck {
    /// Request id.
    pub id: u32,
    /// `waiting` (`on an idle replica`: nothing will ever admit it), `running` or
    /// `held for transfer`.
    pub state: &'static str,
}

/// Static engine settings shared by every replica.
#[derive(Clone, Copy, Debug)]
pub struct EngineSpec {
    /// Step-time coefficients.
    pub timing: Timing,
    /// Concurrency slots: most running requests.
    pub max_batch: u32,
    /// Prefill token budget per step.
    pub max_batched_tokens: u32,
    /// Tokens per KV block.
    pub block_size: u32,
    /// Requests allowed to wait for a slot; `None` = unbounded.
    pub queue_capacity: Option<u32>,
    /// Caller timeout on the first token, µs; `None` = none.
    pub timeout_us: Option<u64>,
    /// When waiting requests are admitted and computed blocks become reusable.
    pub step_admission: StepAdmission,
}

struct Active {
    req: Request,
    full_blocks: usize,
    private_blocks: u64,
    prompt_private_blocks: u64,
    prefilled_tokens: u32,
    ready_blocks: usize,
    generated: u32,
    admit_us: u64,
    first_token_us: u64,
    /// Tokens it had generated when it was last preempted (its prefill covers the prompt
    /// and these); 0 for a request never preempted.
    resume_tokens: u32,
    /// While a preempted request recomputes: when the time it lost began, µs.
    lost_from_us: Option<u64>,
    /// When the load of its blocks from the CPU tier ends, µs (0: none): it computes
    /// nothing before.
    loaded_at_us: u64,
    /// Its place in the running order: the replica's count of requests that joined the
    /// batch before it (given by `push_running`).
    seq: u64,
}

impl Active {
    /// Where its prefill ends: the prompt, plus the tokens it recomputes after a
    /// preemption.
    fn prompt_end(&self) -> u32 {
        self.req.prompt_tokens + self.resume_tokens
    }

    /// Whether it is still waiting at `now_us` for its blocks to load from the CPU tier.
    fn loading(&self, now_us: u64) -> bool {
        self.loaded_at_us > now_us
    }
}

enum Plan {
    Idle,
    /// Nothing to compute until a load from the CPU tier ends at `until_us`.
    Wait,
    /// One step with prefill: per running index, the prefill tokens it computes.
    Step {
        start_us: u64,
        end_us: u64,
        chunks: Vec<(usize, u32)>,
        decode_seqs: u64,
        saturated: bool,
        kv_wait_from_us: Option<u64>,
    },
    /// `steps` pure decode steps of every running request.
    DecodeRun {
        start_us: u64,
        steps: u64,
        seqs: u64,
        kv_tokens: u64,
        saturated: bool,
        kv_wait_from_us: Option<u64>,
    },
}

/// Per-replica counters for the report.
#[derive(Clone, Debug, Default)]
pub struct ReplicaStats {
    /// Requests routed here.
    pub routed: u64,
    /// Time spent in steps, µs.
    pub busy_us: u64,
    /// Time spent in steps that began with more work than they could start, µs: a
    /// request waiting (no free slot or KV room) or prefill beyond the step's budget.
    pub saturated_us: u64,
    /// Longest waiting queue seen.
    pub peak_queue: u32,
    /// Time a request waited for KV room while a slot was free, µs: from the start of a
    /// step that began so, or from an arrival refused room during a decode run, to the
    /// step's (or run's) end. The time KV capacity, not the slots, held requests back.
    pub kv_wait_us: u64,
    /// Running requests × time, summed over steps, request·µs: over `busy_us`, the mean
    /// number of requests that ran at once.
    pub running_us: u64,
    /// Requests admitted (a decode replica's prefilled ones included).
    pub admissions: u64,
    /// KV blocks those admissions' requests hold at their largest (prompt and output; what
    /// `reserve` takes at admission), summed.
    pub admitted_kv_blocks: u64,
    /// Running requests preempted for want of a KV block (`preempt` rule).
    pub preemptions: u64,
    /// Tokens the resumed requests prefilled again that they had computed before their
    /// preemption (less what they found still cached), tokens.
    pub recomputed_tokens: u64,
    /// Time preempted requests lost: from each preemption to the end of the step that
    /// finished its request's recomputation (its next token), µs; a request preempted
    /// again before it recovered counts from its first preemption, once.
    pub preempt_lost_us: u64,
}

/// One engine replica.
pub struct Replica {
    index: u32,
    spec: EngineSpec,
    cache: BlockCache,
    waiting: VecDeque<Request>,
    /// Boxed: a step's end takes the finished requests out and moves the rest up, a
    /// pointer each rather than a whole request (the first screen's sweep in wasm took
    /// 6 % longer unboxed).
    #[allow(clippy::vec_box)]
    running: Vec<Box<Active>>,
    /// Totals over `running`, kept as it changes (`batch.rs`).
    batch: batch::BatchTotals,
    /// The next request to join the batch gets this `Active::seq`.
    next_seq: u64,
    prompt_private_blocks: u64,
    plan: Plan,
    generation: u64,
    stats: ReplicaStats,
    role: Role,
    /// Blocks the waiting requests will reserve on admission.
    queued_blocks: u64,
    /// Longest waiting queue since the time series' last sample (`take_window_peak`), an
    /// arrival admitted at once included, as `ReplicaStats::peak_queue` counts it.
    window_peak: u32,
    /// Prefill role: requests handed off whose blocks stay pinned until their transfer.
    held: Vec<Active>,
    /// Decode role: the waiting requests that were prefilled elsewhere.
    prefilled: IdMap<Prefilled>,
    /// The last step's chunk list, emptied, kept so a step does not allocate one.
    spare_chunks: Vec<(usize, u32)>,
    /// The last request refused KV room, and the cache's room version then: until the
    /// version moves, a step boundary does not walk its blocks again (`admit.rs`).
    refused: Option<(u32, u64)>,
    /// Block ids the admission path has handed to the cache's walks (for tests).
    admission_ids_walked: u64,
    /// The KV admission rule.
    admission: Admission,
    /// Preempted requests waiting to run again, by id.
    resumes: Vec<preempt::Resume>,
    /// Blocks the current decode run took at its start for its later steps.
    run_growth_blocks: u64,
    /// The CPU offload tier and its link, when configured.
    tier: Option<Box<tier::Tier>>,
    /// The fleet's shared tier and this replica's link to it, when configured.
    shared: Option<Box<shared::Shared>>,
}

impl Replica {
    /// An idle replica with an empty cache.
    pub fn new(index: u32, spec: EngineSpec, capacity_blocks: Option<u64>) -> Replica {
        Replica {
            index,
            spec,
            cache: BlockCache::new(capacity_blocks),
            waiting: VecDeque::new(),
            running: Vec::new(),
            batch: batch::BatchTotals::new(),
            next_seq: 0,
            prompt_private_blocks: 0,
            plan: Plan::Idle,
            generation: 0,
            stats: ReplicaStats::default(),
            role: Role::Colocated,
            queued_blocks: 0,
            window_peak: 0,
            held: Vec::new(),
            prefilled: IdMap::default(),
            spare_chunks: Vec::new(),
            refused: None,
            admission_ids_walked: 0,
            admission: Admission::Reserve,
            resumes: Vec::new(),
            run_growth_blocks: 0,
            tier: None,
            shared: None,
        }
    }

    /// The replica's index in the fleet.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// Calls `f` for every request the replica still holds: waiting, running, or (on a
    /// prefill replica) held until its transfer ends.
    pub fn stuck(&self, mut f: impl FnMut(Stuck)) {
        let idle = matches!(self.plan, Plan::Idle);
        let why = if idle {
            "waiting on an idle replica"
        } else {
            "waiting"
        };
        let waiting = self.waiting.iter().map(|r| (r.id, why));
        let running = self.running.iter().map(|a| (a.req.id, "running"));
        let held = self.held.iter().map(|a| (a.req.id, "held for transfer"));
        for (id, state) in waiting.chain(running).chain(held) {
            f(Stuck { id, state });
        }
    }

    /// The replica's cache.
    pub fn cache(&self) -> &BlockCache {
        &self.cache
    }

    /// The cache, mutably (to drain its journal into the fleet index).
    pub fn cache_mut(&mut self) -> &mut BlockCache {
        &mut self.cache
    }

    /// Distinct prompt blocks held by running requests (shared prefixes once).
    pub fn active_blocks(&self) -> u64 {
        self.cache.pinned_blocks() + self.prompt_private_blocks
    }

    /// Requests waiting for admission.
    pub fn waiting(&self) -> u32 {
        self.waiting.len() as u32
    }

    /// The longest waiting queue since the last call (or the start), now's included; the
    /// next window starts from now's. The time series' queue depth, so its highest point is
    /// the replica's `peak_queue`.
    pub fn take_window_peak(&mut self) -> u32 {
        let now = self.waiting();
        std::mem::replace(&mut self.window_peak, now).max(now)
    }

    /// Requests running.
    pub fn running(&self) -> u32 {
        self.running.len() as u32
    }

    /// Counters.
    /// The step-time coefficients this replica runs on.
    pub fn timing(&self) -> &Timing {
        &self.spec.timing
    }

    pub fn stats(&self) -> &ReplicaStats {
        &self.stats
    }

    /// The generation of the step end currently scheduled; older events are stale.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// A routed request arrives at `now_us`. Returns the end time of a newly scheduled
    /// step (the caller schedules a step-end event with the current generation).
    pub fn arrive(&mut self, req: Request, now_us: u64, out: &mut Outbox) -> Option<u64> {
        self.stats.routed += 1;
        self.expire_waiting(now_us, out);
        if self.queue_is_full() {
            self.forget_prefilled(req.id);
            self.drop_request(req, DropKind::QueueFull, out);
            return None;
        }
        self.queued_blocks += self.kv_needs_total(&req);
        self.waiting.push_back(req);
        let depth = self.waiting.len() as u32;
        self.stats.peak_queue = self.stats.peak_queue.max(depth);
        self.window_peak = self.window_peak.max(depth);
        match self.plan {
            Plan::Idle | Plan::Wait => self.begin_step(now_us, out),
            Plan::DecodeRun { .. } => self.truncate_run_for_head(now_us),
            _ => None,
        }
    }

    /// Adds a finished step's (or run's) time to the counters: busy, saturated, waiting
    /// for KV room, and running requests × time.
    fn count_step(&mut self, start_us: u64, end_us: u64, saturated: bool, kv_from: Option<u64>) {
        let d = end_us - start_us;
        self.stats.busy_us += d;
        self.stats.saturated_us += saturated as u64 * d;
        self.stats.running_us += self.running.len() as u64 * d;
        if let Some(from) = kv_from {
            self.stats.kv_wait_us += end_us.saturating_sub(from);
        }
    }

    /// The scheduled step (or decode run) ends at `now_us`: apply it, then plan the next.
    pub fn step_end(&mut self, now_us: u64, out: &mut Outbox) -> Option<u64> {
        match std::mem::replace(&mut self.plan, Plan::Idle) {
            Plan::Idle | Plan::Wait => {}
            Plan::Step {
                start_us,
                end_us,
                chunks,
                decode_seqs,
                saturated,
                kv_wait_from_us,
            } => {
                debug_assert_eq!(end_us, now_us);
                self.count_step(start_us, end_us, saturated, kv_wait_from_us);
                self.apply_step(&chunks, now_us, out);
                self.spare_chunks = chunks;
                if decode_seqs > 0 {
                    let d = (end_us - start_us) as f64;
                    out.itl_runs.push(ItlRun {
                        first_us: d,
                        delta_us: 0.0,
                        count: 1,
                        tokens: decode_seqs,
                    });
                }
            }
            Plan::DecodeRun {
                start_us,
                steps,
                seqs,
                kv_tokens,
                saturated,
                kv_wait_from_us,
            } => {
                self.count_step(start_us, now_us, saturated, kv_wait_from_us);
                self.apply_decode_run(steps, now_us, out);
                let (first_us, delta_us) = self.spec.timing.itl_line_us(steps, seqs, kv_tokens);
                out.itl_runs.push(ItlRun {
                    first_us,
                    delta_us,
                    count: steps,
                    tokens: seqs,
                });
            }
        }
        self.begin_step(now_us, out)
    }

    fn drop_request(&self, req: Request, kind: DropKind, out: &mut Outbox) {
        out.dropped.push(Dropped {
            id: req.id,
            replica: self.index,
            session: req.session,
            kind,
        });
        self.release_request(req, out);
    }

    /// Hands a request that leaves the replica back, blocks and all.
    fn release_request(&self, req: Request, out: &mut Outbox) {
        out.released.push(Released {
            id: req.id,
            replica: self.index,
            prompt_tokens: req.prompt_tokens,
            block_ids: req.block_ids,
        });
    }

    /// A decode run is cut short at its next step boundary when the waiting head could
    /// join there; when it could not for want of KV room with a slot free, the run waits
    /// for KV from now on.
    fn truncate_run_for_head(&mut self, now_us: u64) -> Option<u64> {
        if self.head_admissible() {
            return self.truncate_run(now_us);
        }
        let slot_free = self.running.len() < self.spec.max_batch as usize;
        if let Plan::DecodeRun {
            kv_wait_from_us: from @ None,
            ..
        } = &mut self.plan
        {
            if slot_free {
                *from = Some(now_us);
            }
        }
        None
    }

    fn truncate_run(&mut self, now_us: u64) -> Option<u64> {
        let Plan::DecodeRun {
            start_us,
            steps,
            seqs,
            kv_tokens,
            saturated,
            kv_wait_from_us,
        } = self.plan
        else {
            return None;
        };
        let t = self.spec.timing;
        let done = t.decode_steps_within(now_us - start_us, steps, seqs, kv_tokens);
        let keep = (done + 1).min(steps);
        if keep == steps {
            return None;
        }
        self.plan = Plan::DecodeRun {
            start_us,
            steps: keep,
            seqs,
            kv_tokens,
            saturated,
            kv_wait_from_us,
        };
        self.generation += 1;
        Some(start_us + t.decode_run_us(keep, seqs, kv_tokens))
    }

    fn begin_step(&mut self, now_us: u64, out: &mut Outbox) -> Option<u64> {
        let end_us = self.plan_step(now_us, out);
        // What the step's admissions and growth evicted reaches the tiers below now, so
        // that the other replicas find it in the shared tier.
        self.demote_evicted();
        end_us
    }

    fn plan_step(&mut self, now_us: u64, out: &mut Outbox) -> Option<u64> {
        if self.spec.timeout_us.is_some() {
            self.expire_running(now_us, out);
            self.expire_waiting(now_us, out);
        }
        let preempted = self.grows() && self.grow_for_step(now_us, out);
        // A step boundary that preempted admits no one (vLLM's rule), unless none runs.
        let admits = !preempted || self.running.is_empty();
        let in_budget = self.admits_in_budget();
        if admits && !in_budget {
            self.admit_and_retire(now_us, out);
        }
        if self.running.is_empty() && (!in_budget || self.waiting.is_empty()) {
            self.plan = Plan::Idle;
            return None;
        }
        let mut budget = self.spec.max_batched_tokens;
        let mut chunks = std::mem::take(&mut self.spare_chunks);
        chunks.clear();
        let mut saturated = false;
        for i in self.prefilling_positions() {
            let a = &self.running[i];
            if a.loading(now_us) {
                continue;
            }
            let left = a.prompt_end() - a.prefilled_tokens;
            let c = left.min(budget);
            saturated |= c < left;
            if c > 0 {
                budget -= c;
                chunks.push((i, c));
            }
        }
        // A request loading from the CPU tier is still prefilling: every decoding request
        // decodes.
        let (decode_seqs, kv_tokens) = (self.batch.decoding, self.batch.decode_kv_tokens);
        if in_budget {
            self.admit_in_budget(now_us, admits, &mut budget, &mut chunks, out);
            if self.running.is_empty() {
                self.spare_chunks = chunks;
                self.plan = Plan::Idle;
                return None;
            }
        }
        saturated |= !self.waiting.is_empty();
        // A request still waits after admission with a slot free (and, admitting inside
        // the budget, budget left): only KV room held it.
        let kv_wait_from_us = (!self.waiting.is_empty()
            && self.running.len() < self.spec.max_batch as usize
            && (!in_budget || budget > 0))
            .then_some(now_us);
        self.generation += 1;
        let t = self.spec.timing;
        if !chunks.is_empty() {
            let prefill: u64 = chunks.iter().map(|&(_, c)| c as u64).sum();
            // Sequences that emit a token: the decoding ones, and each prompt whose last
            // chunk this step computes (its first token comes at the step's end).
            let completing = chunks
                .iter()
                .filter(|&&(i, c)| {
                    let a = &self.running[i];
                    a.prefilled_tokens + c == a.prompt_end()
                })
                .count() as u64;
            let emitting = decode_seqs + completing;
            let end_us = now_us + t.pass_us(prefill, decode_seqs, kv_tokens, emitting);
            self.plan = Plan::Step {
                start_us: now_us,
                end_us,
                chunks,
                decode_seqs,
                saturated,
                kv_wait_from_us,
            };
            return Some(end_us);
        }
        if decode_seqs == 0 {
            // Every running request waits for a load from the CPU tier.
            if let Some(until_us) = self.next_load_end(now_us) {
                self.plan = Plan::Wait;
                return Some(until_us);
            }
        }
        let steps = self
            .running
            .iter()
            .filter(|a| !a.loading(now_us))
            .map(|a| (a.req.output_tokens - a.generated) as u64)
            .min()
            .expect("running is not empty, and not all of it loading");
        let steps = self.steps_before_load(now_us, steps, decode_seqs, kv_tokens);
        let steps = if self.grows() {
            self.reserve_run(steps)
        } else {
            steps
        };
        self.plan = Plan::DecodeRun {
            start_us: now_us,
            steps,
            seqs: decode_seqs,
            kv_tokens,
            saturated,
            kv_wait_from_us,
        };
        Some(now_us + t.decode_run_us(steps, decode_seqs, kv_tokens))
    }

    /// Admits what fits; on a decode replica a request that arrived prefilled with a
    /// one-token answer is done as soon as it is admitted, and the slot and blocks it
    /// frees go to the next waiting request at once.
    fn admit_and_retire(&mut self, now_us: u64, out: &mut Outbox) {
        loop {
            self.admit_waiting(now_us, out);
            if self.role != Role::Decode {
                return;
            }
            let before = self.running.len();
            self.retire_finished(now_us, out);
            if self.running.len() == before || self.waiting.is_empty() {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests;
