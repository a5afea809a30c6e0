//! The batch totals against a recount from scratch: randomized runs of one replica
//! (shared prefixes, small caches that preempt, timeouts, a CPU tier, both step
//! admissions), checked after every arrival and every step's end by walking the batch.

use super::super::*;
use crate::config::{Admission, TierSpec};
use crate::rng::splitmix64;
use crate::timing::{EnginePreset, StepAdmission};

/// A small deterministic generator for the runs (`splitmix64` over a counter).
struct Draw(u64);

impl Draw {
    fn below(&mut self, n: u64) -> u64 {
        self.0 += 1;
        splitmix64(self.0) % n
    }
}

/// One run's settings.
struct Setup {
    capacity_blocks: Option<u64>,
    admission: Admission,
    step_admission: StepAdmission,
    timeout_us: Option<u64>,
    cpu_tier: bool,
    block_size: u32,
}

fn replica(s: &Setup) -> Replica {
    let spec = EngineSpec {
        timing: EnginePreset::Llama3_8bH100.timing(),
        max_batch: 24,
        max_batched_tokens: 2048,
        block_size: s.block_size,
        queue_capacity: None,
        timeout_us: s.timeout_us,
        step_admission: s.step_admission,
    };
    let mut r = Replica::new(0, spec, s.capacity_blocks);
    r.set_admission(s.admission);
    if s.cpu_tier {
        r.set_cpu_tier(TierSpec {
            capacity_blocks: 400,
            block_bytes: 2_000_000,
            load_gbps: 20.0,
            load_base_us: 50.0,
        });
    }
    r
}

/// Requests arriving about every 20 ms; a prompt starts with one of 4 shared prefixes
/// (so lookups hit), then blocks of its own.
fn requests(d: &mut Draw, n: u32, block_size: u32) -> Vec<Request> {
    let mut t_us = 0;
    (0..n)
        .map(|id| {
            t_us += d.below(40_000);
            let prompt_tokens = 1 + d.below(6 * block_size as u64) as u32;
            let blocks = prompt_tokens.div_ceil(block_size) as u64;
            let prefix = d.below(4);
            let shared = d.below(blocks + 1);
            let block_ids = (0..blocks)
                .map(|b| match b < shared {
                    true => 1_000_000 * (prefix + 1) + b,
                    false => 10_000_000 + 1000 * id as u64 + b,
                })
                .collect();
            Request {
                id,
                arrival_us: t_us,
                prompt_tokens,
                output_tokens: 1 + d.below(300) as u32,
                block_ids,
                session: None,
                output_block_ids: Vec::new(),
            }
        })
        .collect()
}

/// Walks the batch and checks every total against it: the exact ones equal, the bounds
/// at most the fewest.
fn check(r: &Replica, when: &str) {
    let bs = r.spec.block_size as u64;
    let decoding: Vec<&Active> = r
        .running
        .iter()
        .map(|a| &**a)
        .filter(|a| a.prefilled_tokens >= a.req.prompt_tokens + a.resume_tokens)
        .collect();
    let prefilling: Vec<u64> = r
        .running
        .iter()
        .filter(|a| a.prefilled_tokens < a.req.prompt_tokens + a.resume_tokens)
        .map(|a| a.seq)
        .collect();
    let kv: u64 = decoding
        .iter()
        .map(|a| (a.req.prompt_tokens + a.generated) as u64)
        .sum();
    let room = decoding
        .iter()
        .map(|a| {
            let held_tokens = (a.full_blocks as u64 + a.private_blocks) * bs;
            held_tokens - (a.req.prompt_tokens + a.generated - 1) as u64
        })
        .min();
    let left = decoding
        .iter()
        .map(|a| (a.req.output_tokens - a.generated) as u64)
        .min();
    let t = &r.batch;
    assert_eq!(
        t.decoding,
        decoding.len() as u64,
        "{when}: decoding requests"
    );
    assert_eq!(t.decode_kv_tokens, kv, "{when}: their KV tokens");
    assert_eq!(
        t.prefilling, prefilling,
        "{when}: the prefilling requests, in order"
    );
    if let Some(room) = room {
        assert!(
            t.min_room_tokens <= room,
            "{when}: room bound {} > {room}",
            t.min_room_tokens
        );
    }
    if let Some(left) = left {
        assert!(
            t.min_left_tokens <= left,
            "{when}: left bound {} > {left}",
            t.min_left_tokens
        );
    }
    let mut seqs: Vec<u64> = r.running.iter().map(|a| a.seq).collect();
    seqs.dedup();
    assert!(
        seqs.windows(2).all(|w| w[0] < w[1]),
        "{when}: running order is seq order"
    );
}

/// Plays `reqs` on `r` (an arrival before a step's end at the same time), checking the
/// totals after each event; returns the preemptions and the requests done.
fn play(r: &mut Replica, reqs: Vec<Request>) -> (u64, usize) {
    let mut out = Outbox::default();
    let mut next_end: Option<u64> = None;
    let mut arrivals = reqs.into_iter().peekable();
    let mut done = 0;
    loop {
        let arrival_first = match (arrivals.peek(), next_end) {
            (Some(a), Some(end)) => a.arrival_us <= end,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        if arrival_first {
            let req = arrivals.next().expect("peeked");
            let (id, at_us) = (req.id, req.arrival_us);
            if let Some(end) = r.arrive(req, at_us, &mut out) {
                next_end = Some(end);
            }
            check(
                r,
                &format!("after the arrival of request {id} at {at_us} µs"),
            );
        } else {
            let end = next_end.expect("a step is scheduled");
            next_end = r.step_end(end, &mut out);
            check(r, &format!("after the step ending at {end} µs"));
        }
        done += out.finished.len() + out.dropped.len();
        out = Outbox::default();
    }
    (r.stats().preemptions, done)
}

#[test]
fn the_batch_totals_match_a_recount_after_every_event() {
    let mut preemptions = 0;
    for seed in 0..24u64 {
        let setup = Setup {
            capacity_blocks: [None, Some(60), Some(150)][seed as usize % 3],
            admission: [Admission::Preempt, Admission::Reserve][seed as usize / 3 % 2],
            step_admission: [StepAdmission::OnSlot, StepAdmission::InBudget][seed as usize / 6 % 2],
            timeout_us: (seed % 5 == 0).then_some(400_000),
            cpu_tier: seed % 4 == 1,
            block_size: [16, 64, 512][seed as usize % 3],
        };
        let mut d = Draw(seed * 1_000_003);
        let reqs = requests(&mut d, 300, setup.block_size);
        let mut r = replica(&setup);
        let (p, done) = play(&mut r, reqs);
        preemptions += p;
        assert_eq!(
            done, 300,
            "seed {seed}: every request finishes or is dropped"
        );
        assert_eq!(r.running(), 0, "seed {seed}: the batch empties");
    }
    assert!(preemptions > 0, "the runs include preemptions");
}
