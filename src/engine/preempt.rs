//! The `preempt` admission rule, restated from vLLM V1's scheduler
//! (`vllm/v1/core/sched/scheduler.py` and `vllm/v1/core/kv_cache_manager.py`, read at
//! commits 00024d31 and 003df296): a waiting request is admitted when its prompt's
//! blocks fit (the watermark there defaults to 0, and kvfleet has none); a running
//! request's KV grows a block at a time as it decodes; when a step finds no block for a
//! running request, the most recently admitted running request is preempted: its blocks
//! are freed (its computed prompt blocks stay cached, evictable), it goes back to the
//! front of the waiting queue, and when it is admitted again it prefills its prompt plus
//! the tokens it had generated, less whatever of its prompt is still cached. No waiting
//! request is admitted at a step boundary that preempted (as vLLM's scheduler skips its
//! waiting queue in a step with preemptions), unless nothing is left running.
//!
//! Events, not tokens: the blocks a step needs are taken at the step boundary, for every
//! decoding request at once, and a decode run between events takes at its start the
//! blocks its steps will fill, so a run is cut where the room ends, not token by token.
//!
//! KV tokens of a decoding request that has generated `g` tokens: `prompt + g - 1` (the
//! last token's KV is written by the next step), so the step that makes token `g + 1`
//! needs `ceil((prompt + g) / block_size)` blocks.

use super::{Active, Outbox, Preempted, Replica, Resumed, Role};
use crate::config::Admission;
use crate::workload::Request;

/// What a preempted request keeps while it waits to run again.
#[derive(Clone, Copy, Debug)]
pub(super) struct Resume {
    /// Request id.
    pub id: u32,
    /// Tokens it had generated (its prefill on resume covers prompt + these).
    pub generated: u32,
    /// Its first admission, µs.
    pub admit_us: u64,
    /// Its first token, µs (0 when it had none).
    pub first_token_us: u64,
    /// KV tokens it had computed when preempted (what a resume recomputes, less its hit).
    pub computed_tokens: u32,
    /// When the time it lost began: this preemption, or an earlier one it had not yet
    /// recovered from, µs.
    pub lost_from_us: u64,
}

impl Replica {
    /// Sets the KV admission rule.
    pub fn set_admission(&mut self, admission: Admission) {
        self.admission = admission;
    }

    /// Whether running requests grow their KV while decoding (the `preempt` rule; a
    /// prefill replica never decodes).
    pub(super) fn grows(&self) -> bool {
        self.admission == Admission::Preempt && self.role != Role::Prefill
    }

    /// The tokens generated so far by a waiting request that was preempted (0 if none).
    pub(super) fn resumed_generated(&self, req: &Request) -> u32 {
        self.resume_of(req.id)
            .map_or(0, |i| self.resumes[i].generated)
    }

    /// Whether a waiting request's first token is already out (prefilled elsewhere, or
    /// preempted after its first token): the caller's timeout no longer applies.
    pub(super) fn first_token_out(&self, req: &Request) -> bool {
        self.is_prefilled(req) || self.resumed_generated(req) > 0
    }

    /// Forgets the resume state of a request that leaves without running again.
    pub(super) fn forget_resume(&mut self, id: u32) {
        if let Some(i) = self.resume_of(id) {
            self.resumes.swap_remove(i);
        }
    }

    /// Where request `id`'s resume state is, if it was preempted and waits (a short list:
    /// the preempted requests waiting on this replica).
    pub(super) fn resume_of(&self, id: u32) -> Option<usize> {
        self.resumes.iter().position(|r| r.id == id)
    }

    /// KV tokens a running request holds through `steps` more steps (0: now): a
    /// prefilling request, its whole prefill's.
    fn kv_tokens_through(a: &Active, steps: u64) -> u64 {
        let end = a.prompt_end() as u64;
        if a.prefilled_tokens < a.prompt_end() {
            return end;
        }
        // Decoding: prompt + generated - 1 KV tokens now, one more per step.
        (a.req.prompt_tokens as u64 + a.generated as u64 - 1 + steps).max(end)
    }

    /// Blocks a running request needs for its KV through `steps` more steps (0: what
    /// it holds now).
    fn blocks_through(&self, a: &Active, steps: u64) -> u64 {
        Self::kv_tokens_through(a, steps).div_ceil(self.spec.block_size as u64)
    }

    /// Blocks a running request must add to those it holds for its KV through `steps`
    /// more steps: most steps fill a block already held, found without a division.
    fn more_blocks(&self, a: &Active, steps: u64) -> u64 {
        let held = a.full_blocks as u64 + a.private_blocks;
        let bs = self.spec.block_size as u64;
        let tokens = Self::kv_tokens_through(a, steps);
        if tokens <= held * bs {
            0
        } else {
            tokens.div_ceil(bs) - held
        }
    }

    /// At a step boundary: gives back blocks a cut-short run took ahead of need, then
    /// takes the blocks the next step needs, request by request in admission order,
    /// preempting the most recently admitted running request while a block is missing.
    /// Returns whether it preempted.
    pub(super) fn grow_for_step(&mut self, now_us: u64, out: &mut Outbox) -> bool {
        // Only a run that took blocks ahead can leave some unused (a step takes just its own).
        if self.run_growth_blocks > 0 {
            self.give_back_unused();
        }
        self.run_growth_blocks = 0;
        // A prefilling request holds its prefill's blocks; a decoding one needs a block
        // only when it has no room left for the step's token.
        if self.batch.min_room_tokens >= 1 {
            return false;
        }
        let mut preempted = false;
        let mut min_room = u64::MAX;
        let mut i = 0;
        while i < self.running.len() {
            let need = self.more_blocks(&self.running[i], 1);
            if self.cache.grow_private(need).is_ok() {
                self.running[i].private_blocks += need;
                min_room = min_room.min(self.decoding_room(&self.running[i]));
                i += 1;
                continue;
            }
            preempted = true;
            let victim = self.running.len() - 1;
            self.preempt(victim, now_us, out);
        }
        self.batch.min_room_tokens = min_room;
        preempted
    }

    /// Gives back the blocks a run cut short took ahead of need.
    fn give_back_unused(&mut self) {
        let mut min_room = u64::MAX;
        for i in 0..self.running.len() {
            let a = &self.running[i];
            let held = a.full_blocks as u64 + a.private_blocks;
            let extra = held.saturating_sub(self.blocks_through(a, 0));
            self.cache.shrink_private(extra);
            self.running[i].private_blocks -= extra;
            min_room = min_room.min(self.decoding_room(&self.running[i]));
        }
        self.batch.min_room_tokens = min_room;
    }

    /// Before a decode run of `steps` steps (the first step's blocks already taken):
    /// takes the blocks of as many of them as fit, and returns that many (at least 1).
    pub(super) fn reserve_run(&mut self, steps: u64) -> u64 {
        if steps <= self.batch.min_room_tokens {
            // Every decoding request has room for the whole run's tokens.
            return steps;
        }
        let spare = self.cache.spare_blocks();
        let extra = |k: u64| -> u64 { self.running.iter().map(|a| self.more_blocks(a, k)).sum() };
        // The largest k in 1..=steps whose extra blocks fit (extra(1) is 0): most often the
        // whole run, checked first.
        let (mut lo, mut hi) = if spare == u64::MAX || extra(steps) <= spare {
            (steps, steps)
        } else {
            (1u64, steps - 1)
        };
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if extra(mid) <= spare {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let k = lo;
        let (mut total, mut min_room) = (0, u64::MAX);
        for i in 0..self.running.len() {
            let more = self.more_blocks(&self.running[i], k);
            self.running[i].private_blocks += more;
            total += more;
            min_room = min_room.min(self.decoding_room(&self.running[i]));
        }
        self.cache
            .grow_private(total)
            .expect("a run's blocks were counted against the spare ones");
        self.run_growth_blocks = total;
        self.batch.min_room_tokens = min_room;
        k
    }

    /// Preempts running request `i`: frees its blocks and puts it at the front of the
    /// waiting queue, to resume with a prefill of its prompt and generated tokens.
    fn preempt(&mut self, i: usize, now_us: u64, out: &mut Outbox) {
        let a = self.take_running(i);
        let held = a.full_blocks as u64 + a.private_blocks;
        self.cache
            .release(&a.req.block_ids[..a.full_blocks], a.private_blocks);
        self.prompt_private_blocks -= a.prompt_private_blocks;
        let computed_tokens = if a.prefilled_tokens < a.prompt_end() {
            a.prefilled_tokens
        } else {
            a.req.prompt_tokens + a.generated - 1
        };
        self.stats.preemptions += 1;
        out.preempted.push(Preempted {
            id: a.req.id,
            replica: self.index,
            at_us: now_us,
            blocks_freed: held,
            generated: a.generated,
        });
        let resume = Resume {
            id: a.req.id,
            generated: a.generated,
            admit_us: a.admit_us,
            first_token_us: a.first_token_us,
            computed_tokens,
            lost_from_us: a.lost_from_us.unwrap_or(now_us),
        };
        self.resumes.push(resume);
        self.queued_blocks += self.kv_needs_total(&a.req);
        self.waiting.push_front(a.req);
        let depth = self.waiting.len() as u32;
        self.stats.peak_queue = self.stats.peak_queue.max(depth);
        self.window_peak = self.window_peak.max(depth);
    }

    /// The running entry of a preempted request admitted again with `hit` cached blocks:
    /// it prefills its prompt and generated tokens from the hit on.
    pub(super) fn admit_resumed(
        &mut self,
        req: Request,
        needs: (usize, u64, u64),
        hit: usize,
        now_us: u64,
        out: &mut Outbox,
    ) {
        let i = self
            .resume_of(req.id)
            .expect("a resumed request has its state");
        let r = self.resumes.swap_remove(i);
        let bs = self.spec.block_size;
        let recomputed = r.computed_tokens.saturating_sub(hit as u32 * bs);
        self.stats.recomputed_tokens += recomputed as u64;
        out.resumed.push(Resumed {
            id: req.id,
            replica: self.index,
            at_us: now_us,
            hit_blocks: hit as u32,
            recomputed_tokens: recomputed,
        });
        let (full, private, prompt_private) = needs;
        self.push_running(Active {
            full_blocks: full,
            private_blocks: private,
            prompt_private_blocks: prompt_private,
            prefilled_tokens: hit as u32 * bs,
            ready_blocks: hit,
            generated: r.generated,
            admit_us: r.admit_us,
            first_token_us: r.first_token_us,
            resume_tokens: r.generated,
            lost_from_us: Some(r.lost_from_us),
            loaded_at_us: 0,
            seq: 0,
            req,
        });
    }

    /// A resumed request's recomputation is done at `now_us` (its next token is out):
    /// the time since its preemption counts as lost.
    pub(super) fn recovered(&mut self, i: usize, now_us: u64) {
        if let Some(from) = self.running[i].lost_from_us.take() {
            self.stats.preempt_lost_us += now_us - from;
        }
    }
}
