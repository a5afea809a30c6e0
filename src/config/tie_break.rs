//! How a routing policy breaks an exact tie between its best replicas: as each policy's
//! source does (seeded random among equals where the source draws at random, or where
//! it states no rule; a split fleet's `least_kv` decode pick too), or the lower index
//! for every policy (the rule before).

use serde::{Deserialize, Serialize};

use super::ConfigError;

/// The tie rule of every routing policy.
// Read through `parse`, so a bad value in a JSON config names the field and what is
// allowed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum TieBreak {
    /// Each policy as its source breaks ties: uniformly at random among the equals, from
    /// the run's tie stream (`dynamo`, `llm_d`, `aibrix`, and `kv`, `least_loaded`,
    /// `p2c`, `sticky`, spill and a split fleet's `least_kv` decode pick, whose sources
    /// state no rule); SGLang's first.
    #[default]
    Random,
    /// The lowest replica index among the equals, for every policy.
    Lowest,
}

impl TieBreak {
    /// Both rules, the default first.
    pub const ALL: [TieBreak; 2] = [TieBreak::Random, TieBreak::Lowest];

    /// The name used on the command line and in the config.
    pub fn name(self) -> &'static str {
        match self {
            TieBreak::Random => "random",
            TieBreak::Lowest => "lowest",
        }
    }

    /// Parses `random` or `lowest`.
    pub fn parse(text: &str) -> Result<TieBreak, ConfigError> {
        TieBreak::ALL
            .into_iter()
            .find(|t| t.name() == text)
            .ok_or_else(|| {
                ConfigError::new(
                    "tie_break",
                    text,
                    "one of random (each policy as its source breaks ties), lowest (the lower index)",
                )
            })
    }
}

impl TryFrom<String> for TieBreak {
    type Error = ConfigError;

    fn try_from(text: String) -> Result<TieBreak, ConfigError> {
        TieBreak::parse(&text)
    }
}

/// Whether `t` is the default rule (left out of the config's JSON, so a config that does
/// not set it reads as before).
pub(super) fn is_default(t: &TieBreak) -> bool {
    *t == TieBreak::Random
}
