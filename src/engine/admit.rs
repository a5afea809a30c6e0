//! Admission: the queue's capacity at arrival, and at each step boundary the waiting
//! head's slot and KV blocks (a request too large for the cache is refused), with the
//! cache lookup that gives its hit. A head refused KV room is not walked again until the
//! cache's room changes (a pin or a release), so a request waiting through a long prefill
//! costs each step nothing, whatever its block count.

use super::{Active, Admitted, DropKind, Outbox, Replica, Role};
use crate::workload::Request;

impl Replica {
    /// Requests waiting for a slot beyond the free ones (what a queue capacity limits).
    pub fn queued_for_slot(&self) -> u32 {
        (self.waiting.len() + self.running.len()).saturating_sub(self.spec.max_batch as usize)
            as u32
    }

    /// Whether an arrival must be refused: every slot is taken (by a running request, or
    /// by a waiting one that will take it at the next step boundary) and `capacity`
    /// requests already wait for a slot. An idle replica always has a free slot.
    pub(super) fn queue_is_full(&self) -> bool {
        let Some(capacity) = self.spec.queue_capacity else {
            return false;
        };
        let held = self.waiting.len() + self.running.len();
        let slots = self.spec.max_batch as usize;
        held >= slots && held - slots >= capacity as usize
    }

    /// Blocks a request reserves on admission: its full prompt blocks, the private ones
    /// (partial prompt block and the output's; a prefill replica reserves no output, and
    /// under `preempt` only the tokens a resumed request had generated) and of those the
    /// prompt's.
    fn kv_needs(&self, req: &Request) -> (usize, u64, u64) {
        let bs = self.spec.block_size;
        let output = if self.role == Role::Prefill {
            0
        } else if self.grows() && self.is_prefilled(req) {
            // Prefilled elsewhere: it decodes from its first step here, whose block it
            // takes on admission.
            1
        } else if self.grows() {
            self.resumed_generated(req) as u64
        } else {
            req.output_tokens as u64
        };
        let total = (req.prompt_tokens as u64 + output).div_ceil(bs as u64);
        let prompt_blocks = req.prompt_tokens.div_ceil(bs) as u64;
        let full = if req.block_ids.is_empty() {
            0
        } else {
            (req.prompt_tokens / bs) as usize
        };
        (full, total - full as u64, prompt_blocks - full as u64)
    }

    /// Every block a request reserves on admission.
    pub(super) fn kv_needs_total(&self, req: &Request) -> u64 {
        let (full, private, _) = self.kv_needs(req);
        full as u64 + private
    }

    /// The most blocks a request holds at once on this replica: its prompt and whole
    /// output (its prompt on a prefill replica), under either rule. A request needing
    /// more than the cache holds is refused: it could never finish.
    fn kv_whole(&self, req: &Request) -> u64 {
        let output = if self.role == Role::Prefill {
            0
        } else {
            req.output_tokens as u64
        };
        (req.prompt_tokens as u64 + output).div_ceil(self.spec.block_size as u64)
    }

    /// Whether the waiting head can be admitted now: a free slot and KV room.
    pub(super) fn head_admissible(&mut self) -> bool {
        let Some(req) = self.waiting.front() else {
            return false;
        };
        if self.running.len() >= self.spec.max_batch as usize || self.refused_still(req.id) {
            return false;
        }
        let (full, private, _) = self.kv_needs(req);
        let ids = &req.block_ids[..full];
        let room = if self.run_growth_blocks > 0 {
            // Blocks a decode run took ahead of need come back at its next boundary.
            self.cache
                .room_with_slack(ids, private, self.run_growth_blocks)
        } else {
            self.cache.room_for(ids, private).is_ok()
        };
        self.admission_ids_walked += full as u64;
        if !room {
            self.note_refusal(req.id);
        }
        room
    }

    /// Whether request `id` was refused KV room and the cache's room has not changed
    /// since: it would be refused again, so its blocks need not be walked.
    fn refused_still(&self, id: u32) -> bool {
        self.refused == Some((id, self.cache.room_version()))
    }

    /// Remembers that request `id` was refused KV room at the cache's present room.
    fn note_refusal(&mut self, id: u32) {
        self.refused = Some((id, self.cache.room_version()));
    }

    /// Block ids the admission path has handed to the cache's walks (room checks and hit
    /// lookups, at their longest): its work, which tests bound.
    #[cfg(test)]
    pub(super) fn admission_ids_walked(&self) -> u64 {
        self.admission_ids_walked
    }

    pub(super) fn admit_waiting(&mut self, now_us: u64, out: &mut Outbox) {
        self.admit_waiting_upto(self.spec.max_batch as usize, now_us, out);
    }

    /// Admits waiting requests in order while fewer than `slots` run.
    pub(super) fn admit_waiting_upto(&mut self, slots: usize, now_us: u64, out: &mut Outbox) {
        while self.running.len() < slots.min(self.spec.max_batch as usize) {
            self.demote_evicted();
            let Some(req) = self.waiting.front() else {
                break;
            };
            let (full, private, prompt_private) = self.kv_needs(req);
            if let Some(capacity) = self.cache.capacity_blocks() {
                if self.kv_whole(req) > capacity {
                    let req = self.waiting.pop_front().expect("head exists");
                    self.queued_blocks -= full as u64 + private;
                    self.forget_prefilled(req.id);
                    self.drop_request(req, DropKind::TooLarge, out);
                    continue;
                }
            }
            if self.refused_still(req.id) {
                break;
            }
            let bs = self.spec.block_size;
            // The last token is always recomputed: of a resumed request, its prompt and
            // generated tokens' last.
            let end = req.prompt_tokens + self.resumed_generated(req);
            let reusable = (end.saturating_sub(1) / bs) as usize;
            self.admission_ids_walked += (reusable.min(full) + full) as u64;
            let hit = self.cache.hit_blocks(&req.block_ids, reusable.min(full));
            // A resumed request reuses HBM only; a new one's hit continues into the CPU
            // tier, then the shared tier.
            let resumed = self.resume_of(req.id).is_some();
            let in_tier = if resumed {
                0
            } else {
                self.tier_run(&req.block_ids, hit, reusable.min(full))
            };
            let in_shared = if resumed {
                0
            } else {
                self.shared_run(&req.block_ids, hit + in_tier, reusable.min(full))
            };
            if self.cache.acquire(&req.block_ids[..full], private).is_err() {
                self.note_refusal(req.id);
                break;
            }
            let req = self.waiting.pop_front().expect("head exists");
            self.queued_blocks -= full as u64 + private;
            self.prompt_private_blocks += prompt_private;
            if self.resume_of(req.id).is_some() {
                self.admit_resumed(req, (full, private, prompt_private), hit, now_us, out);
                continue;
            }
            self.stats.admissions += 1;
            // The whole request's blocks (under `reserve`, what it reserves now).
            self.stats.admitted_kv_blocks += self.kv_whole(&req);
            if self.is_prefilled(&req) {
                self.admit_received(req, (full, private, prompt_private));
                continue;
            }
            let cpu_end_us = self.load_run(&req.block_ids[hit..hit + in_tier], now_us);
            let loaded = hit + in_tier..hit + in_tier + in_shared;
            let shared_end_us = self.load_shared(&req.block_ids[loaded], now_us);
            // The two loads run on different links at once.
            let loaded_at_us = cpu_end_us.max(shared_end_us);
            // The loaded blocks become reusable when the request's first chunk runs.
            let hbm_hit = hit;
            let hit = hit + in_tier + in_shared;
            out.admitted.push(Admitted {
                id: req.id,
                replica: self.index,
                admit_us: now_us,
                prompt_tokens: req.prompt_tokens,
                prompt_blocks: req.prompt_tokens.div_ceil(bs),
                hit_blocks: hit as u32,
                turn: req.session.map(|t| t.turn),
            });
            self.push_running(Active {
                full_blocks: full,
                private_blocks: private,
                prompt_private_blocks: prompt_private,
                prefilled_tokens: hit as u32 * bs,
                ready_blocks: hbm_hit,
                generated: 0,
                admit_us: now_us,
                first_token_us: 0,
                resume_tokens: 0,
                lost_from_us: None,
                loaded_at_us: if hit > hbm_hit { loaded_at_us } else { 0 },
                seq: 0,
                req,
            });
        }
    }

    /// Admits a request prefilled elsewhere (no cache lookup to report: its prompt came
    /// over the link).
    fn admit_received(&mut self, req: Request, needs: (usize, u64, u64)) {
        let (full, private, prompt_private) = needs;
        let mut a = Active {
            full_blocks: full,
            private_blocks: private,
            prompt_private_blocks: prompt_private,
            prefilled_tokens: 0,
            ready_blocks: 0,
            generated: 0,
            admit_us: 0,
            first_token_us: 0,
            resume_tokens: 0,
            lost_from_us: None,
            loaded_at_us: 0,
            seq: 0,
            req,
        };
        self.admit_prefilled(&mut a);
        self.push_running(a);
    }
}
