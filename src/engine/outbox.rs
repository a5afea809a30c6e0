//! What a replica reports back to the simulator after each call: admissions (cache
//! lookups), completions, drops (rejections, timeouts) and inter-token-gap runs.

pub use crate::histogram::ItlRun;
use std::sync::Arc;

use crate::workload::SessionTag;

/// A request's lifecycle as the recorder needs it, reported when it completes.
#[derive(Clone, Copy, Debug)]
pub struct Finished {
    /// Request id.
    pub id: u32,
    /// Replica that served it.
    pub replica: u32,
    /// Arrival, admission, first token and last token times, µs.
    pub arrival_us: u64,
    /// Admission time, µs.
    pub admit_us: u64,
    /// First-token time, µs.
    pub first_token_us: u64,
    /// Completion time, µs.
    pub done_us: u64,
    /// Output tokens generated.
    pub output_tokens: u32,
    /// Session and turn, if any.
    pub session: Option<SessionTag>,
}

/// Why a request left without completing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropKind {
    /// Arrived to a full queue.
    QueueFull,
    /// Needs more KV blocks than the replica has: it could never run.
    TooLarge,
    /// No first token within the caller's timeout.
    TimedOut,
}

/// A request that left without completing.
#[derive(Clone, Copy, Debug)]
pub struct Dropped {
    /// Request id.
    pub id: u32,
    /// Replica it was routed to.
    pub replica: u32,
    /// Session and turn, if any.
    pub session: Option<SessionTag>,
    /// Why.
    pub kind: DropKind,
}

/// A request that left its replica, completed or not.
#[derive(Clone, Debug)]
pub struct Released {
    /// Request id.
    pub id: u32,
    /// Replica it was routed to.
    pub replica: u32,
    /// Prompt tokens.
    pub prompt_tokens: u32,
    /// The prompt's block ids (moved out of the request).
    pub block_ids: Arc<[u64]>,
}

/// What happened inside a replica during one call; the simulator drains it.
#[derive(Default, Debug)]
pub struct Outbox {
    /// (request id, replica, admit time µs, prompt tokens, prompt blocks, hit blocks).
    pub admitted: Vec<Admitted>,
    /// Completed requests.
    pub finished: Vec<Finished>,
    /// Requests rejected or timed out.
    pub dropped: Vec<Dropped>,
    /// Every request that left the replica (completed or dropped), with its blocks, for
    /// the router's count of in-flight blocks.
    pub released: Vec<Released>,
    /// The requests whose first token came in this call: (id, TTFT from arrival µs).
    pub first_tokens: Vec<(u32, u64)>,
    /// Prefill replicas: requests whose prompt is done, to transfer to a decode replica.
    pub handoffs: Vec<Handoff>,
    /// Running requests preempted for want of a KV block (`preempt` rule).
    pub preempted: Vec<Preempted>,
    /// Preempted requests admitted again.
    pub resumed: Vec<Resumed>,
    /// (step duration µs, tokens) for inter-token latency: `count` steps whose
    /// durations start at `first_us` and grow by `delta_us`, each emitting `tokens`.
    pub itl_runs: Vec<ItlRun>,
}

/// An admission.
#[derive(Clone, Copy, Debug)]
pub struct Admitted {
    /// Request id.
    pub id: u32,
    /// Replica.
    pub replica: u32,
    /// Admission time, µs.
    pub admit_us: u64,
    /// Prompt tokens.
    pub prompt_tokens: u32,
    /// Prompt blocks (full and partial).
    pub prompt_blocks: u32,
    /// Leading blocks found in the cache: in HBM, then (with a CPU tier) loaded back
    /// from the tier.
    pub hit_blocks: u32,
    /// Turn within its session, if any.
    pub turn: Option<u32>,
}

/// A prefill replica's request whose prompt is computed: its KV is ready to move.
#[derive(Clone, Copy, Debug)]
pub struct Handoff {
    /// Request id.
    pub id: u32,
    /// The prefill replica (it holds the blocks until the transfer ends).
    pub replica: u32,
    /// Prompt tokens (what the transfer moves).
    pub prompt_tokens: u32,
    /// Output tokens (what the decode replica reserves room for).
    pub output_tokens: u32,
    /// Arrival time, µs.
    pub arrival_us: u64,
    /// Admission on the prefill replica, µs.
    pub admit_us: u64,
}

/// A running request preempted for want of a KV block: its blocks are freed and it waits
/// at the front of the queue to run again.
#[derive(Clone, Copy, Debug)]
pub struct Preempted {
    /// Request id.
    pub id: u32,
    /// Replica.
    pub replica: u32,
    /// When, µs.
    pub at_us: u64,
    /// KV blocks it held (shared prompt blocks and private ones), given back.
    pub blocks_freed: u64,
    /// Tokens it had generated.
    pub generated: u32,
}

/// A preempted request admitted again: it prefills its prompt and generated tokens from
/// its cache hit on.
#[derive(Clone, Copy, Debug)]
pub struct Resumed {
    /// Request id.
    pub id: u32,
    /// Replica.
    pub replica: u32,
    /// When, µs.
    pub at_us: u64,
    /// Leading prompt blocks still cached.
    pub hit_blocks: u32,
    /// Tokens it computed before and computes again.
    pub recomputed_tokens: u32,
}
