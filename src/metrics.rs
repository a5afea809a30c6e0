//! Measurement: latency histograms (per request, and inter-token gaps fed in closed
//! form), cache counters per replica and per session turn.

use crate::cache::IdMap;
use crate::engine::{Admitted, DropKind, Finished};
use crate::histogram::LogHistogram;

/// Cache and load counters of one replica.
#[derive(Clone, Debug, Default)]
pub struct ReplicaCounters {
    /// Requests admitted.
    pub admitted: u64,
    /// Admitted requests with at least one cached block.
    pub hit_requests: u64,
    /// Prompt tokens of admitted requests.
    pub prompt_tokens: u64,
    /// Prompt blocks of admitted requests.
    pub prompt_blocks: u64,
    /// Cached (reused) blocks.
    pub cached_blocks: u64,
    /// Requests refused (queue full, or too large to ever fit): the sum of the two below.
    pub rejected: u64,
    /// Of them, refused on arrival because the queue was full.
    pub rejected_queue_full: u64,
    /// Of them, refused because they need more KV blocks than the cache holds.
    pub rejected_too_large: u64,
    /// Requests dropped by the caller's timeout.
    pub timed_out: u64,
}

/// Cache and latency counters of one session turn index.
#[derive(Clone, Debug, Default)]
pub struct TurnCounters {
    /// Requests admitted at this turn.
    pub admitted: u64,
    /// Of them, with at least one cached block.
    pub hit_requests: u64,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Cached tokens.
    pub cached_tokens: u64,
    /// Completed requests at this turn.
    pub completed: u64,
    /// Sum of their TTFT, µs.
    pub ttft_us_sum: f64,
}

/// What the routing decisions found in the fleet's caches, at the instant of each pick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PickCounters {
    /// The full prompt blocks the picked replica held, summed over the picks.
    pub pick_hit_blocks: u64,
    /// The most full prompt blocks any replica the router could pick held, summed.
    pub best_hit_blocks: u64,
    /// Of the blocks a pick found (at most the ones admission may reuse), those its
    /// replica no longer held when it admitted the request, summed over the requests
    /// admitted where they were picked: evicted while the request waited.
    pub evicted_after_pick_blocks: u64,
}

/// Everything recorded while the simulation runs.
#[derive(Clone, Debug)]
pub struct Recorder {
    /// Per-replica counters.
    pub replicas: Vec<ReplicaCounters>,
    /// TTFT from arrival, one value per completed request.
    pub ttft: LogHistogram,
    /// TTFT from admission.
    pub ttft_admit: LogHistogram,
    /// Queue wait.
    pub queue: LogHistogram,
    /// Time per output token after the first (requests with more than one token).
    pub tpot: LogHistogram,
    /// End-to-end latency.
    pub e2e: LogHistogram,
    /// Inter-token latency histogram.
    pub itl: LogHistogram,
    /// Completed requests.
    pub completed: u64,
    /// Output tokens of completed requests.
    pub output_tokens: u64,
    /// Latest completion time, µs.
    pub last_done_us: u64,
    /// Block size, tokens.
    pub block_size: u32,
    /// Per session turn (empty without sessions).
    pub turns: Vec<TurnCounters>,
    /// The routing decisions' view of the caches.
    pub picks: PickCounters,
    /// Per request routed to its picked replica and not yet admitted: the blocks the pick
    /// found there that admission may reuse.
    pending_picks: IdMap<u32>,
}

impl Recorder {
    /// An empty recorder for `replicas` replicas.
    pub fn new(replicas: usize, block_size: u32) -> Recorder {
        Recorder {
            replicas: vec![ReplicaCounters::default(); replicas],
            ttft: LogHistogram::fine(),
            ttft_admit: LogHistogram::fine(),
            queue: LogHistogram::fine(),
            tpot: LogHistogram::fine(),
            e2e: LogHistogram::fine(),
            itl: LogHistogram::coarse(),
            completed: 0,
            output_tokens: 0,
            last_done_us: 0,
            block_size,
            turns: Vec::new(),
            picks: PickCounters::default(),
            pending_picks: IdMap::default(),
        }
    }

    /// Request `id` was sent to the replica it was picked for, which held `reusable` of the
    /// blocks its admission may reuse: what it still holds then is compared at admission.
    pub fn sent_to_pick(&mut self, id: u32, reusable: u32) {
        self.pending_picks.insert(id as u64, reusable);
    }

    /// Request `id` left its replica (admitted elsewhere or dropped): nothing to compare.
    pub fn left(&mut self, id: u32) {
        self.pending_picks.remove(&(id as u64));
    }

    /// Records a routing decision: the picked replica held `picked` of the request's full
    /// blocks, and the best-placed replica it could have picked held `best`.
    pub fn picked(&mut self, picked: u32, best: u32) {
        debug_assert!(
            picked <= best,
            "the pick held {picked} blocks, more than the best {best}"
        );
        self.picks.pick_hit_blocks += picked as u64;
        self.picks.best_hit_blocks += best as u64;
    }

    /// Records an admission (cache lookup result).
    pub fn admitted(&mut self, a: &Admitted) {
        if let Some(found) = self.pending_picks.remove(&(a.id as u64)) {
            self.picks.evicted_after_pick_blocks += found.saturating_sub(a.hit_blocks) as u64;
        }
        let c = &mut self.replicas[a.replica as usize];
        c.admitted += 1;
        c.hit_requests += (a.hit_blocks > 0) as u64;
        c.prompt_tokens += a.prompt_tokens as u64;
        c.prompt_blocks += a.prompt_blocks as u64;
        c.cached_blocks += a.hit_blocks as u64;
        if let Some(turn) = a.turn {
            let block_size = self.block_size as u64;
            let t = self.turn(turn);
            t.admitted += 1;
            t.hit_requests += (a.hit_blocks > 0) as u64;
            t.prompt_tokens += a.prompt_tokens as u64;
            t.cached_tokens += a.hit_blocks as u64 * block_size;
        }
    }

    fn turn(&mut self, turn: u32) -> &mut TurnCounters {
        let i = turn as usize;
        if self.turns.len() <= i {
            self.turns.resize(i + 1, TurnCounters::default());
        }
        &mut self.turns[i]
    }

    /// Records a completion.
    pub fn finished(&mut self, f: &Finished) {
        self.completed += 1;
        self.output_tokens += f.output_tokens as u64;
        self.last_done_us = self.last_done_us.max(f.done_us);
        self.ttft.add((f.first_token_us - f.arrival_us) as f64);
        self.ttft_admit.add((f.first_token_us - f.admit_us) as f64);
        self.queue.add((f.admit_us - f.arrival_us) as f64);
        self.e2e.add((f.done_us - f.arrival_us) as f64);
        if let Some(tag) = f.session {
            let t = self.turn(tag.turn);
            t.completed += 1;
            t.ttft_us_sum += (f.first_token_us - f.arrival_us) as f64;
        }
        if f.output_tokens > 1 {
            let gaps = (f.output_tokens - 1) as f64;
            self.tpot.add((f.done_us - f.first_token_us) as f64 / gaps);
        }
    }

    /// Records a rejection (for either reason) or a timeout at `replica`.
    pub fn dropped(&mut self, replica: u32, kind: DropKind) {
        let c = &mut self.replicas[replica as usize];
        match kind {
            DropKind::TimedOut => c.timed_out += 1,
            DropKind::QueueFull => {
                c.rejected += 1;
                c.rejected_queue_full += 1;
            }
            DropKind::TooLarge => {
                c.rejected += 1;
                c.rejected_too_large += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests;
