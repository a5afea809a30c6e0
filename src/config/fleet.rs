//! A mixed fleet (`fleet`, `--des-fleet "4:llama3-8b-h100,2:llama3-8b-mi300x"`): groups
//! of replicas of different engine presets behind one router. Each replica takes its
//! preset's timing, its preset's KV capacity (unless `kv_blocks` sets one for every
//! replica) and its preset's GPUs at that GPU's price per hour (`Config::gpu_hour_usd_of`). Empty (the default):
//! every replica is `engine`, and the config's JSON leaves the field out.

use super::{Config, ConfigError};
use crate::timing::EnginePreset;

/// `count` replicas of one preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FleetGroup {
    /// Replicas of this preset, at least 1.
    pub count: u32,
    /// Their engine preset (one with hardware).
    pub preset: EnginePreset,
}

/// What `fleet` accepts, for every error message.
fn allowed() -> String {
    let names: Vec<&str> = EnginePreset::ALL
        .iter()
        .filter(|p| p.hardware().is_some())
        .map(|p| p.name())
        .collect();
    format!(
        "COUNT:PRESET groups joined by commas (e.g. 4:llama3-8b-h100,2:llama3-8b-mi300x), \
         COUNT a whole number from 1 to 256, PRESET a preset with hardware serving the same \
         model in every group: one of {}",
        names.join(", ")
    )
}

/// Parses `COUNT:PRESET,...` into its groups, in order (at least one; each count 1 to 256;
/// every preset with hardware and of one model).
pub fn parse_fleet(text: &str) -> Result<Vec<FleetGroup>, ConfigError> {
    let bad = || ConfigError::new("fleet", text, allowed());
    let mut groups = Vec::new();
    for part in text.split(',') {
        let (count, name) = part.trim().split_once(':').ok_or_else(bad)?;
        let count: u32 = count.trim().parse().map_err(|_| bad())?;
        let preset = EnginePreset::parse(name.trim()).ok_or_else(bad)?;
        if !(1..=256).contains(&count) || preset.hardware().is_none() {
            return Err(bad());
        }
        groups.push(FleetGroup { count, preset });
    }
    let first = groups[0].preset.hardware().expect("checked above");
    let same_model = groups.iter().all(|g| {
        let h = g.preset.hardware().expect("checked above");
        h.kv_bytes_per_token == first.kv_bytes_per_token && h.weights_gb == first.weights_gb
    });
    if !same_model {
        return Err(ConfigError::new(
            "fleet",
            text,
            "presets of one model (their caches hold the same blocks): e.g. \
             llama3-8b-h100 with llama3-8b-mi300x, not with llama3-70b-2xh200",
        ));
    }
    Ok(groups)
}

impl Config {
    /// The mixed fleet's groups (`None`: no `fleet`, or one that does not parse, which
    /// validation refuses).
    pub fn fleet_groups(&self) -> Option<Vec<FleetGroup>> {
        if self.fleet.trim().is_empty() {
            return None;
        }
        parse_fleet(&self.fleet).ok()
    }

    /// Each replica's preset, in index order (groups in the order given), for a mixed
    /// fleet.
    pub fn replica_presets(&self) -> Option<Vec<EnginePreset>> {
        let groups = self.fleet_groups()?;
        Some(
            groups
                .iter()
                .flat_map(|g| std::iter::repeat_n(g.preset, g.count as usize))
                .collect(),
        )
    }

    /// A replica of `preset`'s KV capacity in a mixed fleet: `kv_blocks` when set (it
    /// wins, for every replica), else what the preset's HBM holds.
    pub fn fleet_kv_blocks(&self, preset: EnginePreset) -> Option<u64> {
        self.kv_blocks.or_else(|| preset.kv_blocks(self.block_size))
    }

    /// The smallest KV capacity of any replica (the one a request must fit in), blocks;
    /// `None`: unbounded.
    pub fn smallest_kv_blocks(&self) -> Option<u64> {
        match self.replica_presets() {
            Some(presets) => presets
                .iter()
                .filter_map(|&p| self.fleet_kv_blocks(p))
                .min(),
            None => self.kv_blocks,
        }
    }

    /// A mixed fleet's price per hour: each group's GPUs at its GPU's price per hour
    /// (`gpu_hour_usd_of`), US dollars.
    pub fn fleet_usd_per_hour(&self) -> Option<f64> {
        let groups = self.fleet_groups()?;
        Some(
            groups
                .iter()
                .map(|g| (g.count * g.preset.gpus()) as f64 * self.gpu_hour_usd_of(g.preset))
                .sum(),
        )
    }

    /// A mixed fleet's GPUs.
    pub fn fleet_gpus(&self) -> Option<u32> {
        let groups = self.fleet_groups()?;
        Some(groups.iter().map(|g| g.count * g.preset.gpus()).sum())
    }

    /// The groups as the report writes them: `4 x llama3-8b-h100 + 2 x llama3-8b-mi300x`.
    pub fn fleet_label(&self) -> Option<String> {
        let groups = self.fleet_groups()?;
        let parts: Vec<String> = groups
            .iter()
            .map(|g| format!("{} x {}", g.count, g.preset.name()))
            .collect();
        Some(parts.join(" + "))
    }
}

/// Checks a mixed fleet against the rest of the config: it parses, its total is
/// `instances`, `engine` is its first preset, and no setting it cannot serve is on (an
/// autoscaler, which would not know which preset to add; a split fleet, which has one
/// engine per pool).
pub fn validate_fleet_mix(cfg: &Config) -> Result<(), ConfigError> {
    if cfg.fleet.trim().is_empty() {
        return Ok(());
    }
    let groups = parse_fleet(&cfg.fleet)?;
    let total: u64 = groups.iter().map(|g| g.count as u64).sum();
    if total > 256 {
        return Err(ConfigError::new(
            "fleet",
            &cfg.fleet,
            format!("at most 256 replicas in all; these groups add up to {total}"),
        ));
    }
    if cfg.instances as u64 != total {
        return Err(ConfigError::new(
            "instances",
            cfg.instances,
            format!(
                "the fleet's total, {total} (fleet {}): --des-fleet replaces --des-instances",
                cfg.fleet
            ),
        ));
    }
    if cfg.engine != groups[0].preset {
        return Err(ConfigError::new(
            "engine",
            cfg.engine.name(),
            format!(
                "the fleet's first preset, {}: --des-fleet replaces --des-engine",
                groups[0].preset.name()
            ),
        ));
    }
    if cfg.autoscale != super::Autoscale::Off {
        return Err(ConfigError::new(
            "autoscale",
            cfg.autoscale.name(),
            "off with a mixed fleet (--des-fleet): the autoscaler would not know which \
             preset a new replica takes",
        ));
    }
    if cfg.prefill_instances.is_some() || cfg.decode_instances.is_some() {
        return Err(ConfigError::new(
            "fleet",
            &cfg.fleet,
            "empty with a split fleet (--des-prefill-instances, --des-decode-instances): \
             a mixed fleet is colocated",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_parse_in_order_and_expand_per_replica() {
        let cfg = Config {
            fleet: "2:llama3-8b-h100, 1:llama3-8b-mi300x".into(),
            instances: 3,
            ..Config::default()
        };
        let p = cfg.replica_presets().unwrap();
        use EnginePreset as P;
        assert_eq!(p, [P::Llama3_8bH100, P::Llama3_8bH100, P::Llama3_8bMi300x]);
        // Two H100s at $3.49 and one MI300X at $3.49 an hour; then the MI300X at $2.
        assert_eq!(cfg.fleet_usd_per_hour(), Some(3.0 * 3.49));
        assert_eq!(cfg.fleet_gpus(), Some(3));
        assert!(validate_fleet_mix(&cfg).is_ok());
        let cheaper = Config {
            gpu_hour_usd: "llama3-8b-mi300x=2".into(),
            ..cfg
        };
        assert_eq!(cheaper.fleet_usd_per_hour(), Some(2.0 * 3.49 + 2.0));
    }

    #[test]
    fn bad_fleets_name_the_field() {
        for text in [
            "",
            "4",
            "0:llama3-8b-h100",
            "2:nope",
            "2:custom",
            "x:llama3-8b-h100",
        ] {
            let e = parse_fleet(text).unwrap_err();
            assert_eq!(e.field, "fleet", "{text}");
        }
        let e = parse_fleet("1:llama3-8b-h100,1:llama3-70b-2xh200").unwrap_err();
        assert!(e.allowed.contains("one model"), "{e}");
    }
}
