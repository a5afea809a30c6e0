//! The caller's timeout on the first token: waiting requests dropped once their deadline
//! has passed, running ones aborted at a step boundary, and a first token that comes
//! after the deadline counted as a timeout (the step's work is spent all the same).
//!
//! With a timeout of `t` µs, a request is late when its first token comes more than `t`
//! µs after its arrival. A request still without a first token at `arrival + t` is late
//! for sure (any step ends at least 1 µs later), so it is dropped at the first step
//! boundary or arrival that sees it; one whose prefill ends after the deadline is
//! dropped at that step's end. A request whose first token came in time is never
//! dropped, however long it then streams.

use super::{Active, DropKind, Outbox, Replica};
use crate::workload::Request;

impl Replica {
    /// Whether a request without a first token at `now_us` can no longer get one in time.
    pub(super) fn expired(&self, req: &Request, now_us: u64) -> bool {
        self.spec
            .timeout_us
            .is_some_and(|t| now_us - req.arrival_us >= t)
    }

    /// Drops waiting requests whose caller gave up (the queue is in arrival order per
    /// replica, so expired ones are at the front).
    pub(super) fn expire_waiting(&mut self, now_us: u64, out: &mut Outbox) {
        if self.role == super::Role::Decode || !self.resumes.is_empty() {
            return self.expire_waiting_mixed(now_us, out);
        }
        while let Some(req) = self.waiting.front() {
            if !self.expired(req, now_us) {
                break;
            }
            let req = self.waiting.pop_front().expect("front exists");
            self.queued_blocks -= self.kv_needs_total(&req);
            self.drop_request(req, DropKind::TimedOut, out);
        }
    }

    /// Aborts running requests still without a first token past their deadline.
    pub(super) fn expire_running(&mut self, now_us: u64, out: &mut Outbox) {
        let mut i = 0;
        while i < self.running.len() {
            let a = &self.running[i];
            if a.generated > 0 || !self.expired(&a.req, now_us) {
                i += 1;
                continue;
            }
            let a = self.take_running(i);
            self.abort(a, out);
        }
    }

    /// Aborts the requests whose first token came at this step's end (`now_us`) but after
    /// their deadline. The blocks the step computed stay cached, evictable.
    pub(super) fn drop_late_first_tokens(&mut self, now_us: u64, out: &mut Outbox) {
        let Some(t) = self.spec.timeout_us else {
            return;
        };
        let mut i = 0;
        while i < self.running.len() {
            let a = &self.running[i];
            let first_now = a.generated == 1 && a.first_token_us == now_us;
            if !(first_now && now_us - a.req.arrival_us > t) {
                i += 1;
                continue;
            }
            let a = self.take_running(i);
            self.abort(a, out);
        }
    }

    /// Releases an aborted request's blocks and reports it as timed out.
    fn abort(&mut self, a: Active, out: &mut Outbox) {
        self.cache
            .release(&a.req.block_ids[..a.full_blocks], a.private_blocks);
        self.prompt_private_blocks -= a.prompt_private_blocks;
        self.drop_request(a.req, DropKind::TimedOut, out);
    }
}
