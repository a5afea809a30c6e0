//! Engine step-time model: `step = fixed + prefill tokens + decode sequences + KV read`,
//! with named presets derived from a roofline, and closed-form sums over decode runs.
//!
//! Roofline derivations (bf16 weights and KV, H100 SXM: 989 TFLOP/s dense bf16, 3.35 TB/s
//! HBM; we assume 80 % of peak bandwidth and 50 % of peak FLOP/s are achievable):
//!
//! * `llama3-8b-h100` (Llama-3-8B, one H100):
//!   - fixed: every step streams the 8.03 B x 2 B = 16.1 GB of weights:
//!     16.1 GB / (0.8 x 3.35 TB/s) = 6.0 ms, so `step_fixed_us = 6000`;
//!   - prefill: 2 x 8.03 GFLOP = 16.1 GFLOP per token at 0.5 x 989 TFLOP/s = 32 µs;
//!   - decode: the same 16.1 GFLOP per sequence per step, but most of it hides under
//!     the weight stream at the batch sizes seen here; we charge 20 µs of marginal cost
//!     (sampling, activations, the un-hidden share of the matmuls);
//!   - KV read: 32 layers x 8 KV heads x 128 dims x 2 (K and V) x 2 B = 128 KiB per
//!     token; 131,072 B / (0.8 x 3.35 TB/s) = 49 ns per token read.
//! * `llama3-70b-4xh100` (Llama-3-70B, tensor parallel over 4 H100):
//!   - fixed: 70.6 B x 2 B = 141 GB over 4 x 2.68 TB/s = 13.2 ms, plus about 0.8 ms of
//!     all-reduce per step: `step_fixed_us = 14000`;
//!   - prefill: 141 GFLOP per token over 4 x 495 TFLOP/s = 71 µs;
//!   - decode: 50 µs marginal per sequence;
//!   - KV read: 80 layers x 8 x 128 x 2 x 2 B = 320 KiB per token, spread over 4 GPUs:
//!     327,680 B / (4 x 2.68 TB/s) = 31 ns per token read.
//! * `custom`: the four coefficients given in the config.

use serde::{Deserialize, Serialize};

/// A named engine (model x GPU) timing preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EnginePreset {
    /// Llama-3-8B on one H100.
    #[serde(rename = "llama3-8b-h100")]
    Llama3_8bH100,
    /// Llama-3-70B on four H100 (tensor parallel).
    #[serde(rename = "llama3-70b-4xh100")]
    Llama3_70b4xH100,
    /// The coefficients given in the config.
    #[serde(rename = "custom")]
    Custom,
}

/// Step-time coefficients.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Fixed cost of one engine step (weight streaming, launch), microseconds.
    pub step_fixed_us: f64,
    /// Cost of one prefill token, microseconds.
    pub prefill_token_us: f64,
    /// Marginal cost of one decoding sequence in a step, microseconds.
    pub decode_seq_us: f64,
    /// Cost of reading one token of KV in decode attention, nanoseconds.
    pub kv_read_token_ns: f64,
}

impl EnginePreset {
    /// Every preset, as listed in `--help` and the page.
    pub const ALL: [EnginePreset; 3] = [
        EnginePreset::Llama3_8bH100,
        EnginePreset::Llama3_70b4xH100,
        EnginePreset::Custom,
    ];

    /// The preset's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            EnginePreset::Llama3_8bH100 => "llama3-8b-h100",
            EnginePreset::Llama3_70b4xH100 => "llama3-70b-4xh100",
            EnginePreset::Custom => "custom",
        }
    }

    /// Parses a preset name.
    pub fn parse(text: &str) -> Option<EnginePreset> {
        EnginePreset::ALL.into_iter().find(|p| p.name() == text)
    }

    /// The preset's coefficients (for `custom`, the 8B ones; the config overrides them).
    pub fn timing(self) -> Timing {
        match self {
            EnginePreset::Llama3_8bH100 | EnginePreset::Custom => Timing {
                step_fixed_us: 6000.0,
                prefill_token_us: 32.0,
                decode_seq_us: 20.0,
                kv_read_token_ns: 49.0,
            },
            EnginePreset::Llama3_70b4xH100 => Timing {
                step_fixed_us: 14000.0,
                prefill_token_us: 71.0,
                decode_seq_us: 50.0,
                kv_read_token_ns: 31.0,
            },
        }
    }
}

impl Timing {
    /// Duration of one step, microseconds (rounded up, at least 1).
    pub fn step_us(&self, prefill_tokens: u64, decode_seqs: u64, kv_tokens_read: u64) -> u64 {
        let us = self.step_fixed_us
            + self.prefill_token_us * prefill_tokens as f64
            + self.decode_seq_us * decode_seqs as f64
            + self.kv_read_token_ns * kv_tokens_read as f64 / 1000.0;
        (libm::ceil(us) as u64).max(1)
    }

    /// Total duration of `steps` pure-decode steps of `seqs` sequences whose KV starts at
    /// `kv_tokens` and grows by `seqs` tokens per step, in closed form:
    /// `steps x base + c x (steps x kv + seqs x steps(steps-1)/2)`.
    pub fn decode_run_us(&self, steps: u64, seqs: u64, kv_tokens: u64) -> u64 {
        if steps == 0 {
            return 0;
        }
        let per_step_us = self.step_fixed_us + self.decode_seq_us * seqs as f64;
        let kv_sum = steps as f64 * kv_tokens as f64
            + seqs as f64 * (steps as f64 * (steps as f64 - 1.0) / 2.0);
        let us = per_step_us * steps as f64 + self.kv_read_token_ns * kv_sum / 1000.0;
        (libm::ceil(us) as u64).max(steps)
    }

    /// The number of whole decode steps of a run that have finished by `elapsed_us`
    /// after its start (at most `max_steps`), found by bisection on `decode_run_us`.
    pub fn decode_steps_within(
        &self,
        elapsed_us: u64,
        max_steps: u64,
        seqs: u64,
        kv_tokens: u64,
    ) -> u64 {
        let (mut lo, mut hi) = (0u64, max_steps);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if self.decode_run_us(mid, seqs, kv_tokens) <= elapsed_us {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_run_matches_step_by_step_sum() {
        let t = EnginePreset::Llama3_8bH100.timing();
        let mut total = 0.0;
        for i in 0..100u64 {
            total += t.step_fixed_us
                + t.decode_seq_us * 7.0
                + t.kv_read_token_ns * (5000 + 7 * i) as f64 / 1000.0;
        }
        let closed = t.decode_run_us(100, 7, 5000);
        assert!((closed as f64 - total).abs() <= 1.0, "{closed} vs {total}");
    }

    #[test]
    fn presets_carry_the_roofline_coefficients_and_parse_by_name() {
        // The README's table (derived in this module's notes).
        let eight = EnginePreset::parse("llama3-8b-h100").unwrap().timing();
        assert_eq!(
            (eight.step_fixed_us, eight.prefill_token_us),
            (6000.0, 32.0)
        );
        assert_eq!((eight.decode_seq_us, eight.kv_read_token_ns), (20.0, 49.0));
        let seventy = EnginePreset::parse("llama3-70b-4xh100").unwrap().timing();
        assert_eq!(
            (seventy.step_fixed_us, seventy.prefill_token_us),
            (14000.0, 71.0)
        );
        assert_eq!(
            (seventy.decode_seq_us, seventy.kv_read_token_ns),
            (50.0, 31.0)
        );
        assert_eq!(EnginePreset::parse("custom"), Some(EnginePreset::Custom));
        assert_eq!(
            EnginePreset::Custom.timing(),
            eight,
            "custom starts from 8B"
        );
        assert_eq!(EnginePreset::parse("llama3-8b"), None);
        assert_eq!(EnginePreset::parse(""), None);
        let names: Vec<&str> = EnginePreset::ALL.iter().map(|p| p.name()).collect();
        assert_eq!(names, ["llama3-8b-h100", "llama3-70b-4xh100", "custom"]);
    }

    #[test]
    fn a_mixed_step_adds_every_term() {
        // 8B: 6000 + 100 x 32 + 3 x 20 + 2000 x 49 / 1000 = 6000 + 3200 + 60 + 98
        // = 9,358 µs; 70B: 14000 + 7100 + 150 + 62 = 21,312 µs. A fraction rounds up:
        // 8B, 1 sequence reading 10 tokens: 6000 + 20 + 0.49 = 6,020.49 -> 6,021 µs.
        let eight = EnginePreset::Llama3_8bH100.timing();
        assert_eq!(eight.step_us(100, 3, 2000), 9_358);
        assert_eq!(
            EnginePreset::Llama3_70b4xH100
                .timing()
                .step_us(100, 3, 2000),
            21_312
        );
        assert_eq!(eight.step_us(0, 1, 10), 6_021);
        assert_eq!(eight.step_us(0, 0, 0), 6_000);
        // A free engine still takes 1 µs per step, so time always moves.
        let free = Timing {
            step_fixed_us: 0.0,
            prefill_token_us: 0.0,
            decode_seq_us: 0.0,
            kv_read_token_ns: 0.0,
        };
        assert_eq!(free.step_us(5, 5, 5), 1);
        assert_eq!(free.decode_run_us(7, 2, 100), 7);
        assert_eq!(eight.decode_run_us(0, 3, 100), 0);
    }

    #[test]
    fn a_decode_run_worked_by_hand() {
        // 3 steps of 2 sequences from 1000 KV tokens, 8B: per step 6000 + 2 x 20 = 6040,
        // KV read 49 ns x (1000 + 1002 + 1004) = 147,294 ns = 147.294 µs:
        // 18,120 + 147.294 = 18,267.294 -> 18,268 µs.
        let t = EnginePreset::Llama3_8bH100.timing();
        assert_eq!(t.decode_run_us(3, 2, 1000), 18_268);
        // One step is one plain step: 6000 + 40 + 98 = 6,138 µs.
        assert_eq!(t.decode_run_us(1, 2, 2000), t.step_us(0, 2, 2000));
        assert_eq!(t.decode_run_us(1, 2, 2000), 6_138);
        // Within a run: the first step ends at 6,040 + 49 = 6,089 µs, the second at
        // 6,089 + 6,040 + 49.098 = 12,178.098 -> 12,179.
        assert_eq!(t.decode_steps_within(6_088, 3, 2, 1000), 0);
        assert_eq!(t.decode_steps_within(6_089, 3, 2, 1000), 1);
        assert_eq!(t.decode_steps_within(12_178, 3, 2, 1000), 1);
        assert_eq!(t.decode_steps_within(12_179, 3, 2, 1000), 2);
        assert_eq!(
            t.decode_steps_within(u64::MAX, 3, 2, 1000),
            3,
            "at most the run"
        );
    }

    #[test]
    fn steps_within_inverts_run_time() {
        let t = EnginePreset::Llama3_70b4xH100.timing();
        let run = t.decode_run_us(37, 3, 1000);
        assert_eq!(t.decode_steps_within(run, 100, 3, 1000), 37);
        assert_eq!(t.decode_steps_within(run - 1, 100, 3, 1000), 36);
        assert_eq!(t.decode_steps_within(0, 100, 3, 1000), 0);
    }
}
