//! The JSON report's schema, from its types (`schemars`, behind the `schema` feature, so
//! the page's wasm carries none of it), and the book's report reference rendered from it:
//! one table per type, each field with its JSON type and its doc comment.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::Value;

use crate::report::Report;
use crate::sweep::SweepRow;

/// The schema (JSON Schema 2020-12) of `T` as it is serialised: a field skipped when empty
/// is not required, and a statistic that can be NaN is `number` or `null`.
fn schema_of<T: JsonSchema + ?Sized>() -> Value {
    SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// The schema of the JSON report (`--des-report-json`, `run_json`, `run`).
pub fn report_schema() -> Value {
    schema_of::<Report>()
}

/// The schema of a sweep's JSON (`--des-sweep-json`): an array of rows.
pub fn sweep_schema() -> Value {
    schema_of::<Vec<SweepRow>>()
}

/// Types whose sections come after the report's own: the config is the parameter list,
/// read last.
const DEFERRED: [&str; 1] = ["Config"];

/// The book's reference of the report's and the sweep's fields, in Markdown: a section per
/// type, reached from the top level field by field (the config last), each a table of its
/// fields with their JSON types and meanings (the types' doc comments).
pub fn reference_markdown() -> String {
    let report = report_schema();
    let sweep = sweep_schema();
    let mut md = String::from("\n## The report\n");
    md += &Walk::new(&report).render("Report");
    md += "\n## The sweep's rows\n\n`--des-sweep-json` writes an array of rows, one per point.\n";
    md += &Walk::new(&sweep).render("SweepRow");
    md
}

/// One schema's types, visited from a root, each once.
struct Walk<'a> {
    root: &'a Value,
    defs: Option<&'a serde_json::Map<String, Value>>,
    /// Types in the order they are rendered, each with the paths it is found at.
    order: Vec<(String, Vec<String>)>,
}

impl<'a> Walk<'a> {
    fn new(root: &'a Value) -> Walk<'a> {
        Walk {
            root,
            defs: root["$defs"].as_object(),
            order: Vec::new(),
        }
    }

    /// The schema of the type `name` (the root's own when it is not a definition).
    fn def(&self, name: &str) -> &'a Value {
        self.defs.and_then(|d| d.get(name)).unwrap_or(self.root)
    }

    /// Renders every type reached from `name`, the deferred ones last.
    fn render(mut self, name: &str) -> String {
        let schema = self.def(name);
        let start = if schema["type"] == "array" {
            ref_name(&schema["items"]).unwrap_or(name).to_string()
        } else {
            name.to_string()
        };
        let path = if start == "Report" { "" } else { "[]" };
        self.visit(&start, path);
        let deferred: Vec<_> = DEFERRED
            .iter()
            .filter_map(|d| self.order.iter().position(|(n, _)| n == d))
            .collect();
        for d in deferred.into_iter().rev() {
            let (n, paths) = self.order.remove(d);
            let first = paths[0].clone();
            self.order.push((n.clone(), paths));
            self.visit_fields(&n, &first);
        }
        self.order
            .iter()
            .map(|(n, paths)| section(n, paths, self.def(n)))
            .collect()
    }

    /// Records `name` at `path`, then the types its fields use (a deferred type's are
    /// visited when it is moved to the end).
    fn visit(&mut self, name: &str, path: &str) {
        if let Some((_, paths)) = self.order.iter_mut().find(|(n, _)| n == name) {
            paths.push(path.to_string());
            return;
        }
        self.order.push((name.to_string(), vec![path.to_string()]));
        if !DEFERRED.contains(&name) {
            self.visit_fields(name, path);
        }
    }

    fn visit_fields(&mut self, name: &str, path: &str) {
        for (field, schema) in fields(self.def(name)) {
            let mut at = join(path, field);
            let mut s = schema;
            loop {
                if s["type"] == "array" {
                    at += "[]";
                    s = &s["items"];
                } else if s["additionalProperties"].is_object() {
                    // A map by name (`seeds.summary`): its values' type.
                    at += ".*";
                    s = &s["additionalProperties"];
                } else {
                    break;
                }
            }
            if let Some(r) = ref_name(s) {
                self.visit(r, &at);
            }
        }
    }
}

/// `path.field` (`field` at the top level).
fn join(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_string()
    } else {
        format!("{path}.{field}")
    }
}

/// The name a `$ref` schema points to.
fn ref_name(s: &Value) -> Option<&str> {
    s["$ref"].as_str()?.strip_prefix("#/$defs/")
}

/// An object's fields in the order the JSON writes them: the ones always written (in
/// declaration order, as `required` lists them), then the ones written only when they
/// apply.
pub fn fields(schema: &Value) -> Vec<(&str, &Value)> {
    let Some(props) = schema["properties"].as_object() else {
        return Vec::new();
    };
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let optional = props
        .keys()
        .map(String::as_str)
        .filter(|k| !required.contains(k));
    required
        .iter()
        .copied()
        .chain(optional)
        .filter_map(|k| props.get(k).map(|v| (k, v)))
        .collect()
}

/// The heading's anchor for a type.
fn anchor(name: &str) -> String {
    format!("type-{}", name.to_lowercase())
}

/// A type's section: its paths as the heading, its description, and its fields' (or its
/// values') table.
fn section(name: &str, paths: &[String], schema: &Value) -> String {
    let shown: Vec<String> = paths
        .iter()
        .map(|p| match p.as_str() {
            "" => "The top level".to_string(),
            "[]" => "Each row".to_string(),
            p => format!("`{p}`"),
        })
        .collect();
    let mut md = format!("\n### {} {{#{}}}\n\n", shown.join(", "), anchor(name));
    if let Some(d) = schema["description"].as_str() {
        md += &format!("{}\n\n", one_line(d));
    }
    match schema["oneOf"].as_array() {
        Some(values) => {
            md += "| value | meaning |\n|---|---|\n";
            for v in values {
                md += &format!(
                    "| `{}` | {} |\n",
                    v["const"].as_str().unwrap_or("?"),
                    cell(v["description"].as_str().unwrap_or(""))
                );
            }
        }
        None => {
            md += "| field | type | meaning |\n|---|---|---|\n";
            let required = schema["required"].as_array();
            for (field, s) in fields(schema) {
                let always = required.is_some_and(|r| r.iter().any(|x| x == field));
                md += &format!(
                    "| `{field}` | {}{} | {}{} |\n",
                    type_of(s),
                    if always { "" } else { ", optional" },
                    cell(s["description"].as_str().unwrap_or("")),
                    default_of(s)
                );
            }
        }
    }
    md
}

/// A field's JSON type in words: `integer`, `number or null`, `Summary` (a link to its
/// section), `number[]`, `"prefill" or "decode"`.
fn type_of(s: &Value) -> String {
    if s == &Value::Bool(true) {
        return "any".to_string();
    }
    if let Some(r) = ref_name(s) {
        return format!("[{r}](#{})", anchor(r));
    }
    if let Some(values) = s["enum"].as_array() {
        let names: Vec<String> = values.iter().map(|v| format!("`{v}`")).collect();
        return names.join(" or ");
    }
    if let Some(any) = s["anyOf"].as_array() {
        return any.iter().map(type_of).collect::<Vec<_>>().join(" or ");
    }
    let kinds: Vec<String> = match &s["type"] {
        Value::String(t) => vec![kind(t, s)],
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(|t| kind(t, s))
            .collect(),
        _ => vec!["any".to_string()],
    };
    kinds.join(" or ")
}

fn kind(t: &str, s: &Value) -> String {
    if t == "object" && s["additionalProperties"].is_object() {
        let value = type_of(&s["additionalProperties"]);
        return format!("object: name → {value}");
    }
    if t != "array" {
        return t.to_string();
    }
    let item = type_of(&s["items"]);
    if item.contains(" or ") && !item.ends_with(']') {
        format!("({item})[]")
    } else {
        format!("{item}[]")
    }
}

/// " Default: `v`." for a field with a default (the config's).
fn default_of(s: &Value) -> String {
    match s.get("default") {
        Some(v) => format!(" Default: `{v}`."),
        None => String::new(),
    }
}

/// A doc comment on one line (its line breaks are the source's wrapping).
fn one_line(text: &str) -> String {
    text.split("\n\n")
        .map(|para| {
            para.split('\n')
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A doc comment as a table cell: one line, with `|` escaped.
fn cell(text: &str) -> String {
    one_line(text).replace('|', "\\|")
}
