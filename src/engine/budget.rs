//! Admission inside the step's token budget (`StepAdmission::InBudget`, Dynamo's mocker, as
//! vLLM's scheduler): a step schedules the running requests' chunks first, then admits
//! waiting requests in order while the budget has room, each taking its first chunk from
//! what is left. A block becomes reusable when the step that computes it is scheduled, so
//! a request admitted behind another in the same step counts the other's blocks of that
//! step as hits, and the router's index sees them from the step's start. Measured on
//! ai-dynamo 1.4.2's replay (`tests/mocker_engine.rs`); the pass is
//! `execute_pass_internal` in ai-dynamo/dynamo `lib/mocker/src/scheduler/vllm/core.rs`
//! (read at commit 04cc7029): running requests against `token_budget` first, then the
//! waiting ones while it lasts.

use super::{Outbox, Replica, Role, StepAdmission};

impl Replica {
    /// Whether this replica admits inside the step's budget (a decode replica of a split
    /// fleet admits prefilled requests, which need none, as always).
    pub(super) fn admits_in_budget(&self) -> bool {
        self.spec.step_admission == StepAdmission::InBudget && self.role != Role::Decode
    }

    /// With the running requests' `chunks` planned, marks their blocks reusable, then
    /// (when the step `admits`: it preempted no one) admits waiting requests while `budget`
    /// has room, planning each one's first chunk.
    pub(super) fn admit_in_budget(
        &mut self,
        now_us: u64,
        admits: bool,
        budget: &mut u32,
        chunks: &mut Vec<(usize, u32)>,
        out: &mut Outbox,
    ) {
        for &(i, c) in chunks.iter() {
            self.mark_scheduled(i, c);
        }
        while admits && *budget > 0 {
            let before = self.running.len();
            self.admit_waiting_upto(before + 1, now_us, out);
            if self.running.len() == before {
                return;
            }
            let a = &self.running[before];
            let c = (a.prompt_end() - a.prefilled_tokens).min(*budget);
            *budget -= c;
            chunks.push((before, c));
            self.mark_scheduled(before, c);
        }
    }

    /// Marks reusable the full blocks running request `i` completes with a chunk of `c`
    /// tokens (the step that computes them is scheduled).
    fn mark_scheduled(&mut self, i: usize, c: u32) {
        let bs = self.spec.block_size;
        let a = &mut self.running[i];
        let ready = ((a.prefilled_tokens + c) / bs) as usize;
        let ready = ready.min(a.full_blocks);
        if ready > a.ready_blocks {
            self.cache
                .mark_ready(&a.req.block_ids[a.ready_blocks..ready]);
            a.ready_blocks = ready;
        }
    }
}
