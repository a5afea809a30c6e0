//! One routing decision: the live state and what the deciding router sees of it (its
//! view mode, its speculative entries), the pick, the bookkeeping it causes (in-flight
//! blocks, the offline pass's cache, predictions) and the decision record.

use super::{Decision, Simulation};
use crate::config::RouterTiers;
use crate::engine::Replica;
use crate::router::{Ask, ReplicaView};
use crate::view::{router_blocks, Knowledge};
use crate::workload::Request;

/// Replica `r`'s live load signals.
fn view_of(knowledge: &Knowledge, rep: &Replica, r: usize) -> ReplicaView {
    ReplicaView {
        active_blocks: knowledge.active_blocks(r),
        waiting: rep.waiting(),
        running: rep.running(),
        cache_blocks: rep.cache().used_blocks(),
        prefill_tokens: knowledge.prefill_tokens(r),
        capacity_blocks: rep.cache().capacity_blocks(),
    }
}

impl Simulation<'_> {
    /// Brings `views` up to date: recomputes the live load signals of every replica
    /// that changed since the last call (its engine ran, or its in-flight counts moved).
    pub(super) fn live_views(&mut self) {
        let (views, knowledge) = (&mut self.views, &mut self.knowledge);
        knowledge.inflight().take_touched(|r| views.touch(r));
        let replicas = &self.replicas;
        views.refresh(|r| view_of(knowledge, &replicas[r], r));
        #[cfg(debug_assertions)]
        for (r, rep) in self.replicas.iter().enumerate() {
            let view = &self.views.views()[r];
            debug_assert_eq!(
                *view,
                view_of(&self.knowledge, rep, r),
                "replica {r}'s view was not refreshed after a change"
            );
            if rep.waiting() == 0 {
                debug_assert_eq!(
                    view.active_blocks,
                    rep.active_blocks(),
                    "with nothing waiting, replica {r}'s dispatched blocks are its running ones"
                );
            }
        }
    }

    /// Live hits into `hits`, the deciding router's into `seen_hits`.
    fn hits_of(&mut self, k: usize, req: &Request, full: usize) {
        let ids = &req.block_ids;
        self.knowledge.live_hits(ids, full, &mut self.hits);
        #[cfg(debug_assertions)]
        for (r, rep) in self.replicas.iter().enumerate() {
            let direct = rep.cache().hit_blocks(ids, full) as u32;
            debug_assert_eq!(
                self.hits[r], direct,
                "block index out of step with replica {r}"
            );
        }
        let now = self.now_us;
        let knowledge = &mut self.knowledge;
        knowledge.seen_hits(now, ids, full, &self.hits, &mut self.seen_hits);
        if self.cfg.router_tiers == RouterTiers::All {
            for (r, rep) in self.replicas.iter().enumerate() {
                let from = (self.seen_hits[r] as usize).min(full);
                self.seen_hits[r] += rep.lower_tier_run(ids, from, full) as u32;
            }
        }
        let knowledge = &self.knowledge;
        // A router predicts only over the replicas it routes to (a split fleet's prefill
        // pool), so only their hits are extended.
        let pool = self.routable();
        let seen = &mut self.seen_hits[..pool];
        self.routers[k].see_predicted(now, ids, full, seen, |id, r| knowledge.seen_holds(id, r));
    }

    /// Asks router `k` for a replica and logs the decision.
    pub(super) fn route(&mut self, k: usize, req: &Request) -> usize {
        let bs = self.cfg.block_size;
        let (full, private) = router_blocks(req.prompt_tokens, !req.block_ids.is_empty(), bs);
        self.live_views();
        self.hits_of(k, req, full);
        let session = req.session.map(|t| t.session);
        self.new_blocks_of(k, &req.block_ids[..full]);
        let pool = self.routable();
        let new_blocks = &self.new_blocks[..self.new_blocks.len().min(pool)];
        let ask = Ask {
            block_ids: &req.block_ids,
            full_blocks: full,
            session,
            hits: &self.seen_hits[..pool],
            prompt_tokens: req.prompt_tokens,
            new_blocks,
            now_us: self.now_us,
        };
        let logged = self.decisions.as_ref().is_some_and(|d| d.wants(req.id));
        let mut log = logged.then(Vec::new);
        let seen = &self.knowledge.seen_views(self.views.views())[..pool];
        let (chosen, reason) = self.routers[k].pick(ask, seen, log.as_mut());
        let rule = self.routers[k].last_rule();
        let best = match self.scaler.as_ref() {
            None => self.hits[..pool].iter().copied().max().unwrap_or(0),
            Some(s) => (0..pool)
                .filter(|&r| s.accepting(r))
                .map(|r| self.hits[r])
                .max()
                .unwrap_or(0),
        };
        self.recorder.picked(self.hits[chosen], best);
        let target = self.skip_target(req, chosen);
        if target == chosen {
            let reusable = req.prompt_tokens.saturating_sub(1) / bs;
            let found = self.hits[chosen].min(reusable);
            self.recorder.sent_to_pick(req.id, found);
        }
        let full_ids = &req.block_ids[..full];
        let cached_tokens = self.seen_hits[target] as u64 * bs as u64;
        let inflight = self.knowledge.inflight();
        inflight.dispatch(target, full_ids, private);
        let to_prefill = (req.prompt_tokens as u64).saturating_sub(cached_tokens);
        inflight.start_prefill(req.id, target, to_prefill);
        self.knowledge.routed(target, full_ids);
        self.routers[k].predict(self.now_us, chosen, full_ids);
        if let Some(candidates) = log {
            let record = Decision {
                id: req.id,
                arrival_s: req.arrival_us as f64 / 1e6,
                router: k as u32,
                request_blocks: full as u32,
                candidates,
                chosen: chosen as u32,
                reason,
                rule,
                session,
                admit_s: None,
                cached_blocks: None,
                ttft_ms: None,
                e2e_ms: None,
                rejected: false,
                timed_out: false,
                preemptions: Vec::new(),
            };
            self.log_decision(record);
        }
        target
    }

    /// Per replica, the full blocks of the request not in flight there (for `dynamo`).
    fn new_blocks_of(&mut self, k: usize, full_ids: &[u64]) {
        self.new_blocks.clear();
        if !self.routers[k].wants_new_blocks() {
            return;
        }
        let inflight = self.knowledge.inflight();
        for r in 0..self.replicas.len() {
            let held = full_ids.iter().filter(|&&id| inflight.holds(r, id)).count();
            self.new_blocks.push((full_ids.len() - held) as u32);
        }
    }

    /// Logs a decision with the true values at this instant beside what the router saw.
    fn log_decision(&mut self, mut record: Decision) {
        for (r, c) in record.candidates.iter_mut().enumerate() {
            c.set_truth(self.hits[r], &self.views.views()[r]);
        }
        if let Some(decisions) = self.decisions.as_mut() {
            decisions.push(record);
        }
    }
}

#[cfg(test)]
mod tests;
