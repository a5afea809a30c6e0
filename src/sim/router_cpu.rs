//! The routers' own CPU: each router is a multi-server queue whose servers are its
//! cores (`router_vcpu`). A request takes `router_cpu_us_fixed + router_cpu_us_per_block
//! × the full prompt blocks its policy hashes` of one core (see `Hashed`), waits in the
//! router's FIFO queue while every core is busy, and is refused past `router_queue`
//! waiting. It is routed at the END of its CPU time, so the router's view is the fleet as
//! of that moment; the wait plus the CPU time (the routing delay) is part of its TTFT.
//! With a caller timeout, a request whose deadline has passed when it would take a core
//! (it then takes none) or when its CPU time ends is dropped there: a router timeout,
//! never sent to a replica. Unset `router_vcpu`: a free, instant router (none of this
//! runs).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::config::{Config, Hashed};
use crate::histogram::LogHistogram;
use crate::workload::Request;

/// One router's cores and queue.
#[derive(Debug, Default)]
struct Cores {
    busy: u32,
    queue: VecDeque<Request>,
    busy_us: u64,
    peak_queue: u32,
    rejected: u64,
    timed_out: u64,
}

/// What became of a request that reached a router.
pub(crate) enum Taken {
    /// On a core or in the queue: it will come back from `pop_done`.
    Held,
    /// The queue was full: refused.
    Refused(Request),
}

/// Every router's cores, with their CPU ends ordered by (time, seq).
#[derive(Debug)]
pub(crate) struct RouterCpu {
    cores: u32,
    fixed_us: f64,
    per_block_us: f64,
    block_size: u32,
    hashed: Hashed,
    affinity: bool,
    timeout_us: Option<u64>,
    queue_cap: Option<u32>,
    routers: Vec<Cores>,
    /// (end µs, seq, router, slot in `on_core`): the event loop's own key shape.
    ends: BinaryHeap<Reverse<(u64, u64, u32, u64)>>,
    /// The requests on a core; `free` lists the empty slots.
    on_core: Vec<Option<Request>>,
    free: Vec<usize>,
    seq: u64,
    /// Routing delay (queue wait + CPU time) of the routed requests, µs.
    pub(crate) delays: LogHistogram,
    /// The longest routing delay, µs.
    pub(crate) delay_max_us: u64,
    /// Requests whose deadline passed at the router, for the simulation to end.
    late: Vec<Request>,
}

/// The CPU time of one request on a router core hashing `blocks` blocks, µs (rounded
/// to the nearest µs).
pub fn cpu_us(fixed_us: f64, per_block_us: f64, blocks: u32) -> u64 {
    libm::round(fixed_us + per_block_us * blocks as f64) as u64
}

impl RouterCpu {
    /// The routers of `cfg`, or `None` for a free, instant router.
    pub fn of(cfg: &Config) -> Option<RouterCpu> {
        let cores = cfg.router_vcpu?;
        Some(RouterCpu {
            cores,
            fixed_us: cfg.router_cpu_us_fixed,
            per_block_us: cfg.router_cpu_us_per_block,
            block_size: cfg.block_size,
            hashed: Hashed::by(cfg.routing),
            affinity: cfg.affinity_share() > 0.0,
            timeout_us: cfg.timeout_ms.map(crate::sim::timeout_us),
            queue_cap: cfg.router_queue,
            routers: (0..cfg.routers).map(|_| Cores::default()).collect(),
            ends: BinaryHeap::new(),
            on_core: Vec::new(),
            free: Vec::new(),
            seq: 0,
            delays: LogHistogram::fine(),
            delay_max_us: 0,
            late: Vec::new(),
        })
    }

    /// Request `req` reaches router `k` at `now_us`.
    pub fn arrive(&mut self, k: usize, req: Request, now_us: u64) -> Taken {
        let r = &mut self.routers[k];
        if r.busy < self.cores {
            self.start(k, req, now_us);
            return Taken::Held;
        }
        if self
            .queue_cap
            .is_some_and(|cap| r.queue.len() as u64 >= cap as u64)
        {
            r.rejected += 1;
            return Taken::Refused(req);
        }
        r.queue.push_back(req);
        r.peak_queue = r.peak_queue.max(r.queue.len() as u32);
        Taken::Held
    }

    /// Whether `req`'s caller has given up by `now_us` (as a replica's rule: no first
    /// token can come in time any more).
    fn expired(&self, req: &Request, now_us: u64) -> bool {
        self.timeout_us
            .is_some_and(|t| now_us - req.arrival_us >= t)
    }

    fn start(&mut self, k: usize, req: Request, now_us: u64) {
        let full_blocks = req.prompt_tokens / self.block_size.max(1);
        let blocks = self
            .hashed
            .blocks(full_blocks, self.affinity && req.session.is_none());
        let cpu = cpu_us(self.fixed_us, self.per_block_us, blocks);
        let r = &mut self.routers[k];
        r.busy += 1;
        r.busy_us += cpu;
        self.seq += 1;
        let slot = match self.free.pop() {
            Some(slot) => {
                self.on_core[slot] = Some(req);
                slot
            }
            None => {
                self.on_core.push(Some(req));
                self.on_core.len() - 1
            }
        };
        let end = Reverse((now_us + cpu, self.seq, k as u32, slot as u64));
        self.ends.push(end);
    }

    /// When the next CPU time ends, µs.
    pub fn next_end_us(&self) -> Option<u64> {
        self.ends.peek().map(|Reverse((t, ..))| *t)
    }

    /// Whether any request is on a core or queued.
    pub fn busy(&self) -> bool {
        !self.ends.is_empty()
    }

    /// Ends the earliest CPU time (at `next_end_us`): frees its core, starts the next
    /// queued request of that router still in time, and returns the router and the
    /// request to route (`None` when its deadline has passed: see `drain_expired`).
    pub fn pop_done(&mut self) -> (usize, Option<Request>) {
        let Reverse((t, _, k, slot)) = self.ends.pop().expect("a CPU time is running");
        let (k, slot) = (k as usize, slot as usize);
        let req = self.on_core[slot].take().expect("its request is on a core");
        self.free.push(slot);
        self.routers[k].busy -= 1;
        while let Some(next) = self.routers[k].queue.pop_front() {
            if self.expired(&next, t) {
                self.time_out(k, next);
                continue;
            }
            self.start(k, next, t);
            break;
        }
        if self.expired(&req, t) {
            self.time_out(k, req);
            return (k, None);
        }
        let delay_us = t - req.arrival_us;
        self.delays.add(delay_us as f64);
        self.delay_max_us = self.delay_max_us.max(delay_us);
        (k, Some(req))
    }

    fn time_out(&mut self, k: usize, req: Request) {
        self.routers[k].timed_out += 1;
        self.late.push(req);
    }

    /// The requests whose deadline passed at a router since the last call.
    pub fn drain_expired(&mut self) -> Vec<Request> {
        std::mem::take(&mut self.late)
    }

    /// Requests dropped at a router because their caller's timeout passed there.
    pub fn timed_out(&self) -> u64 {
        self.routers.iter().map(|r| r.timed_out).sum()
    }

    /// Requests refused at a full router queue, all routers.
    pub fn rejected(&self) -> u64 {
        self.routers.iter().map(|r| r.rejected).sum()
    }

    /// Per router: core-µs busy, longest queue.
    pub fn per_router(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.routers.iter().map(|r| (r.busy_us, r.peak_queue))
    }

    /// Cores per router.
    pub fn cores(&self) -> u32 {
        self.cores
    }

    /// Requests waiting in a router queue or on a router core (for the stuck list).
    /// (router, request id) of each.
    pub fn held(&self, mut each: impl FnMut(u32, u32)) {
        for Reverse((_, _, k, slot)) in self.ends.iter() {
            if let Some(req) = &self.on_core[*slot as usize] {
                each(*k, req.id);
            }
        }
        for (k, r) in self.routers.iter().enumerate() {
            r.queue.iter().for_each(|req| each(k as u32, req.id));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::cpu_us;
    use crate::config::{Hashed, Policy};

    #[test]
    fn cpu_time_is_fixed_plus_per_block() {
        assert_eq!(cpu_us(20.0, 1.5, 2), 23);
        assert_eq!(cpu_us(0.0, 0.0, 2), 0);
        assert_eq!(cpu_us(10.0, 0.25, 0), 10);
    }

    #[test]
    fn each_policy_hashes_what_it_reads() {
        // 1,100 tokens of 512: two full blocks (the partial third is not hashed).
        let full = 1100 / 512;
        let of = |p| Hashed::by(p).blocks(full, false);
        assert_eq!(of(Policy::Kv), 2);
        assert_eq!(of(Policy::Sglang), 2);
        assert_eq!(of(Policy::PrefixAware), 1);
        assert_eq!(Hashed::by(Policy::PrefixAware).blocks(0, false), 0);
        assert_eq!(of(Policy::RoundRobin), 0);
        assert_eq!(of(Policy::LeastLoaded), 0);
        assert_eq!(of(Policy::Sticky), 0);
        // Session affinity on a request without a session: the longest prefix held.
        assert_eq!(Hashed::by(Policy::Sticky).blocks(full, true), 2);
    }
}
