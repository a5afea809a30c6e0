//! A replica's part in a disaggregated fleet. A prefill replica computes prompts only:
//! once a prompt is done it hands the request off (freeing its slot) and keeps the
//! prompt's blocks pinned until the transfer to the decode replica ends, when they become
//! evictable cache. A decode replica admits requests whose prompt arrived over its link:
//! it reserves the prompt and output blocks (or waits for room), stores the received
//! prompt blocks in its cache, and decodes them; it also serves requests that skipped
//! the prefill pool as a colocated replica would.

use super::{Active, DropKind, Handoff, Outbox, Released, Replica};
use crate::workload::Request;

/// What a replica does in the fleet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Role {
    /// Prefill and decode (the colocated fleet).
    #[default]
    Colocated,
    /// Prefill only; prefilled requests leave through the outbox's `handoffs`.
    Prefill,
    /// Decode of prefilled requests, and colocated service of the ones that skipped the
    /// prefill pool.
    Decode,
}

/// What a decode replica is told of a request prefilled elsewhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prefilled {
    /// When the prefill replica admitted it, µs.
    pub admit_us: u64,
    /// When its first token reached the caller (the transfer's end), µs.
    pub first_token_us: u64,
}

impl Replica {
    /// This replica's role.
    pub fn role(&self) -> Role {
        self.role
    }

    /// Gives the replica its role in a disaggregated fleet.
    pub fn set_role(&mut self, role: Role) {
        self.role = role;
    }

    /// KV blocks held or wanted by this replica's requests: pinned and private blocks in
    /// use, plus what the waiting requests will reserve.
    pub fn kv_load_blocks(&self) -> u64 {
        self.cache.pinned_blocks() + self.cache.private_blocks() + self.queued_blocks
    }

    /// Requests prefilled here whose blocks stay pinned until their transfer ends.
    pub fn held(&self) -> u32 {
        self.held.len() as u32
    }

    /// A prefill replica's request whose prompt is done leaves its slot: its blocks stay
    /// pinned (in `held`) and the simulator is told through `handoffs`.
    pub(super) fn hand_off(&mut self, i: usize, out: &mut Outbox) {
        let a = self.take_running(i);
        out.handoffs.push(Handoff {
            id: a.req.id,
            replica: self.index,
            prompt_tokens: a.req.prompt_tokens,
            output_tokens: a.req.output_tokens,
            arrival_us: a.req.arrival_us,
            admit_us: a.admit_us,
        });
        self.held.push(a);
    }

    /// The transfer of request `id` has ended: its prompt blocks are unpinned (they stay
    /// cached, evictable) and the request is handed back for the decode replica.
    pub fn release_held(&mut self, id: u32, out: &mut Outbox) -> Request {
        let i = self
            .held
            .iter()
            .position(|a| a.req.id == id)
            .expect("a transfer's request is held by its prefill replica");
        let a = self.held.swap_remove(i);
        self.cache
            .release(&a.req.block_ids[..a.full_blocks], a.private_blocks);
        self.prompt_private_blocks -= a.prompt_private_blocks;
        out.released.push(Released {
            id: a.req.id,
            replica: self.index,
            prompt_tokens: a.req.prompt_tokens,
            block_ids: a.req.block_ids.clone(),
        });
        a.req
    }

    /// Starts a step if the replica is idle with requests waiting (on a prefill replica,
    /// when a transfer's end frees the blocks they were waiting for).
    pub fn wake(&mut self, now_us: u64, out: &mut Outbox) -> Option<u64> {
        if !matches!(self.plan, super::Plan::Idle | super::Plan::Wait) || self.waiting.is_empty() {
            return None;
        }
        self.begin_step(now_us, out)
    }

    /// A prefilled request's KV has arrived over the link at `now_us`; it waits for a
    /// slot and room like any arrival (a full queue rejects it). Returns the end of a
    /// newly scheduled step, as `arrive` does.
    pub fn arrive_prefilled(
        &mut self,
        req: Request,
        prefilled: Prefilled,
        now_us: u64,
        out: &mut Outbox,
    ) -> Option<u64> {
        debug_assert_eq!(self.role, Role::Decode);
        self.prefilled.insert(req.id as u64, prefilled);
        self.arrive(req, now_us, out)
    }

    /// Whether a waiting request was prefilled elsewhere (its first token is out, so the
    /// caller's timeout no longer applies).
    pub(super) fn is_prefilled(&self, req: &Request) -> bool {
        !self.prefilled.is_empty() && self.prefilled.contains_key(&(req.id as u64))
    }

    /// Forgets a prefilled request that leaves without running (rejected, too large).
    pub(super) fn forget_prefilled(&mut self, id: u32) {
        if !self.prefilled.is_empty() {
            self.prefilled.remove(&(id as u64));
        }
    }

    /// The running entry of a request admitted on a decode replica after its transfer:
    /// the received prompt blocks are stored computed, and its first token is out.
    pub(super) fn admit_prefilled(&mut self, a: &mut Active) {
        let Some(p) = self.prefilled.remove(&(a.req.id as u64)) else {
            return;
        };
        let bs = self.spec.block_size;
        self.cache.mark_ready(&a.req.block_ids[..a.full_blocks]);
        a.ready_blocks = a.full_blocks;
        a.prefilled_tokens = a.req.prompt_tokens;
        a.generated = 1;
        a.admit_us = p.admit_us;
        a.first_token_us = p.first_token_us;
        debug_assert!(a.full_blocks as u32 * bs <= a.req.prompt_tokens);
    }

    /// Drops the waiting requests whose caller gave up, on a decode replica, where
    /// prefilled requests (never late: their first token is out) and skipped ones (in
    /// arrival order among themselves) share the queue.
    pub(super) fn expire_waiting_mixed(&mut self, now_us: u64, out: &mut Outbox) {
        let mut i = 0;
        while i < self.waiting.len() {
            let req = &self.waiting[i];
            if self.first_token_out(req) || !self.expired(req, now_us) {
                i += 1;
                continue;
            }
            let req = self.waiting.remove(i).expect("index in range");
            self.queued_blocks -= self.kv_needs_total(&req);
            self.forget_resume(req.id);
            self.drop_request(req, DropKind::TimedOut, out);
        }
    }
}

impl Replica {
    /// The caller's timeout on the first token, µs.
    pub fn timeout_us(&self) -> Option<u64> {
        self.spec.timeout_us
    }
}
