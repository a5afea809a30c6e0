//! What a run may ask of the simulator, checked before it starts: every simulated time
//! stays below the clock's horizon (so no sum of times can overflow), trace lines have a
//! bounded length, and the memory a run needs, estimated from its shape, fits a limit
//! (lower in wasm32, where the whole address space is 4 GiB).
//!
//! The time bound is a worst case that needs no simulation. Every engine step advances
//! at least one request: it computes a full prefill budget, or finishes the prefill of
//! every request it prefills, or decodes one token of each running request. So a fleet
//! runs at most `ΣP / budget + N + ΣO` steps, and their total duration is at most
//! `steps × (fixed + 1 µs) + ΣP × prefill + ΣO × decode + Σ O × (P + O) × kv_read` (the
//! µs per step covers rounding up). A replica is never idle while it holds a request,
//! so the run ends by the last arrival plus that total (plus, for sessions, every think
//! time of one task: its turns wait for each other).
//!
//! A disaggregated fleet also moves each prompt's KV over a decode replica's link. While
//! a request waits for a link, that link is busy, so the run ends at most by the bound
//! above plus every transfer's wire time end to end (`transfer_us`, rounded up). The
//! bytes moved are counted in 64 bits, so their worst-case total is bounded too. A
//! router with cores adds every request's router CPU time end to end.

use std::fmt::Write as _;

use crate::timing::Timing;
use crate::workload::Request;

pub mod memory;
mod shapes;

pub use memory::{check_decision_log, Footprint, MEMORY_LIMIT_BYTES};
pub use shapes::{check_pool, check_replay, check_sessions, link_cost};

/// Every simulated time stays below 2^62 µs (about 146,000 years), so the sum of any two
/// times fits the 64-bit clock.
pub const MAX_TIME_US: u64 = 1 << 62;

/// Most KV bytes a run's transfers may move (they are counted in 64 bits): 2^63 B.
pub const MAX_TRANSFER_BYTES: f64 = 9_223_372_036_854_775_808.0;

/// Longest trace line, bytes (a line of a million block ids fits).
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// The work a run may have to do, in the totals the time bound needs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Work {
    /// Requests.
    pub requests: f64,
    /// Sum of their prompt tokens.
    pub prompt_tokens: f64,
    /// Sum of their output tokens.
    pub output_tokens: f64,
    /// Sum over requests of output × (prompt + output): KV tokens decode may read.
    pub kv_reads: f64,
}

impl Work {
    /// Adds `count` requests of `prompt_tokens` + `output_tokens`.
    pub fn add(&mut self, count: f64, prompt_tokens: f64, output_tokens: f64) {
        self.requests += count;
        self.prompt_tokens += count * prompt_tokens;
        self.output_tokens += count * output_tokens;
        self.kv_reads += count * output_tokens * (prompt_tokens + output_tokens);
    }

    /// The work of a list of requests.
    pub fn of(requests: &[Request]) -> Work {
        let mut work = Work::default();
        for r in requests {
            work.add(1.0, r.prompt_tokens as f64, r.output_tokens as f64);
        }
        work
    }

    /// An upper bound on the engine time all of it takes on one replica, µs.
    /// The polynomial phases count at their largest magnitude: a prefill step's at the
    /// full budget, a decode step's at utilisation 1.
    pub fn busy_bound_us(&self, timing: &Timing, prefill_budget_tokens: u32) -> f64 {
        let budget = prefill_budget_tokens as f64;
        let prefill_steps = self.prompt_tokens / budget + self.requests;
        let steps = prefill_steps + self.output_tokens;
        let bound =
            |[c0, c1, c2]: [f64; 3], x: f64| 1000.0 * (c0.abs() + c1.abs() * x + c2.abs() * x * x);
        steps * (timing.step_fixed_us + 1.0)
            + self.prompt_tokens * timing.prefill_token_us
            + self.output_tokens * timing.decode_seq_us
            + self.kv_reads * timing.kv_read_token_ns / 1000.0
            + prefill_steps * bound(timing.prefill_poly_ms, budget)
            + steps * bound(timing.decode_poly_ms, 1.0)
    }

    /// An upper bound on the link time of moving every prompt's KV once over `link`, µs:
    /// each transfer's base cost, its bytes at the link's rate, and 1 µs of rounding up.
    pub fn transfer_bound_us(&self, link: &LinkCost) -> f64 {
        self.requests * (link.base_us + 1.0) + self.transfer_bytes(link) / (link.gbps * 1000.0)
    }

    /// An upper bound on every request's router CPU time on one core (0 for a free,
    /// instant router), µs: the fixed time, 1 µs of rounding and the per-block time of
    /// every full prompt block. A router core is never idle while a request waits for it.
    pub fn router_bound_us(&self, cfg: &crate::config::Config) -> f64 {
        if cfg.router_vcpu.is_none() {
            return 0.0;
        }
        let blocks = self.prompt_tokens / cfg.block_size as f64;
        self.requests * (cfg.router_cpu_us_fixed + 1.0) + blocks * cfg.router_cpu_us_per_block
    }

    /// The KV bytes of moving every prompt once over `link`.
    pub fn transfer_bytes(&self, link: &LinkCost) -> f64 {
        self.prompt_tokens * link.bytes_per_token as f64
    }
}

/// What one KV transfer costs on a disaggregated fleet's link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkCost {
    /// KV bytes per prompt token.
    pub bytes_per_token: u64,
    /// Link bandwidth, GB/s (10^9 bytes per second: 1000 bytes per µs at 1 GB/s).
    pub gbps: f64,
    /// Fixed cost of one transfer, µs.
    pub base_us: f64,
}

/// `Ok` when every prompt's KV moved once over `link` stays below `MAX_TRANSFER_BYTES`.
pub fn check_transfer_bytes(work: &Work, link: &LinkCost) -> Result<(), String> {
    let bytes = work.transfer_bytes(link);
    if bytes < MAX_TRANSFER_BYTES {
        return Ok(());
    }
    Err(format!(
        "its KV transfers could move {} B ({} prompt tokens at {} B each), beyond the \
         simulator's count of 2^63 B",
        compact(bytes),
        compact(work.prompt_tokens),
        link.bytes_per_token
    ))
}

/// A worst-case end time, split into its parts for the message.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Horizon {
    /// Latest arrival (or session start), µs.
    pub arrivals_us: f64,
    /// Engine time, µs.
    pub busy_us: f64,
    /// Think times a task may wait, µs.
    pub think_us: f64,
    /// KV transfers end to end on one link (0 on a colocated fleet), µs.
    pub transfer_us: f64,
    /// Every request's router CPU time end to end on one core (0 for a free router), µs.
    pub router_us: f64,
}

impl Horizon {
    /// The worst-case end of the run, µs.
    pub fn end_us(&self) -> f64 {
        self.arrivals_us + self.busy_us + self.think_us + self.transfer_us + self.router_us
    }

    /// `Ok` when the run cannot reach the clock's horizon, else what to say about it.
    pub fn check(&self) -> Result<(), String> {
        let end = self.end_us();
        if end.is_finite() && end < MAX_TIME_US as f64 {
            return Ok(());
        }
        let mut why = format!(
            "in the worst case it could last {} (arrivals until {}, engine time {}",
            years(end),
            years(self.arrivals_us),
            years(self.busy_us)
        );
        if self.think_us > 0.0 {
            let _ = write!(why, ", think times {}", years(self.think_us));
        }
        if self.transfer_us > 0.0 {
            let _ = write!(why, ", KV transfers {}", years(self.transfer_us));
        }
        if self.router_us > 0.0 {
            let _ = write!(why, ", router CPU {}", years(self.router_us));
        }
        let _ = write!(
            why,
            "), beyond the simulator's clock of 2^62 µs (about {})",
            years(MAX_TIME_US as f64)
        );
        Err(why)
    }
}

/// A duration in µs, in years (or seconds when short), for messages.
pub fn years(us: f64) -> String {
    let s = us / 1e6;
    if !s.is_finite() {
        return "forever".to_string();
    }
    let y = s / (365.25 * 86_400.0);
    if y >= 1.0 {
        format!("{} years", compact(y))
    } else {
        format!("{} s", compact(s))
    }
}

/// A number for a message: whole below 10^7 from 100 on, 3 significant digits below,
/// an exponent above.
pub fn compact(x: f64) -> String {
    let a = x.abs();
    if a >= 1e7 {
        format!("{x:.3e}")
    } else if a >= 100.0 || x.fract() == 0.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::EnginePreset;

    #[test]
    fn the_busy_bound_covers_a_hand_worked_request() {
        // One request, 1024 prompt + 100 output tokens, 8B preset, budget 8192: the real
        // run is one prefill step (6000 + 1024 x 32 = 38,768 µs) and 99 decode steps of
        // 6000 + 20 + 0.049 x (1025..=1123) µs (595,980 + 5,210), 639,958 µs in all. The
        // bound counts 1024/8192 + 1 + 100 = 101.125 steps at 6001 µs, every prefill and
        // decode cost, and 100 x 1124 KV reads:
        // 606,851.125 + 32,768 + 2,000 + 5,507.6 = 647,126.725 µs.
        let t = EnginePreset::Llama3_8bH100.timing();
        let mut w = Work::default();
        w.add(1.0, 1024.0, 100.0);
        let bound = w.busy_bound_us(&t, 8192);
        assert!((bound - 647_126.725).abs() < 0.01, "{bound}");
        let real = t.step_us(1024, 0, 0) + t.decode_run_us(99, 1, 1025);
        assert!(real as f64 <= bound, "{real} > {bound}");
    }

    #[test]
    fn the_busy_bound_covers_the_polynomial_phases() {
        // The same request on dynamo-mocker (unbounded: u = 0): one prefill step of
        // 1024 tokens with the first token, 0.44145 + 15.54784 + 16.50142 + 5.74 =
        // 38.23071 ms, then 99 decode steps of 5.74 ms: 606,491 µs in all. The bound:
        // 101.125 steps at 1 µs; 1.125 prefill steps at the full budget (28.25276 +
        // 124.38274 + 16.50142 = 169.13692 ms) = 190,279.03 µs; 101.125 decode steps at
        // 5.74 + 54.01 + 25.74 = 85.49 ms = 8,645,176.25 µs; 8,835,556.4 µs in all.
        let t = EnginePreset::DynamoMocker.timing();
        let mut w = Work::default();
        w.add(1.0, 1024.0, 100.0);
        let bound = w.busy_bound_us(&t, 8192);
        assert!((bound - 8_835_556.4).abs() < 0.1, "{bound}");
        let real = t.pass_us(1024, 0, 0, 1) + t.decode_run_us(99, 1, 1025);
        assert_eq!(real, 38_231 + 568_260);
        assert!(real as f64 <= bound, "{real} > {bound}");
    }

    #[test]
    fn the_transfer_bound_covers_hand_worked_transfers() {
        // Two prompts of 1000 tokens at 1000 B each over 1 GB/s (1000 B/µs) with a 50 µs
        // base: each transfer is 50 + 1000 = 1050 µs on the wire, 2100 µs end to end. The
        // bound adds 1 µs of rounding per transfer: 2 x 51 + 2,000,000 / 1000 = 2102 µs.
        let link = LinkCost {
            bytes_per_token: 1000,
            gbps: 1.0,
            base_us: 50.0,
        };
        let mut w = Work::default();
        w.add(2.0, 1000.0, 7.0);
        assert_eq!(w.transfer_bound_us(&link), 2102.0);
        let real = 2 * crate::config::transfer_us(1000, 1000, 1.0, 50.0);
        assert!(real as f64 <= w.transfer_bound_us(&link), "{real}");
        assert_eq!(w.transfer_bytes(&link), 2e6);
        // 22 prompts of 4,294,967,295 tokens at 10^8 B: 9.45e18 B, past 2^63 (9.22e18).
        let big = LinkCost {
            bytes_per_token: 100_000_000,
            ..link
        };
        let mut w = Work::default();
        w.add(21.0, 4_294_967_295.0, 1.0);
        assert!(check_transfer_bytes(&w, &big).is_ok());
        w.add(1.0, 4_294_967_295.0, 1.0);
        let why = check_transfer_bytes(&w, &big).unwrap_err();
        assert!(
            why.contains("2^63 B") && why.contains("9.449e18 B"),
            "{why}"
        );
    }

    #[test]
    fn horizons_beyond_the_clock_are_refused_with_their_parts() {
        let ok = Horizon {
            arrivals_us: 1e6,
            busy_us: 1e6,
            think_us: 0.0,
            transfer_us: 0.0,
            router_us: 0.0,
        };
        assert!(ok.check().is_ok());
        let long = Horizon {
            arrivals_us: 1e6,
            busy_us: 1e19,
            think_us: 0.0,
            transfer_us: 0.0,
            router_us: 0.0,
        };
        let why = long.check().unwrap_err();
        assert!(
            why.contains("2^62 µs") && why.contains("316881 years"),
            "{why}"
        );
        // A router whose cores would take longer than the clock is named.
        let router = Horizon {
            busy_us: 1e6,
            router_us: 1e19,
            ..long
        };
        let why = router.check().unwrap_err();
        assert!(why.contains("router CPU 316881 years"), "{why}");
        assert!(years(f64::INFINITY) == "forever");
    }
}
