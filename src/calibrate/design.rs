//! The design matrix of each form: one column per coefficient, computed from the steps,
//! in the unit the coefficient is written in, and the engine the coefficients make.

use super::{Form, Step};
use crate::timing::{Timing, NO_POLY};

/// A coefficient's name, unit, whether it is bounded at 0, and why the log may have no
/// column for it.
pub struct Term {
    pub name: &'static str,
    pub unit: &'static str,
    pub bounded: bool,
    /// What a log without this column lacks ("no step computes prefill tokens").
    pub lacks: &'static str,
}

const NO_PREFILL: &str = "no step computes prefill tokens (prefill_tokens is 0 on every line)";
const NO_DECODE: &str = "no step has decoding sequences (decode_seqs is 0 on every line)";
const NO_KV: &str = "no step reads KV (kv_tokens_read is 0 on every line)";

/// The linear form: µs = fixed + prefill·T + decode·D + kv·KV/1000.
pub const LINEAR: [Term; 4] = [
    Term {
        name: "step_fixed_us",
        unit: "µs",
        bounded: true,
        lacks: "",
    },
    Term {
        name: "prefill_token_us",
        unit: "µs/token",
        bounded: true,
        lacks: NO_PREFILL,
    },
    Term {
        name: "decode_seq_us",
        unit: "µs/sequence",
        bounded: true,
        lacks: NO_DECODE,
    },
    Term {
        name: "kv_read_token_ns",
        unit: "ns/token",
        bounded: true,
        lacks: NO_KV,
    },
];

/// The polynomial form, ms: [T > 0]·(c0 + c1·T + c2·T²) + [D > 0]·(d0 + d1·u + d2·u²).
/// The constant and linear terms are bounded at 0; the curvatures are free (Dynamo's
/// decode polynomial bends down: d2 = −25.74).
pub const POLYNOMIAL: [Term; 6] = [
    Term {
        name: "prefill_poly_ms[0]",
        unit: "ms",
        bounded: true,
        lacks: NO_PREFILL,
    },
    Term {
        name: "prefill_poly_ms[1]",
        unit: "ms/token",
        bounded: true,
        lacks: NO_PREFILL,
    },
    Term {
        name: "prefill_poly_ms[2]",
        unit: "ms/token²",
        bounded: false,
        lacks: NO_PREFILL,
    },
    Term {
        name: "decode_poly_ms[0]",
        unit: "ms",
        bounded: true,
        lacks: NO_DECODE,
    },
    Term {
        name: "decode_poly_ms[1]",
        unit: "ms",
        bounded: true,
        lacks: NO_KV,
    },
    Term {
        name: "decode_poly_ms[2]",
        unit: "ms",
        bounded: false,
        lacks: NO_KV,
    },
];

/// Why the polynomial's d1, d2 have no column without a KV capacity.
pub const NO_CAPACITY: &str = "the decode polynomial is over the KV utilisation u = KV tokens \
    read / KV capacity, and a step log gives tokens, not the capacity: give the capacity \
    (tokens) of the replica the log was measured on (--kv-capacity-tokens) to fit d1 and d2";

/// The terms of a form.
pub fn terms(form: Form) -> &'static [Term] {
    match form {
        Form::Linear => &LINEAR,
        Form::Polynomial => &POLYNOMIAL,
    }
}

/// Microseconds per unit of the fitted response (the polynomial is fitted in ms).
pub fn response_us(form: Form) -> f64 {
    match form {
        Form::Linear => 1.0,
        Form::Polynomial => 1000.0,
    }
}

/// The row of one step: the value each coefficient multiplies.
pub fn row(form: Form, s: &Step, capacity_tokens: Option<f64>) -> Vec<f64> {
    let t = s.prefill_tokens as f64;
    let d = s.decode_seqs as f64;
    let kv = s.kv_tokens_read as f64;
    match form {
        Form::Linear => vec![1.0, t, d, kv / 1000.0],
        Form::Polynomial => {
            let prefill = if t > 0.0 { 1.0 } else { 0.0 };
            let decode = if d > 0.0 { 1.0 } else { 0.0 };
            // Without a capacity, no column: d1 and d2 are not fitted.
            let u = capacity_tokens.map_or(0.0, |c| kv / c);
            vec![prefill, t, t * t, decode, decode * u, decode * u * u]
        }
    }
}

/// The engine the coefficients make (a `custom` engine's settings).
pub fn engine(form: Form, x: &[f64]) -> Timing {
    let none = Timing {
        step_fixed_us: 0.0,
        prefill_token_us: 0.0,
        decode_seq_us: 0.0,
        kv_read_token_ns: 0.0,
        prefill_poly_ms: NO_POLY,
        decode_poly_ms: NO_POLY,
        kv_capacity_tokens: 0.0,
    };
    match form {
        Form::Linear => Timing {
            step_fixed_us: x[0],
            prefill_token_us: x[1],
            decode_seq_us: x[2],
            kv_read_token_ns: x[3],
            ..none
        },
        Form::Polynomial => Timing {
            prefill_poly_ms: [x[0], x[1], x[2]],
            decode_poly_ms: [x[3], x[4], x[5]],
            ..none
        },
    }
}
