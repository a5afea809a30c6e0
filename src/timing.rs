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
//! - `custom`: the coefficients given in the config (no hardware).
//!
//! The polynomial phases (the form Dynamo's mocker times its steps with, and the form a
//! user's own measurements can be fitted to): a step that computes T > 0 prompt tokens
//! adds `prefill_poly_ms` = [c0, c1, c2] as c0 + c1·T + c2·T² ms (units ms, ms per
//! token, ms per token²); a step in which at least one sequence emits a token (a decoding
//! sequence, or a prompt whose last chunk the step computes) adds `decode_poly_ms` =
//! [d0, d1, d2] as d0 + d1·u + d2·u² ms, with u the KV utilisation: the decoding
//! sequences' context tokens over the replica's KV capacity in tokens (0 when the cache
//! is unbounded). The roofline presets leave both at 0.
//! - `dynamo-mocker`: the default timing of NVIDIA Dynamo's mocker, `PerfModel::Polynomial`
//!   in ai-dynamo 1.4.2's `lib/mocker/src/common/perf_model.rs` (the same coefficients
//!   at ai-dynamo/dynamo commit f80944a4c0c32d6e8ba9ab7a58a399eae18a053a)
//!   (`predict_prefill_aggregates`, `predict_decode_aggregates`): prefill
//!   4.209989e-7·T² + 1.518344e-2·T + 16.50142 ms over the step's new tokens, decode
//!   −25.74·u² + 54.01·u + 5.74 ms over the active KV blocks over the KV capacity
//!   (`max(1, ·)`, which never binds for u in [0, 1]); every linear coefficient 0. So a
//!   chunk of 8,192 new tokens takes 169.137 ms, and decode 5.74 ms a step whatever the
//!   batch when the cache is much larger than the batch's KV. Checked against Dynamo's
//!   replay: its first synthetic request (40,160 tokens, no cache, alone) has TTFT
//!   4 × 169.137 + 151.741 (7,392 tokens) + 5.740 = 834.03 ms, as Dynamo reports.
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
    /// Dynamo's mocker engine (its default polynomial timing; no hardware).
    #[serde(rename = "dynamo-mocker")]
    DynamoMocker,
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
    /// The prefill phase, charged in a step that computes T > 0 prompt tokens:
    /// c0 + c1·T + c2·T² milliseconds ([ms, ms/token, ms/token²]).
    pub prefill_poly_ms: [f64; 3],
    /// The decode phase, charged in a step in which a sequence emits a token:
    /// d0 + d1·u + d2·u² milliseconds over the KV utilisation u ([ms, ms, ms]).
    pub decode_poly_ms: [f64; 3],
    /// The KV capacity u is taken over, tokens (0: unbounded, u = 0). The engine sets it
    /// from the cache; not a coefficient.
    #[serde(skip)]
    pub kv_capacity_tokens: f64,
}

/// No polynomial phase.
pub const NO_POLY: [f64; 3] = [0.0; 3];

/// Dynamo's mocker's prefill polynomial, [ms, ms/token, ms/token²].
pub const DYNAMO_PREFILL_POLY_MS: [f64; 3] = [16.50142, 1.518344e-2, 4.209989e-7];
/// Dynamo's mocker's decode polynomial over the KV utilisation, [ms, ms, ms].
pub const DYNAMO_DECODE_POLY_MS: [f64; 3] = [5.74, 54.01, -25.74];

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
    /// Assumed price of one of its GPUs for one hour, US dollars (`GPU_HOUR_USD_SOURCE`).
    pub gpu_hour_usd: f64,
}

/// Price of one GPU-hour for an engine that names no hardware (`custom`, `dynamo-mocker`):
/// an assumed round figure; every dollar figure of such a run scales with it.
pub const DEFAULT_GPU_HOUR_USD: f64 = 2.5;

/// Where the presets' GPU prices come from: on-demand list prices of one GPU for one hour,
/// an assumption a run overrides with `gpu_hour_usd` (`--des-gpu-hour-usd PRESET=USD`).
pub const GPU_HOUR_USD_SOURCE: &str = "RunPod's on-demand Secure Cloud list prices per GPU-hour \
(runpod.io/pricing, US dollars, as published in September-October 2026; the MI300X's as \
reported in October 2025)";

/// H100 SXM 80 GB, RunPod on-demand (Secure Cloud), $/GPU-hour.
pub const H100_GPU_HOUR_USD: f64 = 3.49;
/// H200 SXM 141 GB, RunPod on-demand (Secure Cloud), $/GPU-hour.
pub const H200_GPU_HOUR_USD: f64 = 4.59;
/// B200 180 GB, RunPod on-demand (Secure Cloud), $/GPU-hour.
pub const B200_GPU_HOUR_USD: f64 = 6.79;
/// MI300X 192 GB, RunPod on-demand, $/GPU-hour (deploybase.ai, "MI300X vs H100", 2025-10-07).
pub const MI300X_GPU_HOUR_USD: f64 = 3.49;

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
        prefill_poly_ms: NO_POLY,
        decode_poly_ms: NO_POLY,
        kv_capacity_tokens: 0.0,
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
        gpu_hour_usd: gpu_price(gpu),
    })
}

/// The assumed price of one GPU-hour of `gpu` (a preset's accelerator name).
const fn gpu_price(gpu: &str) -> f64 {
    match gpu.as_bytes() {
        b"H100 SXM" => H100_GPU_HOUR_USD,
        b"H200 SXM" => H200_GPU_HOUR_USD,
        b"B200" => B200_GPU_HOUR_USD,
        b"MI300X" => MI300X_GPU_HOUR_USD,
        _ => DEFAULT_GPU_HOUR_USD,
    }
}

const KV_8B: u64 = 131_072;
const KV_70B: u64 = 327_680;
const KV_MIXTRAL: u64 = 131_072;
const W_8B: f64 = 16.06;
const W_70B: f64 = 141.2;
const W_MIXTRAL: f64 = 93.4;

use EnginePreset as P;

const SPECS: [Spec; 12] = [
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
        preset: P::DynamoMocker,
        name: "dynamo-mocker",
        timing: Timing {
            prefill_poly_ms: DYNAMO_PREFILL_POLY_MS,
            decode_poly_ms: DYNAMO_DECODE_POLY_MS,
            ..t(0.0, 0.0, 0.0, 0.0)
        },
        hardware: None,
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
    pub const ALL: [EnginePreset; 12] = [
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
        P::DynamoMocker,
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

    /// When a replica admits a waiting request and when a block it computes becomes
    /// reusable: `dynamo-mocker` schedules as Dynamo's mocker does, every other preset as
    /// kvfleet always has.
    pub fn step_admission(self) -> StepAdmission {
        match self {
            P::DynamoMocker => StepAdmission::InBudget,
            _ => StepAdmission::OnSlot,
        }
    }

    /// What one replica runs on (`None` for `custom` and `dynamo-mocker`).
    pub fn hardware(self) -> Option<Hardware> {
        self.spec().hardware
    }

    /// GPUs per replica (1 for `custom`).
    pub fn gpus(self) -> u32 {
        self.hardware().map_or(1, |h| h.gpus)
    }

    /// The assumed price of one of its GPUs for one hour, US dollars (`DEFAULT_GPU_HOUR_USD`
    /// without hardware).
    pub fn gpu_hour_usd(self) -> f64 {
        self.hardware()
            .map_or(DEFAULT_GPU_HOUR_USD, |h| h.gpu_hour_usd)
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

/// How a replica admits waiting requests and when the blocks a step computes can be
/// reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepAdmission {
    /// At each step boundary the waiting head takes a free slot (and its KV room) at
    /// once, with the blocks already computed as its hit; a block becomes reusable (by a
    /// later admission, and in the router's index) once the step that computes it has run.
    OnSlot,
    /// Dynamo's mocker (vLLM's scheduler): a step schedules the running requests' chunks
    /// first, and a waiting request is admitted only while the step's token budget has
    /// room left, taking its first chunk from it; a block becomes reusable when the step
    /// that computes it is scheduled, so a request admitted behind another in the same
    /// step counts the other's blocks of that step as hits (ai-dynamo 1.4.2: checked
    /// against its replay, see `tests/mocker_engine.rs`).
    InBudget,
}

/// A duration rounded up to whole microseconds, forgiving the last bits of floating-point
/// error (5.74 ms × 5 is 28,700.000000000004 µs in binary: 28,700 µs, not 28,701). The
/// coefficients' products are whole nanoseconds or coarser, far from the 1 ps forgiven.
fn whole_us(us: f64) -> u64 {
    libm::ceil(us - 1e-6) as u64
}

/// Largest magnitude of a polynomial coefficient.
pub const MAX_POLY_COEFFICIENT: f64 = 1e6;

/// Parses a polynomial's three coefficients, `C0,C1,C2`.
pub fn parse_poly(text: &str) -> Result<[f64; 3], String> {
    let bad = || format!("three numbers C0,C1,C2 (got `{text}`)");
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() != 3 {
        return Err(bad());
    }
    let mut out = NO_POLY;
    for (slot, part) in out.iter_mut().zip(&parts) {
        *slot = part.parse::<f64>().map_err(|_| bad())?;
    }
    Ok(out)
}

/// Why a polynomial phase is not allowed, if it is not: each coefficient finite and at
/// most `MAX_POLY_COEFFICIENT` in magnitude; the decode phase also at least 0 over every
/// utilisation from 0 to 1 (checked at both ends and at the parabola's vertex).
pub fn poly_problem(poly: [f64; 3], over_utilisation: bool) -> Option<String> {
    if poly
        .iter()
        .any(|c| !c.is_finite() || c.abs() > MAX_POLY_COEFFICIENT)
    {
        return Some(format!(
            "three finite coefficients, each at most {MAX_POLY_COEFFICIENT:e} in magnitude"
        ));
    }
    if !over_utilisation {
        return None;
    }
    let [d0, d1, d2] = poly;
    let at = |u: f64| d0 + d1 * u + d2 * u * u;
    let mut points = vec![0.0, 1.0];
    if d2 != 0.0 {
        let vertex = -d1 / (2.0 * d2);
        if (0.0..=1.0).contains(&vertex) {
            points.push(vertex);
        }
    }
    let low = points.into_iter().map(at).fold(f64::INFINITY, f64::min);
    (low < 0.0).then(|| {
        format!(
            "d0 + d1·u + d2·u² >= 0 ms for every utilisation u from 0 to 1 (it reaches {low:.4})"
        )
    })
}

impl Timing {
    /// Duration of one step in which every decoding sequence emits a token, microseconds
    /// (rounded up, at least 1).
    pub fn step_us(&self, prefill_tokens: u64, decode_seqs: u64, kv_tokens_read: u64) -> u64 {
        self.pass_us(prefill_tokens, decode_seqs, kv_tokens_read, decode_seqs)
    }

    /// Duration of one step in which `emitting` sequences emit a token (the decoding
    /// ones and the prompts whose last chunk the step computes), microseconds (rounded
    /// up, at least 1).
    pub fn pass_us(
        &self,
        prefill_tokens: u64,
        decode_seqs: u64,
        kv_tokens_read: u64,
        emitting: u64,
    ) -> u64 {
        let mut us = self.step_fixed_us
            + self.prefill_token_us * prefill_tokens as f64
            + self.decode_seq_us * decode_seqs as f64
            + self.kv_read_token_ns * kv_tokens_read as f64 / 1000.0;
        us += self.prefill_phase_us(prefill_tokens);
        if emitting > 0 {
            us += self.decode_phase_us(kv_tokens_read as f64);
        }
        whole_us(us).max(1)
    }

    /// The prefill phase of a step that computes `tokens` prompt tokens, microseconds (0
    /// for none; never negative).
    pub fn prefill_phase_us(&self, tokens: u64) -> f64 {
        if tokens == 0 || self.prefill_poly_ms == NO_POLY {
            return 0.0;
        }
        let t = tokens as f64;
        let [c0, c1, c2] = self.prefill_poly_ms;
        ((c0 + c1 * t + c2 * t * t) * 1000.0).max(0.0)
    }

    /// The KV utilisation of `kv_tokens` context tokens: a fraction of the cache, at most 1
    /// (0 when the cache is unbounded). The decoding sequences' tokens count a prefix they
    /// share once per sequence, so they can add up past the cache's size; Dynamo's mocker
    /// reads the fraction of its blocks in use, which cannot (and its decode polynomial
    /// turns negative past about 2.2).
    pub fn utilisation(&self, kv_tokens: f64) -> f64 {
        if self.kv_capacity_tokens > 0.0 {
            (kv_tokens / self.kv_capacity_tokens).min(1.0)
        } else {
            0.0
        }
    }

    /// The decode phase of a step whose decoding sequences hold `kv_tokens` of context,
    /// microseconds (validation keeps it non-negative for u in [0, 1]).
    pub fn decode_phase_us(&self, kv_tokens: f64) -> f64 {
        if self.decode_poly_ms == NO_POLY {
            return 0.0;
        }
        let u = self.utilisation(kv_tokens);
        let [d0, d1, d2] = self.decode_poly_ms;
        (d0 + d1 * u + d2 * u * u) * 1000.0
    }

    /// The decode phases of `steps` pure-decode steps whose KV starts at `kv_tokens` and
    /// grows by `seqs` a step, summed in closed form: with u_k = a + b·k (a = kv / C,
    /// b = seqs / C), Σu_k = n·a + b·n(n-1)/2 and Σu_k² = n·a² + 2ab·n(n-1)/2 +
    /// b²·(n-1)n(2n-1)/6, microseconds.
    /// Once the utilisation reaches 1 it stays there: those steps' phases are each the
    /// full cache's.
    fn decode_phases_us(&self, steps: u64, seqs: u64, kv_tokens: u64) -> f64 {
        if self.decode_poly_ms == NO_POLY {
            return 0.0;
        }
        let below = self.steps_below_full(steps, seqs, kv_tokens);
        let full_us = (steps - below) as f64 * self.decode_phase_us(self.kv_capacity_tokens);
        if below == 0 {
            return full_us;
        }
        let n = below as f64;
        let (a, b) = (
            self.utilisation(kv_tokens as f64),
            self.utilisation(seqs as f64),
        );
        let k1 = n * (n - 1.0) / 2.0;
        let k2 = (n - 1.0) * n * (2.0 * n - 1.0) / 6.0;
        let sum_u = n * a + b * k1;
        let sum_u2 = n * a * a + 2.0 * a * b * k1 + b * b * k2;
        let [d0, d1, d2] = self.decode_poly_ms;
        (d0 * n + d1 * sum_u + d2 * sum_u2) * 1000.0 + full_us
    }

    /// How many of a decode run's `steps` start below a full cache: step k reads
    /// `kv_tokens + k × seqs` tokens (every step when the cache is unbounded).
    fn steps_below_full(&self, steps: u64, seqs: u64, kv_tokens: u64) -> u64 {
        let cap = self.kv_capacity_tokens;
        if cap <= 0.0 || (kv_tokens + steps.saturating_sub(1) * seqs) as f64 / cap < 1.0 {
            return steps;
        }
        if kv_tokens as f64 >= cap {
            return 0;
        }
        // The first k with kv_tokens + k × seqs >= cap (seqs > 0 here, as the run grows).
        let k = ((cap - kv_tokens as f64) / seqs as f64).ceil() as u64;
        k.min(steps)
    }

    /// Total duration of `steps` pure-decode steps of `seqs` sequences whose KV starts at
    /// `kv_tokens` and grows by `seqs` tokens per step, in closed form:
    /// `steps x base + c x (steps x kv + seqs x steps(steps-1)/2)` plus the decode phases.
    pub fn decode_run_us(&self, steps: u64, seqs: u64, kv_tokens: u64) -> u64 {
        if steps == 0 {
            return 0;
        }
        let per_step_us = self.step_fixed_us + self.decode_seq_us * seqs as f64;
        let kv_sum = steps as f64 * kv_tokens as f64
            + seqs as f64 * (steps as f64 * (steps as f64 - 1.0) / 2.0);
        let mut us = per_step_us * steps as f64 + self.kv_read_token_ns * kv_sum / 1000.0;
        us += self.decode_phases_us(steps, seqs, kv_tokens);
        whole_us(us).max(steps)
    }

    /// The inter-token latencies of a decode run as a line: the first step's duration and
    /// the growth per step, microseconds (the utilisation's square bends the line a
    /// little: the growth is its secant over the run).
    pub fn itl_line_us(&self, steps: u64, seqs: u64, kv_tokens: u64) -> (f64, f64) {
        let first_us = self.step_fixed_us
            + self.decode_seq_us * seqs as f64
            + self.kv_read_token_ns * kv_tokens as f64 / 1000.0;
        let delta_us = self.kv_read_token_ns * seqs as f64 / 1000.0;
        if self.decode_poly_ms == NO_POLY {
            return (first_us, delta_us);
        }
        let phase0 = self.decode_phase_us(kv_tokens as f64);
        let growth = if steps > 1 {
            let last = kv_tokens as f64 + (steps - 1) as f64 * seqs as f64;
            (self.decode_phase_us(last) - phase0) / (steps - 1) as f64
        } else {
            0.0
        };
        (first_us + phase0, delta_us + growth)
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

#[cfg(test)]
mod poly_tests;
