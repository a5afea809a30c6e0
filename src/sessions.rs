//! Multi-turn sessions (coding agents, chats): tasks start at a seeded rate, open with
//! a shared system prompt, and each turn's prompt is the previous prompt + the previous
//! answer + new text, so its block ids extend the previous turn's. Closed loop: the next
//! turn is sent a think time after the previous one completes.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

use crate::config::Config;
use crate::histogram::{LogHistogram, Quantiles};
use crate::workload::{Clock, EndedRequest, Lengths, Request, SessionTag, Source};

/// Task-level results of a sessions run (defined with `Source`, which reports them).
pub use crate::workload::SessionReport;

struct State {
    start_us: u64,
    turn: u32,
    prompt_tokens: u32,
    ids: Vec<u64>,
    output_ids: Vec<u64>,
    last_output: u32,
}

/// The closed-loop sessions source.
pub struct Sessions {
    num_sessions: u32,
    started: u32,
    next_start_us: u64,
    turns: u32,
    turn_input_len: u32,
    turn_output_len: u32,
    think_us: u64,
    system_len: u32,
    block_size: u32,
    pending: BinaryHeap<Reverse<(u64, u64, u32)>>,
    seq: u64,
    states: Vec<Option<State>>,
    next_unique_id: u64,
    next_request_id: u32,
    starts: Clock,
    lengths: Lengths,
    task: LogHistogram,
    failed: u32,
}

impl Sessions {
    /// A sessions source for a validated config.
    pub fn new(cfg: &Config) -> Sessions {
        let system_blocks = (cfg.system_prompt_len / cfg.block_size) as u64;
        let mut starts = Clock::new(cfg, cfg.session_rate);
        Sessions {
            num_sessions: cfg.num_sessions,
            started: 0,
            next_start_us: starts.next_us(),
            turns: cfg.turns,
            turn_input_len: cfg.turn_input_len,
            turn_output_len: cfg.turn_output_len,
            think_us: libm::round(cfg.think_time_ms * 1000.0) as u64,
            system_len: cfg.system_prompt_len,
            block_size: cfg.block_size,
            pending: BinaryHeap::new(),
            seq: 0,
            states: Vec::new(),
            next_unique_id: system_blocks,
            next_request_id: 0,
            starts,
            lengths: Lengths::new(cfg),
            task: LogHistogram::fine(),
            failed: 0,
        }
    }

    fn next_start(&self) -> Option<u64> {
        (self.started < self.num_sessions).then_some(self.next_start_us)
    }

    /// Ids for a prompt of `prompt_tokens` that keeps the first `kept` ids of `ids`.
    fn extend_ids(&mut self, ids: &mut Vec<u64>, kept: usize, prompt_tokens: u32) {
        ids.truncate(kept);
        let total = prompt_tokens.div_ceil(self.block_size) as usize;
        while ids.len() < total {
            ids.push(self.next_unique_id);
            self.next_unique_id += 1;
        }
    }

    fn start_session(&mut self, now_us: u64) -> Request {
        let session = self.started;
        self.started += 1;
        self.next_start_us = self.starts.next_us();
        let prompt_tokens = self.system_len + self.lengths.draw(self.turn_input_len);
        let system_blocks = (self.system_len / self.block_size) as u64;
        let mut ids: Vec<u64> = (0..system_blocks).collect();
        self.extend_ids(&mut ids, system_blocks as usize, prompt_tokens);
        self.states.push(Some(State {
            start_us: now_us,
            turn: 0,
            prompt_tokens,
            ids,
            output_ids: Vec::new(),
            last_output: 0,
        }));
        self.request(session, now_us)
    }

    fn next_turn(&mut self, session: u32, now_us: u64) -> Request {
        let new_tokens = self.lengths.draw(self.turn_input_len);
        let bs = self.block_size;
        let mut state = self.states[session as usize].take().expect("live session");
        let kept = (state.prompt_tokens / bs) as usize;
        state.prompt_tokens += state.last_output + new_tokens;
        state.turn += 1;
        let mut ids = std::mem::take(&mut state.ids);
        ids.truncate(kept);
        ids.append(&mut state.output_ids);
        let kept = ids.len();
        self.extend_ids(&mut ids, kept, state.prompt_tokens);
        state.ids = ids;
        self.states[session as usize] = Some(state);
        self.request(session, now_us)
    }

    fn request(&mut self, session: u32, now_us: u64) -> Request {
        let output_tokens = self.lengths.draw(self.turn_output_len);
        let bs = self.block_size;
        let mut state = self.states[session as usize].take().expect("live session");
        let first = state.prompt_tokens / bs;
        let last = (state.prompt_tokens + output_tokens) / bs;
        state.output_ids = (first..last)
            .map(|_| {
                self.next_unique_id += 1;
                self.next_unique_id - 1
            })
            .collect();
        self.states[session as usize] = Some(state);
        let state = self.states[session as usize]
            .as_ref()
            .expect("live session");
        let id = self.next_request_id;
        self.next_request_id += 1;
        Request {
            id,
            arrival_us: now_us,
            prompt_tokens: state.prompt_tokens,
            output_tokens,
            block_ids: Arc::from(state.ids.as_slice()),
            session: Some(SessionTag {
                session,
                turn: state.turn,
            }),
            output_block_ids: state.output_ids.clone(),
        }
    }
}

impl Source for Sessions {
    fn peek_arrival_us(&self) -> Option<u64> {
        let turn = self.pending.peek().map(|Reverse((t, ..))| *t);
        match (turn, self.next_start()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn pop(&mut self) -> Option<Request> {
        let turn = self.pending.peek().map(|Reverse((t, ..))| *t);
        match (turn, self.next_start()) {
            (Some(t), start) if start.is_none_or(|s| t <= s) => {
                let Reverse((t, _, session)) = self.pending.pop().expect("peeked");
                Some(self.next_turn(session, t))
            }
            (_, Some(s)) => Some(self.start_session(s)),
            _ => None,
        }
    }

    fn on_end(&mut self, req: EndedRequest, now_us: u64) {
        let Some(tag) = req.session else {
            return;
        };
        let slot = &mut self.states[tag.session as usize];
        let Some(state) = slot.as_mut() else {
            return;
        };
        if !req.ok {
            self.failed += 1;
            *slot = None;
            return;
        }
        if tag.turn + 1 >= self.turns {
            self.task.add((now_us - state.start_us) as f64);
            *slot = None;
            return;
        }
        state.last_output = req.output_tokens;
        self.seq += 1;
        self.pending
            .push(Reverse((now_us + self.think_us, self.seq, tag.session)));
    }

    fn total_hint(&self) -> u64 {
        self.num_sessions as u64 * self.turns as u64
    }

    fn session_report(&self) -> Option<SessionReport> {
        let q = self.task.quantiles_ms();
        Some(SessionReport {
            tasks: self.started,
            completed_tasks: self.task.count() as u32,
            failed_tasks: self.failed,
            task_s: Quantiles {
                mean: q.mean / 1000.0,
                p50: q.p50 / 1000.0,
                p90: q.p90 / 1000.0,
                p99: q.p99 / 1000.0,
            },
            ..SessionReport::default()
        })
    }
}

#[cfg(test)]
mod tests;
