#![cfg(not(target_arch = "wasm32"))]
//! Export then parse gives back the same requests: real traces, other block sizes,
//! sub-millisecond arrivals, and requests without ids.

use kvfleet::trace::{export_mooncake, parse_mooncake, TraceOptions};
use kvfleet::Request;
use proptest::prelude::*;

fn round_trip(requests: &[Request], block_size: u32) -> Vec<Request> {
    let mut text = Vec::new();
    export_mooncake(requests, block_size, &mut text).unwrap();
    let opts = TraceOptions {
        block_size,
        ..TraceOptions::default()
    };
    parse_mooncake(&text[..], "export", &opts).unwrap()
}

#[test]
fn real_trace_round_trips_byte_for_byte() {
    let path = format!(
        "{}/data/mooncake/synthetic_trace.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let original = std::fs::read(path).unwrap();
    let requests = parse_mooncake(&original[..], "synthetic", &TraceOptions::default()).unwrap();
    let mut text = Vec::new();
    export_mooncake(&requests, 512, &mut text).unwrap();
    assert!(text == original, "the export differs from the release file");
}

#[test]
fn id_less_requests_round_trip_as_id_less() {
    let requests: Vec<Request> = (0..3)
        .map(|i| Request {
            id: i,
            arrival_us: u64::from(i) * 1_500,
            prompt_tokens: 1000 + i,
            output_tokens: 5,
            block_ids: Default::default(),
            session: None,
            output_block_ids: Vec::new(),
        })
        .collect();
    assert_eq!(round_trip(&requests, 512), requests);
    assert_eq!(round_trip(&requests, 64), requests);
}

/// Requests in arrival order with ids by position and a consistent id count.
fn requests_strategy() -> impl Strategy<Value = (u32, Vec<Request>)> {
    let block_size = prop_oneof![Just(512u32), 1u32..2048];
    block_size.prop_flat_map(|block_size| {
        let one = (
            0u64..5_000_000_000,
            1u32..20_000,
            1u32..5_000,
            any::<u64>(),
            any::<bool>(),
        );
        prop::collection::vec(one, 1..40).prop_map(move |raw| {
            let mut arrival_us = 0;
            let requests = raw
                .into_iter()
                .enumerate()
                .map(
                    |(i, (gap_us, prompt_tokens, output_tokens, base, with_ids))| {
                        // Non-decreasing: the parser refuses time going backwards.
                        arrival_us += gap_us % 3_000_000 + gap_us / 1_000_000_000;
                        let blocks = u64::from(prompt_tokens.div_ceil(block_size));
                        let block_ids = if with_ids {
                            (0..blocks).map(|b| base.wrapping_add(b)).collect()
                        } else {
                            Vec::new()
                        };
                        Request {
                            id: i as u32,
                            arrival_us,
                            prompt_tokens,
                            output_tokens,
                            block_ids: block_ids.into(),
                            session: None,
                            output_block_ids: Vec::new(),
                        }
                    },
                )
                .collect();
            (block_size, requests)
        })
    })
}

proptest! {
    #[test]
    fn parse_of_export_is_identity((block_size, requests) in requests_strategy()) {
        prop_assert_eq!(round_trip(&requests, block_size), requests);
    }
}

#[test]
fn large_arrivals_round_trip() {
    // Up to about 142 years of µs the decimal ms text reads back exactly.
    let requests: Vec<Request> = [0u64, 1, 999, 1_001, 86_400_000_123, 4_000_000_000_000_001]
        .iter()
        .enumerate()
        .map(|(i, &arrival_us)| Request {
            id: i as u32,
            arrival_us,
            prompt_tokens: 1,
            output_tokens: 1,
            block_ids: vec![i as u64].into(),
            session: None,
            output_block_ids: Vec::new(),
        })
        .collect();
    assert_eq!(round_trip(&requests, 512), requests);
}
