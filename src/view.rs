//! What the router knows of the fleet: each replica's load signals and cache contents
//! as the router sees them (`exact`: live; `offline`: the seed's routing pass before
//! timing; `snapshot`: signals refreshed every interval, cache events seen after a lag),
//! beside the live truth the decision log compares them with.
//!
//! The snapshot's default interval, 50 ms, is the endpoint picker's that llm-d builds on:
//! `DefaultRefreshMetricsInterval` in `pkg/epp/server/runserver.go`
//! (kubernetes-sigs/gateway-api-inference-extension at commit 0482b0fd), which scrapes
//! each pod's waiting and running requests and KV cache use.

pub mod counts;
pub mod inflight;
pub mod lagged;
pub mod live;

use crate::config::{Config, RouterView};
use crate::index::BlockIndex;

pub use inflight::{router_blocks, Inflight};
pub use lagged::Lagged;
pub use live::LiveViews;

/// What a router may see of one replica's load (its cache hits come separately).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReplicaView {
    /// Distinct prompt blocks of the requests dispatched to it and not yet ended, waiting
    /// or running (shared prefixes counted once).
    pub active_blocks: u64,
    /// Requests waiting for admission.
    pub waiting: u32,
    /// Requests running.
    pub running: u32,
    /// KV blocks in use (cached and reserved).
    pub cache_blocks: u64,
    /// Prompt tokens still to prefill, as the router counts them: for each request
    /// dispatched to it whose first token has not come, its prompt minus the blocks the
    /// router saw cached there when it routed it (Dynamo's `active_prefill_tokens`).
    pub prefill_tokens: u64,
    /// Its KV capacity, blocks (`None`: unbounded, or not known to the caller; a scorer
    /// then uses the fleet's `kv_blocks`). Replicas of a mixed fleet differ.
    pub capacity_blocks: Option<u64>,
}

/// Whole µs of a duration in ms (the config's times are ms; the clock is integer µs).
pub fn ms_to_us(ms: f64) -> u64 {
    libm::round(ms * 1000.0) as u64
}

/// The fleet as the routers see it, and as it is.
pub struct Knowledge {
    mode: RouterView,
    refresh_us: u64,
    inflight: Inflight,
    live: BlockIndex,
    snapshot: Vec<ReplicaView>,
    lagged: Option<Lagged>,
    offline: Option<BlockIndex>,
}

impl Knowledge {
    /// Nothing known yet about `cfg.instances` idle replicas.
    pub fn new(cfg: &Config) -> Knowledge {
        let n = cfg.instances as usize;
        let snapshot_mode = cfg.router_view == RouterView::Snapshot;
        let lag_us = ms_to_us(cfg.kv_event_lag_ms);
        Knowledge {
            mode: cfg.router_view,
            refresh_us: if snapshot_mode {
                ms_to_us(cfg.router_refresh_ms)
            } else {
                0
            },
            inflight: Inflight::new(n),
            live: BlockIndex::new(n),
            snapshot: vec![ReplicaView::default(); n],
            lagged: (snapshot_mode && lag_us > 0).then(|| Lagged::new(n, lag_us)),
            offline: (cfg.router_view == RouterView::Offline).then(|| BlockIndex::new(n)),
        }
    }

    /// Sizes the block indexes' id tables once for ids `0 ..= max_id`, at most
    /// `most_entries` distinct (see `BlockIndex::presize_ids`). Changes no result.
    pub fn presize_ids(&mut self, max_id: u64, most_entries: u64) {
        let lagged = self.lagged.as_mut().map(Lagged::index);
        for index in [Some(&mut self.live), self.offline.as_mut(), lagged]
            .into_iter()
            .flatten()
        {
            index.presize_ids(max_id, most_entries);
        }
    }

    /// The view mode.
    pub fn mode(&self) -> RouterView {
        self.mode
    }

    /// Distinct in-flight prompt blocks on replica `r` (live).
    pub fn active_blocks(&self, r: usize) -> u64 {
        self.inflight.active_blocks(r)
    }

    /// Prompt tokens still to prefill on replica `r`, as the router counts them (live).
    pub fn prefill_tokens(&self, r: usize) -> u64 {
        self.inflight.prefill_tokens(r)
    }

    /// The router's count of in-flight prompt blocks (live).
    pub fn inflight(&mut self) -> &mut Inflight {
        &mut self.inflight
    }

    /// Whether a refresh falls in (`from_us`, `to_us`]: the clock is about to move past
    /// it, so the state now is the state at the refresh (a refresh comes before the
    /// events of its own instant).
    pub fn refresh_due(&self, from_us: u64, to_us: u64) -> bool {
        self.refresh_us > 0 && to_us / self.refresh_us > from_us / self.refresh_us
    }

    /// A refresh: the routers' copy of the load signals becomes `live`.
    pub fn refresh(&mut self, live: &[ReplicaView]) {
        self.snapshot.copy_from_slice(live);
    }

    /// The engine of replica `r` stored (`added`) or evicted block `id` at `now_us`.
    pub fn cache_event(&mut self, now_us: u64, r: usize, id: u64, added: bool) {
        if added {
            self.live.insert(id, r);
        } else {
            self.live.remove(id, r);
        }
        if let Some(lagged) = self.lagged.as_mut() {
            lagged.event(now_us, r, id, added);
        }
    }

    /// The live hits of `ids[..full]` on every replica, into `hits`.
    pub fn live_hits(&mut self, ids: &[u64], full: usize, hits: &mut [u32]) {
        self.live.hits(ids, full, hits);
    }

    /// The hits the routers see at `now_us`, into `seen` (`live` holds the live ones).
    pub fn seen_hits(
        &mut self,
        now_us: u64,
        ids: &[u64],
        full: usize,
        live: &[u32],
        seen: &mut [u32],
    ) {
        if let Some(offline) = self.offline.as_mut() {
            offline.hits(ids, full, seen);
        } else if let Some(lagged) = self.lagged.as_mut() {
            lagged.catch_up(now_us);
            lagged.index().hits(ids, full, seen);
        } else {
            seen.copy_from_slice(live);
        }
    }

    /// Whether the routers' cache index shows replica `r` holding `id` (after
    /// `seen_hits` for this instant).
    pub fn seen_holds(&self, id: u64, r: usize) -> bool {
        match (&self.offline, &self.lagged) {
            (Some(offline), _) => offline.holds(id, r),
            (None, Some(lagged)) => lagged.holds(id, r),
            (None, None) => self.live.holds(id, r),
        }
    }

    /// The load signals the routers see (`live` holds the live ones).
    pub fn seen_views<'a>(&'a self, live: &'a [ReplicaView]) -> &'a [ReplicaView] {
        match self.mode {
            RouterView::Offline => &self.snapshot,
            RouterView::Snapshot if self.refresh_us > 0 => &self.snapshot,
            _ => live,
        }
    }

    /// A request's full blocks `full_ids` were routed to `r`: the offline pass caches
    /// them at once.
    pub fn routed(&mut self, r: usize, full_ids: &[u64]) {
        if let Some(offline) = self.offline.as_mut() {
            for &id in full_ids {
                offline.insert(id, r);
            }
        }
    }
}

#[cfg(test)]
mod tests;
