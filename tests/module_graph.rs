//! Imports run one way: the modules of the library (src/) and of the CLI (src/bin/kvfleet/)
//! form no cycle, neither among top-level modules nor among the submodules of one module
//! (`cache::chunked` and `cache::table`). The graph is read from the source text: every
//! `crate::a::b` and `super::b` path outside test code, each file standing for the module
//! it declares; a module and its own submodules may use each other.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path (`["cache", "table"]`) -> the modules its code names.
type Graph = BTreeMap<Vec<String>, BTreeSet<Vec<String>>>;

/// Every `.rs` file under `dir`, skipping `skip` (the library skips src/bin).
fn rust_files(dir: &Path, skip: Option<&Path>, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if Some(p.as_path()) == skip {
            continue;
        }
        if p.is_dir() {
            rust_files(&p, skip, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The module a file declares: src/cache/table.rs is `cache::table`; the root file
/// (lib.rs, main.rs) is the empty path.
fn module_of(root: &Path, file: &Path, root_file: &str) -> Vec<String> {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts == [root_file] {
        parts.clear();
    }
    parts
}

/// Test code: a file named tests.rs or *_tests.rs, or one under a tests/ folder.
fn is_test_file(module: &[String]) -> bool {
    module.iter().any(|p| p == "tests" || p.ends_with("_tests"))
}

/// `text` without comments and without the items marked `#[cfg(test)]` (an inline
/// `mod tests { ... }` or a `mod tests;` line).
fn production_code(text: &str) -> String {
    let no_comments: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = String::new();
    let mut rest = no_comments.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        rest = skip_item(&rest[at + "#[cfg(test)]".len()..]);
    }
    out.push_str(rest);
    out
}

/// What follows the item at the start of `text`: up to its `;` or its balanced `{ }`.
fn skip_item(text: &str) -> &str {
    let mut depth = 0usize;
    for (i, ch) in text.char_indices() {
        match ch {
            ';' if depth == 0 => return &text[i + 1..],
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &text[i + 1..];
                }
            }
            _ => {}
        }
    }
    ""
}

/// The identifiers of each `crate::a::b` / `super::b` path in `code`, with the prefix
/// (`crate` or `super`), the path as written after it; a group `crate::{a, b}` gives each.
fn paths(code: &str) -> Vec<(&'static str, Vec<String>)> {
    let mut out = Vec::new();
    for prefix in ["crate", "super"] {
        let needle = format!("{prefix}::");
        let mut from = 0;
        while let Some(at) = code[from..].find(&needle) {
            let start = from + at;
            from = start + needle.len();
            let before = code[..start].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let tail = &code[from..];
            if let Some(group) = tail.strip_prefix('{') {
                let inner = &group[..group.find('}').unwrap_or(group.len())];
                for item in inner.split(',') {
                    out.push((prefix, segments(item.trim())));
                }
            } else {
                out.push((prefix, segments(tail)));
            }
        }
    }
    out
}

/// The leading `a::b::c` identifiers of `text`.
fn segments(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if len == 0 {
            break;
        }
        out.push(rest[..len].to_string());
        rest = &rest[len..];
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => break,
        }
    }
    out
}

/// The module graph of the crate rooted at `root` (its root file `root_file`.rs), each
/// path resolved to the deepest module that has a file, at most two levels deep.
fn graph(root: &Path, root_file: &str, skip: Option<&Path>) -> Graph {
    let mut files = Vec::new();
    rust_files(root, skip, &mut files);
    let modules: BTreeSet<Vec<String>> = files
        .iter()
        .map(|f| module_of(root, f, root_file))
        .collect();
    let resolve = |path: &[String]| -> Option<Vec<String>> {
        (1..=path.len().min(2))
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|m| modules.contains(m))
    };
    let mut g = Graph::new();
    for file in &files {
        let module = module_of(root, file, root_file);
        if module.is_empty() || is_test_file(&module) {
            continue;
        }
        let from: Vec<String> = module.iter().take(2).cloned().collect();
        let code = production_code(&std::fs::read_to_string(file).unwrap());
        for (prefix, path) in paths(&code) {
            let full = if prefix == "crate" {
                path
            } else {
                let parent = &module[..module.len() - 1];
                parent.iter().cloned().chain(path).collect()
            };
            if let Some(to) = resolve(&full) {
                g.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    g
}

/// `a` is `b` or one of its ancestors or descendants.
fn related(a: &[String], b: &[String]) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

/// The edges between top-level modules, and those between sibling submodules.
fn levels(g: &Graph) -> Vec<BTreeMap<String, BTreeSet<String>>> {
    let mut top: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut siblings: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, tos) in g {
        for to in tos {
            if related(from, to) {
                continue;
            }
            if from[0] != to[0] {
                top.entry(from[0].clone())
                    .or_default()
                    .insert(to[0].clone());
            } else if from.len() == 2 && to.len() == 2 {
                siblings
                    .entry(from.join("::"))
                    .or_default()
                    .insert(to.join("::"));
            }
        }
    }
    vec![top, siblings]
}

/// A cycle of `g` (its modules in order, the first repeated at the end), if it has one.
fn cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        g: &BTreeMap<String, BTreeSet<String>>,
        node: &str,
        marks: &mut BTreeMap<String, Mark>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        marks.insert(node.to_string(), Mark::Open);
        stack.push(node.to_string());
        for next in g.get(node).into_iter().flatten() {
            match marks.get(next) {
                Some(Mark::Open) => {
                    let at = stack.iter().position(|n| n == next).unwrap();
                    let mut c = stack[at..].to_vec();
                    c.push(next.clone());
                    return Some(c);
                }
                Some(Mark::Done) => {}
                None => {
                    if let Some(c) = visit(g, next, marks, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        marks.insert(node.to_string(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in g.keys() {
        if !marks.contains_key(node) {
            if let Some(c) = visit(g, node, &mut marks, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

fn assert_acyclic(root: &str, root_file: &str, skip: Option<&str>) {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    let skip = skip.map(|s| base.join(s));
    let g = graph(&base.join(root), root_file, skip.as_deref());
    assert!(g.len() > 5, "{root}: only {} modules read", g.len());
    for level in levels(&g) {
        if let Some(c) = cycle(&level) {
            panic!("{root}: an import cycle: {}", c.join(" -> "));
        }
    }
}

#[test]
fn the_library_imports_run_one_way() {
    assert_acyclic("src", "lib", Some("src/bin"));
}

#[test]
fn the_cli_imports_run_one_way() {
    assert_acyclic("src/bin/kvfleet", "main", None);
}

/// The reader finds each kind of cycle it is meant to: between top-level modules through
/// `use crate::`, a path in code, or a group; between siblings through `super::`; and not
/// through test code or a module's own submodules.
#[test]
fn the_reader_sees_cycles() {
    let edges = |code: &str, file: &[&str]| {
        let module: Vec<String> = file.iter().map(|s| s.to_string()).collect();
        paths(&production_code(code))
            .into_iter()
            .map(|(prefix, p)| {
                let full: Vec<String> = if prefix == "crate" {
                    p
                } else {
                    module[..module.len() - 1]
                        .iter()
                        .cloned()
                        .chain(p)
                        .collect()
                };
                full.join("::")
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        edges("use crate::report::Report;", &["text"]),
        ["report::Report"]
    );
    assert_eq!(
        edges("use crate::{api, params};", &["fuzzing"]),
        ["api", "params"]
    );
    assert_eq!(
        edges("x.map(crate::text::thousands)", &["findings"]),
        ["text::thousands"]
    );
    assert_eq!(
        edges("use super::table::Z;", &["cache", "chunked"]),
        ["cache::table::Z"]
    );
    assert!(edges(
        "// crate::api in a comment\n#[cfg(test)]\nmod tests {\n use crate::api; { }\n}\n#[cfg(test)]\nmod more;",
        &["sim"]
    )
    .is_empty());
    let g: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["c".to_string()])),
        ("c".to_string(), BTreeSet::from(["a".to_string()])),
    ]
    .into();
    assert_eq!(cycle(&g).unwrap(), ["a", "b", "c", "a"]);
    let mut g = g;
    g.remove("c");
    assert_eq!(cycle(&g), None);
}
