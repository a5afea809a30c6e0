//! How a replica admits a request into KV: `preempt` (the default; vLLM V1's rule: admit
//! on the prompt's blocks, grow a running request's KV a block at a time as it decodes,
//! and preempt the most recently admitted running request when a step finds no block) or
//! `reserve` (the whole prompt and output must fit at admission, as TensorRT-LLM's
//! default `GUARANTEED_NO_EVICT` capacity scheduler reserves).

use serde::{Deserialize, Serialize};

use super::ConfigError;

/// The KV admission rule of every replica.
// Read through `parse`, so a bad value in a JSON config names the field and what is
// allowed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(target_arch = "wasm32", derive(tsify::Tsify))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum Admission {
    /// Admit only when the prompt and the whole output fit; nothing is ever preempted.
    Reserve,
    /// Admit when the prompt's blocks fit; grow as the request decodes; when a step
    /// finds no block, preempt the most recently admitted running request (recompute).
    #[default]
    Preempt,
}

impl Admission {
    /// Both rules, in a fixed order (the fuzzers draw from it by index, so the stored
    /// regressions replay as found).
    pub const ALL: [Admission; 2] = [Admission::Reserve, Admission::Preempt];

    /// The name used on the command line and in the config.
    pub fn name(self) -> &'static str {
        match self {
            Admission::Reserve => "reserve",
            Admission::Preempt => "preempt",
        }
    }

    /// Parses `preempt` or `reserve`.
    pub fn parse(text: &str) -> Result<Admission, ConfigError> {
        Admission::ALL
            .into_iter()
            .find(|a| a.name() == text)
            .ok_or_else(|| {
                ConfigError::new(
                    "admission",
                    text,
                    "one of preempt (admit on the prompt, grow while decoding, preempt the newest when out of blocks), reserve (prompt and output must fit at admission)",
                )
            })
    }
}

impl TryFrom<String> for Admission {
    type Error = ConfigError;

    fn try_from(text: String) -> Result<Admission, ConfigError> {
        Admission::parse(&text)
    }
}

/// Whether `a` is the default rule (left out of the config's JSON: a config without the
/// key means `preempt`).
pub(super) fn is_default(a: &Admission) -> bool {
    *a == Admission::default()
}
