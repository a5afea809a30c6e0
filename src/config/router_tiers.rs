//! What a cache-aware router's overlap counts of the offload tiers: `hbm` (the blocks in
//! the replica's HBM; the default, and what a router fed only by the engine's GPU-cache
//! events sees) or `all` (the HBM run continued into the replica's CPU tier, then into
//! the shared tier: the blocks the replica would load instead of prefilling). Dynamo's
//! KV router is fed events that carry a storage tier and counts lower-tier hits beyond
//! the device prefix, weighted (`lib/kv-router/src/scheduling/overlap.rs`); `all`
//! counts them at full weight.

use serde::{Deserialize, Serialize};

use super::ConfigError;

/// Which tiers a router's overlap score counts.
// Read through `parse`, so a bad value in a JSON config names the field and what is
// allowed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum RouterTiers {
    /// HBM only: a block offloaded below HBM is a miss to the router.
    #[default]
    Hbm,
    /// HBM, then the replica's CPU tier, then the shared tier.
    All,
}

impl RouterTiers {
    /// Both choices, the default first.
    pub const ALL: [RouterTiers; 2] = [RouterTiers::Hbm, RouterTiers::All];

    /// The name used on the command line and in the config.
    pub fn name(self) -> &'static str {
        match self {
            RouterTiers::Hbm => "hbm",
            RouterTiers::All => "all",
        }
    }

    /// Parses `hbm` or `all`.
    pub fn parse(text: &str) -> Result<RouterTiers, ConfigError> {
        RouterTiers::ALL
            .into_iter()
            .find(|a| a.name() == text)
            .ok_or_else(|| {
                ConfigError::new(
                    "router_tiers",
                    text,
                    "one of hbm (the router counts HBM blocks only), all (HBM, then the CPU tier, then the shared tier)",
                )
            })
    }
}

impl TryFrom<String> for RouterTiers {
    type Error = ConfigError;

    fn try_from(text: String) -> Result<RouterTiers, ConfigError> {
        RouterTiers::parse(&text)
    }
}

/// Whether `t` is the default (left out of the config's JSON, so a config that does not
/// set it reads as before).
pub(super) fn is_default(t: &RouterTiers) -> bool {
    *t == RouterTiers::Hbm
}
