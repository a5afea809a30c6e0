//! The autoscaler's settings: which scaler (`off`, Knative's `kpa`, a Dynamo-planner-style
//! `slo` rule), the fleet's bounds, the start-up delay of a new replica, and each scaler's
//! knobs with their sources' defaults (the model is in `sim::autoscale`). Off (the
//! default), every field is left out of the config's JSON and the run is as before.

use serde::{Deserialize, Serialize};

use super::{Config, ConfigError};

/// Knative's `stable-window` default, s (knative.dev/docs/serving/autoscaling/kpa-specific).
pub const DEFAULT_KPA_STABLE_WINDOW_S: f64 = 60.0;
/// Knative's `panic-window-percentage` default, % of the stable window.
pub const DEFAULT_KPA_PANIC_WINDOW_PCT: f64 = 10.0;
/// Knative's `panic-threshold-percentage` default, %.
pub const DEFAULT_KPA_PANIC_THRESHOLD_PCT: f64 = 200.0;
/// Knative's `max-scale-up-rate` default (a multiple of the ready replicas).
pub const DEFAULT_KPA_MAX_SCALE_UP_RATE: f64 = 1000.0;
/// Knative's `max-scale-down-rate` default (the ready replicas divided by it).
pub const DEFAULT_KPA_MAX_SCALE_DOWN_RATE: f64 = 2.0;
/// Target requests in flight per replica (ours; the book says why: Knative's own default,
/// 100 x 70 %, is for web handlers, not for an engine whose every request holds KV).
pub const DEFAULT_KPA_TARGET: f64 = 16.0;
/// Dynamo planner's `ttft_ms` default, ms.
pub const DEFAULT_SLO_TTFT_MS: f64 = 500.0;
/// Dynamo planner's `itl_ms` default, ms.
pub const DEFAULT_SLO_ITL_MS: f64 = 50.0;
/// Dynamo planner's `load_adjustment_interval_seconds` default, s.
pub const DEFAULT_SLO_INTERVAL_S: f64 = 5.0;
/// Dynamo planner's `load_scaling_down_sensitivity` default, %.
pub const DEFAULT_SLO_SCALE_DOWN_PCT: f64 = 80.0;
/// Assumed start of a container and its engine before the weights load, s.
pub const STARTUP_BASE_S: f64 = 30.0;
/// Assumed weight-loading bandwidth per GPU (local NVMe), GB/s.
pub const STARTUP_LOAD_GBPS_PER_GPU: f64 = 2.0;

/// Which autoscaler resizes the fleet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum Autoscale {
    /// A fixed fleet of `instances` replicas.
    #[default]
    Off,
    /// Knative's pod autoscaler on requests in flight.
    Kpa,
    /// A Dynamo-planner-style rule on the observed TTFT and ITL.
    Slo,
}

impl Autoscale {
    /// Every scaler, the default first.
    pub const ALL: [Autoscale; 3] = [Autoscale::Off, Autoscale::Kpa, Autoscale::Slo];

    /// The name on the command line and in the config.
    pub fn name(self) -> &'static str {
        match self {
            Autoscale::Off => "off",
            Autoscale::Kpa => "kpa",
            Autoscale::Slo => "slo",
        }
    }

    /// Parses `off`, `kpa` or `slo`.
    pub fn parse(text: &str) -> Result<Autoscale, ConfigError> {
        Autoscale::ALL
            .into_iter()
            .find(|a| a.name() == text)
            .ok_or_else(|| {
                ConfigError::new(
                    "autoscale",
                    text,
                    "one of off (a fixed fleet), kpa (Knative's autoscaler on requests in flight), slo (a Dynamo-planner-style rule on TTFT and ITL)",
                )
            })
    }
}

impl TryFrom<String> for Autoscale {
    type Error = ConfigError;

    fn try_from(text: String) -> Result<Autoscale, ConfigError> {
        Autoscale::parse(&text)
    }
}

impl Config {
    /// Whether an autoscaler runs.
    pub fn autoscaled(&self) -> bool {
        self.autoscale != Autoscale::Off
    }

    /// The fewest ready replicas the scaler keeps (unset: 1).
    pub fn min_instances_or_default(&self) -> u32 {
        self.min_instances.unwrap_or(1)
    }

    /// The most replicas the scaler runs at once, starting and draining ones included
    /// (unset: 4 x the starting size, at most 256; never below the starting size).
    pub fn max_instances_or_default(&self) -> u32 {
        self.max_instances
            .unwrap_or_else(|| self.instances.saturating_mul(4).min(256))
            .max(self.instances)
    }

    /// Replica slots a run needs: the most replicas it can have at once.
    pub fn replica_slots(&self) -> u32 {
        if self.autoscaled() {
            self.max_instances_or_default()
        } else {
            self.instances
        }
    }

    /// A new replica's start-up delay, s: the flag, else the preset's assumed one,
    /// `STARTUP_BASE_S + weights / (GPUs x STARTUP_LOAD_GBPS_PER_GPU)` (30 s without
    /// hardware).
    pub fn startup_s_or_default(&self) -> f64 {
        self.startup_s
            .unwrap_or_else(|| match self.engine.hardware() {
                Some(h) => {
                    STARTUP_BASE_S + h.weights_gb / (h.gpus as f64 * STARTUP_LOAD_GBPS_PER_GPU)
                }
                None => STARTUP_BASE_S,
            })
    }
}

/// The latency targets a request is held to: one definition for the `slo` scaler and
/// `series.slo_attained`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SloTargets {
    /// Time to first token (from arrival), ms.
    pub ttft_ms: Option<f64>,
    /// Inter-token latency: a request's mean gap between output tokens (its TPOT), ms.
    pub itl_ms: Option<f64>,
}

impl SloTargets {
    /// Whether a finished request met every target: TTFT at most `ttft_ms`, and, with
    /// more than one output token, (decode time) / (tokens - 1) at most `itl_ms`.
    pub fn met(&self, ttft_us: u64, decode_us: u64, output_tokens: u32) -> bool {
        let ttft_ok = self.ttft_ms.is_none_or(|t| ttft_us as f64 <= t * 1000.0);
        let gaps = output_tokens.saturating_sub(1);
        let itl_ok = gaps == 0
            || self
                .itl_ms
                .is_none_or(|t| decode_us as f64 <= t * 1000.0 * gaps as f64);
        ttft_ok && itl_ok
    }
}

impl Config {
    /// The `slo` scaler's TTFT target, ms (unset: Dynamo planner's default).
    pub fn slo_ttft_ms_or_default(&self) -> f64 {
        self.slo_ttft_ms.unwrap_or(DEFAULT_SLO_TTFT_MS)
    }

    /// The `slo` scaler's ITL target, ms (unset: Dynamo planner's default).
    pub fn slo_itl_ms_or_default(&self) -> f64 {
        self.slo_itl_ms.unwrap_or(DEFAULT_SLO_ITL_MS)
    }

    /// The targets a run is held to: under the `slo` scaler its two (defaults filling
    /// the unset); otherwise those set, and `None` when neither is.
    pub fn slo_targets(&self) -> Option<SloTargets> {
        if self.autoscale == Autoscale::Slo {
            return Some(SloTargets {
                ttft_ms: Some(self.slo_ttft_ms_or_default()),
                itl_ms: Some(self.slo_itl_ms_or_default()),
            });
        }
        (self.slo_ttft_ms.is_some() || self.slo_itl_ms.is_some()).then_some(SloTargets {
            ttft_ms: self.slo_ttft_ms,
            itl_ms: self.slo_itl_ms,
        })
    }
}

pub(super) fn is_off(a: &Autoscale) -> bool {
    *a == Autoscale::Off
}

// Whether a knob is at its default (left out of the config's JSON; a missing key reads as
// the default through the config's own `Default`).
macro_rules! is_default_fns {
    ($($is:ident, $value:expr;)*) => {
        $(
            pub(super) fn $is(v: &f64) -> bool {
                *v == $value
            }
        )*
    };
}

is_default_fns! {
    is_default_kpa_target, DEFAULT_KPA_TARGET;
    is_default_kpa_stable_window_s, DEFAULT_KPA_STABLE_WINDOW_S;
    is_default_kpa_panic_window_pct, DEFAULT_KPA_PANIC_WINDOW_PCT;
    is_default_kpa_panic_threshold_pct, DEFAULT_KPA_PANIC_THRESHOLD_PCT;
    is_default_kpa_max_scale_up_rate, DEFAULT_KPA_MAX_SCALE_UP_RATE;
    is_default_kpa_max_scale_down_rate, DEFAULT_KPA_MAX_SCALE_DOWN_RATE;
    is_default_slo_interval_s, DEFAULT_SLO_INTERVAL_S;
    is_default_slo_scale_down_pct, DEFAULT_SLO_SCALE_DOWN_PCT;
}
