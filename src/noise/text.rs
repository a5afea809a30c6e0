//! The text report's section on a run over K seeds: the main summary figures as
//! "41.2 ± 0.8% (40.1–42.0%)": mean ± half-width of the 95 % interval (min–max).

use std::fmt::Write;

use super::{SeedsReport, Spread};

/// How a figure is printed.
#[derive(Clone, Copy)]
pub enum Unit {
    /// A share, as a percentage to 0.1.
    Share,
    /// Milliseconds, at the latency table's precision.
    Ms,
    /// A plain number with this many decimals and a unit.
    Plain(usize, &'static str),
}

/// The figures the text prints, in order: (label, summary name, unit).
const SHOWN: [(&str, &str, Unit); 12] = [
    ("token hit rate", "hit_rate_tokens", Unit::Share),
    ("request hit rate", "hit_rate_requests", Unit::Share),
    ("block reuse", "block_reuse", Unit::Share),
    ("TTFT mean", "ttft_ms_mean", Unit::Ms),
    ("TTFT p50", "ttft_ms_p50", Unit::Ms),
    ("TTFT p99", "ttft_ms_p99", Unit::Ms),
    ("TPOT p99", "tpot_ms_p99", Unit::Ms),
    ("end-to-end p99", "e2e_ms_p99", Unit::Ms),
    (
        "output throughput",
        "throughput_tok_s",
        Unit::Plain(0, " tok/s"),
    ),
    ("makespan", "makespan_s", Unit::Plain(1, " s")),
    ("rejected", "rejected", Unit::Plain(1, "")),
    ("timed out", "timed_out", Unit::Plain(1, "")),
];

/// "41.2 ± 0.8% (40.1–42.0%)": mean ± the 95 % interval's half-width (min–max).
pub fn figure_text(s: &Spread, unit: Unit) -> String {
    if !s.mean.is_finite() {
        return "– (not measured on every seed)".to_string();
    }
    let (scale, d, suffix) = match unit {
        Unit::Share => (100.0, 1, "%"),
        Unit::Ms if s.mean >= 1000.0 => (0.001, 2, " s"),
        Unit::Ms if s.mean >= 100.0 => (1.0, 0, " ms"),
        Unit::Ms if s.mean >= 10.0 => (1.0, 1, " ms"),
        Unit::Ms => (1.0, 2, " ms"),
        Unit::Plain(d, suffix) => (1.0, d, suffix),
    };
    let f = |x: f64| format!("{:.d$}", x * scale);
    format!(
        "{} ± {}{suffix} ({}–{}{suffix})",
        f(s.mean),
        half_text(s.half_width() * scale, d),
        f(s.min),
        f(s.max)
    )
}

/// The half-width to `d` decimals, or to as many more (up to 3) as it takes not to print
/// a width that is not zero as 0 ("144 ± 0.4 ms", not "144 ± 0 ms").
fn half_text(half: f64, d: usize) -> String {
    let zero = |t: &str| t.chars().all(|c| c == '0' || c == '.');
    (d..=d + 3)
        .map(|d| format!("{half:.d$}"))
        .find(|t| half == 0.0 || !zero(t))
        .unwrap_or_else(|| format!("{half:.d$}"))
}

/// `text` in lines of at most `WIDTH` characters, each indented two spaces.
fn wrapped(text: &str) -> String {
    const WIDTH: usize = 88;
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > WIDTH {
            out.push_str(&format!("  {line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&format!("  {line}\n"));
    out
}

/// The text report's section on the seeds.
pub fn render(s: &SeedsReport) -> String {
    let k = s.seeds.len();
    let mut out = format!(
        "  Over {k} seeds ({} to {}; the figures above are seed {}'s): mean ± half-width of \
         the\n  95% interval (Student t, {} degrees of freedom), then min–max\n",
        s.seeds[0],
        s.seeds[k - 1],
        s.seeds[0],
        k - 1,
    );
    for (label, name, unit) in SHOWN {
        if let Some(sp) = s.summary.get(name) {
            let _ = writeln!(out, "    {label:<19}{}", figure_text(sp, unit));
        }
    }
    out.push_str(&wrapped(&format!("The seeds vary {}.", s.varies)));
    if s.summary.values().all(Spread::constant) {
        out.push_str(
            "  Every seed gave the same figures: nothing in this run draws on the seed.\n",
        );
    }
    out.push_str(
        "  Every summary figure over the seeds is in the JSON report's `seeds` section.\n",
    );
    out
}
