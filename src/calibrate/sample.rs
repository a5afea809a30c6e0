//! Step logs generated from a preset's timing with stated noise: the shipped sample
//! (`data/kvfleet/`) and the checks' ground truth. The step shapes are drawn: a third
//! prefill-only chunks, a third decode-only batches, a third both.

use super::Step;
use crate::rng::{Rng, Stream};
use crate::timing::Timing;

/// How to draw a log.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleSpec {
    /// Steps to draw.
    pub steps: usize,
    /// Relative noise: each duration is multiplied by 1 + noise·N(0, 1) (0.02 is 2 %).
    pub noise: f64,
    /// The seed of the shapes and the noise.
    pub seed: u64,
    /// Most prefill tokens in one step (the chunk budget).
    pub max_prefill_tokens: u64,
    /// Most decoding sequences in one step.
    pub max_decode_seqs: u64,
    /// Longest context of a decoding sequence, tokens.
    pub max_context_tokens: u64,
}

impl Default for SampleSpec {
    fn default() -> Self {
        SampleSpec {
            steps: 600,
            noise: 0.02,
            seed: 42,
            max_prefill_tokens: 8192,
            max_decode_seqs: 256,
            max_context_tokens: 8192,
        }
    }
}

/// One drawn step shape (no time yet).
fn shape(rng: &mut Rng, spec: &SampleSpec) -> (u64, u64, u64) {
    let kind = rng.below(3);
    let prefill = if kind == 1 {
        0
    } else {
        rng.range_inclusive(1, spec.max_prefill_tokens)
    };
    let decode = if kind == 0 {
        0
    } else {
        rng.range_inclusive(1, spec.max_decode_seqs)
    };
    let mean_context = rng.range_inclusive(16, spec.max_context_tokens);
    (prefill, decode, decode * mean_context)
}

/// `spec.steps` steps timed by `timing` (`Timing::step_us`: every decoding sequence
/// emits a token), each multiplied by 1 + noise·N(0, 1), rounded to whole µs, at least 1.
pub fn generate(timing: &Timing, spec: &SampleSpec) -> Vec<Step> {
    let mut rng = Rng::fork(spec.seed, Stream::StepLog);
    (0..spec.steps)
        .map(|_| {
            let (prefill, decode, kv) = shape(&mut rng, spec);
            let exact = timing.step_us(prefill, decode, kv) as f64;
            let noisy = (exact * (1.0 + spec.noise * rng.normal())).round().max(1.0);
            Step {
                prefill_tokens: prefill,
                decode_seqs: decode,
                kv_tokens_read: kv,
                step_us: noisy,
            }
        })
        .collect()
}

/// A log as CSV, after `# ` comment lines (`comment`, one per line).
pub fn to_csv(steps: &[Step], comment: &str) -> String {
    let mut out = String::new();
    for line in comment.lines() {
        out.push_str(&format!("# {line}\n"));
    }
    out.push_str("prefill_tokens,decode_seqs,kv_tokens_read,step_us\n");
    for s in steps {
        out.push_str(&format!(
            "{},{},{},{}\n",
            s.prefill_tokens, s.decode_seqs, s.kv_tokens_read, s.step_us
        ));
    }
    out
}
