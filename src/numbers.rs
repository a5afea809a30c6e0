//! Numbers as the text report and the page print them: counts with grouped thousands
//! and durations in ms or s. A leaf module: the report, its findings and the lessons all
//! print through it.

/// `n` with its thousands grouped by commas, as the page prints counts: "12,031".
pub fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// Seconds to one decimal, "–" for a statistic over nothing.
pub fn seconds(s: f64) -> String {
    if s.is_finite() {
        format!("{s:.1} s")
    } else {
        "–".to_string()
    }
}

/// Formats a duration given in ms the way the latency table does.
pub fn duration(ms: f64) -> String {
    if !ms.is_finite() {
        "–".to_string()
    } else if ms >= 1000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else if ms >= 100.0 {
        format!("{ms:.0} ms")
    } else if ms >= 10.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.2} ms")
    }
}
