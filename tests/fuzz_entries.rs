//! The fuzz targets' entry points (`kvfleet::fuzzing`, also run by `fuzz/` under
//! libFuzzer on nightly) driven on stable by proptest: mutated real lines of both
//! Mooncake traces, CSV and JSONL workloads built from them, mutated configs and sweep
//! specs, and raw bytes for the `Job` and sticky-with-spill targets. Each entry point
//! asserts the invariants itself; a panic fails the case with its input.
#![cfg(not(target_arch = "wasm32"))]

use std::sync::OnceLock;

use kvfleet::{fuzzing, params, Config};
use proptest::prelude::*;

/// Values that break parsers: signs, overflows, floats for integers, odd characters.
const NASTY: &[&str] = &[
    "-1",
    "0",
    "1.0",
    "1e20",
    "1e999",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "18396078577901554",
    "4611686018427388",
    "99999999999999999999999999999999999999",
    "null",
    "true",
    "\"x\"",
    "[]",
    "{}",
    "\u{feff}",
    "\r",
    "\n",
    "\\",
    "\"",
    ",",
    ":",
    "[",
    "}",
    "\0",
];

/// The first lines of both real traces.
fn real_lines() -> &'static [String] {
    static LINES: OnceLock<Vec<String>> = OnceLock::new();
    LINES.get_or_init(|| {
        let mut lines = Vec::new();
        for name in ["conversation_trace.jsonl", "synthetic_trace.jsonl"] {
            let path = format!("{}/data/mooncake/{name}", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read_to_string(&path).expect("the real traces are in data/");
            lines.extend(text.lines().take(300).map(str::to_string));
        }
        lines
    })
}

/// Numbers (and non-numbers) a field may be set to.
const NUMBERS: &[&str] = &[
    "-1",
    "0",
    "1.0",
    "2.5",
    "1e20",
    "1e999",
    "4294967295",
    "4294967296",
    "4611686018427388",
    "18396078577901554",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999999999999",
    "null",
    "\"7\"",
];

/// Keys whose values `Edit::Field` replaces (trace fields and CSV-like names).
const FIELDS: &[&str] = &[
    "\"timestamp\": ",
    "\"input_length\": ",
    "\"output_length\": ",
    "\"hash_ids\": [",
    "\"seed\":",
    "\"num_requests\":",
];

/// One edit of a text: set the value after a field name to a nasty one, replace a byte
/// range with a nasty value, delete a range, or duplicate one.
#[derive(Clone, Debug)]
enum Edit {
    Field(usize, usize, usize),
    Replace(usize, usize, usize),
    Delete(usize, usize),
    Duplicate(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (0..FIELDS.len(), any::<usize>(), 0..NUMBERS.len()).prop_map(|(f, n, k)| Edit::Field(f, n, k)),
        1 => (any::<usize>(), 0usize..12, 0..NASTY.len()).prop_map(|(a, n, k)| Edit::Replace(a, n, k)),
        1 => (any::<usize>(), 1usize..40).prop_map(|(a, n)| Edit::Delete(a, n)),
        1 => (any::<usize>(), 1usize..40).prop_map(|(a, n)| Edit::Duplicate(a, n)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    for e in edits {
        let len = bytes.len().max(1);
        match *e {
            Edit::Field(f, nth, k) => set_field(&mut bytes, FIELDS[f], nth, NUMBERS[k]),
            Edit::Replace(at, n, k) => {
                let at = at % len;
                let end = (at + n).min(bytes.len());
                bytes.splice(at.min(end)..end, NASTY[k].bytes());
            }
            Edit::Delete(at, n) => {
                let at = at % len;
                let end = (at + n).min(bytes.len());
                bytes.drain(at.min(end)..end);
            }
            Edit::Duplicate(at, n) => {
                let at = at % len;
                let end = (at + n).min(bytes.len());
                let copy: Vec<u8> = bytes[at.min(end)..end].to_vec();
                bytes.splice(at.min(end)..at.min(end), copy);
            }
        }
    }
    bytes
}

/// Replaces the value after the `nth` (mod count) occurrence of `key` with `value`.
fn set_field(bytes: &mut Vec<u8>, key: &str, nth: usize, value: &str) {
    let text = String::from_utf8_lossy(bytes).into_owned();
    let starts: Vec<usize> = text
        .match_indices(key)
        .map(|(i, _)| i + key.len())
        .collect();
    if starts.is_empty() {
        return;
    }
    let start = starts[nth % starts.len()];
    let len = text[start..]
        .find([',', '}', ']'])
        .unwrap_or(text.len() - start);
    let mut edited = text;
    edited.replace_range(start..start + len, value);
    *bytes = edited.into_bytes();
}

prop_compose! {
    /// A few real Mooncake lines, joined by newlines, then edited.
    fn mutated_trace()(
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..6),
        edits in prop::collection::vec(edit(), 0..4),
    ) -> Vec<u8> {
        let lines = real_lines();
        let text: Vec<&str> = picks.iter().map(|i| lines[i.index(lines.len())].as_str()).collect();
        apply(&(text.join("\n") + "\n"), &edits)
    }
}

prop_compose! {
    /// A workload CSV with a header of accepted column names (and maybe a stray one)
    /// and rows from real lines' numbers, then edited.
    fn mutated_csv()(
        arrival in prop::sample::select(vec!["timestamp", "arrival_ms", "arrival_s", "arrival_us"]),
        prompt in prop::sample::select(vec!["input_length", "prompt_tokens"]),
        output in prop::sample::select(vec!["output_length", "output_tokens"]),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..6),
        edits in prop::collection::vec(edit(), 0..4),
    ) -> Vec<u8> {
        let lines = real_lines();
        let mut text = format!("{arrival},note,{prompt},{output}\n");
        for i in &picks {
            let v: serde_json::Value = serde_json::from_str(&lines[i.index(lines.len())]).unwrap();
            text.push_str(&format!(
                "{},x,{},{}\n",
                v["timestamp"], v["input_length"], v["output_length"]
            ));
        }
        apply(&text, &edits)
    }
}

prop_compose! {
    /// The default config as JSON with one key set to a nasty or random value, edited.
    fn mutated_config()(
        key in any::<prop::sample::Index>(),
        value in prop_oneof![
            (0..NASTY.len()).prop_map(|k| NASTY[k].to_string()),
            any::<f64>().prop_map(|x| x.to_string()),
            any::<u64>().prop_map(|x| x.to_string()),
        ],
        edits in prop::collection::vec(edit(), 0..2),
    ) -> Vec<u8> {
        let mut v = serde_json::to_value(Config { num_requests: 30, ..Config::default() }).unwrap();
        let keys: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        let key = &keys[key.index(keys.len())];
        let text = v.to_string().replace(
            &format!("\"{key}\":{}", v[key.as_str()]),
            &format!("\"{key}\":{value}"),
        );
        v["seed"] = 0.into();
        apply(&text, &edits)
    }
}

prop_compose! {
    /// NAME=START:END[:STEP] or NAME=A,B,C over a real parameter name, edited.
    fn mutated_sweep()(
        name in any::<prop::sample::Index>(),
        dashes in any::<bool>(),
        numbers in prop::collection::vec(prop_oneof![
            (-5.0f64..2000.0).prop_map(|x| x.to_string()),
            (0..NASTY.len()).prop_map(|k| NASTY[k].to_string()),
            Just("1e-320".to_string()),
        ], 1..5),
        list in any::<bool>(),
        edits in prop::collection::vec(edit(), 0..2),
    ) -> Vec<u8> {
        let specs = params::specs();
        let mut key = specs[name.index(specs.len())].name.to_string();
        if dashes {
            key = key.replace('_', "-");
        }
        let sep = if list { "," } else { ":" };
        apply(&format!("{key}={}", numbers.join(sep)), &edits)
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn mooncake_lines(data in mutated_trace()) {
        fuzzing::mooncake(&data);
        fuzzing::workload_jsonl(&data);
    }

    #[test]
    fn workload_csv(data in mutated_csv()) {
        fuzzing::workload_csv(&data);
    }

    #[test]
    fn config_json(data in mutated_config()) {
        fuzzing::config_json(&data);
    }

    #[test]
    fn sweep_spec(data in mutated_sweep()) {
        fuzzing::sweep_spec(&data);
    }

    #[test]
    fn job_and_sticky_spill(data in prop::collection::vec(any::<u8>(), 0..DRAWN_BYTES)) {
        fuzzing::job(&data);
        fuzzing::sticky_spill(&data);
    }

    #[test]
    fn drawn_config_json(data in prop::collection::vec(any::<u8>(), DRAWN_BYTES)) {
        fuzzing::config_json(&drawn_json(&data));
    }
}

/// Bytes enough for `fuzzing::config` to draw every setting, split fleets included
/// (fewer leave the last settings at their first choice).
const DRAWN_BYTES: usize = 128;

/// The JSON of the config `fuzzing::config` draws from `data` (the `config_json`
/// target's input, over every feature).
fn drawn_json(data: &[u8]) -> Vec<u8> {
    let cfg = fuzzing::config(&mut fuzzing::Draws::new(data));
    serde_json::to_vec(&cfg).expect("a config serialises")
}

#[test]
fn every_trace_field_set_to_every_nasty_number() {
    // A fixed corpus beside the random one: two real lines, each field of the second
    // set to each value, as Mooncake and workload JSONL, and as a CSV arrival.
    let lines = real_lines();
    let pair = format!("{}\n{}\n", lines[0], lines[1]);
    for field in &FIELDS[..4] {
        for value in NUMBERS {
            let mut data = pair.clone().into_bytes();
            set_field(&mut data, field, 1, value);
            fuzzing::mooncake(&data);
            fuzzing::workload_jsonl(&data);
        }
    }
    for unit in ["arrival_us", "arrival_ms", "arrival_s"] {
        for value in NUMBERS {
            let csv = format!("{unit},input_length,output_length\n0,10,1\n{value},10,1\n");
            fuzzing::workload_csv(csv.as_bytes());
        }
    }
}

#[test]
fn the_entry_points_take_empty_and_garbage_input() {
    for data in [&b""[..], b"\n", b"\xff\xfe", b"{", b"\xef\xbb\xbf"] {
        fuzzing::mooncake(data);
        fuzzing::workload_csv(data);
        fuzzing::workload_jsonl(data);
        fuzzing::config_json(data);
        fuzzing::sweep_spec(data);
        fuzzing::job(data);
        fuzzing::sticky_spill(data);
    }
}

/// The fuzzer's find: an unknown sweep parameter of invisible characters, whose escapes
/// once made the message longer than a message may be (each shows as `\u{0}`).
#[test]
fn an_unknown_sweep_parameter_of_invisible_characters_gets_a_short_message() {
    let mut data = vec![0u8; 2000];
    data.extend_from_slice(b"kv-blocks=");
    fuzzing::sweep_spec(&data);
}

/// The fuzzer's find: with `router_tiers` all, a router counts CPU-tier and shared-tier
/// blocks on top of the HBM run the decision log's truth records, so its hits may exceed
/// the truth (never fall below it); the checker once required them equal.
#[test]
fn a_router_that_counts_the_lower_tiers_sees_more_hits_than_hbm_holds() {
    const CFG: &str = r#"{"seed":648129845238903,"request_rate":0.5,"arrival_model":"gamma","burstiness":0.2,"num_requests":10,"input_len":1,"output_len":30,"range_ratio":0.0,"num_prefixes":8,"prefix_len":1,"prefix_popularity":"uniform","instances":5,"routing":"prefix_aware","overlap_weight":0.0,"block_size":16,"kv_blocks":111,"max_batch":256,"max_batched_tokens":8192,"engine":"llama3-70b-4xh100","step_fixed_us":6000.0,"prefill_token_us":32.0,"decode_seq_us":20.0,"kv_read_token_ns":49.0,"workload":"sessions","session_rate":20.0,"num_sessions":3,"turns":2,"turn_input_len":600,"turn_output_len":20,"think_time_ms":50.0,"system_prompt_len":512,"session_affinity":null,"spill_queue":0,"queue_capacity":1,"timeout_ms":20000.0,"router_view":"exact","router_refresh_ms":0.0,"kv_event_lag_ms":100.0,"router_predict_ttl_ms":0.0,"routers":4,"router_cpu_us_fixed":50000.0,"dynamo_temperature":100.0,"dynamo_overlap_credit":0.5,"sglang_miss":"load","llmd_weights":"0,0,1","admission":"preempt","cpu_kv_blocks":4,"shared_kv_blocks":8,"shared_gbps":0.001,"router_tiers":"all"}"#;
    fuzzing::config_json(CFG.as_bytes());
}
