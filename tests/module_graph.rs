//! The module graph of each crate has no cycle: a file never imports,
//! directly or through others, a file that imports it. Read from the code's
//! own paths (`use crate::…`, `use super::…`, `use child::…` and inline
//! `crate::…` / `super::…` paths), each name followed to the file that
//! defines it through `pub use` re-exports, the way `farm-studio look`
//! draws the house. Test code (`tests.rs`, `*_tests.rs`, `#[cfg(test)]`
//! modules) is left out: tests may reach anywhere. (That the client's
//! logic reaches no browser API is Cargo's to check: `aria-core` has no web
//! dependency.)

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A module path from the crate root: `["ui", "timeline"]`.
type ModPath = Vec<String>;

struct Crate {
    /// Every non-test module file, by its module path.
    files: BTreeMap<ModPath, Source>,
}

struct Source {
    path: PathBuf,
    /// The code with comments, strings and test modules removed.
    code: String,
}

impl Crate {
    fn read(src: &Path) -> Crate {
        let mut files = BTreeMap::new();
        collect(src, src, &mut files);
        Crate { files }
    }

    /// Files importing each other in a loop, each loop sorted, as paths.
    fn cycles(&self) -> Vec<Vec<String>> {
        let edges = self.edges();
        strongly_connected(&edges)
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|c| {
                c.iter()
                    .map(|m| self.files[m].path.display().to_string())
                    .collect()
            })
            .collect()
    }

    fn edges(&self) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
        let mut edges = BTreeMap::new();
        for (module, source) in &self.files {
            let mut to = BTreeSet::new();
            for path in paths_in(&source.code, &self.children(module)) {
                let Some(absolute) = absolute(module, &path) else {
                    continue;
                };
                if let Some(target) = self.defining_file(&absolute, 0) {
                    // A child reaching into the module that declares it is
                    // one unit with it (`impl Store` in `store/jump.rs`).
                    if !module.starts_with(&target) {
                        to.insert(target);
                    }
                }
            }
            edges.insert(module.clone(), to);
        }
        edges
    }

    /// Modules declared inside `module` (`mod x;`), which `use x::…` names.
    fn children(&self, module: &ModPath) -> BTreeSet<String> {
        self.files
            .keys()
            .filter(|m| m.len() == module.len() + 1 && m.starts_with(module))
            .map(|m| m[module.len()].clone())
            .collect()
    }

    /// The file that defines what `path` names: the deepest module file on
    /// the path, or, when the rest is a name that file re-exports, the file
    /// the re-export leads to.
    fn defining_file(&self, path: &[String], depth: usize) -> Option<ModPath> {
        let k = (0..=path.len())
            .rev()
            .find(|&k| self.files.contains_key(&path[..k]))?;
        let file: ModPath = path[..k].to_vec();
        let Some(name) = path.get(k) else {
            return Some(file);
        };
        if depth < 8 && !defines(&self.files[&file].code, name) {
            for reexport in reexports(&self.files[&file].code, &self.children(&file)) {
                if reexport.last() == Some(name) {
                    if let Some(abs) = absolute(&file, &reexport) {
                        if let Some(target) = self.defining_file(&abs, depth + 1) {
                            return Some(target);
                        }
                    }
                }
            }
        }
        Some(file)
    }
}

fn collect(root: &Path, dir: &Path, files: &mut BTreeMap<ModPath, Source>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, files);
            continue;
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let Some(stem) = name.strip_suffix(".rs") else {
            continue;
        };
        if stem == "tests" || stem.ends_with("_tests") || stem == "main" {
            continue;
        }
        let rel = path.strip_prefix(root).unwrap_or(&path);
        let mut module: ModPath = rel
            .parent()
            .into_iter()
            .flat_map(|p| p.components())
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if stem != "mod" && stem != "lib" {
            module.push(stem.to_string());
        }
        let text = fs::read_to_string(&path).unwrap_or_default();
        files.insert(
            module,
            Source {
                path: path.clone(),
                code: without_tests(&strip(&text)),
            },
        );
    }
}

/// The code without comments and string or char literals.
fn strip(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b'r' if matches!(b.get(i + 1), Some(b'"' | b'#'))
                && (i == 0 || !is_ident(b[i - 1])) =>
            {
                // A raw string: r"…", r#"…"#.
                let mut j = i + 1;
                let mut hashes = 0;
                while b.get(j) == Some(&b'#') {
                    hashes += 1;
                    j += 1;
                }
                if b.get(j) != Some(&b'"') {
                    out.push('r');
                    i += 1;
                    continue;
                }
                j += 1;
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                while j < b.len() && !b[j..].starts_with(&close) {
                    j += 1;
                }
                i = j + close.len();
                out.push_str("\"\"");
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            b'\'' if b.get(i + 2) == Some(&b'\'') || b.get(i + 1) == Some(&b'\\') => {
                // A char literal ('x', '\n'), not a lifetime.
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("' '");
            }
            _ => {
                let start = i;
                i += 1;
                while i < b.len() && !b"/\"'r".contains(&b[i]) {
                    i += 1;
                }
                out.push_str(&text[start..i]);
            }
        }
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Drops `#[cfg(test)]` modules (`mod x { … }` to its closing brace).
fn without_tests(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let trimmed = after.trim_start();
        if !trimmed.starts_with("mod ") {
            rest = after;
            continue;
        }
        match (trimmed.find(';'), trimmed.find('{')) {
            (Some(semi), Some(open)) if semi < open => rest = &trimmed[semi + 1..],
            (_, Some(open)) => {
                let mut level = 0;
                let mut end = trimmed.len();
                for (i, c) in trimmed[open..].char_indices() {
                    match c {
                        '{' => level += 1,
                        '}' => {
                            level -= 1;
                            if level == 0 {
                                end = open + i + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                rest = &trimmed[end..];
            }
            (Some(semi), None) => rest = &trimmed[semi + 1..],
            (None, None) => rest = "",
        }
    }
    out.push_str(rest);
    out
}

/// Every path the code names that may lead to another file of the crate,
/// as written (`crate::…`, `super::…`, `self::…`, or a child module).
fn paths_in(code: &str, children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let (trees, rest) = use_trees(code);
    let mut paths = Vec::new();
    for (tree, _) in &trees {
        expand(tree, &mut Vec::new(), &mut paths);
    }
    // Inline paths outside `use`: `crate::search::Status`.
    let b = rest.as_bytes();
    for start in ["crate::", "super::"] {
        let mut from = 0;
        while let Some(at) = rest[from..].find(start) {
            let i = from + at;
            from = i + start.len();
            if i > 0 && (is_ident(b[i - 1]) || b[i - 1] == b':') {
                continue;
            }
            let mut end = i;
            while end < b.len() && (is_ident(b[end]) || b[end] == b':') {
                end += 1;
            }
            paths.push(
                rest[i..end]
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect(),
            );
        }
    }
    paths.retain(|p| leads_inside(p, children));
    paths
}

/// The `pub use` paths of a file (its re-exports), expanded.
fn reexports(code: &str, children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    for (tree, public) in use_trees(code).0 {
        if public {
            expand(&tree, &mut Vec::new(), &mut paths);
        }
    }
    paths.retain(|p| leads_inside(p, children));
    paths
}

fn leads_inside(path: &[String], children: &BTreeSet<String>) -> bool {
    path.first()
        .is_some_and(|s| s == "crate" || s == "super" || s == "self" || children.contains(s))
}

/// The text of each `use` tree (between `use` and `;`) and whether it is
/// public, and the code without them.
fn use_trees(code: &str) -> (Vec<(String, bool)>, String) {
    let mut trees = Vec::new();
    let mut rest = String::new();
    let b = code.as_bytes();
    let mut from = 0;
    let mut kept = 0;
    while let Some(at) = code[from..].find("use ") {
        let i = from + at;
        from = i + 4;
        if i > 0 && is_ident(b[i - 1]) {
            continue;
        }
        let Some(end) = code[from..].find(';') else {
            break;
        };
        let before = code[..i].trim_end();
        let public = before.ends_with("pub") || (before.ends_with(')') && before.contains("pub("));
        trees.push((code[from..from + end].split_whitespace().collect(), public));
        rest.push_str(&code[kept..i]);
        from += end + 1;
        kept = from;
    }
    rest.push_str(&code[kept..]);
    (trees, rest)
}

/// Expands `a::{b, c::{self, d}}` into its paths (`as` renames dropped).
fn expand(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    let (head, group) = match tree.find('{') {
        Some(open) => (&tree[..open], Some(&tree[open + 1..tree.len() - 1])),
        None => (tree, None),
    };
    let depth = prefix.len();
    for seg in head.split("::").map(str::trim).filter(|s| !s.is_empty()) {
        let seg = seg.split(" as ").next().unwrap_or(seg);
        let seg = seg.split_whitespace().next().unwrap_or(seg);
        if seg == "self" && depth > 0 {
            continue;
        }
        prefix.push(seg.to_string());
    }
    match group {
        Some(group) => {
            for part in split_top(group) {
                expand(part, prefix, out);
            }
        }
        None => out.push(prefix.clone()),
    }
    prefix.truncate(depth);
}

/// Splits a use group at its top-level commas.
fn split_top(group: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut level, mut start) = (0, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => level += 1,
            '}' => level -= 1,
            ',' if level == 0 => {
                parts.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&group[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// `path` as written in `module`, from the crate root.
fn absolute(module: &ModPath, path: &[String]) -> Option<Vec<String>> {
    let mut base: Vec<String> = module.clone();
    let mut segs = path.iter().peekable();
    match segs.peek().map(|s| s.as_str()) {
        Some("crate") => {
            base.clear();
            segs.next();
        }
        Some("super") => {
            while segs.peek().map(|s| s.as_str()) == Some("super") {
                base.pop()?;
                segs.next();
            }
        }
        Some("self") => {
            segs.next();
        }
        _ => {}
    }
    base.extend(segs.filter(|s| s.as_str() != "*").cloned());
    Some(base)
}

/// Whether the code itself defines `name` (not merely re-exports it).
fn defines(code: &str, name: &str) -> bool {
    [
        "fn", "struct", "enum", "trait", "type", "const", "static", "mod",
    ]
    .iter()
    .any(|kw| {
        let needle = format!("{kw} {name}");
        code.match_indices(&needle).any(|(i, _)| {
            let before_ok = i == 0 || !is_ident(code.as_bytes()[i - 1]);
            let after = code.as_bytes().get(i + needle.len()).copied();
            before_ok && !after.is_some_and(is_ident)
        })
    })
}

/// Tarjan's strongly connected components.
fn strongly_connected(edges: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    struct State<'a> {
        edges: &'a BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: BTreeMap<&'a ModPath, usize>,
        low: BTreeMap<&'a ModPath, usize>,
        stack: Vec<&'a ModPath>,
        on_stack: BTreeSet<&'a ModPath>,
        out: Vec<Vec<ModPath>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a ModPath) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        let edges = s.edges;
        for w in edges.get(v).into_iter().flatten() {
            if !edges.contains_key(w) {
                continue;
            }
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.clone());
                if w == v {
                    break;
                }
            }
            component.sort();
            s.out.push(component);
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

/// The crate `rel` of this repository, from the manifest dir cargo names
/// to the running test, else the one it was built in (a target dir shared
/// by several checkouts may run a binary built in another).
fn crate_dir(rel: &str) -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
        .join(rel)
}

/// `min_files`: fewer means the crate was not read (a wrong folder).
fn assert_acyclic(rel: &str, min_files: usize) {
    let krate = Crate::read(&crate_dir(rel));
    assert!(krate.files.len() >= min_files, "{rel}: no sources found");
    let cycles = krate.cycles();
    assert!(
        cycles.is_empty(),
        "{rel}: files that import each other in a loop: {cycles:#?}"
    );
}

#[test]
fn the_client_has_no_import_cycle() {
    assert_acyclic("src", 6);
}

#[test]
fn the_client_core_has_no_import_cycle() {
    assert_acyclic("core/src", 6);
}

#[test]
fn the_gateway_has_no_import_cycle() {
    assert_acyclic("gateway/src", 6);
}

#[test]
fn the_protocol_has_no_import_cycle() {
    assert_acyclic("protocol/src", 6);
}

#[test]
fn the_markdown_crate_has_no_import_cycle() {
    assert_acyclic("markdown/src", 4);
}

/// A crate of `files` (path, code) in a fresh temporary folder, read.
fn temp_crate(name: &str, files: &[(&str, &str)]) -> Crate {
    let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    for (path, code) in files {
        let path = dir.join(path);
        fs::create_dir_all(path.parent().expect("a folder")).expect("temp dir");
        fs::write(path, code).expect("write");
    }
    let mut krate = Crate::read(&dir);
    let _ = fs::remove_dir_all(&dir);
    for source in krate.files.values_mut() {
        source.path = source
            .path
            .strip_prefix(&dir)
            .expect("inside")
            .to_path_buf();
    }
    krate
}

/// The checker itself: a loop through a re-export, a `super` path and an
/// inline path is found; a test module's import is not an edge.
#[test]
fn a_cycle_is_found() {
    let krate = temp_crate(
        "module-graph",
        &[
            ("lib.rs", "mod ui;\nmod store;\npub use store::Store;\n"),
            (
                "store.rs",
                "pub struct Store;\nfn f() -> crate::ui::view::View { todo!() }\n",
            ),
            ("ui.rs", "mod view;\nmod other;\n"),
            (
                "ui/view.rs",
                "// use crate::ui::other; (a comment is no import)\nuse crate::Store;\npub struct View;\n#[cfg(test)]\nmod tests { use super::super::other::*; }\n",
            ),
            ("ui/other.rs", "use super::view::View;\n"),
        ],
    );
    assert_eq!(krate.cycles(), vec![vec!["store.rs", "ui/view.rs"]]);
}
