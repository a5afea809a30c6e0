//! The material's runs: one per distinct config, whatever change set names it, and the
//! figure handed out before the rest is measured.

use super::*;
use crate::lessons::broken_config;
use serde_json::json;

#[test]
fn two_change_sets_that_give_one_config_share_a_run() {
    let lesson = crate::lessons::lesson("more-replicas-slower").expect("a lesson");
    let instances = broken_config(&lesson).instances;
    let mut runs = runs_of(&lesson, None).expect("a synthetic lesson");
    runs.report(&json!({})).expect("the broken setup runs");
    // The broken setup's own replica count, named: the same config.
    runs.report(&json!({ "instances": instances }))
        .expect("it runs");
    assert_eq!(runs.done.len(), 1, "one config, one run");
    runs.report(&json!({ "instances": instances + 1 }))
        .expect("it runs");
    assert_eq!(runs.done.len(), 2, "another config, another run");
}

#[test]
fn the_figure_is_handed_out_once_and_is_the_materials() {
    let lesson = crate::lessons::lesson("more-replicas-slower").expect("a lesson");
    let mut handed = Vec::new();
    let m = material_with(&lesson, None, &mut |d| {
        handed.push(serde_json::to_string(d).unwrap())
    })
    .expect("the material is measured");
    assert_eq!(handed.len(), 1, "the figure once");
    assert_eq!(handed[0], serde_json::to_string(&m.diagram).unwrap());
}
