//! Parameters that do nothing under the rest of a config: a split fleet's link on a
//! colocated fleet, the snapshot view's refresh and lag under another view, one routing
//! policy's settings under another, a gamma shape without gamma arrivals. A caller that
//! knows which ones the user set (the CLI's typed flags, a sweep's parameter) warns.

use crate::config::{ArrivalModel, Config, Policy, RouterView};

/// A parameter that has no effect, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inert {
    /// The parameter's config key.
    pub field: &'static str,
    /// Why it does nothing, naming the setting that turns its feature off.
    pub why: String,
}

/// The split fleet's parameters: a colocated fleet has no link and no decode pool.
const SPLIT_FLEET: [&str; 5] = [
    "decode_routing",
    "kv_transfer_gbps",
    "kv_transfer_base_us",
    "kv_bytes_per_token",
    "disagg_min_uncached_tokens",
];

/// Each routing policy's own parameters.
const POLICY_FIELDS: [(Policy, &str); 4] = [
    (Policy::Dynamo, "dynamo_temperature"),
    (Policy::Dynamo, "dynamo_overlap_credit"),
    (Policy::Sglang, "sglang_miss"),
    (Policy::LlmD, "llmd_weights"),
];

/// Every parameter of `cfg` that does nothing under its other settings; `flag` names a
/// config key the way the caller shows it (a CLI flag, or the key itself).
pub fn inert(cfg: &Config, flag: impl Fn(&str) -> String) -> Vec<Inert> {
    let mut out = Vec::new();
    let mut add = |field: &'static str, why: String| out.push(Inert { field, why });
    if cfg.pools().is_none() {
        let why = format!(
            "on a colocated fleet (it needs {} and {})",
            flag("prefill_instances"),
            flag("decode_instances")
        );
        for field in SPLIT_FLEET {
            add(field, why.clone());
        }
    }
    if cfg.router_view != RouterView::Snapshot {
        let why = format!(
            "with {} {} (only the snapshot view has a refresh interval and an event lag)",
            flag("router_view"),
            cfg.router_view.name()
        );
        add("router_refresh_ms", why.clone());
        add("kv_event_lag_ms", why);
    }
    if cfg.router_view == RouterView::Offline {
        let why = format!(
            "with {} offline (the offline pass caches each pick's blocks at once)",
            flag("router_view")
        );
        add("router_predict_ttl_ms", why);
    }
    for (policy, field) in POLICY_FIELDS {
        if cfg.routing != policy {
            let why = format!(
                "with {} {} (it is a setting of {} only)",
                flag("routing"),
                cfg.routing.name(),
                policy.name()
            );
            add(field, why);
        }
    }
    if cfg.arrival_model != ArrivalModel::Gamma {
        let why = format!(
            "with {} {} (it is the gamma model's shape)",
            flag("arrival_model"),
            cfg.arrival_model.name()
        );
        add("burstiness", why);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(cfg: &Config) -> Vec<&'static str> {
        inert(cfg, str::to_string).iter().map(|i| i.field).collect()
    }

    #[test]
    fn the_default_config_leaves_the_other_features_settings_inert() {
        // Default: colocated, exact view, kv routing, Poisson arrivals.
        let got = fields(&Config::default());
        let want = [
            "decode_routing",
            "kv_transfer_gbps",
            "kv_transfer_base_us",
            "kv_bytes_per_token",
            "disagg_min_uncached_tokens",
            "router_refresh_ms",
            "kv_event_lag_ms",
            "dynamo_temperature",
            "dynamo_overlap_credit",
            "sglang_miss",
            "llmd_weights",
            "burstiness",
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn turning_a_feature_on_makes_its_settings_count() {
        let cfg = Config {
            prefill_instances: Some(1),
            decode_instances: Some(1),
            instances: 2,
            router_view: RouterView::Snapshot,
            routing: Policy::LlmD,
            arrival_model: ArrivalModel::Gamma,
            ..Config::default()
        };
        let got = fields(&cfg);
        assert_eq!(
            got,
            ["dynamo_temperature", "dynamo_overlap_credit", "sglang_miss"]
        );
        let offline = Config {
            router_view: RouterView::Offline,
            ..cfg
        };
        let why = inert(&offline, |f| format!("--{f}"));
        let ttl = why.iter().find(|i| i.field == "router_predict_ttl_ms");
        assert!(ttl.is_some_and(|i| i.why.contains("--router_view offline")));
    }
}
