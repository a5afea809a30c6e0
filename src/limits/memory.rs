//! The memory a run needs, estimated from its shape before it starts, against a limit:
//! cache entries (bounded by the capacity, or by every block each request brings when
//! the caches are unbounded), the requests alive at once with their block ids, and the
//! input already held (a parsed trace).

use std::fmt::Write as _;

use crate::workload::Request;

/// Most memory a run may need: 4 GiB natively, 3 GiB in wasm32 (whose whole address
/// space is 4 GiB: the rest is left to the input text, the report and the allocator).
pub const MEMORY_LIMIT_BYTES: u64 = if cfg!(target_arch = "wasm32") {
    3 << 30
} else {
    4 << 30
};

/// Bytes per block resident in one replica's cache, the fleet index's share included.
/// Measured: peak RSS over resident blocks is 85 to 134 B in runs of 10^6 and 3 x 10^6
/// requests (the hash tables and slot vectors are caught at any fill level).
pub const CACHED_BLOCK_BYTES: f64 = 128.0;

/// Bytes of bookkeeping per request alive (queue slot, running state), beside the
/// request itself and 8 B per block id.
const REQUEST_OVERHEAD_BYTES: f64 = 96.0;

/// Fixed costs: latency histograms (at most 6 x 60,000 buckets of 8 B), series, router.
const FIXED_BYTES: f64 = 8.0 * 1024.0 * 1024.0;

/// Per replica: its state, series columns and ring nodes.
const REPLICA_BYTES: f64 = 64.0 * 1024.0;

/// Bytes per block id of a request in flight in the router's count of in-flight blocks
/// (a hash-table entry of id and count, at any fill level).
pub const INFLIGHT_ID_BYTES: f64 = 32.0;

/// Bytes per routed block kept by the router's other state, when it is on: the offline
/// pass's cache index, one speculative entry (table entry and expiry queue), one lagged
/// index entry with its pending event.
const OFFLINE_BLOCK_BYTES: f64 = 48.0;
const PREDICTED_BLOCK_BYTES: f64 = 56.0;
const LAGGED_BLOCK_BYTES: f64 = 72.0;

/// The bytes one request with `ids` block ids holds while it is alive.
pub fn request_bytes(ids: f64) -> f64 {
    std::mem::size_of::<Request>() as f64 + REQUEST_OVERHEAD_BYTES + 8.0 * ids
}

/// The router's state: its count of in-flight blocks (`inflight_blocks` distinct
/// (replica, block) pairs at most) and, for `routed_blocks` full blocks routed over the
/// run, what its view keeps of them (every one at most: the offline pass never forgets,
/// and a long time to live or lag keeps them all).
pub fn router_bytes(cfg: &crate::config::Config, inflight_blocks: f64, routed_blocks: f64) -> f64 {
    use crate::config::RouterView;
    let per_block = match cfg.router_view {
        RouterView::Offline => OFFLINE_BLOCK_BYTES,
        view => {
            let predicted = if cfg.router_predict_ttl_ms > 0.0 {
                PREDICTED_BLOCK_BYTES
            } else {
                0.0
            };
            let lagged = if view == RouterView::Snapshot && cfg.kv_event_lag_ms > 0.0 {
                LAGGED_BLOCK_BYTES
            } else {
                0.0
            };
            predicted + lagged
        }
    };
    inflight_blocks * INFLIGHT_ID_BYTES + routed_blocks * per_block
}

/// The bytes a parsed request list holds (the list's slots and every id list).
pub fn parsed_bytes(requests: &[Request], capacity: usize) -> f64 {
    let ids: usize = requests.iter().map(|r| r.block_ids.len()).sum();
    (capacity * std::mem::size_of::<Request>() + 8 * ids) as f64
}

/// What a run holds at its peak, at most.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Footprint {
    /// (replica, block) entries the caches may hold at once.
    pub cached_blocks: f64,
    /// Requests alive at once (waiting, running, or between turns).
    pub live_requests: f64,
    /// Bytes each of them holds, block ids included.
    pub request_bytes: f64,
    /// Bytes the input already holds (a parsed trace).
    pub input_bytes: f64,
    /// Bytes of the router's state (`router_bytes`).
    pub router_bytes: f64,
    /// Replicas.
    pub replicas: f64,
}

impl Footprint {
    /// The estimate, bytes.
    pub fn bytes(&self) -> f64 {
        self.cached_blocks * CACHED_BLOCK_BYTES
            + self.live_requests * self.request_bytes
            + self.input_bytes
            + self.router_bytes
            + self.replicas * REPLICA_BYTES
            + FIXED_BYTES
    }

    /// Caps the cache entries at `capacity_blocks` per replica, when bounded.
    pub fn bounded_by(mut self, capacity_blocks: Option<u64>) -> Footprint {
        if let Some(capacity) = capacity_blocks {
            let most = capacity as f64 * self.replicas;
            self.cached_blocks = self.cached_blocks.min(most);
        }
        self
    }

    /// `Ok` when the estimate fits the limit, else what to say, with the estimate, its
    /// parts and the limit.
    pub fn check(&self) -> Result<(), String> {
        let bytes = self.bytes();
        if bytes <= MEMORY_LIMIT_BYTES as f64 {
            return Ok(());
        }
        let mut why = format!("it needs an estimated {} (", size(bytes));
        let mut parts = Vec::new();
        if self.cached_blocks > 0.0 {
            parts.push(format!(
                "{} cached blocks x {CACHED_BLOCK_BYTES} B",
                count(self.cached_blocks)
            ));
        }
        if self.live_requests > 0.0 {
            parts.push(format!(
                "up to {} requests alive x {} B",
                count(self.live_requests),
                count(self.request_bytes)
            ));
        }
        if self.input_bytes > 0.0 {
            parts.push(format!("{} of parsed trace", size(self.input_bytes)));
        }
        if self.router_bytes > 0.0 {
            parts.push(format!("{} of router state", size(self.router_bytes)));
        }
        why.push_str(&parts.join(", "));
        let _ = write!(
            why,
            "), more than the limit of {} ({})",
            size(MEMORY_LIMIT_BYTES as f64),
            if cfg!(target_arch = "wasm32") {
                "in the browser; 4 GiB natively"
            } else {
                "natively; 3 GiB in the browser"
            }
        );
        Err(why)
    }
}

/// A decision log of one record per request (`record_bytes` each, plus `candidate_bytes`
/// per replica) must fit the limit by itself.
pub fn check_decision_log(
    requests: u64,
    replicas: u32,
    record_bytes: usize,
    candidate_bytes: usize,
) -> Result<(), String> {
    let per = record_bytes as f64 + replicas as f64 * candidate_bytes as f64;
    let bytes = requests as f64 * per;
    if bytes <= MEMORY_LIMIT_BYTES as f64 {
        return Ok(());
    }
    Err(format!(
        "the decision log of {requests} requests over {replicas} replicas needs an estimated \
         {}, more than the limit of {}: log a shorter run",
        size(bytes),
        size(MEMORY_LIMIT_BYTES as f64)
    ))
}

/// A byte count in MiB or GiB.
pub fn size(bytes: f64) -> String {
    let mib = bytes / (1024.0 * 1024.0);
    if mib >= 1024.0 {
        format!("{} GiB", super::compact(mib / 1024.0))
    } else {
        format!("{} MiB", super::compact(mib))
    }
}

/// A count without its fraction.
fn count(x: f64) -> String {
    if x >= 1e12 {
        format!("{x:.3e}")
    } else {
        format!("{x:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_adds_its_parts_and_names_them_when_over() {
        let f = Footprint {
            cached_blocks: 1000.0,
            live_requests: 10.0,
            request_bytes: 200.0,
            input_bytes: 0.0,
            router_bytes: 3000.0,
            replicas: 2.0,
        };
        let want = 1000.0 * 128.0 + 10.0 * 200.0 + 3000.0 + 2.0 * 65536.0 + 8.0 * 1048576.0;
        assert_eq!(f.bytes(), want);
        assert!(f.check().is_ok());
        assert_eq!(f.bounded_by(Some(100)).cached_blocks, 200.0);
        let big = Footprint {
            cached_blocks: 4e7,
            ..f
        };
        let why = big.check().unwrap_err();
        assert!(why.contains("40000000 cached blocks x 128 B"), "{why}");
        assert!(
            why.contains("GiB") && why.contains("limit of 4 GiB"),
            "{why}"
        );
    }
}
