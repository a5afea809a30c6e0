//! The workload a lesson pins: its calls (how many, when they arrive, their prompts and
//! answers) and the blocks their prompts are cut into. A goal is about that workload; the
//! reader changes the fleet (routing, replicas, cache, queue, timeout), not the calls. A
//! run of other calls is not judged against the goal (`changed_keys`), and a synthetic
//! workload setting that the lesson's runs ignore (a trace lesson's request rate) is named
//! as such (`ignored_keys`). A lesson pins its GPU too (`hardware`): a goal about
//! routing, replicas or cache is not met by a faster engine, so a run on another engine or
//! a mixed fleet is not judged either (`changed_hardware`).

use serde_json::{Map, Value};

use super::{broken_config, Lesson};
use crate::config::{Config, WorkloadKind};

/// The settings of the synthetic pool workload (independent requests).
const POOL_KEYS: &[&str] = &[
    "workload",
    "request_rate",
    "request_rate_schedule",
    "arrival_model",
    "burstiness",
    "num_requests",
    "input_len",
    "output_len",
    "range_ratio",
    "num_prefixes",
    "prefix_len",
    "prefix_popularity",
];

/// The settings of the synthetic sessions workload (multi-turn tasks).
const SESSION_KEYS: &[&str] = &[
    "workload",
    "session_rate",
    "request_rate_schedule",
    "num_sessions",
    "turns",
    "turn_input_len",
    "turn_output_len",
    "think_time_ms",
    "system_prompt_len",
];

/// How prompts are cut into blocks: every lesson pins it (a trace's block ids are of one
/// size; a synthetic lesson's cache limit is counted in blocks of its size).
const BLOCK_KEYS: &[&str] = &["block_size"];

/// The settings of the GPU a lesson's replicas run on: the engine preset (a custom engine
/// is another preset name) and a mixed fleet's presets.
const PRESET_KEYS: &[&str] = &["engine", "fleet"];

/// The custom engine's coefficients: pinned as well when a lesson's engine is `custom`.
const CUSTOM_KEYS: &[&str] = &[
    "step_fixed_us",
    "prefill_token_us",
    "decode_seq_us",
    "kv_read_token_ns",
    "prefill_poly_ms",
    "decode_poly_ms",
];

/// The config keys that set the lesson's GPU.
pub fn hardware_keys(lesson: &Lesson) -> Vec<&'static str> {
    let custom = broken_config(lesson).engine == crate::timing::EnginePreset::Custom;
    let extra: &[&str] = if custom { CUSTOM_KEYS } else { &[] };
    PRESET_KEYS.iter().chain(extra).copied().collect()
}

/// The lesson's GPU: each of its keys with the value its runs use.
pub fn hardware(lesson: &Lesson) -> Map<String, Value> {
    values(&broken_config(lesson), &hardware_keys(lesson))
}

/// The keys of `lesson`'s GPU that `cfg` sets otherwise: a run of `cfg` is not on the
/// lesson's GPU unless this is empty.
pub fn changed_hardware(lesson: &Lesson, cfg: &Config) -> Vec<&'static str> {
    changed(&broken_config(lesson), cfg, hardware_keys(lesson))
}

/// The config keys that set the lesson's workload.
pub fn workload_keys(lesson: &Lesson) -> Vec<&'static str> {
    let synthetic: &[&str] = if !lesson.trace.is_empty() {
        &[]
    } else if broken_config(lesson).workload == WorkloadKind::Sessions {
        SESSION_KEYS
    } else {
        POOL_KEYS
    };
    synthetic.iter().chain(BLOCK_KEYS).copied().collect()
}

/// The synthetic workload settings that the lesson's runs ignore: all of them for a lesson
/// that replays a trace, the other workload's for a synthetic one.
pub fn ignored_keys(lesson: &Lesson) -> Vec<&'static str> {
    let used = workload_keys(lesson);
    let mut ignored = Vec::new();
    for k in POOL_KEYS.iter().chain(SESSION_KEYS) {
        if !used.contains(k) && !ignored.contains(k) {
            ignored.push(*k);
        }
    }
    ignored
}

/// The lesson's workload: each of its keys with the value its runs use.
pub fn workload(lesson: &Lesson) -> Map<String, Value> {
    values(&broken_config(lesson), &workload_keys(lesson))
}

/// The keys of `lesson`'s workload that `cfg` sets otherwise: a run of `cfg` is not of the
/// lesson's workload unless this is empty.
pub fn changed_keys(lesson: &Lesson, cfg: &Config) -> Vec<&'static str> {
    changed(&broken_config(lesson), cfg, workload_keys(lesson))
}

/// The `keys` whose value in `cfg` differs from the lesson's (`pinned`).
fn changed(pinned: &Config, cfg: &Config, keys: Vec<&'static str>) -> Vec<&'static str> {
    let was = values(pinned, &keys);
    let now = values(cfg, &keys);
    keys.into_iter()
        .filter(|k| was.get(*k) != now.get(*k))
        .collect()
}

/// `keys` of `cfg`, as the report's JSON writes them.
fn values(cfg: &Config, keys: &[&str]) -> Map<String, Value> {
    let all = crate::json::value_of(cfg);
    keys.iter()
        .map(|k| (k.to_string(), all.get(*k).cloned().unwrap_or(Value::Null)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::{apply, broken_config, lesson};
    use super::{changed_hardware, changed_keys, hardware, ignored_keys, workload, workload_keys};
    use serde_json::json;

    #[test]
    fn a_lesson_pins_the_settings_of_its_own_workload() {
        let hot = lesson("hot-prefix").unwrap();
        let w = workload(&hot);
        // The story's numbers: 30 requests a second, 3,000 of them, 85% on one prefix.
        assert_eq!(w["request_rate"], json!(30.0));
        assert_eq!(w["num_requests"], json!(3000));
        assert_eq!(w["prefix_popularity"], json!("hot:0.85"));
        assert_eq!(w["block_size"], json!(512));
        assert!(!w.contains_key("instances") && !w.contains_key("routing"));
        assert!(ignored_keys(&hot).contains(&"session_rate"));
        let agents = lesson("more-replicas-slower").unwrap();
        assert!(workload_keys(&agents).contains(&"num_sessions"));
        assert!(ignored_keys(&agents).contains(&"request_rate"));
        assert!(!ignored_keys(&agents).contains(&"workload"));
        // A trace lesson pins its block size; every synthetic setting is ignored.
        let pileup = lesson("smallest-tree-pile-up").unwrap();
        assert_eq!(workload_keys(&pileup), ["block_size"]);
        assert_eq!(workload(&pileup)["block_size"], json!(16));
        assert!(ignored_keys(&pileup).contains(&"request_rate"));
        assert!(ignored_keys(&pileup).contains(&"num_sessions"));
    }

    #[test]
    fn only_a_change_of_the_workload_counts() {
        let hot = lesson("hot-prefix").unwrap();
        let broken = broken_config(&hot);
        assert!(changed_keys(&hot, &broken).is_empty());
        let fleet = json!({"routing": "kv", "instances": 12, "timeout_ms": 990.0, "seed": 7});
        assert!(changed_keys(&hot, &apply(&broken, &fleet).unwrap()).is_empty());
        let same = json!({"request_rate": 30.0, "num_requests": 3000});
        assert!(changed_keys(&hot, &apply(&broken, &same).unwrap()).is_empty());
        let fewer = json!({"num_requests": 5, "request_rate": 0.1, "block_size": 16});
        assert_eq!(
            changed_keys(&hot, &apply(&broken, &fewer).unwrap()),
            ["request_rate", "num_requests", "block_size"]
        );
        // A rate schedule changes when the calls arrive: it is the workload's too.
        let step = json!({"request_rate_schedule": "0s:30,10s:60"});
        assert_eq!(
            changed_keys(&hot, &apply(&broken, &step).unwrap()),
            ["request_rate_schedule"]
        );
        let spike = lesson("spike-cold-replicas").unwrap();
        assert_eq!(
            workload(&spike)["request_rate_schedule"],
            json!("0s:4,60s:24")
        );
        // The GPU is pinned apart from the calls: a faster engine or a mixed fleet.
        assert!(changed_hardware(&hot, &broken).is_empty());
        let b200 = json!({"engine": "llama3-8b-b200"});
        assert_eq!(
            changed_hardware(&hot, &apply(&broken, &b200).unwrap()),
            ["engine"]
        );
        assert!(changed_keys(&hot, &apply(&broken, &b200).unwrap()).is_empty());
        let mixed = json!({"fleet": "2:llama3-8b-b200,2:llama3-8b-h100"});
        assert_eq!(
            changed_hardware(&hot, &apply(&broken, &mixed).unwrap()),
            ["fleet"]
        );
        assert_eq!(hardware(&hot)["engine"], json!("llama3-8b-h100"));
        // A setting the lesson's workload does not use is no change of it.
        let unused = json!({"session_rate": 5.0});
        assert!(changed_keys(&hot, &apply(&broken, &unused).unwrap()).is_empty());
    }
}
