//! The price of a GPU-hour (`gpu_hour_usd`, `--des-gpu-hour-usd`): each preset's GPU has an
//! assumed on-demand price (`timing::GPU_HOUR_USD_SOURCE`), which a run may override per
//! preset (`llama3-8b-mi300x=2.10,llama3-8b-h100=3.00`) or for every preset at once (a
//! bare `2.5`; a named preset's entry wins over it). Empty (the default): the presets'
//! prices, and the config's JSON leaves the field out. Every dollar figure of a run
//! (`summary.usd_per_hour`, `presets[].usd_per_hour`, `autoscale.cost_usd`) and the
//! planner's default price use it.

use super::{Config, ConfigError};
use crate::timing::EnginePreset;

/// Highest price of one GPU-hour, US dollars (the planner's bound).
pub const MAX_GPU_HOUR_USD: f64 = 10_000.0;

/// The overrides: one price for every preset (a bare number) and per-preset prices.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GpuPrices {
    all: Option<f64>,
    named: Vec<(EnginePreset, f64)>,
}

fn allowed() -> String {
    format!(
        "PRESET=USD entries joined by commas (e.g. llama3-8b-h100=3.00,llama3-8b-mi300x=2.10), \
         or one USD for every preset; each price 0 to {MAX_GPU_HOUR_USD} dollars per GPU-hour, \
         each preset once; presets: {}",
        EnginePreset::names()
    )
}

/// Parses the overrides (empty text: none).
pub fn parse_gpu_prices(text: &str) -> Result<GpuPrices, ConfigError> {
    let bad = || ConfigError::new("gpu_hour_usd", text, allowed());
    let mut out = GpuPrices::default();
    if text.trim().is_empty() {
        return Ok(out);
    }
    let price = |s: &str| -> Result<f64, ConfigError> {
        // `decimal::finite_f64`, not `str::parse`: one float parser in the page's wasm.
        let usd = crate::decimal::finite_f64(s.trim()).ok_or_else(bad)?;
        if (0.0..=MAX_GPU_HOUR_USD).contains(&usd) {
            Ok(usd)
        } else {
            Err(bad())
        }
    };
    for part in text.split(',') {
        match part.split_once('=') {
            None if out.all.is_none() => out.all = Some(price(part)?),
            None => return Err(bad()),
            Some((name, usd)) => {
                let preset = EnginePreset::parse(name.trim()).ok_or_else(bad)?;
                if out.named.iter().any(|(p, _)| *p == preset) {
                    return Err(bad());
                }
                out.named.push((preset, price(usd)?));
            }
        }
    }
    Ok(out)
}

impl GpuPrices {
    /// The price of one GPU-hour of `preset`'s GPU: its override, else the one for every
    /// preset, else the preset's assumed price.
    pub fn of(&self, preset: EnginePreset) -> f64 {
        self.named
            .iter()
            .find(|(p, _)| *p == preset)
            .map(|&(_, usd)| usd)
            .or(self.all)
            .unwrap_or_else(|| preset.gpu_hour_usd())
    }
}

impl Config {
    /// The price of one GPU-hour of `preset`'s GPU in this run, US dollars (a config that
    /// failed validation: the preset's own).
    pub fn gpu_hour_usd_of(&self, preset: EnginePreset) -> f64 {
        parse_gpu_prices(&self.gpu_hour_usd)
            .unwrap_or_default()
            .of(preset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::{H100_GPU_HOUR_USD, MI300X_GPU_HOUR_USD};

    const H100: EnginePreset = EnginePreset::Llama3_8bH100;
    const MI300X: EnginePreset = EnginePreset::Llama3_8bMi300x;

    #[test]
    fn an_entry_wins_over_the_one_for_all_which_wins_over_the_preset() {
        let p = parse_gpu_prices("").unwrap();
        assert_eq!(
            (p.of(H100), p.of(MI300X)),
            (H100_GPU_HOUR_USD, MI300X_GPU_HOUR_USD)
        );
        let p = parse_gpu_prices("llama3-8b-mi300x=2.1").unwrap();
        assert_eq!((p.of(H100), p.of(MI300X)), (H100_GPU_HOUR_USD, 2.1));
        let p = parse_gpu_prices("2.5, llama3-8b-mi300x = 2.1").unwrap();
        assert_eq!((p.of(H100), p.of(MI300X)), (2.5, 2.1));
    }

    #[test]
    fn bad_prices_are_refused_by_name() {
        for bad in [
            "x",
            "h100=2",
            "llama3-8b-h100=-1",
            "llama3-8b-h100=NaN",
            "1,2",
            "llama3-8b-h100=1,llama3-8b-h100=2",
            "llama3-8b-h100=20000",
            ",",
        ] {
            let e = parse_gpu_prices(bad).unwrap_err().to_string();
            assert!(
                e.contains("gpu_hour_usd") && e.contains("PRESET=USD"),
                "{bad}: {e}"
            );
        }
    }
}

#[cfg(test)]
mod help_tests {
    use crate::timing::{
        B200_GPU_HOUR_USD, H100_GPU_HOUR_USD, H200_GPU_HOUR_USD, MI300X_GPU_HOUR_USD,
    };

    /// The page's mixed-fleet field states the prices the run uses.
    #[test]
    fn the_fleet_fields_help_states_the_prices() {
        let spec = crate::params::specs()
            .into_iter()
            .find(|s| s.name == "fleet")
            .unwrap();
        let help = spec.help.to_string();
        assert_eq!(
            H100_GPU_HOUR_USD, MI300X_GPU_HOUR_USD,
            "the help names them together"
        );
        for words in [
            format!("${H100_GPU_HOUR_USD:.2} an H100 or MI300X"),
            format!("${H200_GPU_HOUR_USD:.2} an H200"),
            format!("${B200_GPU_HOUR_USD:.2} a B200"),
        ] {
            assert!(help.contains(&words), "{words}: {help}");
        }
    }
}
