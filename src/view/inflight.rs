//! Requests in flight as the router counts them: from dispatch to completion, waiting in
//! a replica's queue or running, with each replica's distinct prompt blocks (a shared
//! prefix once, a request's partial last block on its own).

use crate::cache::IdMap;

/// One dispatched request's share of its replica's load.
struct Entry {
    replica: u32,
    full_ids: Vec<u64>,
    private_blocks: u64,
}

/// One replica's in-flight prompt blocks.
#[derive(Default)]
struct Load {
    refs: IdMap<u32>,
    private_blocks: u64,
}

/// Every replica's in-flight prompt blocks, by request.
pub struct Inflight {
    replicas: Vec<Load>,
    requests: IdMap<Entry>,
}

impl Inflight {
    /// Nothing in flight on `replicas` replicas.
    pub fn new(replicas: usize) -> Inflight {
        Inflight {
            replicas: (0..replicas).map(|_| Load::default()).collect(),
            requests: IdMap::default(),
        }
    }

    /// Distinct prompt blocks of the requests dispatched to `r` and not yet ended.
    pub fn active_blocks(&self, r: usize) -> u64 {
        let load = &self.replicas[r];
        load.refs.len() as u64 + load.private_blocks
    }

    /// Request `id` was dispatched to `r`: its full blocks `full_ids` (shared by content)
    /// and `private_blocks` more (the partial last block, or every block of a request
    /// without ids) count from now.
    pub fn dispatch(&mut self, id: u32, r: usize, full_ids: &[u64], private_blocks: u64) {
        let load = &mut self.replicas[r];
        for &block in full_ids {
            *load.refs.entry(block).or_insert(0) += 1;
        }
        load.private_blocks += private_blocks;
        let entry = Entry {
            replica: r as u32,
            full_ids: full_ids.to_vec(),
            private_blocks,
        };
        let previous = self.requests.insert(id as u64, entry);
        debug_assert!(previous.is_none(), "request {id} dispatched twice");
    }

    /// Request `id` ended (completed, rejected or timed out): its blocks stop counting.
    pub fn end(&mut self, id: u32) {
        let Some(entry) = self.requests.remove(&(id as u64)) else {
            return;
        };
        let load = &mut self.replicas[entry.replica as usize];
        for block in &entry.full_ids {
            let refs = load.refs.get_mut(block).expect("a dispatched block");
            *refs -= 1;
            if *refs == 0 {
                load.refs.remove(block);
            }
        }
        load.private_blocks -= entry.private_blocks;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_prefixes_count_once_until_the_last_request_ends() {
        let mut f = Inflight::new(2);
        // Two requests sharing blocks 1 and 2, each with a partial last block.
        f.dispatch(0, 0, &[1, 2, 3], 1);
        f.dispatch(1, 0, &[1, 2, 4], 1);
        assert_eq!(
            f.active_blocks(0),
            4 + 2,
            "blocks 1, 2, 3, 4 and two partial"
        );
        assert_eq!(f.active_blocks(1), 0);
        f.end(0);
        assert_eq!(f.active_blocks(0), 3 + 1, "blocks 1, 2, 4 and one partial");
        f.end(1);
        assert_eq!(f.active_blocks(0), 0);
        f.end(1);
        assert_eq!(f.active_blocks(0), 0, "a second end changes nothing");
    }
}
