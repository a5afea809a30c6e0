//! What the page asks of the mix search (`api::plan_mix_json`): the targets, the bounds, and
//! the presets (two or more) by name with their prices, each price left out being the
//! preset's GPU's in the config (as `kvfleet plan --plan-mix A,B,...` without `=USD`).

use serde::Deserialize;

use super::{check_mix, MixPreset, PlanLimits, Slo};
use crate::config::Config;
use crate::timing::EnginePreset;

/// One preset of the mix as asked: its name, and its price (`None`: the config's).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MixPresetSpec {
    /// An engine preset's name.
    pub preset: String,
    /// US dollars per GPU-hour.
    #[serde(default)]
    pub gpu_hour_usd: Option<f64>,
}

/// A mix plan as asked.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MixSpec {
    /// The targets.
    pub slo: Slo,
    /// The search bounds (its GPUs per replica and price are each preset's own here).
    pub limits: PlanLimits,
    /// The presets, two or more of one model.
    pub presets: Vec<MixPresetSpec>,
}

impl MixSpec {
    /// The presets, named and priced, checked (`check_mix`) along with the bounds.
    pub fn presets(&self, cfg: &Config) -> Result<Vec<MixPreset>, String> {
        self.limits.validate()?;
        if self.presets.len() < 2 {
            return Err(format!(
                "presets: invalid count: got {}; allowed: 2 or more",
                self.presets.len()
            ));
        }
        let one = |p: &MixPresetSpec| -> Result<MixPreset, String> {
            let preset = EnginePreset::parse(&p.preset).ok_or_else(|| {
                format!(
                    "presets: unknown preset \"{}\"; allowed: {}",
                    crate::echo::shown(&p.preset),
                    EnginePreset::names()
                )
            })?;
            Ok(MixPreset {
                preset,
                gpu_hour_usd: p
                    .gpu_hour_usd
                    .unwrap_or_else(|| cfg.gpu_hour_usd_of(preset)),
            })
        };
        let presets = self
            .presets
            .iter()
            .map(one)
            .collect::<Result<Vec<_>, _>>()?;
        check_mix(&presets)?;
        Ok(presets)
    }
}
