//! The words of a mix plan (`kvfleet plan --plan-mix`'s last line, and the page's "compare
//! GPUs" headline): the cheapest mix over the policies planned, and what the cheapest fleet
//! of one preset costs beside it; when no mix met, the planner's one sentence on the best
//! each missed target reached (`none_met_sentence`).

use super::{none_met_sentence, Knobs, MixPlan, Slo, Tried};

/// "2 x A + 3 x B": the presets of `c` that have replicas.
pub fn counts_text(m: &MixPlan, c: &[u32]) -> String {
    let parts: Vec<String> = (0..c.len())
        .filter(|&i| c[i] > 0)
        .map(|i| format!("{} x {}", c[i], m.presets[i].preset.name()))
        .collect();
    parts.join(" + ")
}

fn total(counts: &[u32]) -> u32 {
    counts.iter().sum()
}

/// Every mix evaluated, under its policy: "kv on 2 x A + 1 x B".
fn tried(mixes: &[MixPlan]) -> Vec<Tried> {
    mixes
        .iter()
        .flat_map(|m| {
            m.points.iter().map(|p| {
                let fleet = counts_text(m, &p.counts);
                let floor = m.ttft_floor_ms;
                Tried::new(
                    &m.policy,
                    &fleet,
                    total(&p.counts),
                    &p.misses,
                    &p.measured,
                    floor,
                )
            })
        })
        .collect()
}

/// The cheapest answer over the policies: "Cheapest mix: kv, 2 x A + 3 x B (5 GPUs,
/// $13.00/h); the cheapest fleet of one preset, ...", or, when the cheapest is one
/// preset alone, "Cheapest: kv, 7 x A (7 GPUs, $7.00/h), one preset alone; ...". When no
/// mix met: "No mix meets the targets on up to 6 replicas: the lowest p99 TTFT reached was
/// ... (kv on 2 x A + 3 x B) ...; raise ...", in `knobs`' words.
pub fn mix_headline(mixes: &[MixPlan], slo: &Slo, max_replicas: u32, knobs: &Knobs) -> String {
    let best = mixes
        .iter()
        .filter_map(|m| m.at_answer.as_ref().map(|a| (m, a)))
        .min_by(|x, y| {
            x.1.usd_per_hour
                .total_cmp(&y.1.usd_per_hour)
                .then(total(&x.1.counts).cmp(&total(&y.1.counts)))
        });
    let Some((m, a)) = best else {
        return none_met_sentence("mix", &tried(mixes), slo, max_replicas, knobs);
    };
    let fleet = format!(
        "{}, {} ({} GPU{}, ${:.2}/h){}",
        m.policy,
        counts_text(m, &a.counts),
        a.gpus,
        if a.gpus == 1 { "" } else { "s" },
        a.usd_per_hour,
        if m.verified { "" } else { " (not verified)" },
    );
    if a.counts.iter().filter(|&&n| n > 0).count() == 1 {
        return format!("Cheapest: {fleet}, one preset alone; no mix searched costs less");
    }
    format!(
        "Cheapest mix: {fleet}{}",
        single_preset_words(mixes, a.usd_per_hour)
    )
}

/// "; the cheapest fleet of one preset: kv, 5 x A ($12.50/h)", from every policy's ends
/// of its frontier (a fleet of one preset), when one met.
fn single_preset_words(mixes: &[MixPlan], usd: f64) -> String {
    let ends = mixes.iter().flat_map(|m| {
        m.points
            .iter()
            .filter(|p| p.meets && p.counts.iter().filter(|&&n| n > 0).count() == 1)
            .map(move |p| (m, p))
    });
    let Some((m, p)) = ends.min_by(|x, y| x.1.usd_per_hour.total_cmp(&y.1.usd_per_hour)) else {
        return "; no fleet of one preset met".to_string();
    };
    let verdict = if p.usd_per_hour > usd {
        "more"
    } else {
        "no more"
    };
    format!(
        "; the cheapest fleet of one preset, {}, {}, costs {verdict} (${:.2}/h)",
        m.policy,
        counts_text(m, &p.counts),
        p.usd_per_hour
    )
}
