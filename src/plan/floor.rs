//! The least time a first token can take on a fleet: one engine step of a lone request
//! whose prompt is cached up to its last token, on the fastest replica. A step costs its
//! fixed time plus non-negative terms (`Timing::pass_us`), and a request's first token
//! comes at the end of the step that computes its prompt's last token (vLLM always
//! recomputes it), so no request, on any number of replicas, gets one sooner. A p99
//! TTFT target below it cannot be met by adding replicas (`none_met_sentence`).

use crate::config::Config;
use crate::timing::{EnginePreset, Timing};

/// One step computing one prompt token and nothing else, ms.
fn lone_step_ms(t: &Timing) -> f64 {
    t.step_us(1, 0, 0) as f64 / 1000.0
}

/// The floor of `cfg`'s fleet: over its mixed fleet's presets, or its one engine, ms.
pub fn ttft_floor_ms(cfg: &Config) -> f64 {
    match cfg.replica_presets() {
        Some(presets) => presets_floor_ms(&presets),
        None => lone_step_ms(&crate::params::timing_of(cfg)),
    }
}

/// The floor of a fleet of any of `presets` (the fastest one's), ms; NaN for none.
pub fn presets_floor_ms(presets: &[EnginePreset]) -> f64 {
    presets
        .iter()
        .map(|p| lone_step_ms(&p.timing()))
        .min_by(f64::total_cmp)
        .unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An H100 step costs 6,000 µs fixed plus 32 µs per prefill token: 6.032 ms for one
    /// token. A B200's is 2,600 + 14 = 2.614 ms, so a fleet with one is floored by it.
    #[test]
    fn one_token_step_of_the_fastest_replica() {
        let h100 = Config::default();
        assert_eq!(h100.engine, EnginePreset::Llama3_8bH100);
        assert_eq!(ttft_floor_ms(&h100), 6.032);
        let mixed = Config {
            fleet: "2:llama3-8b-h100,1:llama3-8b-b200".into(),
            instances: 3,
            ..Config::default()
        };
        assert_eq!(ttft_floor_ms(&mixed), 2.614);
        assert!(presets_floor_ms(&[]).is_nan());
    }
}
