//! The performance chapter's record of measurements (docs/perf/figures.json): its types, the
//! figures table rendered from it into docs/src/performance.md, and a measure's update from
//! a measuring command's JSON result. Shared by the xtask (`cargo xtask perf`) and the test
//! that keeps the chapter equal to the record (tests/perf_reference.rs includes this file).
//!
//! A measure's `text` is its "latest" cell with placeholders filled from its values:
//! `{name}` (a value as recorded; `a.b` reads inside an object), `{name:.N}` (N decimals),
//! numbers with thousands separators; `{low~high:.N}` a range ("6.8 to 9.8", or "6.8" when
//! both read the same); `{name>LIMIT?words}` and `{name<LIMIT?words}` give the words only
//! when the value is over (under) the limit, so a verdict follows the numbers.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The record, from the workspace root.
pub const RECORD_PATH: &str = "docs/perf/figures.json";
/// The chapter whose figures table is rendered from the record.
pub const CHAPTER_PATH: &str = "docs/src/performance.md";
/// The lines that open and close the generated table in the chapter.
pub const BEGIN: &str = "<!-- generated from docs/perf/figures.json by `cargo xtask docs`; record a figure with `cargo xtask perf record ID`, never edit this table by hand -->";
pub const END: &str = "<!-- end of the generated figures -->";

/// docs/perf/figures.json: every measure's latest figures.
#[derive(Serialize, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// What the file is (JSON holds no comments).
    pub about: Vec<String>,
    pub measures: Vec<Measure>,
}

/// One row of the table: what is measured, its target, how, and its latest figures.
#[derive(Serialize, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct Measure {
    /// The name `cargo xtask perf record` takes.
    pub id: String,
    /// The measure's wording (markdown).
    pub measure: String,
    pub target: String,
    /// The command a reader runs, as the table shows it (markdown).
    pub command: String,
    /// The shell command `perf record` runs (from the workspace root); none when the measure
    /// needs an outside setup or hours: its figures come from a file (`--from`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<String>,
    /// The JSON file `record` writes; without it, `record` prints its JSON on stdout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// Where this measure's values are in the result (a JSON pointer; empty: all of it).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub from: String,
    /// What the measure needs beyond a built tree (said by `perf list`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needs: Option<String>,
    /// The latest cell, with placeholders for the values (see the module's head; the
    /// measure's wording may hold them too).
    pub text: String,
    pub latest: Latest,
}

/// A measure's latest measurement.
#[derive(Serialize, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct Latest {
    pub machine: Machine,
    /// The numbers (units at the end of their names) and words the command wrote.
    pub values: Map<String, Value>,
}

/// The machine a measurement ran on, as read from it when recording.
#[derive(Serialize, Deserialize, Clone, PartialEq, Debug)]
#[serde(deny_unknown_fields)]
pub struct Machine {
    pub cores: u32,
    /// The CPU's model name (`None`: not recorded).
    pub cpu: Option<String>,
    pub os: String,
}

/// Reads the record's text; an error names what is wrong.
pub fn parse(text: &str) -> Result<Record, String> {
    let record: Record =
        serde_json::from_str(text).map_err(|e| format!("{RECORD_PATH} is not a record: {e}"))?;
    for (i, m) in record.measures.iter().enumerate() {
        if record.measures[..i].iter().any(|o| o.id == m.id) {
            return Err(format!("{RECORD_PATH}: the id `{}` is used twice", m.id));
        }
    }
    Ok(record)
}

/// The record's text as it is written to the file.
pub fn to_text(record: &Record) -> String {
    serde_json::to_string_pretty(record).expect("a record serialises") + "\n"
}

/// The measure named `id`.
pub fn find<'a>(record: &'a mut Record, id: &str) -> Result<&'a mut Measure, String> {
    let ids: Vec<String> = record.measures.iter().map(|m| m.id.clone()).collect();
    record
        .measures
        .iter_mut()
        .find(|m| m.id == id)
        .ok_or_else(|| {
            format!(
                "no measure `{id}` in {RECORD_PATH}; the ids: {}",
                ids.join(", ")
            )
        })
}

/// Sets `measure`'s latest figures from a command's JSON `result` (its part at `from`), the
/// machine it ran on and the machine's one-minute load average over the run (min, max),
/// unless the result states its own. Fails, changing nothing, if the text cannot be filled.
pub fn apply(
    measure: &mut Measure,
    result: &Value,
    machine: Machine,
    load: Option<(f64, f64)>,
) -> Result<(), String> {
    let part = result.pointer(&measure.from).ok_or_else(|| {
        format!(
            "the result has nothing at `{}` for `{}`",
            measure.from, measure.id
        )
    })?;
    let mut values = part
        .as_object()
        .cloned()
        .ok_or_else(|| format!("the result's `{}` is not an object", measure.from))?;
    if let Some((low, high)) = load {
        if !values.contains_key("load_avg_min") {
            values.insert("load_avg_min".into(), Value::from(low));
            values.insert("load_avg_max".into(), Value::from(high));
        }
    }
    let old = std::mem::replace(&mut measure.latest, Latest { machine, values });
    if let Err(e) = row(measure) {
        measure.latest = old;
        return Err(format!("`{}`: {e}", measure.id));
    }
    Ok(())
}

/// A measure's wording and latest cell, filled from its latest values.
fn row(m: &Measure) -> Result<(String, String), String> {
    Ok((
        fill(&m.measure, &m.latest.values)?,
        fill(&m.text, &m.latest.values)?,
    ))
}

/// `text` with its placeholders filled from `values`.
pub fn fill(text: &str, values: &Map<String, Value>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out += &rest[..open];
        let close = rest[open..]
            .find('}')
            .ok_or_else(|| format!("an unclosed `{{` in `{text}`"))?;
        out += &placeholder(&rest[open + 1..open + close], values)?;
        rest = &rest[open + close + 1..];
    }
    Ok(out + rest)
}

/// One placeholder's text (without its braces).
fn placeholder(spec: &str, values: &Map<String, Value>) -> Result<String, String> {
    if let Some((test, words)) = spec.split_once('?') {
        condition(spec, test, words, values)
    } else if let Some((low, rest)) = spec.split_once('~') {
        range(low, rest, values)
    } else {
        value(spec, values)
    }
}

/// `{name>LIMIT?words}` or `{name<LIMIT?words}`: the words when the value passes the limit.
fn condition(
    spec: &str,
    test: &str,
    words: &str,
    values: &Map<String, Value>,
) -> Result<String, String> {
    let (name, over, limit) = match (test.split_once('>'), test.split_once('<')) {
        (Some((n, l)), _) => (n, true, l),
        (None, Some((n, l))) => (n, false, l),
        (None, None) => return Err(format!("`{{{spec}}}`: a condition needs > or <")),
    };
    let limit: f64 = limit
        .trim()
        .parse()
        .map_err(|_| format!("`{{{spec}}}`: the limit `{limit}` is not a number"))?;
    let v = number(lookup(name.trim(), values)?, name)?;
    let shown = if over { v > limit } else { v < limit };
    Ok(if shown { words.into() } else { String::new() })
}

/// `{low~high:.N}`: "low to high", or one figure when both read the same.
fn range(low: &str, rest: &str, values: &Map<String, Value>) -> Result<String, String> {
    let (high, format) = match rest.split_once(':') {
        Some((h, f)) => (h, format!(":{f}")),
        None => (rest, String::new()),
    };
    let low = value(&format!("{low}{format}"), values)?;
    let high = value(&format!("{high}{format}"), values)?;
    Ok(if low == high {
        low
    } else {
        format!("{low} to {high}")
    })
}

/// `{name}` (as recorded) or `{name:.N}` (N decimals), numbers with thousands separators.
fn value(spec: &str, values: &Map<String, Value>) -> Result<String, String> {
    let (name, decimals) = match spec.split_once(":.") {
        Some((n, d)) => {
            let d: usize = d
                .parse()
                .map_err(|_| format!("`{{{spec}}}`: `{d}` is not a number of decimals"))?;
            (n, Some(d))
        }
        None => (spec, None),
    };
    let v = lookup(name, values)?;
    match (v, decimals) {
        (Value::String(s), None) => Ok(s.clone()),
        (Value::Number(n), None) => Ok(grouped(&n.to_string())),
        (_, Some(d)) => Ok(grouped(&format!("{:.d$}", number(v, name)?))),
        _ => Err(format!("the value `{name}` is neither a number nor words")),
    }
}

/// The value at a dotted path (`a.b`: `b` inside `a`).
fn lookup<'a>(path: &str, values: &'a Map<String, Value>) -> Result<&'a Value, String> {
    let mut parts = path.split('.');
    let first = parts.next().unwrap_or_default();
    let mut v = values.get(first);
    for p in parts {
        v = v.and_then(|x| x.get(p));
    }
    v.ok_or_else(|| format!("no value `{path}` (the values: {})", keys(values)))
}

fn keys(values: &Map<String, Value>) -> String {
    values.keys().cloned().collect::<Vec<_>>().join(", ")
}

fn number(v: &Value, name: &str) -> Result<f64, String> {
    v.as_f64()
        .ok_or_else(|| format!("the value `{name}` is not a number"))
}

/// A number's text with thousands separators in its whole part (`8683.0` -> `8,683.0`).
pub fn grouped(text: &str) -> String {
    let (sign, unsigned) = match text.strip_prefix('-') {
        Some(u) => ("-", u),
        None => ("", text),
    };
    let cut = unsigned.find('.').unwrap_or(unsigned.len());
    let (whole, tail) = unsigned.split_at(cut);
    let mut out = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("{sign}{out}{tail}")
}

/// The machines' sentence and the table, between the markers.
pub fn render(record: &Record) -> Result<String, String> {
    let mut machines: Vec<&Machine> = Vec::new();
    for m in &record.measures {
        if !machines.contains(&&m.latest.machine) {
            machines.push(&m.latest.machine);
        }
    }
    let label = |m: &Machine| {
        let i = machines.iter().position(|x| *x == m).unwrap_or(0);
        char::from(b'a' + i as u8)
    };
    let mut out = format!("{BEGIN}\n\n");
    if machines.len() == 1 {
        out += &format!("Every figure below ran on {}.\n", describe(machines[0]));
    } else {
        out += "The machines the figures ran on (each figure ends with its machine's letter):\n\n";
        for m in &machines {
            out += &format!("- **{}**: {}\n", label(m), describe(m));
        }
    }
    out += "\n| measure | target | latest | command |\n|---|---|---|---|\n";
    for m in &record.measures {
        let (measure, mut latest) = row(m).map_err(|e| format!("`{}`: {e}", m.id))?;
        if machines.len() > 1 {
            latest += &format!(" (machine {})", label(&m.latest.machine));
        }
        out += &format!("| {measure} | {} | {latest} | {} |\n", m.target, m.command);
    }
    Ok(out + "\n" + END)
}

/// A machine in words: "a machine with 2 cores (AMD EPYC), Debian GNU/Linux 12 (bookworm)".
fn describe(m: &Machine) -> String {
    let cpu = m.cpu.as_deref().unwrap_or("CPU model not recorded");
    format!("a machine with {} cores ({cpu}), {}", m.cores, m.os)
}

/// The chapter with its generated region replaced by the record's rendering.
pub fn rewrite(chapter: &str, record: &Record) -> Result<String, String> {
    let start = chapter
        .find(BEGIN)
        .ok_or_else(|| format!("{CHAPTER_PATH} lacks the line {BEGIN}"))?;
    let end = chapter[start..]
        .find(END)
        .ok_or_else(|| format!("{CHAPTER_PATH} lacks the line {END}"))?
        + start
        + END.len();
    Ok(format!(
        "{}{}{}",
        &chapter[..start],
        render(record)?,
        &chapter[end..]
    ))
}
