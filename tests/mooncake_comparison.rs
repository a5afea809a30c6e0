//! The book's comparison of local caches and one pool on the two built-in Mooncake traces
//! (docs/src/memory-hierarchy.md, "Local caches or one pool"), measured here: each row of
//! its tier table, and its table of the pool's ratio over local caches under three routers
//! with the sentences that read it.
#![cfg(not(target_arch = "wasm32"))]

use kvfleet::{api, Config, Policy, Request};

const BOOK: &str = include_str!("../docs/src/memory-hierarchy.md");

/// A built-in trace's requests.
fn trace(name: &str) -> Vec<Request> {
    let path = format!(
        "{}/data/mooncake/{name}_trace.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let reader = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
    let options = kvfleet::trace::TraceOptions::default();
    kvfleet::trace::parse_mooncake(reader, name, &options).unwrap()
}

/// Whole ms with a thousands comma, as the book's table prints them.
fn ms(x: f64) -> String {
    let x = x.round() as u64;
    if x >= 1000 {
        format!("{},{:03}", x / 1000, x % 1000)
    } else {
        x.to_string()
    }
}

/// One row of the book's Mooncake table as it prints it: hit rate, split (M tokens) and GB loaded.
fn row_words(r: &kvfleet::Report) -> (String, String, String) {
    let s = &r.summary;
    let m = |tok: u64| format!("{:.1}", tok as f64 / 1e6);
    let (split, loaded) = match (&s.shared_tier, &s.cpu_tier) {
        (Some(t), _) => (
            format!("{} / – / {}", m(t.hbm_hit_tokens), m(t.shared_hit_tokens)),
            t.loaded_bytes,
        ),
        (None, Some(t)) => (
            format!("{} / {} / –", m(t.hbm_hit_tokens), m(t.cpu_hit_tokens)),
            t.loaded_bytes,
        ),
        (None, None) => (format!("{} / – / –", m(s.cached_tokens)), 0),
    };
    let gb = (loaded as f64 / 1e9).round() as u64;
    let loaded = if loaded == 0 {
        "–".to_string()
    } else if gb >= 1000 {
        format!("{},{:03} GB", gb / 1000, gb % 1000)
    } else {
        format!("{gb} GB")
    };
    (format!("{:.1}%", s.hit_rate_tokens * 100.0), split, loaded)
}

// The book's comparison of local caches and one pool (docs/src/memory-hierarchy.md) is
// measured: each row of its table is this run's hit rate, split, bytes loaded and TTFT.
#[test]
fn the_books_mooncake_comparison_is_measured() {
    let rows: Vec<Vec<&str>> = BOOK[..BOOK.find("### The paper's ratio").unwrap()]
        .lines()
        .filter(|l| l.starts_with("| conversation |") || l.starts_with("| synthetic |"))
        .map(|l| l.trim_matches('|').split('|').map(str::trim).collect())
        .collect();
    assert_eq!(rows.len(), 10, "the table's rows");
    for name in ["conversation", "synthetic"] {
        let requests = trace(name);
        for row in rows.iter().filter(|r| r[0] == name) {
            let mut cfg = Config {
                instances: 10,
                kv_blocks: Some(900),
                block_size: 512,
                routing: Policy::Kv,
                router_tiers: if row[2] == "all" {
                    kvfleet::RouterTiers::All
                } else {
                    kvfleet::RouterTiers::Hbm
                },
                ..Config::default()
            };
            if row[1].starts_with("local") {
                cfg.cpu_kv_blocks = Some(5860);
            } else if row[1].starts_with("pooled") {
                cfg.shared_kv_blocks = Some(58_594);
            }
            let r = api::replay_simulation(&cfg, requests.clone(), name)
                .unwrap()
                .into_report();
            let (hit, split, loaded) = row_words(&r);
            assert_eq!(
                (row[3], row[4], row[5]),
                (&*hit, &*split, &*loaded),
                "{row:?}"
            );
            let s = &r.summary;
            let ttft = format!("{} / {} ms", ms(s.ttft_ms_mean), ms(s.ttft_ms_p90));
            assert_eq!(row[6], ttft, "{row:?}");
        }
    }
}

/// The book's second table: `| trace | router | local | pooled | ratio | paper |` rows.
fn ratio_rows() -> Vec<Vec<&'static str>> {
    let start = BOOK.find("### The paper's ratio, and the router").unwrap();
    BOOK[start..]
        .lines()
        .filter(|l| l.starts_with("| conversation |") || l.starts_with("| synthetic |"))
        .map(|l| l.trim_matches('|').split('|').map(str::trim).collect())
        .collect()
}

/// The run the second table's row names: local caches of 3 M tokens, or the pool.
fn ratio_run(requests: &[Request], name: &str, router: &str, pooled: bool) -> kvfleet::Report {
    let mut cfg = Config {
        instances: 10,
        block_size: 512,
        routing: if router == "round robin" {
            Policy::RoundRobin
        } else {
            Policy::Kv
        },
        ..Config::default()
    };
    if router == "kv, weight 10" {
        cfg.overlap_weight = 10.0;
    }
    if pooled {
        cfg.kv_blocks = Some(900);
        cfg.shared_kv_blocks = Some(58_594);
        cfg.router_tiers = kvfleet::RouterTiers::All;
    } else {
        cfg.kv_blocks = Some(5860);
    }
    api::replay_simulation(&cfg, requests.to_vec(), name)
        .unwrap()
        .into_report()
}

/// A share of prompt tokens from cache, from the exact counts.
fn share(r: &kvfleet::Report) -> f64 {
    r.summary.cached_tokens as f64 / r.summary.prompt_tokens as f64
}

#[test]
fn the_books_ratio_table_and_its_reading_are_measured() {
    let rows = ratio_rows();
    assert_eq!(rows.len(), 6, "the ratio table's rows");
    let mut ratios = Vec::new();
    let mut conversation_ttft_ms = Vec::new();
    for name in ["conversation", "synthetic"] {
        let requests = trace(name);
        for row in rows.iter().filter(|r| r[0] == name) {
            let local = ratio_run(&requests, name, row[1], false);
            let pooled = ratio_run(&requests, name, row[1], true);
            let ratio = share(&pooled) / share(&local);
            let pct = |r: &kvfleet::Report| format!("{:.1}%", 100.0 * share(r));
            assert_eq!(
                (row[2], row[3], row[4]),
                (&*pct(&local), &*pct(&pooled), &*format!("{ratio:.2}×")),
                "{row:?}"
            );
            ratios.push((row[1], ratio));
            if name == "conversation" {
                conversation_ttft_ms.push(local.summary.ttft_ms_mean);
                conversation_ttft_ms.push(pooled.summary.ttft_ms_mean);
            }
        }
    }
    let text = BOOK.split_whitespace().collect::<Vec<_>>().join(" ");
    // Round robin: the pool is worth 2.8 to 3.4 times the local caches.
    let rr: Vec<f64> = ratios
        .iter()
        .filter(|r| r.0 == "round robin")
        .map(|r| r.1)
        .collect();
    let (lo, hi) = (rr[0].min(rr[1]), rr[0].max(rr[1]));
    let says = format!("worth {:.1} to {:.1} times the local caches", lo, hi);
    assert!(text.contains(&says), "{says}");
    // kv: the local caches reach a share of the pool's hit rate.
    let kv: Vec<f64> = ratios
        .iter()
        .filter(|r| r.0 != "round robin")
        .map(|r| 1.0 / r.1)
        .collect();
    let lo = kv.iter().cloned().fold(f64::MAX, f64::min);
    let hi = kv.iter().cloned().fold(f64::MIN, f64::max);
    let says = format!(
        "reach {:.0} % to {:.0} % of the pool's hit rate",
        100.0 * lo,
        100.0 * hi
    );
    assert!(text.contains(&says), "{says}");
    // The conversation trace's mean TTFTs across the six settings.
    let lo = conversation_ttft_ms
        .iter()
        .cloned()
        .fold(f64::MAX, f64::min);
    let hi = conversation_ttft_ms
        .iter()
        .cloned()
        .fold(f64::MIN, f64::max);
    let says = format!(
        "{} to {} ms (mean) on the conversation trace",
        ms(lo),
        ms(hi)
    );
    assert!(text.contains(&says), "{says}");
}
