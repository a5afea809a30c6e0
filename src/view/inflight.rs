//! Requests in flight as the router counts them: from dispatch to completion, waiting in
//! a replica's queue or running, with each replica's distinct prompt blocks (a shared
//! prefix once, a request's partial last block on its own).
//!
//! The deployed router counts a request when it routes it, not when the engine admits
//! it: Dynamo's router design notes (ai-dynamo/dynamo, `docs/design-docs/router-design.md`
//! at commit a5966e9b, "Local Active Block Management") predict active blocks "when the
//! router receives and routes a request" and free them when the response ends.

use super::counts::BlockCounts;
use super::live::Touched;
use crate::cache::IdMap;

/// One replica's in-flight prompt blocks.
#[derive(Default)]
struct Load {
    refs: BlockCounts,
    private_blocks: u64,
}

/// Every replica's in-flight prompt blocks, and the prompt tokens still to prefill of
/// each request routed and not yet at its first token.
pub struct Inflight {
    replicas: Vec<Load>,
    prefill_tokens: Vec<u64>,
    prefilling: IdMap<(u32, u64)>,
    touched: Touched,
}

/// The blocks a request counts for: its full blocks (the ids the router scores, shared by
/// content) and the rest of its prompt blocks (a partial last block, or every block of a
/// request without ids), as `(full, private)`.
pub fn router_blocks(prompt_tokens: u32, has_ids: bool, block_size: u32) -> (usize, u64) {
    let prompt_blocks = prompt_tokens.div_ceil(block_size) as u64;
    let full = if has_ids {
        (prompt_tokens / block_size) as usize
    } else {
        0
    };
    (full, prompt_blocks - full as u64)
}

impl Inflight {
    /// Nothing in flight on `replicas` replicas.
    pub fn new(replicas: usize) -> Inflight {
        Inflight {
            replicas: (0..replicas).map(|_| Load::default()).collect(),
            prefill_tokens: vec![0; replicas],
            prefilling: IdMap::default(),
            touched: Touched::new(replicas),
        }
    }

    /// Gives each replica's counts an array for ids `0 ..= max_id` where that is within
    /// their density bound for `most_entries` ids (see `BlockCounts::presize`). Changes
    /// no result.
    pub fn presize_ids(&mut self, max_id: u64, most_entries: u64) {
        for load in &mut self.replicas {
            load.refs.presize(max_id, most_entries);
        }
    }

    /// Whether block `id` is in flight on `r` (some request dispatched there holds it).
    pub fn holds(&self, r: usize, id: u64) -> bool {
        self.replicas[r].refs.contains(id)
    }

    /// Prompt tokens still to prefill on `r`, as the router counts them.
    pub fn prefill_tokens(&self, r: usize) -> u64 {
        self.prefill_tokens[r]
    }

    /// Request `id`, routed to `r`, has `tokens` prompt tokens to prefill.
    pub fn start_prefill(&mut self, id: u32, r: usize, tokens: u64) {
        self.prefill_tokens[r] += tokens;
        self.prefilling.insert(id as u64, (r as u32, tokens));
        self.touched.mark(r);
    }

    /// Request `id` produced its first token, or left: its prefill stops counting.
    pub fn end_prefill(&mut self, id: u32) {
        if let Some((r, tokens)) = self.prefilling.remove(&(id as u64)) {
            self.prefill_tokens[r as usize] -= tokens;
            self.touched.mark(r as usize);
        }
    }

    /// Distinct prompt blocks of the requests dispatched to `r` and not yet ended.
    pub fn active_blocks(&self, r: usize) -> u64 {
        let load = &self.replicas[r];
        load.refs.len() as u64 + load.private_blocks
    }

    /// A request was dispatched to `r`: its full blocks `full_ids` and `private_blocks`
    /// more count from now.
    pub fn dispatch(&mut self, r: usize, full_ids: &[u64], private_blocks: u64) {
        let load = &mut self.replicas[r];
        load.refs.increment_all(full_ids);
        load.private_blocks += private_blocks;
        self.touched.mark(r);
    }

    /// A request dispatched to `r` with these blocks ended (completed, rejected or timed
    /// out): they stop counting.
    pub fn end(&mut self, r: usize, full_ids: &[u64], private_blocks: u64) {
        let load = &mut self.replicas[r];
        if let Some(block) = load.refs.decrement_all(full_ids) {
            panic!("block {block} ended on replica {r} but was not in flight there");
        }
        load.private_blocks -= private_blocks;
        self.touched.mark(r);
    }

    /// Calls `f` on every replica whose counts changed since the last call.
    pub fn take_touched(&mut self, f: impl FnMut(usize)) {
        self.touched.drain(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_prefixes_count_once_until_the_last_request_ends() {
        let mut f = Inflight::new(2);
        // Two requests sharing blocks 1 and 2, each with a partial last block.
        f.dispatch(0, &[1, 2, 3], 1);
        f.dispatch(0, &[1, 2, 4], 1);
        assert_eq!(
            f.active_blocks(0),
            4 + 2,
            "blocks 1, 2, 3, 4 and two partial"
        );
        assert_eq!(f.active_blocks(1), 0);
        f.end(0, &[1, 2, 3], 1);
        assert_eq!(f.active_blocks(0), 3 + 1, "blocks 1, 2, 4 and one partial");
        f.end(0, &[1, 2, 4], 1);
        assert_eq!(f.active_blocks(0), 0);
    }

    #[test]
    fn full_and_private_blocks_of_a_prompt() {
        assert_eq!(router_blocks(5120, true, 512), (10, 0));
        assert_eq!(router_blocks(5121, true, 512), (10, 1));
        assert_eq!(router_blocks(5121, false, 512), (0, 11));
        assert_eq!(router_blocks(100, true, 512), (0, 1));
    }
}
