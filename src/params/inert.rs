//! Parameters that do nothing under the rest of a config: a split fleet's link on a
//! colocated fleet, a router's CPU times and queue without its cores, the snapshot view's refresh and lag under another view, one routing
//! policy's settings under another, a gamma shape without gamma arrivals, the synthetic
//! workload's settings on a replay, the tie rule where no pick ever ties. A caller that knows which ones the user set (the
//! CLI's typed flags, a sweep's parameter) warns.

use crate::config::{ArrivalModel, Autoscale, Config, DecodeRouting, Hashed, Policy, RouterView};
use crate::timing::EnginePreset;

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

/// A custom engine's coefficients: a preset brings its own timing.
const CUSTOM_ENGINE: [&str; 6] = [
    "step_fixed_us",
    "prefill_token_us",
    "decode_seq_us",
    "kv_read_token_ns",
    "prefill_poly_ms",
    "decode_poly_ms",
];

/// Each routing policy's own parameters.
const POLICY_FIELDS: [(Policy, &str); 4] = [
    (Policy::Dynamo, "dynamo_temperature"),
    (Policy::Dynamo, "dynamo_overlap_credit"),
    (Policy::Sglang, "sglang_miss"),
    (Policy::LlmD, "llmd_weights"),
];

/// The KPA's knobs.
const KPA_FIELDS: [&str; 6] = [
    "kpa_target",
    "kpa_stable_window_s",
    "kpa_panic_window_pct",
    "kpa_panic_threshold_pct",
    "kpa_max_scale_up_rate",
    "kpa_max_scale_down_rate",
];

/// The SLO rule's own knobs (its targets, `slo_ttft_ms` and `slo_itl_ms`, also define
/// `series.slo_attained` on any run, so they are never inert).
const SLO_FIELDS: [&str; 2] = ["slo_interval_s", "slo_scale_down_pct"];

/// The autoscaler's settings: all of them on a fixed fleet, the other scaler's knobs.
fn autoscale_inert(
    cfg: &Config,
    with: &dyn Fn(&str, &str, &str) -> String,
    add: &mut dyn FnMut(&[&'static str], String),
) {
    let scaler = cfg.autoscale.name();
    if !cfg.autoscaled() {
        let note = "a fixed fleet of the starting size";
        add(
            &["min_instances", "max_instances", "startup_s"],
            with("autoscale", scaler, note),
        );
    }
    if cfg.autoscale != Autoscale::Kpa {
        add(
            &KPA_FIELDS,
            with("autoscale", scaler, "the KPA does not run"),
        );
    }
    if cfg.autoscale != Autoscale::Slo {
        add(
            &SLO_FIELDS,
            with("autoscale", scaler, "the SLO rule does not run"),
        );
    }
}

/// Every parameter of `cfg` that does nothing under its other settings; `flag` names a
/// config key the way the caller shows it (a CLI flag, or the key itself).
pub fn inert(cfg: &Config, flag: impl Fn(&str) -> String) -> Vec<Inert> {
    let mut out = Vec::new();
    let mut add = |fields: &[&'static str], why: String| {
        for &field in fields {
            out.push(Inert {
                field,
                why: why.clone(),
            });
        }
    };
    // "with --des-routing round_robin (NOTE)": the setting that turns the feature off.
    let with = |key: &str, value: &str, note: &str| format!("with {} {value} ({note})", flag(key));
    let (routing, view) = (cfg.routing.name(), cfg.router_view.name());
    if cfg.pools().is_none() {
        let needs = format!(
            "it needs {} and {}",
            flag("prefill_instances"),
            flag("decode_instances")
        );
        // A CPU tier's loads move the KV bytes per token too.
        let tier = cfg.cpu_tier().is_some() || cfg.shared_tier().is_some();
        let fields: Vec<&'static str> = SPLIT_FLEET
            .into_iter()
            .filter(|&f| !(tier && f == "kv_bytes_per_token"))
            .collect();
        add(&fields, format!("on a colocated fleet ({needs})"));
    }
    if cfg.cpu_tier().is_none() {
        let note = "there is no CPU tier to load from";
        add(
            &["cpu_load_gbps", "cpu_load_base_us"],
            with("cpu_kv_blocks", "unset", note),
        );
    }
    if cfg.shared_tier().is_none() {
        let note = "there is no shared tier to load from";
        add(
            &["shared_gbps", "shared_latency_us"],
            with("shared_kv_blocks", "unset", note),
        );
    }
    if cfg.cpu_tier().is_some() || cfg.shared_tier().is_some() {
        if !reads_engine_cache(cfg.routing) {
            let note = "it reads no engine's cache: only kv, dynamo, llm_d and sticky do";
            add(&["router_tiers"], with("routing", routing, note));
        }
    } else {
        let note = "there is no tier below HBM to count";
        let (cpu, shared) = (flag("cpu_kv_blocks"), flag("shared_kv_blocks"));
        add(
            &["router_tiers"],
            format!("with {cpu} and {shared} unset ({note})"),
        );
    }
    if cfg.router_vcpu.is_none() {
        let needs = format!("it needs {}", flag("router_vcpu"));
        add(
            &[
                "router_cpu_us_fixed",
                "router_cpu_us_per_block",
                "router_queue",
            ],
            format!("on a free, instant router ({needs})"),
        );
    } else if Hashed::by(cfg.routing) == Hashed::Nothing && cfg.affinity_share() == 0.0 {
        let note = "it hashes no prompt blocks";
        add(&["router_cpu_us_per_block"], with("routing", routing, note));
    }
    autoscale_inert(cfg, &with, &mut add);
    if cfg.router_view != RouterView::Snapshot {
        let note = "only the snapshot view has a refresh interval and an event lag";
        add(
            &["router_refresh_ms", "kv_event_lag_ms"],
            with("router_view", view, note),
        );
    }
    if cfg.router_view == RouterView::Offline {
        let note = "the offline pass caches each pick's blocks at once";
        add(&["router_predict_ttl_ms"], with("router_view", view, note));
    }
    for (policy, field) in POLICY_FIELDS {
        if cfg.routing != policy {
            let note = format!("it is a setting of {} only", policy.name());
            add(&[field], with("routing", routing, &note));
        }
    }
    if cfg.engine != EnginePreset::Custom {
        let note = "a preset brings its own timing; the coefficients are the custom engine's";
        add(&CUSTOM_ENGINE, with("engine", cfg.engine.name(), note));
    }
    if cfg.routing != Policy::Kv {
        let note = "it weighs the kv policy's missed blocks";
        add(&["overlap_weight"], with("routing", routing, note));
    }
    if cfg.routing != Policy::PrefixAware && cfg.affinity_share() <= 0.0 {
        let why = format!(
            "with {} {routing} and no session affinity (only a sticky or prefix home spills)",
            flag("routing")
        );
        add(&["spill_queue"], why);
    }
    if let Some(note) = never_ties(cfg) {
        add(&["tie_break"], with("routing", routing, note));
    }
    if !cfg.request_rate_schedule.trim().is_empty() {
        let note = "the schedule sets the rate";
        let schedule = &cfg.request_rate_schedule;
        add(
            &["request_rate", "session_rate"],
            with("request_rate_schedule", schedule, note),
        );
    }
    if cfg.arrival_model != ArrivalModel::Gamma {
        let note = "it is the gamma model's shape";
        add(
            &["burstiness"],
            with("arrival_model", cfg.arrival_model.name(), note),
        );
    }
    out
}

/// Why no pick of `cfg` ever breaks a tie (so the tie rule does nothing), if none does:
/// a routing policy without ties, no session affinity or spill (they draw among equals),
/// and no split fleet's `least_kv` decode pick.
fn never_ties(cfg: &Config) -> Option<&'static str> {
    let note = match cfg.routing {
        Policy::RoundRobin => "it takes the replicas in turn",
        Policy::Random => "it draws a replica uniformly, with no ties to break",
        Policy::PrefixAware => "a hash ring names each prefix's home",
        Policy::Sglang => "it takes the first of equals under either rule, as its source does",
        Policy::Dynamo if cfg.dynamo_temperature > 0.0 => {
            "at a temperature above 0 it samples by cost"
        }
        _ => return None,
    };
    let spills = cfg.spill_queue > 0 && cfg.routing == Policy::PrefixAware;
    let decode_ties = cfg.pools().is_some() && cfg.decode_routing == DecodeRouting::LeastKv;
    (cfg.affinity_share() <= 0.0 && !spills && !decode_ties).then_some(note)
}

/// The synthetic workload's parameters: a replay's requests come from its trace or file.
const WORKLOAD_FIELDS: [&str; 19] = [
    "workload",
    "num_prefixes",
    "prefix_len",
    "prefix_popularity",
    "request_rate",
    "request_rate_schedule",
    "num_requests",
    "input_len",
    "output_len",
    "range_ratio",
    "arrival_model",
    "burstiness",
    "session_rate",
    "num_sessions",
    "turns",
    "turn_input_len",
    "turn_output_len",
    "think_time_ms",
    "system_prompt_len",
];

/// The parameters that do nothing on a replay, whose requests `source` (e.g. the flag
/// that read them) gives: every setting of the synthetic workload.
pub fn inert_on_replay(source: &str) -> Vec<Inert> {
    let why = format!("on a replay (its requests come from {source})");
    WORKLOAD_FIELDS
        .iter()
        .map(|&field| Inert {
            field,
            why: why.clone(),
        })
        .collect()
}

/// Whether `policy` scores the overlap the engines' caches report (what
/// `router_tiers` extends): `sglang` and `aibrix` match their own tables of past picks.
fn reads_engine_cache(policy: Policy) -> bool {
    matches!(
        policy,
        Policy::Kv | Policy::Dynamo | Policy::LlmD | Policy::Sticky
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(cfg: &Config) -> Vec<&'static str> {
        inert(cfg, str::to_string).iter().map(|i| i.field).collect()
    }

    #[test]
    fn the_default_config_leaves_the_other_features_settings_inert() {
        // Default: colocated, exact view, kv routing, a preset engine, Poisson arrivals.
        let got = fields(&Config::default());
        let want = [
            "decode_routing",
            "kv_transfer_gbps",
            "kv_transfer_base_us",
            "kv_bytes_per_token",
            "disagg_min_uncached_tokens",
            "cpu_load_gbps",
            "cpu_load_base_us",
            "shared_gbps",
            "shared_latency_us",
            "router_tiers",
            "router_cpu_us_fixed",
            "router_cpu_us_per_block",
            "router_queue",
            "min_instances",
            "max_instances",
            "startup_s",
            "kpa_target",
            "kpa_stable_window_s",
            "kpa_panic_window_pct",
            "kpa_panic_threshold_pct",
            "kpa_max_scale_up_rate",
            "kpa_max_scale_down_rate",
            "slo_interval_s",
            "slo_scale_down_pct",
            "router_refresh_ms",
            "kv_event_lag_ms",
            "dynamo_temperature",
            "dynamo_overlap_credit",
            "sglang_miss",
            "llmd_weights",
            "step_fixed_us",
            "prefill_token_us",
            "decode_seq_us",
            "kv_read_token_ns",
            "prefill_poly_ms",
            "decode_poly_ms",
            "spill_queue",
            "burstiness",
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn turning_a_feature_on_makes_its_settings_count() {
        let custom = Config {
            engine: EnginePreset::Custom,
            ..Config::default()
        };
        assert!(!fields(&custom).contains(&"step_fixed_us"));
        assert!(!fields(&custom).contains(&"decode_poly_ms"));
        let cfg = Config {
            prefill_instances: Some(1),
            decode_instances: Some(1),
            instances: 2,
            router_view: RouterView::Snapshot,
            routing: Policy::LlmD,
            arrival_model: ArrivalModel::Gamma,
            router_vcpu: Some(2),
            autoscale: Autoscale::Slo,
            ..Config::default()
        };
        let got = fields(&cfg);
        assert_eq!(
            got,
            [
                "cpu_load_gbps",
                "cpu_load_base_us",
                "shared_gbps",
                "shared_latency_us",
                "router_tiers",
                "kpa_target",
                "kpa_stable_window_s",
                "kpa_panic_window_pct",
                "kpa_panic_threshold_pct",
                "kpa_max_scale_up_rate",
                "kpa_max_scale_down_rate",
                "dynamo_temperature",
                "dynamo_overlap_credit",
                "sglang_miss",
                "step_fixed_us",
                "prefill_token_us",
                "decode_seq_us",
                "kv_read_token_ns",
                "prefill_poly_ms",
                "decode_poly_ms",
                "overlap_weight",
                "spill_queue"
            ]
        );
        // A CPU tier on a colocated fleet: its link and the KV bytes per token count.
        let tier = fields(&Config {
            cpu_kv_blocks: Some(8),
            ..Config::default()
        });
        assert!(!tier.contains(&"kv_bytes_per_token"));
        assert!(!tier.contains(&"cpu_load_gbps") && !tier.contains(&"cpu_load_base_us"));
        assert!(tier.contains(&"kv_transfer_gbps"));
        let zero = fields(&Config {
            cpu_kv_blocks: Some(0),
            ..Config::default()
        });
        assert!(zero.contains(&"cpu_load_gbps") && zero.contains(&"kv_bytes_per_token"));
        // The router's view of the tiers counts with a tier, under a policy reading the caches.
        let shared = |routing| Config {
            shared_kv_blocks: Some(8),
            routing,
            ..Config::default()
        };
        assert!(!fields(&shared(Policy::Kv)).contains(&"router_tiers"));
        assert!(!fields(&shared(Policy::Kv)).contains(&"shared_gbps"));
        assert!(fields(&shared(Policy::RoundRobin)).contains(&"router_tiers"));
        assert!(fields(&shared(Policy::Sglang)).contains(&"router_tiers"));
        let offline = Config {
            router_view: RouterView::Offline,
            ..cfg
        };
        let why = inert(&offline, |f| format!("--{f}"));
        let ttl = why.iter().find(|i| i.field == "router_predict_ttl_ms");
        assert!(ttl.is_some_and(|i| i.why.contains("--router_view offline")));
    }

    #[test]
    fn the_per_block_cpu_counts_only_where_the_router_hashes_blocks() {
        let inert = |routing, session_affinity| {
            let cfg = Config {
                routing,
                session_affinity,
                router_vcpu: Some(1),
                ..Config::default()
            };
            fields(&cfg).contains(&"router_cpu_us_per_block")
        };
        assert!(inert(Policy::RoundRobin, None));
        assert!(inert(Policy::P2c, None));
        assert!(!inert(Policy::Kv, None));
        assert!(!inert(Policy::PrefixAware, None));
        // Sticky's affinity looks for the replica holding the longest prefix.
        assert!(!inert(Policy::Sticky, None));
        assert!(!inert(Policy::RoundRobin, Some(50.0)));
    }

    #[test]
    fn a_spill_queue_counts_only_where_a_home_can_fill() {
        let under = |routing, session_affinity| {
            let cfg = Config {
                routing,
                session_affinity,
                ..Config::default()
            };
            fields(&cfg).contains(&"spill_queue")
        };
        // prefix_aware has a home per prefix; sticky a home per session (affinity 100 %).
        assert!(!under(Policy::PrefixAware, None));
        assert!(!under(Policy::Sticky, None));
        // Any policy with some affinity sends part of its requests home.
        assert!(!under(Policy::RoundRobin, Some(50.0)));
        assert!(under(Policy::RoundRobin, None));
        assert!(under(Policy::Sticky, Some(0.0)));
    }

    #[test]
    fn the_tie_rule_counts_only_where_a_pick_can_tie() {
        let ties_inert = |cfg: Config| fields(&cfg).contains(&"tie_break");
        let routed = |routing| Config {
            routing,
            ..Config::default()
        };
        for p in [
            Policy::RoundRobin,
            Policy::Random,
            Policy::PrefixAware,
            Policy::Sglang,
        ] {
            assert!(ties_inert(routed(p)), "{}", p.name());
        }
        for p in [
            Policy::Kv,
            Policy::LeastLoaded,
            Policy::Sticky,
            Policy::Dynamo,
        ] {
            assert!(!ties_inert(routed(p)), "{}", p.name());
        }
        // Dynamo samples above temperature 0; affinity and spill draw among equals; a
        // split fleet's least_kv decode pick draws too.
        assert!(ties_inert(Config {
            dynamo_temperature: 0.5,
            ..routed(Policy::Dynamo)
        }));
        assert!(!ties_inert(Config {
            session_affinity: Some(50.0),
            ..routed(Policy::Random)
        }));
        assert!(!ties_inert(Config {
            spill_queue: 4,
            ..routed(Policy::PrefixAware)
        }));
        let split = Config {
            prefill_instances: Some(1),
            decode_instances: Some(2),
            instances: 3,
            ..routed(Policy::RoundRobin)
        };
        assert!(!ties_inert(split.clone()));
        assert!(ties_inert(Config {
            decode_routing: DecodeRouting::Random,
            ..split
        }));
        let why = inert(&routed(Policy::Random), |f| format!("--{f}"));
        let tie = why.iter().find(|i| i.field == "tie_break").unwrap();
        assert_eq!(
            tie.why,
            "with --routing random (it draws a replica uniformly, with no ties to break)"
        );
    }

    #[test]
    fn a_rate_schedule_leaves_the_constant_rates_inert() {
        let fields = |schedule: &str| -> Vec<&str> {
            let cfg = Config {
                request_rate_schedule: schedule.into(),
                ..Config::default()
            };
            inert(&cfg, |k| k.to_string())
                .iter()
                .map(|i| i.field)
                .collect()
        };
        let with = fields("0s:4,60s:8");
        assert!(with.contains(&"request_rate") && with.contains(&"session_rate"));
        assert!(!fields("").contains(&"request_rate"));
    }

    #[test]
    fn a_replay_leaves_every_synthetic_workload_setting_inert() {
        let got = inert_on_replay("--des-mooncake-trace");
        assert_eq!(got.len(), 19);
        // A trace keeps its own timestamps: a rate schedule does nothing on it.
        for field in [
            "request_rate",
            "request_rate_schedule",
            "num_requests",
            "turns",
            "arrival_model",
        ] {
            assert!(got.iter().any(|i| i.field == field), "{field}");
        }
        // The fleet's settings still count on a replay.
        for field in ["instances", "kv_blocks", "block_size", "routing", "seed"] {
            assert!(got.iter().all(|i| i.field != field), "{field}");
        }
        assert_eq!(
            got[0].why,
            "on a replay (its requests come from --des-mooncake-trace)"
        );
    }
}
