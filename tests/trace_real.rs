#![cfg(not(target_arch = "wasm32"))]
//! The two built-in Mooncake traces parse with the published counts, and the analysis
//! reproduces data/mooncake/README.md (and flags the conversation's shared first block).

use std::fs::File;
use std::io::BufReader;
use std::time::Instant;

use kvfleet::trace::{analyze, parse_mooncake, TraceOptions};
use kvfleet::Request;

fn load(name: &str) -> Vec<Request> {
    let path = format!("{}/data/mooncake/{name}", env!("CARGO_MANIFEST_DIR"));
    let reader = BufReader::new(File::open(&path).unwrap());
    let start = Instant::now();
    let requests = parse_mooncake(reader, name, &TraceOptions::default()).unwrap();
    eprintln!(
        "parsed {name}: {} requests in {:?}",
        requests.len(),
        start.elapsed()
    );
    requests
}

fn close(got: f64, want: f64, tolerance: f64) -> bool {
    (got - want).abs() <= tolerance
}

#[test]
fn conversation_trace() {
    let requests = load("conversation_trace.jsonl");
    let a = analyze(&requests, 512);
    assert_eq!(a.requests, 12_031);
    assert_eq!((a.blocks, a.distinct_blocks), (288_500, 182_790));
    assert!(close(a.hit_ceiling, 0.366, 0.0005), "{}", a.hit_ceiling);
    assert!(
        close(a.token_hit_ceiling, 0.3734, 0.00005),
        "{}",
        a.token_hit_ceiling
    );
    assert!(
        close(a.input_tokens_avg, 12_035.1, 0.05),
        "{}",
        a.input_tokens_avg
    );
    assert!(
        close(a.output_tokens_avg, 342.6, 0.05),
        "{}",
        a.output_tokens_avg
    );
    assert!(close(a.duration_s, 3_536.999, 1e-9), "{}", a.duration_s);
    assert_eq!((a.distinct_first_blocks, a.top_first_block), (1, Some(0)));
    assert!(a
        .hazards
        .iter()
        .any(|h| h.contains("all 12031 requests share first block 0")));
    assert!(
        a.hazards.iter().any(|h| h.contains("same instant")),
        "{:?}",
        a.hazards
    );
    let text = a.render_text();
    eprintln!("{text}");
    assert!(text.contains("ALL traffic to one replica"));
    assert_eq!(requests.last().unwrap().arrival_us, 3_536_999_000);
}

#[test]
fn synthetic_trace() {
    let requests = load("synthetic_trace.jsonl");
    let a = analyze(&requests, 512);
    assert_eq!(a.requests, 3_993);
    assert_eq!((a.blocks, a.distinct_blocks), (121_877, 43_924));
    assert!(close(a.hit_ceiling, 0.640, 0.0005), "{}", a.hit_ceiling);
    assert!(
        close(a.token_hit_ceiling, 0.6504, 0.00005),
        "{}",
        a.token_hit_ceiling
    );
    assert!(
        close(a.input_tokens_avg, 15_325.5, 0.05),
        "{}",
        a.input_tokens_avg
    );
    assert!(
        close(a.output_tokens_avg, 149.1, 0.05),
        "{}",
        a.output_tokens_avg
    );
    assert_eq!(a.distinct_first_blocks, 2_211);
    assert!(!a.hazards.iter().any(|h| h.contains("ALL traffic")));
    eprintln!("{}", a.render_text());
}

#[test]
fn real_traces_are_the_published_files() {
    for (name, bytes, lines) in [
        ("conversation_trace.jsonl", 3_029_533, 12_031),
        ("synthetic_trace.jsonl", 1_136_313, 3_993),
    ] {
        let path = format!("{}/data/mooncake/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read(&path).unwrap();
        assert_eq!(text.len(), bytes, "{name}");
        assert_eq!(
            text.iter().filter(|&&b| b == b'\n').count(),
            lines,
            "{name}"
        );
    }
}
