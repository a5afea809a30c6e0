//! The TTFT of a mixed fleet's requests per preset, gathered while the run goes (the
//! report's `presets`).

use crate::config::Config;
use crate::histogram::LogHistogram;

/// The TTFT of the requests each preset's replicas finish, gathered during the run.
#[derive(Clone, Debug)]
pub struct PresetTtft {
    pub(crate) group_of: Vec<usize>,
    pub(crate) ttft: Vec<LogHistogram>,
}

impl PresetTtft {
    /// For a config with a mixed fleet; `None` without one.
    pub fn of(cfg: &Config) -> Option<PresetTtft> {
        let groups = cfg.fleet_groups()?;
        let group_of = groups
            .iter()
            .enumerate()
            .flat_map(|(k, g)| std::iter::repeat_n(k, g.count as usize))
            .collect();
        let ttft = groups.iter().map(|_| LogHistogram::fine()).collect();
        Some(PresetTtft { group_of, ttft })
    }

    /// Replica `replica` finished a request with this TTFT.
    pub fn finished(&mut self, replica: u32, ttft_us: u64) {
        let k = self.group_of[replica as usize];
        self.ttft[k].add(ttft_us as f64);
    }
}
