//! The import graph between the files of `src`, read from their `crate::`, `super::`
//! and `self::` paths (comments and test modules left out), and the test that keeps it
//! free of new cycles: a cycle between files means neither can be read, changed or
//! moved without the other.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The cycles left to break, each as its files' module paths, sorted. A cycle not
/// listed fails the test, and so does a listed one that is gone (strike it here).
const KNOWN_CYCLES: &[&[&str]] = &[];

/// Every `.rs` file under `dir`, as (module path, source).
fn files(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if path.is_dir() {
            files(&path, &join(prefix, stem), out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let module = match stem {
                "mod" | "lib" | "main" => prefix.to_owned(),
                _ => join(prefix, stem),
            };
            let text = std::fs::read_to_string(&path).expect("a source file");
            out.insert(module, text);
        }
    }
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}::{name}")
    }
}

/// The source without comment lines and without its `#[cfg(test)] mod tests`.
fn code(source: &str) -> String {
    let end = source
        .find("#[cfg(test)]\nmod tests")
        .unwrap_or(source.len());
    source[..end]
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths `code` names from `crate`, `super` or `self`, each as its segments from
/// the crate root; a `{…}` group gives one path per member.
fn paths(module: &str, code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(start) {
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            let rest = &code[at..];
            let len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            let path = rest[..len].trim_end_matches(':');
            let mut segments: Vec<String> = Vec::new();
            for (i, s) in path.split("::").enumerate() {
                match (i, s) {
                    (_, "crate") => segments.clear(),
                    (0, "self") => segments = module.split("::").map(str::to_owned).collect(),
                    (_, "super") => {
                        if segments.is_empty() && i == 0 {
                            segments = module.split("::").map(str::to_owned).collect();
                        }
                        segments.pop();
                    }
                    _ => segments.push(s.to_owned()),
                }
            }
            let group = rest[len..]
                .strip_prefix('{')
                .and_then(|g| g.split('}').next());
            match group {
                Some(members) => {
                    for member in members.split(',') {
                        let first = member.trim().split("::").next().unwrap_or_default();
                        let mut p = segments.clone();
                        p.push(first.to_owned());
                        out.push(p);
                    }
                }
                None => out.push(segments),
            }
        }
    }
    out
}

/// The file a path leads to: its longest prefix that is a file's module.
fn target(path: &[String], modules: &BTreeSet<String>) -> Option<String> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].join("::"))
        .find(|m| modules.contains(m))
}

/// The cycles of the graph: its strongly connected components of more than one file.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<Vec<String>> {
    // Kosaraju: finishing order on the graph, then components on its reverse.
    fn visit(
        n: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        seen: &mut BTreeSet<String>,
        out: &mut Vec<String>,
    ) {
        let mut stack = vec![(n.to_owned(), false)];
        while let Some((n, done)) = stack.pop() {
            if done {
                out.push(n);
                continue;
            }
            if !seen.insert(n.clone()) {
                continue;
            }
            stack.push((n.clone(), true));
            for m in edges.get(&n).into_iter().flatten() {
                if !seen.contains(m) {
                    stack.push((m.clone(), false));
                }
            }
        }
    }
    let mut order = Vec::new();
    let mut seen = BTreeSet::new();
    for n in edges.keys() {
        visit(n, edges, &mut seen, &mut order);
    }
    let mut reverse: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in edges {
        for t in to {
            reverse.entry(t.clone()).or_default().insert(from.clone());
        }
    }
    let mut assigned = BTreeSet::new();
    let mut found = BTreeSet::new();
    for n in order.iter().rev() {
        if assigned.contains(n) {
            continue;
        }
        let mut component = Vec::new();
        visit(n, &reverse, &mut assigned, &mut component);
        if component.len() > 1 {
            component.sort();
            found.insert(component);
        }
    }
    found
}

/// The import graph of the files under `src`: each file's module and the files it
/// names (a file does not count its own submodules or parent).
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut sources = BTreeMap::new();
    files(src, "", &mut sources);
    let modules: BTreeSet<String> = sources.keys().cloned().collect();
    let mut edges = BTreeMap::new();
    for (module, source) in &sources {
        let to: BTreeSet<String> = paths(module, &code(source))
            .iter()
            .filter_map(|p| target(p, &modules))
            .filter(|t| {
                !t.is_empty()
                    && t != module
                    && !module.starts_with(&format!("{t}::"))
                    && !t.starts_with(&format!("{module}::"))
            })
            .collect();
        edges.insert(module.clone(), to);
    }
    edges
}

#[test]
fn no_import_cycle_between_files_but_the_known_ones() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = cycles(&graph(&src));
    let known: BTreeSet<Vec<String>> = KNOWN_CYCLES
        .iter()
        .map(|c| c.iter().map(|m| (*m).to_owned()).collect())
        .collect();
    let new: Vec<&Vec<String>> = found.difference(&known).collect();
    let gone: Vec<&Vec<String>> = known.difference(&found).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "import cycles between files not in KNOWN_CYCLES: {new:?}; listed but gone (strike them): {gone:?}"
    );
}

#[test]
fn a_cycle_through_use_lines_and_groups_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "mod a;\nmod b;\n");
    write("a/mod.rs", "mod x;\nuse crate::b::{f, g};\n");
    write(
        "a/x.rs",
        "// use crate::c;\nfn h() { super::super::c::k(); }\n",
    );
    write("b.rs", "use super::a::x::h;\n");
    write("c.rs", "#[cfg(test)]\nmod tests {\n    use crate::a;\n}\n");
    let found = cycles(&graph(dir.path()));
    // `a` imports `b`, `b` imports `a::x`; `a::x` is `a`'s own submodule, and the test
    // module of `c` and the comment of `a::x` count for nothing.
    assert_eq!(graph(dir.path())["a::x"], ["c".to_owned()].into());
    assert_eq!(graph(dir.path())["c"], BTreeSet::new());
    assert!(found.is_empty(), "{found:?}");
    write("c.rs", "use crate::b;\n");
    let found = cycles(&graph(dir.path()));
    assert_eq!(
        found,
        [vec!["a::x".to_owned(), "b".to_owned(), "c".to_owned()]].into()
    );
}
