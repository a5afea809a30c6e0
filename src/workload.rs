//! Workloads: the `Request` every source produces, and the seeded synthetic generator
//! (arrival model, length spread, prefix pool with popularity, unique suffixes).

use serde::{Deserialize, Serialize};

/// One request as the simulator sees it. Block ids chain: an equal id at position i
/// means an equal prompt prefix up to and including block i. The last block may be
/// partial (`prompt_tokens` need not be a multiple of the block size).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// Position in arrival order, from 0.
    pub id: u32,
    /// Arrival time, integer microseconds from the start of the run.
    pub arrival_us: u64,
    /// Prompt length, tokens.
    pub prompt_tokens: u32,
    /// Tokens to generate (at least 1).
    pub output_tokens: u32,
    /// One id per block of the prompt (`ceil(prompt_tokens / block_size)` of them), or
    /// empty when the source has no content (a plain workload file).
    pub block_ids: Vec<u64>,
}
