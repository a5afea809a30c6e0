//! Applying a step (or decode run) that has ended: every decoding request's tokens, the
//! chunks of prefill and the first tokens they complete, and the finished requests taken
//! out of the batch (on a prefill replica, handed off).

use super::{Active, Finished, Outbox, Replica, Role};

impl Replica {
    pub(super) fn apply_step(&mut self, chunks: &[(usize, u32)], now_us: u64, out: &mut Outbox) {
        let bs = self.spec.block_size;
        // The requests already decoding make a token; none of them has a chunk (a chunk
        // is prefill), so this may come before the chunks make their first tokens.
        for a in &mut self.running {
            if a.prefilled_tokens >= a.prompt_end() {
                a.generated += 1;
            }
        }
        self.count_decode_steps(1);
        for &(i, c) in chunks {
            let a = &mut self.running[i];
            debug_assert!(a.prefilled_tokens < a.prompt_end(), "a chunk of prefill");
            a.prefilled_tokens += c;
            let ready = ((a.prefilled_tokens / bs) as usize).min(a.full_blocks);
            if ready > a.ready_blocks {
                self.cache
                    .mark_ready(&a.req.block_ids[a.ready_blocks..ready]);
                a.ready_blocks = ready;
            }
            if a.prefilled_tokens == a.prompt_end() {
                if a.resume_tokens > 0 {
                    // A resumed request's recomputation makes its next token.
                    a.generated += 1;
                } else {
                    a.generated = 1;
                    a.first_token_us = now_us;
                    out.first_tokens.push((a.req.id, now_us - a.req.arrival_us));
                }
                self.start_decoding(i);
                self.recovered(i, now_us);
            }
        }
        self.drop_late_first_tokens(now_us, out);
        self.retire_finished(now_us, out);
    }

    pub(super) fn apply_decode_run(&mut self, steps: u64, now_us: u64, out: &mut Outbox) {
        for a in &mut self.running {
            if a.prefilled_tokens >= a.prompt_end() {
                a.generated += steps as u32;
            }
        }
        self.count_decode_steps(steps);
        self.retire_finished(now_us, out);
    }

    pub(super) fn retire_finished(&mut self, now_us: u64, out: &mut Outbox) {
        if self.role == Role::Prefill {
            return self.hand_off_prefilled(out);
        }
        if self.batch.min_left_tokens > 0 {
            // No decoding request can have made its last token (and a prefilling one has
            // tokens left).
            return;
        }
        // In one pass, in running order (removing each from the middle would move the
        // rest every time).
        let mut min_left = u64::MAX;
        let done: Vec<Box<Active>> = self
            .running
            .extract_if(.., |a| {
                let done = a.generated >= a.req.output_tokens;
                if !done {
                    min_left = min_left.min(Self::decoding_left(a));
                }
                done
            })
            .collect();
        self.batch.min_left_tokens = min_left;
        for a in done {
            let a = *a;
            self.uncount(&a);
            self.cache.release_with_output(
                &a.req.block_ids[..a.full_blocks],
                a.private_blocks,
                &a.req.output_block_ids,
            );
            self.prompt_private_blocks -= a.prompt_private_blocks;
            out.finished.push(Finished {
                id: a.req.id,
                replica: self.index,
                arrival_us: a.req.arrival_us,
                admit_us: a.admit_us,
                first_token_us: a.first_token_us,
                done_us: now_us,
                output_tokens: a.req.output_tokens,
                session: a.req.session,
            });
            self.release_request(a.req, out);
        }
    }

    fn hand_off_prefilled(&mut self, out: &mut Outbox) {
        let mut i = 0;
        while i < self.running.len() {
            if self.running[i].generated == 0 {
                i += 1;
                continue;
            }
            self.hand_off(i, out);
        }
    }
}
