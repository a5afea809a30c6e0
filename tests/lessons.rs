//! The two lessons end to end: the broken preset shows its symptom (measured
//! thresholds), it fails its goal, and every documented fix meets the goal.
#![cfg(not(target_arch = "wasm32"))]

use kvfleet::lessons::{self, apply, broken_config, evaluate, Lesson};
use kvfleet::{api, Config, Report};

fn run(cfg: &Config) -> Report {
    api::synthetic_simulation(cfg).unwrap().into_report()
}

fn met(lesson: &Lesson, report: &Report) -> bool {
    evaluate(lesson, report).iter().all(|c| c.met)
}

fn check_fixes(lesson: &Lesson) {
    let broken = broken_config(lesson);
    for fix in &lesson.fixes {
        let cfg = apply(&broken, &fix.config).unwrap();
        let report = run(&cfg);
        assert!(
            met(lesson, &report),
            "{}: fix '{}' misses the goal: {:?}",
            lesson.id,
            fix.name,
            evaluate(lesson, &report)
        );
    }
}

#[test]
fn more_replicas_slower_broken_state_shows_the_symptom() {
    let lesson = lessons::lesson("more-replicas-slower").unwrap();
    let broken = broken_config(&lesson);
    let report = run(&broken);
    assert!(!met(&lesson, &report));
    let s = &report.summary;
    assert!(
        (0.60..0.64).contains(&s.hit_rate_tokens),
        "the story says about 62%: {}",
        s.hit_rate_tokens
    );
    assert!(
        s.hit_rate_requests > 0.99,
        "every request still hits the system prompt"
    );
    // The replica sweep: round robin's hit rate falls and its median TTFT rises as
    // replicas are added.
    let at = |n: u32| {
        run(&Config {
            instances: n,
            ..broken.clone()
        })
        .summary
    };
    let (s4, s8, s16) = (at(4), at(8), at(16));
    assert!(
        s4.hit_rate_tokens > s8.hit_rate_tokens + 0.05
            && s8.hit_rate_tokens > s16.hit_rate_tokens + 0.05
    );
    // The title's claim: more replicas, slower first tokens, at the median and at p99.
    assert!(s4.ttft_ms_p50 < s8.ttft_ms_p50 && s8.ttft_ms_p50 < s16.ttft_ms_p50);
    assert!(s4.ttft_ms_p99 < s8.ttft_ms_p99 && s8.ttft_ms_p99 < s16.ttft_ms_p99);
    // "Tasks finish no sooner": four times the replicas change mean task time by < 10%.
    let task = |n: u32| {
        run(&Config {
            instances: n,
            ..broken.clone()
        })
        .sessions
        .unwrap()
        .task_s
        .mean
    };
    let (t4, t16) = (task(4), task(16));
    assert!((t16 - t4).abs() < 0.1 * t4, "task time {t4} s -> {t16} s");
    // Twice the replicas under round robin still lose to 8 sticky ones.
    let sticky8 = run(&apply(&broken, &serde_json::json!({"routing": "sticky"})).unwrap());
    let rr16 = run(&Config {
        instances: 16,
        ..broken.clone()
    });
    assert!(sticky8.summary.ttft_ms_p99 < rr16.summary.ttft_ms_p99);
    // The explanation's figures: sticky about 92% and p99 under 100 ms, from about 650 ms;
    // kv alone about 86% with p99 above 500 ms (543 ms measured).
    let (st, br) = (&sticky8.summary, &report.summary);
    assert!((0.90..0.94).contains(&st.hit_rate_tokens) && st.ttft_ms_p99 < 100.0);
    assert!(
        (600.0..700.0).contains(&br.ttft_ms_p99),
        "broken p99 {}",
        br.ttft_ms_p99
    );
    let kv = run(&apply(&broken, &serde_json::json!({"routing": "kv"})).unwrap()).summary;
    assert!(
        (0.84..0.88).contains(&kv.hit_rate_tokens),
        "kv {}",
        kv.hit_rate_tokens
    );
    assert!(
        (500.0..600.0).contains(&kv.ttft_ms_p99),
        "kv p99 {}",
        kv.ttft_ms_p99
    );
    assert!(!met(
        &lesson,
        &run(&apply(&broken, &serde_json::json!({"routing": "kv"})).unwrap())
    ));
    check_fixes(&lesson);
}

#[test]
fn hot_prefix_broken_state_shows_the_symptom() {
    let lesson = lessons::lesson("hot-prefix").unwrap();
    let report = run(&broken_config(&lesson));
    assert!(!met(&lesson, &report));
    let s = &report.summary;
    assert!(
        s.hit_rate_tokens > 0.85,
        "locality looks excellent: {}",
        s.hit_rate_tokens
    );
    assert!(s.ttft_ms_p99 > 10_000.0, "p99 TTFT {}", s.ttft_ms_p99);
    assert!(s.rejected > 1000, "rejections {}", s.rejected);
    assert!(s.hot_spot);
    let hot = report
        .per_instance
        .iter()
        .max_by_key(|p| p.requests)
        .unwrap();
    assert!(hot.busy_share > 0.99 && hot.peak_queue >= 32);
    for p in report.per_instance.iter().filter(|p| p.index != hot.index) {
        assert!(
            p.busy_share < 0.7,
            "replica {} busy {}",
            p.index,
            p.busy_share
        );
    }
    check_fixes(&lesson);
    // Spilling late is no fix: the card's rule is to spill once the replica saturates.
    let late = apply(
        &broken_config(&lesson),
        &serde_json::json!({"spill_queue": 16}),
    )
    .unwrap();
    assert!(!met(&lesson, &run(&late)));
}

#[test]
fn lessons_serialise_for_the_page() {
    // What the page relies on: the two ids, text to show, a broken config and fixes
    // that parse, and checks whose metric paths name numbers in a real report.
    let v: serde_json::Value = serde_json::from_str(&api::lessons_json()).unwrap();
    let list = v.as_array().unwrap();
    let ids: Vec<&str> = list.iter().map(|l| l["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["more-replicas-slower", "hot-prefix"]);
    let report = serde_json::to_value(run(&Config {
        num_requests: 20,
        ..Config::default()
    }))
    .unwrap();
    for l in list {
        for key in [
            "title",
            "story",
            "symptom",
            "goal",
            "explanation",
            "rule_of_thumb",
        ] {
            let text = l[key]
                .as_str()
                .unwrap_or_else(|| panic!("{key}: {}", l[key]));
            assert!(text.len() > 20, "{}: {key} is {text:?}", l["id"]);
        }
        let broken: Config = serde_json::from_value(l["broken"].clone()).unwrap();
        assert!(l["hints"].as_array().unwrap().len() >= 3);
        let fixes = l["fixes"].as_array().unwrap();
        assert!(fixes.len() >= 2);
        for fix in fixes {
            assert!(!fix["name"].as_str().unwrap().is_empty());
            apply(&broken, &fix["config"]).unwrap();
        }
        for check in l["checks"].as_array().unwrap() {
            let path = check["metric"].as_str().unwrap();
            let value = path.split('.').try_fold(&report, |n, k| n.get(k));
            assert!(value.and_then(|x| x.as_f64()).is_some(), "{path}");
            assert!(matches!(check["op"].as_str(), Some("<=" | ">=")), "{check}");
            assert!(check["value"].is_number() && !check["label"].as_str().unwrap().is_empty());
        }
    }
}
