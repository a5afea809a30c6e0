//! Engine step-time model: `step = fixed + prefill tokens + decode sequences + KV read`,
//! with named presets derived from a roofline, each replica's hardware (GPUs, HBM,
//! weights, KV bytes per token, for `--des-kv-blocks auto` and the planner's cost), and
//! closed-form sums over decode runs.
//!
//! Every preset is bf16 weights and KV, and follows one set of rules. We assume 80 % of
//! peak HBM bandwidth and 50 % of peak dense bf16 FLOP/s are achievable; a replica of `n`
//! GPUs is tensor parallel, splitting weights, FLOPs and KV over them.
//! - fixed: every step streams all weights once: weight bytes / (n x 0.8 x bandwidth),
//!   plus 0.2 ms of all-reduce per GPU when n > 1, rounded to the nearest 100 µs;
//! - prefill: 2 x active parameters FLOP per token / (n x 0.5 x FLOP/s), nearest µs;
//! - decode: the marginal cost of one more sequence in a step (sampling, activations, the
//!   share of its matmuls the weight stream does not hide): 5/8 of a prefill token
//!   (the ratio of the first preset, 20 µs against 32), nearest µs;
//! - KV read: layers x KV heads x head dim x 2 (K and V) x 2 B per token /
//!   (n x 0.8 x bandwidth), nearest ns.
//!
//! Hardware (datasheet figures, dense bf16):
//! - NVIDIA H100 SXM: 80 GB HBM3, 3.35 TB/s, 989 TFLOP/s (H100 datasheet);
//! - NVIDIA H200 SXM: 141 GB HBM3e, 4.8 TB/s, 989 TFLOP/s (H200 datasheet; 1,979 with
//!   sparsity);
//! - NVIDIA B200 (HGX B200): 180 GB HBM3e, 7.7 TB/s, 2,250 TFLOP/s (HGX B200 datasheet's
//!   per-GPU table: 4.5 PFLOP/s FP16/BF16 with sparsity);
//! - AMD Instinct MI300X: 192 GB HBM3, 5.3 TB/s, 1,307.4 TFLOP/s (MI300X datasheet;
//!   2,614.9 with sparsity).
//!
//! Models (from their Hugging Face `config.json`):
//! - Llama-3-8B: 8.03 B parameters, 32 layers, 8 KV heads x 128: 131,072 B of KV per token;
//! - Llama-3-70B: 70.6 B, 80 layers, 8 x 128: 327,680 B per token;
//! - Mixtral-8x7B (mixture of experts): 46.7 B parameters in all, 12.9 B active per token
//!   (2 of 8 experts), 32 layers, 8 x 128: 131,072 B per token. Prefill FLOPs follow the
//!   active parameters; the fixed cost streams all 46.7 B, because at the batch sizes
//!   simulated here nearly every expert is used in every step.
//!
//! Worked through for the first two presets (the others are in `presets_follow_from_the_hardware`):
//! - `llama3-8b-h100`: 16.06 GB / (0.8 x 3.35 TB/s) = 5.99 ms -> 6000 µs; 16.06 GFLOP /
//!   494.5 TFLOP/s = 32.5 -> 32 µs; 131,072 B / 2.68 TB/s = 48.9 -> 49 ns; decode 20 µs.
//! - `llama3-70b-4xh100`: 141.2 GB / (4 x 2.68 TB/s) = 13.17 ms + 0.8 ms -> 14,000 µs;
//!   141.2 GFLOP / (4 x 494.5) = 71.4 -> 71 µs; 327,680 B / 10.72 TB/s = 30.6 -> 31 ns.
//!   Its decode charge, 50 µs, predates the 5/8 rule (which gives 45) and is kept, so
//!   every earlier result stays comparable.
//! - `custom`: the four coefficients given in the config (no hardware).
//!
//! KV capacity (`--des-kv-blocks auto`): vLLM's default `gpu_memory_utilization` of 0.9
//! leaves 10 % of HBM for activations and the runtime, so a replica holds
//! (0.9 x n x HBM - weights) / (KV bytes per token x block size) blocks, rounded down
//! (GB here are 10^9 bytes, as the datasheets count them).

use serde::{Deserialize, Serialize};

/// A named engine (model x GPU) timing preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum EnginePreset {
    /// Llama-3-8B on one H100.
    #[serde(rename = "llama3-8b-h100")]
    Llama3_8bH100,
    /// Llama-3-70B on four H100 (tensor parallel).
    #[serde(rename = "llama3-70b-4xh100")]
    Llama3_70b4xH100,
    /// Llama-3-8B on one H200.
    #[serde(rename = "llama3-8b-h200")]
    Llama3_8bH200,
    /// Llama-3-8B on one MI300X.
    #[serde(rename = "llama3-8b-mi300x")]
    Llama3_8bMi300x,
    /// Llama-3-8B on one B200.
    #[serde(rename = "llama3-8b-b200")]
    Llama3_8bB200,
    /// Llama-3-70B on two H200 (tensor parallel).
    #[serde(rename = "llama3-70b-2xh200")]
    Llama3_70b2xH200,
    /// Llama-3-70B on one MI300X.
    #[serde(rename = "llama3-70b-mi300x")]
    Llama3_70bMi300x,
    /// Llama-3-70B on two B200 (tensor parallel).
    #[serde(rename = "llama3-70b-2xb200")]
    Llama3_70b2xB200,
    /// Mixtral-8x7B on one H200.
    #[serde(rename = "mixtral-8x7b-h200")]
    Mixtral8x7bH200,
    /// Mixtral-8x7B on one MI300X.
    #[serde(rename = "mixtral-8x7b-mi300x")]
    Mixtral8x7bMi300x,
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

/// What one replica of a preset runs on.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Hardware {
    /// The accelerator's name.
    pub gpu: &'static str,
    /// GPUs per replica (tensor parallel).
    pub gpus: u32,
    /// HBM per GPU, GB (10^9 bytes).
    pub hbm_gb: f64,
    /// The model's weights, GB (bf16).
    pub weights_gb: f64,
    /// KV cache bytes per token (bf16, all layers).
    pub kv_bytes_per_token: u64,
}

/// Share of HBM left for KV: vLLM's default `gpu_memory_utilization`.
pub const KV_HBM_SHARE: f64 = 0.9;

/// One row of the preset table.
struct Spec {
    preset: EnginePreset,
    name: &'static str,
    timing: Timing,
    hardware: Option<Hardware>,
}

const fn t(step_fixed_us: f64, prefill_token_us: f64, decode_seq_us: f64, kv: f64) -> Timing {
    Timing {
        step_fixed_us,
        prefill_token_us,
        decode_seq_us,
        kv_read_token_ns: kv,
    }
}

const fn hw(
    gpu: &'static str,
    gpus: u32,
    hbm_gb: f64,
    weights_gb: f64,
    kv: u64,
) -> Option<Hardware> {
    Some(Hardware {
        gpu,
        gpus,
        hbm_gb,
        weights_gb,
        kv_bytes_per_token: kv,
    })
}

const KV_8B: u64 = 131_072;
const KV_70B: u64 = 327_680;
const KV_MIXTRAL: u64 = 131_072;
const W_8B: f64 = 16.06;
const W_70B: f64 = 141.2;
const W_MIXTRAL: f64 = 93.4;

use EnginePreset as P;

const SPECS: [Spec; 11] = [
    Spec {
        preset: P::Llama3_8bH100,
        name: "llama3-8b-h100",
        timing: t(6000.0, 32.0, 20.0, 49.0),
        hardware: hw("H100 SXM", 1, 80.0, W_8B, KV_8B),
    },
    Spec {
        preset: P::Llama3_70b4xH100,
        name: "llama3-70b-4xh100",
        timing: t(14000.0, 71.0, 50.0, 31.0),
        hardware: hw("H100 SXM", 4, 80.0, W_70B, KV_70B),
    },
    Spec {
        preset: P::Llama3_8bH200,
        name: "llama3-8b-h200",
        timing: t(4200.0, 32.0, 20.0, 34.0),
        hardware: hw("H200 SXM", 1, 141.0, W_8B, KV_8B),
    },
    Spec {
        preset: P::Llama3_8bMi300x,
        name: "llama3-8b-mi300x",
        timing: t(3800.0, 25.0, 15.0, 31.0),
        hardware: hw("MI300X", 1, 192.0, W_8B, KV_8B),
    },
    Spec {
        preset: P::Llama3_8bB200,
        name: "llama3-8b-b200",
        timing: t(2600.0, 14.0, 9.0, 21.0),
        hardware: hw("B200", 1, 180.0, W_8B, KV_8B),
    },
    Spec {
        preset: P::Llama3_70b2xH200,
        name: "llama3-70b-2xh200",
        timing: t(18800.0, 143.0, 89.0, 43.0),
        hardware: hw("H200 SXM", 2, 141.0, W_70B, KV_70B),
    },
    Spec {
        preset: P::Llama3_70bMi300x,
        name: "llama3-70b-mi300x",
        timing: t(33300.0, 216.0, 135.0, 77.0),
        hardware: hw("MI300X", 1, 192.0, W_70B, KV_70B),
    },
    Spec {
        preset: P::Llama3_70b2xB200,
        name: "llama3-70b-2xb200",
        timing: t(11900.0, 63.0, 39.0, 27.0),
        hardware: hw("B200", 2, 180.0, W_70B, KV_70B),
    },
    Spec {
        preset: P::Mixtral8x7bH200,
        name: "mixtral-8x7b-h200",
        timing: t(24300.0, 52.0, 33.0, 34.0),
        hardware: hw("H200 SXM", 1, 141.0, W_MIXTRAL, KV_MIXTRAL),
    },
    Spec {
        preset: P::Mixtral8x7bMi300x,
        name: "mixtral-8x7b-mi300x",
        timing: t(22000.0, 39.0, 25.0, 31.0),
        hardware: hw("MI300X", 1, 192.0, W_MIXTRAL, KV_MIXTRAL),
    },
    Spec {
        preset: P::Custom,
        name: "custom",
        timing: t(6000.0, 32.0, 20.0, 49.0),
        hardware: None,
    },
];

impl EnginePreset {
    /// Every preset, as listed in `--help` and the page.
    pub const ALL: [EnginePreset; 11] = [
        P::Llama3_8bH100,
        P::Llama3_70b4xH100,
        P::Llama3_8bH200,
        P::Llama3_8bMi300x,
        P::Llama3_8bB200,
        P::Llama3_70b2xH200,
        P::Llama3_70bMi300x,
        P::Llama3_70b2xB200,
        P::Mixtral8x7bH200,
        P::Mixtral8x7bMi300x,
        P::Custom,
    ];

    fn spec(self) -> &'static Spec {
        SPECS
            .iter()
            .find(|s| s.preset == self)
            .expect("every preset has a row")
    }

    /// The preset's name on the command line.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// Every preset's name, comma separated (for error messages and help).
    pub fn names() -> String {
        SPECS.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
    }

    /// Parses a preset name.
    pub fn parse(text: &str) -> Option<EnginePreset> {
        SPECS.iter().find(|s| s.name == text).map(|s| s.preset)
    }

    /// The preset's coefficients (for `custom`, the 8B H100 ones; the config overrides
    /// them).
    pub fn timing(self) -> Timing {
        self.spec().timing
    }

    /// What one replica runs on (`None` for `custom`).
    pub fn hardware(self) -> Option<Hardware> {
        self.spec().hardware
    }

    /// GPUs per replica (1 for `custom`).
    pub fn gpus(self) -> u32 {
        self.hardware().map_or(1, |h| h.gpus)
    }

    /// The KV blocks of `block_size` tokens one replica holds (`None` for `custom`):
    /// (0.9 x HBM - weights) / (KV bytes per token x block size), rounded down.
    pub fn kv_blocks(self, block_size: u32) -> Option<u64> {
        let h = self.hardware()?;
        let free_bytes = (KV_HBM_SHARE * h.gpus as f64 * h.hbm_gb - h.weights_gb) * 1e9;
        let block_bytes = h.kv_bytes_per_token as f64 * block_size.max(1) as f64;
        Some(libm::floor(free_bytes / block_bytes).max(0.0) as u64)
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
mod tests;
