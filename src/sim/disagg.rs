//! The disaggregated fleet's simulator side: the pick of a decode replica, the KV
//! transfer over each decode replica's one inbound link (first come, first served), the
//! transfer's end (the prefill replica unpins the prompt, the decode replica admits it),
//! and conditional disaggregation (a request with little left to prefill skips the pool).

use std::collections::BTreeMap;

use super::Simulation;
use crate::config::{transfer_us, Config, DecodeRouting, Pools};
use crate::engine::{DropKind, Dropped, Handoff, Prefilled};
use crate::histogram::LogHistogram;
use crate::link::Link;
use crate::rng::{Rng, Stream};
use crate::router::Ties;
use crate::view::router_blocks;
use crate::workload::Request;

/// One transfer on a decode replica's link.
#[derive(Clone, Copy, Debug)]
struct Transfer {
    id: u32,
    from: u32,
    to: u32,
    handoff_us: u64,
    arrival_us: u64,
    admit_us: u64,
    blocks: u64,
}

/// What the transfers did, for the report.
#[derive(Clone, Debug)]
pub struct TransferStats {
    /// Transfers completed.
    pub count: u64,
    /// KV bytes moved.
    pub bytes: u64,
    /// Handoff to arrival on the decode replica (link wait included), µs.
    pub time: LogHistogram,
    /// Time waiting for the link (behind earlier transfers), µs.
    pub wait: LogHistogram,
    /// Requests that skipped the prefill pool.
    pub skipped: u64,
    /// Transfers that ended after the caller's timeout (the request timed out).
    pub late: u64,
}

/// The tie stream of the decode pick: the router replicas' are 0, 1, ..., so the last
/// one is the decode pick's.
const DECODE_TIES: u32 = u32::MAX;

/// The state of a disaggregated fleet beyond its replicas.
pub(crate) struct Disagg {
    pub pools: Pools,
    bytes_per_token: u64,
    gbps: f64,
    base_us: f64,
    min_uncached_tokens: u32,
    routing: DecodeRouting,
    rng: Rng,
    /// `least_kv`'s ties, from a tie stream of its own (`DECODE_TIES`).
    ties: Ties,
    next_rr: u32,
    /// Per decode replica: its inbound link.
    pub links: Vec<Link>,
    incoming_blocks: Vec<u64>,
    transfers: BTreeMap<(u64, u64), Transfer>,
    seq: u64,
    pub stats: TransferStats,
}

impl Disagg {
    /// The state of `cfg`'s pools (validated: both sizes set, bytes per token known).
    pub fn new(cfg: &Config, pools: Pools) -> Disagg {
        let d = pools.decode as usize;
        Disagg {
            pools,
            bytes_per_token: cfg.kv_bytes_per_token_or_preset().unwrap_or(0),
            gbps: cfg.kv_transfer_gbps,
            base_us: cfg.kv_transfer_base_us,
            min_uncached_tokens: cfg.disagg_min_uncached_tokens,
            routing: cfg.decode_routing,
            rng: Rng::fork(cfg.seed, Stream::DecodeRouter),
            ties: Ties::new(cfg.tie_break, cfg.seed, DECODE_TIES),
            next_rr: 0,
            links: vec![Link::default(); d],
            incoming_blocks: vec![0; d],
            transfers: BTreeMap::new(),
            seq: 0,
            stats: TransferStats {
                count: 0,
                bytes: 0,
                time: LogHistogram::fine(),
                wait: LogHistogram::fine(),
                skipped: 0,
                late: 0,
            },
        }
    }

    /// The end of the earliest transfer in flight.
    pub fn next_end_us(&self) -> Option<u64> {
        self.transfers.keys().next().map(|&(t, _)| t)
    }

    /// Calls `f(request id, destination replica)` for each transfer still on a link.
    pub fn on_the_wire(&self, mut f: impl FnMut(u32, u32)) {
        for x in self.transfers.values() {
            f(x.id, x.to);
        }
    }

    /// Whether a transfer is still on a link.
    pub fn busy(&self) -> bool {
        !self.transfers.is_empty()
    }
}

impl Simulation<'_> {
    /// The replicas the routing policy picks among: the prefill pool, or every replica.
    pub(super) fn routable(&self) -> usize {
        self.disagg
            .as_ref()
            .map_or(self.replicas.len(), |d| d.pools.prefill as usize)
    }

    /// Where a request the router sent to prefill replica `chosen` goes: there, or (when
    /// it would compute fewer uncached tokens than the threshold) a decode replica that
    /// prefills it itself.
    pub(super) fn skip_target(&mut self, req: &Request, chosen: usize) -> usize {
        let Some(d) = self.disagg.as_ref() else {
            return chosen;
        };
        if d.min_uncached_tokens == 0 {
            return chosen;
        }
        let bs = self.cfg.block_size;
        let reusable = req.prompt_tokens.saturating_sub(1) / bs;
        let cached = self.seen_hits[chosen].min(reusable) * bs;
        if req.prompt_tokens - cached >= d.min_uncached_tokens {
            return chosen;
        }
        let target = self.pick_decode();
        if let Some(d) = self.disagg.as_mut() {
            d.stats.skipped += 1;
        }
        target
    }

    /// A decode replica (its index in the fleet) by the decode routing policy.
    fn pick_decode(&mut self) -> usize {
        let d = self.disagg.as_mut().expect("a disaggregated fleet");
        let first = d.pools.prefill as usize;
        let n = d.pools.decode;
        let k = match d.routing {
            DecodeRouting::RoundRobin => {
                let k = d.next_rr;
                d.next_rr = (k + 1) % n;
                k as usize
            }
            DecodeRouting::Random => d.rng.below(n as u64) as usize,
            DecodeRouting::LeastKv => {
                let load =
                    |k: usize| self.replicas[first + k].kv_load_blocks() + d.incoming_blocks[k];
                let least = (0..n as usize)
                    .map(load)
                    .min()
                    .expect("a decode pool is not empty");
                let equals = (0..n as usize).filter(|&k| load(k) == least);
                d.ties.among(equals).expect("the least loaded is one")
            }
        };
        first + k
    }

    /// Puts every prompt a prefill replica finished on its way to a decode replica.
    pub(super) fn start_transfers(&mut self) {
        let handoffs: Vec<Handoff> = self.outbox.handoffs.drain(..).collect();
        for h in handoffs {
            let to = self.pick_decode();
            let bs = self.cfg.block_size as u64;
            let now = self.now_us;
            let d = self.disagg.as_mut().expect("a disaggregated fleet");
            let k = to - d.pools.prefill as usize;
            let wire_us = transfer_us(h.prompt_tokens, d.bytes_per_token, d.gbps, d.base_us);
            let (start_us, end_us) = d.links[k].schedule(now, wire_us);
            let blocks = (h.prompt_tokens as u64 + h.output_tokens as u64).div_ceil(bs);
            d.incoming_blocks[k] += blocks;
            d.seq += 1;
            d.transfers.insert(
                (end_us, d.seq),
                Transfer {
                    id: h.id,
                    from: h.replica,
                    to: to as u32,
                    handoff_us: now,
                    arrival_us: h.arrival_us,
                    admit_us: h.admit_us,
                    blocks,
                },
            );
            d.stats.wait.add((start_us - now) as f64);
        }
    }

    /// The earliest transfer ends: the prefill replica lets the prompt go, and the decode
    /// replica takes the request (or the caller has given up: its first token is late).
    pub(super) fn on_transfer_end(&mut self) -> bool {
        let d = self.disagg.as_mut().expect("a disaggregated fleet");
        let ((t, _), x) = d.transfers.pop_first().expect("a transfer is pending");
        let k = x.to as usize - d.pools.prefill as usize;
        d.incoming_blocks[k] -= x.blocks;
        self.advance_clock(t);
        self.events += 1;
        let req = self.replicas[x.from as usize].release_held(x.id, &mut self.outbox);
        let d = self.disagg.as_mut().expect("a disaggregated fleet");
        d.stats.count += 1;
        d.stats.bytes += req.prompt_tokens as u64 * d.bytes_per_token;
        d.stats.time.add((t - x.handoff_us) as f64);
        let late = self.replicas[x.to as usize]
            .timeout_us()
            .is_some_and(|limit| t - x.arrival_us > limit);
        if late {
            d.stats.late += 1;
            self.outbox.dropped.push(Dropped {
                id: req.id,
                replica: x.to,
                session: req.session,
                kind: DropKind::TimedOut,
            });
        } else {
            let bs = self.cfg.block_size;
            let (full, private) = router_blocks(req.prompt_tokens, !req.block_ids.is_empty(), bs);
            let to = x.to as usize;
            self.knowledge
                .inflight()
                .dispatch(to, &req.block_ids[..full], private);
            let prefilled = Prefilled {
                admit_us: x.admit_us,
                first_token_us: t,
            };
            let end = self.replicas[to].arrive_prefilled(req, prefilled, t, &mut self.outbox);
            self.schedule(to, end);
            self.sync_index(to);
        }
        let from = x.from as usize;
        let end = self.replicas[from].wake(t, &mut self.outbox);
        self.schedule(from, end);
        self.sync_index(from);
        self.drain_outbox();
        true
    }
}
