//! The running batch's totals, kept up to date where requests join it, finish their
//! prefill, make tokens and leave it, so that planning a step walks only the requests
//! still prefilling, not the whole batch: the decoding requests' count and KV tokens,
//! the prefilling requests in running order, and two lower bounds that let a step skip
//! the walks for KV growth and for finished requests when none can be due.

use super::{Active, Replica};

/// Totals over a replica's running requests (see the module's comment).
#[derive(Clone, Debug, Default)]
pub(super) struct BatchTotals {
    /// Running requests decoding (their prefill done).
    pub decoding: u64,
    /// What a decode step reads: prompt + generated tokens of each decoding request,
    /// summed.
    pub decode_kv_tokens: u64,
    /// The running requests still prefilling, by `Active::seq`, in running order.
    prefilling: Vec<u64>,
    /// At most the fewest tokens any decoding request can still write into the blocks it
    /// holds (`Replica::room_tokens`); `u64::MAX` when none decodes.
    pub min_room_tokens: u64,
    /// At most the fewest tokens any decoding request has left to generate.
    pub min_left_tokens: u64,
}

impl BatchTotals {
    /// Totals of an empty batch.
    pub fn new() -> BatchTotals {
        BatchTotals {
            min_room_tokens: u64::MAX,
            min_left_tokens: u64::MAX,
            ..BatchTotals::default()
        }
    }

    /// Counts one more decoding request, which reads `kv` tokens a step, has `room`
    /// tokens of room in its blocks and `left` tokens to generate.
    fn count_decoding(&mut self, kv: u64, room: u64, left: u64) {
        self.decoding += 1;
        self.decode_kv_tokens += kv;
        self.min_room_tokens = self.min_room_tokens.min(room);
        self.min_left_tokens = self.min_left_tokens.min(left);
    }
}

impl Replica {
    /// Adds a request to the end of the running batch.
    pub(super) fn push_running(&mut self, mut a: Active) {
        a.seq = self.next_seq;
        self.next_seq += 1;
        if a.prefilled_tokens < a.prompt_end() {
            self.batch.prefilling.push(a.seq);
        } else {
            self.count_decoding(&a);
        }
        self.running.push(Box::new(a));
    }

    /// Running request `i` has just finished its prefill (its first token, or a resumed
    /// request's next one, is counted in `generated`): it decodes from now on.
    pub(super) fn start_decoding(&mut self, i: usize) {
        let seq = self.running[i].seq;
        let at = self.batch.prefilling.binary_search(&seq);
        self.batch
            .prefilling
            .remove(at.expect("a request finishing its prefill prefilled"));
        let a = &*self.running[i];
        let (kv, room, left) = (
            Self::kv_tokens(a),
            self.room_tokens(a),
            Self::left_tokens(a),
        );
        self.batch.count_decoding(kv, room, left);
    }

    /// Counts a request that joins the batch already decoding.
    fn count_decoding(&mut self, a: &Active) {
        let (kv, room, left) = (
            Self::kv_tokens(a),
            self.room_tokens(a),
            Self::left_tokens(a),
        );
        self.batch.count_decoding(kv, room, left);
    }

    /// Takes running request `i` out of the batch.
    pub(super) fn take_running(&mut self, i: usize) -> Active {
        let a = *self.running.remove(i);
        self.uncount(&a);
        a
    }

    /// Takes a request that left the batch out of the totals (the bounds stay bounds).
    pub(super) fn uncount(&mut self, a: &Active) {
        let t = &mut self.batch;
        if a.prefilled_tokens < a.prompt_end() {
            let at = t.prefilling.binary_search(&a.seq);
            t.prefilling
                .remove(at.expect("a prefilling request is listed"));
        } else {
            t.decoding -= 1;
            t.decode_kv_tokens -= Self::kv_tokens(a);
        }
    }

    /// Every decoding request has made `steps` more tokens.
    pub(super) fn count_decode_steps(&mut self, steps: u64) {
        let t = &mut self.batch;
        t.decode_kv_tokens += t.decoding * steps;
        t.min_room_tokens = t.min_room_tokens.saturating_sub(steps);
        t.min_left_tokens = t.min_left_tokens.saturating_sub(steps);
    }

    /// Where the prefilling requests are in the running batch, in running order.
    pub(super) fn prefilling_positions(&self) -> impl Iterator<Item = usize> + '_ {
        self.batch.prefilling.iter().map(|&seq| {
            self.running
                .binary_search_by_key(&seq, |a| a.seq)
                .expect("a prefilling request is running")
        })
    }

    /// Tokens a decoding request can still write into the blocks it holds: a decode step
    /// writes one, and a step needs a block for it when there is no room.
    pub(super) fn room_tokens(&self, a: &Active) -> u64 {
        let held = a.full_blocks as u64 + a.private_blocks;
        let written = a.req.prompt_tokens as u64 + a.generated as u64 - 1;
        (held * self.spec.block_size as u64).saturating_sub(written)
    }

    /// KV tokens a decoding request reads in a step: its prompt and generated tokens.
    fn kv_tokens(a: &Active) -> u64 {
        a.req.prompt_tokens as u64 + a.generated as u64
    }

    /// Tokens a request has left to generate.
    fn left_tokens(a: &Active) -> u64 {
        a.req.output_tokens.saturating_sub(a.generated) as u64
    }

    /// A running request's room for tokens (`room_tokens`) when it decodes; `u64::MAX`
    /// for a prefilling one, which holds its prefill's blocks and writes none a step.
    pub(super) fn decoding_room(&self, a: &Active) -> u64 {
        if a.prefilled_tokens < a.prompt_end() {
            return u64::MAX;
        }
        self.room_tokens(a)
    }

    /// Tokens a running request has left to generate, for the bound over the decoding
    /// requests: `u64::MAX` for a prefilling one.
    pub(super) fn decoding_left(a: &Active) -> u64 {
        if a.prefilled_tokens < a.prompt_end() {
            return u64::MAX;
        }
        Self::left_tokens(a)
    }
}

#[cfg(test)]
mod tests;
