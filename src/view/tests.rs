//! Unit tests of what the routers know: which index answers `seen_holds` in each mode.

use super::*;

fn knowledge(view: RouterView, lag_ms: f64) -> Knowledge {
    Knowledge::new(&Config {
        instances: 2,
        router_view: view,
        kv_event_lag_ms: lag_ms,
        ..Config::default()
    })
}

#[test]
fn exact_holds_what_the_engines_hold_now() {
    let mut k = knowledge(RouterView::Exact, 0.0);
    k.cache_event(0, 1, 42, true);
    assert!(k.seen_holds(42, 1));
    assert!(!k.seen_holds(42, 0), "another replica's block");
    k.cache_event(5, 1, 42, false);
    assert!(!k.seen_holds(42, 1), "evicted");
}

#[test]
fn a_lagged_view_holds_a_block_only_once_its_event_arrived() {
    // Stored at 0 with a 10 ms lag: unseen at 5 ms, seen from 10 ms.
    let mut k = knowledge(RouterView::Snapshot, 10.0);
    k.cache_event(0, 1, 42, true);
    let (mut seen, live) = ([0u32; 2], [0u32, 1]);
    k.seen_hits(5_000, &[42], 1, &live, &mut seen);
    assert!(!k.seen_holds(42, 1));
    assert_eq!(seen, [0, 0]);
    k.seen_hits(10_000, &[42], 1, &live, &mut seen);
    assert!(k.seen_holds(42, 1));
    assert_eq!(seen, [0, 1]);
}

#[test]
fn offline_holds_what_was_routed_not_what_the_engines_hold() {
    let mut k = knowledge(RouterView::Offline, 0.0);
    k.cache_event(0, 0, 7, true);
    assert!(
        !k.seen_holds(7, 0),
        "the engines' events do not reach the offline pass"
    );
    k.routed(1, &[7, 8]);
    assert!(k.seen_holds(7, 1) && k.seen_holds(8, 1));
    assert!(!k.seen_holds(7, 0));
}
