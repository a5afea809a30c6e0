//! The performance chapter's figures table (docs/src/performance.md) is rendered from the
//! record of measurements (docs/perf/figures.json), never typed: this test renders it and
//! fails on any difference, so a hand edit to the table fails CI. `cargo xtask docs` (or
//! `KVFLEET_BLESS=1 cargo test --test perf_reference`) rewrites it; `cargo xtask perf
//! record ID` measures and rewrites both.
#![cfg(not(target_arch = "wasm32"))]

// The xtask's own module: one renderer for the xtask and this check. The xtask's recording
// half (`apply`, `find`) is used by the tests below only.
#[allow(dead_code)]
#[path = "../xtask/src/figures.rs"]
mod figures;

use figures::{Machine, Record};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> (PathBuf, String) {
    let path = root().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
    (path, text)
}

fn record() -> Record {
    figures::parse(&read(figures::RECORD_PATH).1).expect("the record parses")
}

#[test]
fn the_chapter_s_figures_are_the_record_s() {
    let (path, text) = read(figures::CHAPTER_PATH);
    let want = figures::rewrite(&text, &record()).expect("the record renders");
    if std::env::var_os("KVFLEET_BLESS").is_some() {
        std::fs::write(&path, &want).expect("the chapter is writable");
        return;
    }
    assert!(
        text == want,
        "docs/src/performance.md's figures differ from docs/perf/figures.json: record a figure \
         with `cargo xtask perf record ID`, or regenerate the table with `cargo xtask docs`"
    );
}

/// The chapter with one number of its table changed, as a hand edit would.
#[test]
fn a_hand_edit_to_the_table_fails_the_check() {
    let record = record();
    let chapter = figures::rewrite(&read(figures::CHAPTER_PATH).1, &record).unwrap();
    let wasm = record
        .measures
        .iter()
        .find(|m| m.id == "wasm-size")
        .unwrap();
    let total = wasm.latest.values["total_bytes"].as_u64().unwrap();
    let shown = format!("**{} B**", figures::grouped(&total.to_string()));
    assert!(chapter.contains(&shown), "the table shows {shown}");
    let edited = chapter.replace(&shown, "**123,456 B**");
    assert_ne!(figures::rewrite(&edited, &record).unwrap(), edited);
    // Outside the table, the prose is the chapter's own.
    let prose = chapter.replace("## Reading these numbers", "## Reading the numbers");
    assert_eq!(figures::rewrite(&prose, &record).unwrap(), prose);
}

fn this_machine() -> Machine {
    Machine {
        cores: 4,
        cpu: Some("Test CPU 9000".into()),
        os: "Test OS 1".into(),
    }
}

#[test]
fn a_recorded_result_changes_its_rows() {
    let mut record = record();
    let before = figures::render(&record).unwrap();
    let embed = record
        .measures
        .iter()
        .find(|m| m.id == "cold-load-embed")
        .unwrap();
    let embed_row = format!("| {} (machine ", cells(embed).1);
    let result = json!({
        "page": {"local": {"median_ms": 512, "runs": 3, "requests": 9, "kib": 431},
                 "emulated": {"median_ms": 1666, "runs": 3, "requests": 9, "kib": 431}},
        "embed": {"local": {"median_ms": 250, "runs": 3}, "emulated": {"median_ms": 700, "runs": 3}}
    });
    for id in ["cold-load-page", "cold-load-page-emulated"] {
        let m = figures::find(&mut record, id).unwrap();
        figures::apply(m, &result, this_machine(), Some((1.25, 2.5))).unwrap();
    }
    let after = figures::render(&record).unwrap();
    assert_ne!(before, after);
    assert!(after.contains(
        "| **512 ms** (median of 3, each in a fresh browser context, served gzipped; 9 requests \
         and 431 KiB before the first chart; the machine's load average 1.2 to 2.5) (machine "
    ));
    // 1,666 ms is over the emulated page's 1.5 s target, and the row says so.
    assert!(after.contains(
        "| **1,666 ms** (median of 3, load average 1.2 to 2.5) (over the target) (machine "
    ));
    // A machine of its own: it is described under a letter of its own (the machines are
    // lettered in the order the rows first name them), and the rows name it.
    let label = ('a'..='z')
        .find(|ch| {
            after.contains(&format!(
                "- **{ch}**: a machine with 4 cores (Test CPU 9000), Test OS 1\n"
            ))
        })
        .expect("the test machine is described");
    assert!(!before.contains("Test CPU 9000"));
    assert!(after.contains(&format!("(over the target) (machine {label}) | the same |")));
    // The embed rows were not recorded: their figures stand.
    assert!(after.contains(&embed_row), "{embed_row}");
}

#[test]
fn a_result_without_a_row_s_values_is_refused_and_changes_nothing() {
    let mut record = record();
    let m = figures::find(&mut record, "wasm-size").unwrap();
    let total = m.latest.values["total_bytes"].clone();
    let err = figures::apply(m, &json!({"total_bytes": 1}), this_machine(), None).unwrap_err();
    assert!(err.contains("wasm_bytes"), "{err}");
    assert_eq!(m.latest.values["total_bytes"], total);
    let m = figures::find(&mut record, "cold-load-page").unwrap();
    let err = figures::apply(m, &json!({"page": {}}), this_machine(), None).unwrap_err();
    assert!(err.contains("/page/local"), "{err}");
    assert!(figures::find(&mut record, "no-such-measure")
        .err()
        .unwrap()
        .contains("wasm-size"));
}

#[test]
fn the_load_average_is_recorded_unless_the_result_states_it() {
    let mut record = record();
    let m = figures::find(&mut record, "wasm-size").unwrap();
    let r = json!({"total_bytes": 279999, "wasm_bytes": 272000, "glue_bytes": 7999});
    figures::apply(m, &r, this_machine(), Some((0.5, 2.25))).unwrap();
    assert_eq!(m.latest.values["load_avg_min"], json!(0.5));
    assert_eq!(m.latest.values["load_avg_max"], json!(2.25));
    // Under the budget now: the row no longer says it is over.
    let (_, latest) = cells(m);
    assert_eq!(latest, "**279,999 B**: 272,000 of wasm, 7,999 of glue");
    let r = json!({"total_bytes": 1, "wasm_bytes": 1, "glue_bytes": 0, "load_avg_min": 3.0, "load_avg_max": 4.0});
    figures::apply(m, &r, this_machine(), Some((0.5, 2.25))).unwrap();
    assert_eq!(m.latest.values["load_avg_min"], json!(3.0));
}

fn cells(m: &figures::Measure) -> (String, String) {
    (
        figures::fill(&m.measure, &m.latest.values).unwrap(),
        figures::fill(&m.text, &m.latest.values).unwrap(),
    )
}

fn values(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

#[test]
fn placeholders_are_filled_from_the_values() {
    let v = values(
        json!({"ms": 8683.0, "n": 1234567, "x": 1.23456, "w": "every time",
                          "a": {"b": 7}}),
    );
    let fill = |t: &str| figures::fill(t, &v);
    assert_eq!(fill("{ms} ms").unwrap(), "8,683.0 ms");
    assert_eq!(fill("{n} B").unwrap(), "1,234,567 B");
    assert_eq!(fill("{x:.2}×, {x:.0}").unwrap(), "1.23×, 1");
    assert_eq!(fill("starts {w}; {a.b}").unwrap(), "starts every time; 7");
    assert_eq!(fill("{x>1.2? over}|{x<1.2? under}").unwrap(), " over|");
    assert_eq!(fill("{x~ms:.1}; {x~x:.1}").unwrap(), "1.2 to 8,683.0; 1.2");
    assert_eq!(figures::grouped("-1234.5"), "-1,234.5");
    assert_eq!(figures::grouped("999"), "999");
    for (bad, says) in [
        ("{missing}", "no value `missing`"),
        ("{a.c}", "no value `a.c`"),
        ("{w:.1}", "not a number"),
        ("{x?words}", "needs > or <"),
        ("{x>lots?words}", "not a number"),
        ("{x:.z}", "decimals"),
        ("open {x", "unclosed"),
    ] {
        let err = fill(bad).unwrap_err();
        assert!(err.contains(says), "{bad}: {err}");
    }
}

#[test]
fn every_recordable_measure_says_where_its_result_is() {
    for m in record().measures {
        assert!(
            m.record.is_some() || m.needs.is_some(),
            "{}: a measure without a recording command says what it needs",
            m.id
        );
        if let Some(r) = &m.result {
            assert!(
                m.record.as_deref().unwrap_or_default().contains(r.as_str()) || m.id == "wasm-size",
                "{}: its command writes {r}",
                m.id
            );
        }
    }
}
