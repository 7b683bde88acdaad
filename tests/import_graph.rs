//! No import circles between the modules of a directory.
//!
//! For each checked directory, every `.rs` file of the crate is read and
//! its references to other modules are collected: `use` trees (`use
//! super::x`, `use crate::a::{b, c::D}`, `pub use` re-exports, `use`
//! inside functions and test modules), paths in code (`crate::a::b::f()`,
//! `super::x::Y`, `self::x::Z`) and paths through the child modules a file
//! declares (`mod x;` then `x::f()`). Each path is resolved to the file that
//! defines what it names: the longest prefix of the path that is a module
//! with a file of its own (a file, or a directory's `mod.rs`), following
//! that module's `use` declarations when the next name is one it imports
//! (so `super::Thing`, re-exported by `mod.rs` from `thing.rs`, leads to
//! `thing.rs`). A module is a file: an inline `mod tests { ... }` belongs
//! to its file. `mod` declarations give the modules' names, not edges.
//!
//! The edges between the modules of the directory form a graph; every
//! strongly connected component of more than one module is a circle, and
//! the test fails listing the circles that are not in [`KNOWN_CIRCLES`].
//! An edge from a module into its own submodules (a `mod.rs` or `lib.rs`
//! re-exporting or calling its parts) is listed but does not count: the
//! parts may use what their parent defines, and a circle is between
//! modules side by side (`a` uses `b`, `b` uses `a`, directly or through
//! others, or through what their parent re-exports from them).
//!
//! Parent↔child circles are counted too ([`parent_child_circles_are_only_the_known_ones`],
//! over each crate whole): a module that uses one of its descendants (a
//! down edge, not counted above) while that descendant uses what the
//! module itself defines (an edge that runs back up). The circles found
//! are listed; the test fails on one not in [`KNOWN_BACK_UP`].
//! `cargo test --test import_graph -- --nocapture` prints every edge.
//! Comments, strings and character literals are skipped; macros other than
//! paths are not expanded (a path built by a macro is not seen).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Circles tolerated, as (directory, modules): a circle found is accepted
/// if all its modules are in one entry of its directory. Empty since issue
/// 10 broke the last ones (server, C layer, shmem, codec/print); an entry
/// is a debt to pay, not a way to silence the test.
const KNOWN_CIRCLES: &[(&str, &[&str])] = &[];

/// Parent↔child circles tolerated, as (crate directory, `"parent <->
/// descendant"`), the modules named by their path from the crate root
/// (`lib` for the root). Recorded when the check came (issue 22): each is
/// a debt, a parent whose parts use what it defines while it uses them.
/// A new one fails the test; one no longer found is reported, to remove.
const KNOWN_BACK_UP: &[(&str, &str)] = &[
    ("src", "attributes <-> attributes::table"),
    ("src", "client <-> client::debug"),
    ("src", "client <-> client::fast_fence"),
    ("src", "client <-> client::get_all"),
    ("src", "client <-> client::group"),
    ("src", "client <-> client::iof"),
    ("src", "client <-> client::pubsub"),
    ("src", "client <-> client::query"),
    ("src", "client <-> client::service"),
    ("src", "client <-> client::spawn"),
    ("src", "client <-> client::tool"),
    ("ffi/src", "sys <-> sys::server"),
];

/// A module's path from its crate's root (`[]` is the root).
type ModPath = Vec<String>;

// ---------------------------------------------------------------------
// Lexing: identifiers and the punctuation that matters, without comments,
// strings or character literals.

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
}

fn lex(src: &str) -> Vec<Tok> {
    let b: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let n = b.len();
    let ident_start = |c: char| c == '_' || c.is_alphabetic();
    let ident_char = |c: char| c == '_' || c.is_alphanumeric();
    while i < n {
        let c = b[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && b.get(i + 1) == Some(&'/') {
            while i < n && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && b.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < n {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            i = skip_string(&b, i + 1);
        } else if c == '\'' {
            if b.get(i + 1) == Some(&'\\') {
                // An escaped character literal: up to the closing quote.
                i += 2;
                while i < n && b[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if b.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                // A lifetime or a label.
                i += 1;
                while i < n && ident_char(b[i]) {
                    i += 1;
                }
            }
        } else if ident_start(c) {
            let start = i;
            while i < n && ident_char(b[i]) {
                i += 1;
            }
            let word: String = b[start..i].iter().collect();
            let prefix = matches!(word.as_str(), "r" | "b" | "br" | "c" | "cr");
            if prefix && b.get(i) == Some(&'"') {
                i = if word.contains('r') {
                    skip_raw_string(&b, i)
                } else {
                    skip_string(&b, i + 1)
                };
            } else if prefix && word.contains('r') && b.get(i) == Some(&'#') {
                // `r#"..."#` or a raw identifier `r#name`.
                let mut j = i;
                while j < n && b[j] == '#' {
                    j += 1;
                }
                if b.get(j) == Some(&'"') {
                    i = skip_raw_string(&b, i);
                } else {
                    let s = j;
                    while j < n && ident_char(b[j]) {
                        j += 1;
                    }
                    out.push(Tok::Ident(b[s..j].iter().collect()));
                    i = j;
                }
            } else if word == "b" && b.get(i) == Some(&'\'') {
                // A byte literal: lexed as a character literal next.
            } else {
                out.push(Tok::Ident(word));
            }
        } else if c.is_ascii_digit() {
            while i < n && ident_char(b[i]) {
                i += 1;
            }
        } else if c == ':' && b.get(i + 1) == Some(&':') {
            out.push(Tok::Sep);
            i += 2;
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
    }
    out
}

/// Index after the closing quote of a string whose body starts at `i`.
fn skip_string(b: &[char], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// Index after a raw string whose `#`s or opening quote start at `i`.
fn skip_raw_string(b: &[char], mut i: usize) -> usize {
    let mut hashes = 0;
    while i < b.len() && b[i] == '#' {
        hashes += 1;
        i += 1;
    }
    i += 1; // the opening quote
    while i < b.len() {
        if b[i] == '"' && (1..=hashes).all(|k| b.get(i + k) == Some(&'#')) {
            return i + 1 + hashes;
        }
        i += 1;
    }
    i
}

// ---------------------------------------------------------------------
// Parsing: the paths a file names, and its top-level imports.

/// What one file says about other modules.
#[derive(Default, Debug)]
struct FileRefs {
    /// Absolute paths (from the crate root) the file names.
    refs: Vec<Vec<String>>,
    /// Its top-level `use` declarations: name brought in -> absolute path.
    imports: BTreeMap<String, Vec<String>>,
    /// Its top-level glob imports (`use a::*`), absolute.
    globs: Vec<Vec<String>>,
    /// The names of the items it defines at its top level.
    defines: BTreeSet<String>,
}

/// One leaf of a `use` tree: its path (possibly relative) and the name it
/// binds (`None` for a glob).
fn use_leaves(
    toks: &[Tok],
    mut i: usize,
    prefix: &[String],
    out: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    let mut path = prefix.to_vec();
    loop {
        match toks.get(i) {
            Some(Tok::Sep) => i += 1,
            Some(Tok::Ident(w)) if w == "as" => {
                let alias = match toks.get(i + 1) {
                    Some(Tok::Ident(a)) => a.clone(),
                    _ => String::new(),
                };
                out.push((path, Some(alias)));
                return i + 2;
            }
            Some(Tok::Ident(w)) => {
                path.push(w.clone());
                i += 1;
            }
            Some(Tok::Punct('*')) => {
                out.push((path, None));
                return i + 1;
            }
            Some(Tok::Punct('{')) => {
                i += 1;
                loop {
                    match toks.get(i) {
                        Some(Tok::Punct('}')) => return i + 1,
                        Some(Tok::Punct(',')) => i += 1,
                        None => return i,
                        _ => i = use_leaves(toks, i, &path, out),
                    }
                }
            }
            _ => {
                // `,`, `}` or `;`: the leaf ends here.
                let name = path.last().cloned();
                if path.last().map(String::as_str) == Some("self") {
                    path.pop();
                    let name = path.last().cloned();
                    out.push((path, name));
                } else {
                    out.push((path, name));
                }
                return i;
            }
        }
    }
}

/// Makes `path`, written in module `here` of a file declaring the child
/// modules `children`, absolute. `None` for a path into another crate.
fn absolute(path: &[String], here: &[String], children: &BTreeSet<String>) -> Option<Vec<String>> {
    let first = path.first()?;
    let mut base: Vec<String>;
    let mut rest = path;
    match first.as_str() {
        "crate" | "$crate" => {
            base = Vec::new();
            rest = &path[1..];
        }
        "self" => {
            base = here.to_vec();
            rest = &path[1..];
        }
        "super" => {
            base = here.to_vec();
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        name if children.contains(name) => base = here.to_vec(),
        _ => return None,
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The references of the file of module `module`.
fn parse(src: &str, module: &[String]) -> FileRefs {
    let toks = lex(src);
    let mut refs = FileRefs::default();
    // Child modules declared with `mod name;` (the file's own level).
    let children: BTreeSet<String> = toks
        .windows(3)
        .filter_map(|w| match w {
            [Tok::Ident(m), Tok::Ident(name), Tok::Punct(';')] if m == "mod" => Some(name.clone()),
            _ => None,
        })
        .collect();
    // Inline modules open: (name, brace depth inside them).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let here: Vec<String> = module
            .iter()
            .cloned()
            .chain(inline.iter().map(|(n, _)| n.clone()))
            .collect();
        match &toks[i] {
            Tok::Punct('{') => {
                depth += 1;
                i += 1;
            }
            Tok::Punct('}') => {
                if inline.last().map(|(_, d)| *d) == Some(depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            Tok::Ident(w) if w == "mod" => {
                if let (Some(Tok::Ident(name)), Some(Tok::Punct('{'))) =
                    (toks.get(i + 1), toks.get(i + 2))
                {
                    inline.push((name.clone(), depth + 1));
                    depth += 1;
                    i += 3;
                } else {
                    i += 2;
                }
            }
            Tok::Ident(w) if w == "pub" && toks.get(i + 1) == Some(&Tok::Punct('(')) => {
                // A visibility: `pub(in crate::a)` names no dependency.
                while i < toks.len() && toks[i] != Tok::Punct(')') {
                    i += 1;
                }
                i += 1;
            }
            Tok::Ident(w) if w == "use" => {
                let mut leaves = Vec::new();
                let mut j = use_leaves(&toks, i + 1, &[], &mut leaves);
                while j < toks.len() && toks[j] != Tok::Punct(';') {
                    j += 1;
                }
                let top = depth == 0;
                let kids = if top {
                    children.clone()
                } else {
                    BTreeSet::new()
                };
                for (path, name) in leaves {
                    if let Some(abs) = absolute(&path, &here, &kids) {
                        match (top, name) {
                            (true, Some(name)) => {
                                refs.imports.insert(name, abs.clone());
                            }
                            (true, None) => refs.globs.push(abs.clone()),
                            (false, _) => {}
                        }
                        refs.refs.push(abs);
                    }
                }
                i = j + 1;
            }
            Tok::Ident(w)
                if depth == 0
                    && matches!(
                        w.as_str(),
                        "struct" | "enum" | "union" | "trait" | "type" | "fn" | "const" | "static"
                    ) =>
            {
                if let Some(Tok::Ident(name)) = toks.get(i + 1) {
                    refs.defines.insert(name.clone());
                }
                i += 1;
            }
            Tok::Ident(w)
                if toks.get(i + 1) == Some(&Tok::Sep) && (i == 0 || toks[i - 1] != Tok::Sep) =>
            {
                // `$crate` lexes as `$` then `crate`.
                let start = matches!(w.as_str(), "crate" | "self" | "super")
                    || (inline.is_empty() && children.contains(w));
                if start {
                    let mut path = vec![w.clone()];
                    let mut j = i + 1;
                    while toks.get(j) == Some(&Tok::Sep) {
                        match toks.get(j + 1) {
                            Some(Tok::Ident(s)) => {
                                path.push(s.clone());
                                j += 2;
                            }
                            _ => break,
                        }
                    }
                    let kids = if inline.is_empty() {
                        children.clone()
                    } else {
                        BTreeSet::new()
                    };
                    if let Some(abs) = absolute(&path, &here, &kids) {
                        refs.refs.push(abs);
                    }
                    i = j;
                } else {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    refs
}

// ---------------------------------------------------------------------
// A crate: its files as modules, and the resolution of paths to them.

struct Crate {
    /// Every module with a file of its own, with what its file references.
    modules: BTreeMap<ModPath, FileRefs>,
}

impl Crate {
    /// `files`: (path relative to the crate's `src/`, source). `lib.rs` is
    /// the root; `a/mod.rs` and `a.rs` are module `a`.
    fn new(files: &[(String, String)]) -> Crate {
        let modules = files
            .iter()
            .map(|(rel, src)| {
                let m = module_of(rel);
                let refs = parse(src, &m);
                (m, refs)
            })
            .collect();
        Crate { modules }
    }

    fn read(src_dir: &Path) -> Crate {
        let mut files = Vec::new();
        collect(src_dir, src_dir, &mut files);
        Crate::new(&files)
    }

    /// The module whose file defines what `path` names.
    fn resolve(&self, path: &[String], hops: usize) -> ModPath {
        let mut len = path.len();
        while len > 0 && !self.modules.contains_key(&path[..len]) {
            len -= 1;
        }
        let module = path[..len].to_vec();
        if hops >= 8 || len == path.len() {
            return module;
        }
        let Some(file) = self.modules.get(&module) else {
            return module;
        };
        let name = &path[len];
        let via = |target: &Vec<String>| {
            let mut next = target.clone();
            next.extend(path[len..].iter().cloned());
            next
        };
        if let Some(target) = file.imports.get(name) {
            let mut next = target.clone();
            next.extend(path[len + 1..].iter().cloned());
            return self.resolve(&next, hops + 1);
        }
        if file.defines.contains(name) {
            return module;
        }
        // A name a glob import brings in: the glob's module, if it
        // defines or imports the name.
        for g in &file.globs {
            let m = self.resolve(g, hops + 1);
            if let Some(f) = self.modules.get(&m) {
                if m.len() == g.len() && (f.defines.contains(name) || f.imports.contains_key(name))
                {
                    return self.resolve(&via(g), hops + 1);
                }
            }
        }
        module
    }

    /// The edges between the graph's nodes: `node` maps a module to its
    /// node (`None`: not in the graph).
    fn edges(&self, node: &dyn Fn(&[String]) -> Option<String>) -> Graph {
        let mut g = Graph::default();
        for (m, f) in &self.modules {
            let Some(from) = node(m) else { continue };
            g.edges.entry(from.clone()).or_default();
            for r in &f.refs {
                let target = self.resolve(r, 0);
                let Some(to) = node(&target) else { continue };
                if to == from {
                    continue;
                }
                if target.len() > m.len() && target.starts_with(m) {
                    g.down.entry(from.clone()).or_default().insert(to);
                } else {
                    if m.len() > target.len() && m.starts_with(&target) {
                        g.up.entry(from.clone()).or_default().insert(to.clone());
                    }
                    g.edges.entry(from.clone()).or_default().insert(to);
                }
            }
        }
        for (from, tos) in &mut g.down {
            if let Some(e) = g.edges.get(from) {
                tos.retain(|t| !e.contains(t));
            }
        }
        g
    }
}

/// A directory's import graph.
#[derive(Default)]
struct Graph {
    /// The edges that count: module -> modules it uses.
    edges: BTreeMap<String, BTreeSet<String>>,
    /// Edges from a module down into its own submodules only (a `mod.rs`
    /// or `lib.rs` declaring, re-exporting or calling its parts): listed,
    /// not counted.
    down: BTreeMap<String, BTreeSet<String>>,
    /// Edges from a module up to one of its ancestors (a part using what
    /// its parent, or the crate root, defines itself): counted, and also
    /// listed here.
    up: BTreeMap<String, BTreeSet<String>>,
}

impl Graph {
    /// The parent↔child circles: a module using a descendant (a down
    /// edge: re-exporting or calling it) whose descendant uses it back (an
    /// up edge), as `"parent <-> child"`.
    fn back_up(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (child, ancestors) in &self.up {
            for a in ancestors {
                if self.down.get(a).is_some_and(|d| d.contains(child)) {
                    out.push(format!("{a} <-> {child}"));
                }
            }
        }
        out.sort();
        out
    }
}

fn module_of(rel: &str) -> ModPath {
    let rel = rel.strip_suffix(".rs").unwrap_or(rel);
    let mut parts: Vec<String> = rel.split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// Every `.rs` file under `dir` (but `src/bin`: other crates).
fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        let rel = p
            .strip_prefix(root)
            .expect("under root")
            .to_string_lossy()
            .replace('\\', "/");
        if p.is_dir() {
            if rel != "bin" {
                collect(root, &p, out);
            }
        } else if rel.ends_with(".rs") {
            out.push((rel, std::fs::read_to_string(&p).expect("read file")));
        }
    }
}

// ---------------------------------------------------------------------
// Circles: strongly connected components (Tarjan).

fn circles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        let g = s.g;
        for w in g.get(v).into_iter().flatten() {
            let w = w.as_str();
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
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().expect("on the stack");
                s.on_stack.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    let nodes: BTreeSet<&str> = g
        .iter()
        .flat_map(|(k, vs)| std::iter::once(k.as_str()).chain(vs.iter().map(String::as_str)))
        .collect();
    for v in nodes {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

// ---------------------------------------------------------------------
// The checked directories.

/// The nodes of a directory's graph: each module under `prefix`, named
/// by its path from there (`mod` for the directory's own `mod.rs`).
fn under(prefix: &'static [&'static str]) -> impl Fn(&[String]) -> Option<String> {
    move |m: &[String]| {
        let starts = m.len() >= prefix.len() && m.iter().zip(prefix).all(|(a, b)| a == b);
        starts.then(|| {
            let rest = &m[prefix.len()..];
            if rest.is_empty() && prefix.is_empty() {
                "lib".to_string()
            } else if rest.is_empty() {
                "mod".to_string()
            } else {
                rest.join("::")
            }
        })
    }
}

/// Checks one graph: prints its edges, returns the circles not allowed.
fn check(dir: &str, g: &Graph, stale: &mut Vec<String>) -> Vec<String> {
    println!("== {dir}");
    for (from, tos) in &g.edges {
        for to in tos {
            println!("  {from} -> {to}");
        }
    }
    for (from, tos) in &g.down {
        for to in tos {
            println!("  {from} -> {to} (into its own submodule: not counted)");
        }
    }
    let found = circles(&g.edges);
    let known: Vec<&[&str]> = KNOWN_CIRCLES
        .iter()
        .filter(|(d, _)| *d == dir)
        .map(|(_, m)| *m)
        .collect();
    for k in &known {
        let matched = found
            .iter()
            .any(|c| c.iter().all(|m| k.contains(&m.as_str())));
        if !matched {
            stale.push(format!("{dir}: {k:?}"));
        }
    }
    let mut bad = Vec::new();
    for c in found {
        let allowed = known
            .iter()
            .any(|k| c.iter().all(|m| k.contains(&m.as_str())));
        println!(
            "  circle{}: {}",
            if allowed { " (known)" } else { "" },
            c.join(" <-> ")
        );
        if !allowed {
            bad.push(format!("{dir}: {}", c.join(" <-> ")));
        }
    }
    bad
}

#[test]
fn no_import_circles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let core = Crate::read(&root.join("src"));
    let ffi = Crate::read(&root.join("ffi/src"));
    let shmem = Crate::read(&root.join("shmem/src"));
    let codec_print = |m: &[String]| match m.first().map(String::as_str) {
        Some("codec") => Some("codec".to_string()),
        Some("print") => Some("print".to_string()),
        _ => None,
    };
    let graphs = [
        ("src/server", core.edges(&under(&["server"]))),
        ("src/client", core.edges(&under(&["client"]))),
        ("src/codec + src/print.rs", core.edges(&codec_print)),
        ("ffi/src/api", ffi.edges(&under(&["api"]))),
        ("shmem/src", shmem.edges(&under(&[]))),
    ];
    let mut stale = Vec::new();
    let mut bad = Vec::new();
    for (dir, g) in &graphs {
        bad.extend(check(dir, g, &mut stale));
    }
    for s in &stale {
        println!("KNOWN_CIRCLES entry no longer found, remove it: {s}");
    }
    assert!(bad.is_empty(), "import circles:\n{}", bad.join("\n"));
}

#[test]
fn parent_child_circles_are_only_the_known_ones() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for dir in ["src", "ffi/src", "shmem/src"] {
        let g = Crate::read(&root.join(dir)).edges(&under(&[]));
        let ups: usize = g.up.values().map(BTreeSet::len).sum();
        println!("== {dir}: {ups} edges up to an ancestor");
        for (from, tos) in &g.up {
            for to in tos {
                println!("  {from} -> {to} (up)");
            }
        }
        for c in g.back_up() {
            println!("  parent-child circle: {c}");
            found.push((dir, c));
        }
    }
    for (dir, c) in KNOWN_BACK_UP {
        if !found.iter().any(|(d, f)| d == dir && f == c) {
            println!("KNOWN_BACK_UP entry no longer found, remove it: {dir}: {c}");
        }
    }
    let new: Vec<String> = found
        .iter()
        .filter(|(d, c)| !KNOWN_BACK_UP.iter().any(|(kd, kc)| kd == d && kc == c))
        .map(|(d, c)| format!("{d}: {c}"))
        .collect();
    assert!(
        new.is_empty(),
        "parent-child circles (a module using a part that uses it back):\n{}",
        new.join("\n")
    );
}

// ---------------------------------------------------------------------
// The check itself, on made-up modules.

fn files(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(p, s)| (p.to_string(), s.to_string()))
        .collect()
}

#[test]
fn finds_circles_in_a_small_graph() {
    let g: BTreeMap<String, BTreeSet<String>> = [
        ("a", &["b"][..]),
        ("b", &["c"]),
        ("c", &["a", "d"]),
        ("d", &[]),
        ("e", &["e", "d"]),
    ]
    .iter()
    .map(|(k, vs)| (k.to_string(), vs.iter().map(|v| v.to_string()).collect()))
    .collect();
    assert_eq!(
        circles(&g),
        vec![vec!["a".to_string(), "b".into(), "c".into()]]
    );
}

fn edge_list(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<(String, String)> {
    g.iter()
        .flat_map(|(f, ts)| ts.iter().map(move |t| (f.clone(), t.clone())))
        .collect()
}

fn e(a: &str, b: &str) -> (String, String) {
    (a.to_string(), b.to_string())
}

#[test]
fn finds_circles_through_use_paths_and_reexports() {
    let krate = Crate::new(&files(&[
        ("lib.rs", "mod m; mod other;"),
        (
            "m/mod.rs",
            "mod a; mod b; mod c; mod d; pub use self::b::Thing; pub(crate) struct Root; \
             fn f() { a::run(); }",
        ),
        // a -> b through the parent's re-export; a -> mod for Root.
        ("m/a.rs", "use super::{Root, Thing}; pub fn run() {}"),
        // b -> c in code; strings and comments do not count.
        (
            "m/b.rs",
            "pub struct Thing; fn g() { let _ = \"crate::m::d::X\"; /* super::d */ \
             let _ = '\"'; crate::m::c::h(); }",
        ),
        // c -> a inside a test module, through `super::super`.
        (
            "m/c.rs",
            "pub fn h<'a>(_: &'a str) {} #[cfg(test)] mod tests { use super::super::a::run; }",
        ),
        // d only uses other crates and the root.
        (
            "m/d.rs",
            "use std::io; use crate::other::Y; pub(in crate::m) struct X;",
        ),
        ("other.rs", "pub struct Y;"),
    ]));
    let g = krate.edges(&under(&["m"]));
    assert_eq!(
        edge_list(&g.edges),
        vec![e("a", "b"), e("a", "mod"), e("b", "c"), e("c", "a")]
    );
    // The parent's re-export and call are edges into its own parts.
    assert_eq!(edge_list(&g.down), vec![e("mod", "a"), e("mod", "b")]);
    assert_eq!(
        circles(&g.edges),
        vec![vec!["a".to_string(), "b".into(), "c".into()]]
    );
}

/// The shape codec and print had: codec re-exported print's functions,
/// print used codec's float text.
#[test]
fn finds_the_old_codec_print_circle() {
    let krate = Crate::new(&files(&[
        ("lib.rs", "pub mod codec; pub mod print;"),
        (
            "codec/mod.rs",
            "pub mod float; pub use crate::print::{print_full, Printed};",
        ),
        ("codec/float.rs", "pub fn format_f() {}"),
        (
            "print.rs",
            "use crate::codec::float::format_f; pub fn print_full() {} pub struct Printed;",
        ),
    ]));
    let codec_print = |m: &[String]| m.first().cloned();
    let g = krate.edges(&codec_print);
    assert_eq!(
        circles(&g.edges),
        vec![vec!["codec".to_string(), "print".into()]]
    );
}

#[test]
fn a_clean_graph_has_no_circle() {
    let krate = Crate::new(&files(&[
        ("lib.rs", "pub mod codec; pub mod print; pub use print::*;"),
        ("codec/mod.rs", "pub mod float; use crate::Printed;"),
        ("codec/float.rs", "pub fn format_f() {}"),
        (
            "print.rs",
            "use crate::codec::float::format_f; pub struct Printed;",
        ),
    ]));
    let g = krate.edges(&under(&[]));
    // `crate::Printed` is found through the root's glob re-export.
    assert_eq!(
        edge_list(&g.edges),
        vec![e("codec", "print"), e("print", "codec::float")]
    );
    assert!(circles(&g.edges).is_empty());
}

#[test]
fn finds_a_parent_and_child_using_each_other() {
    let krate = Crate::new(&files(&[
        ("lib.rs", "mod m;"),
        (
            "m/mod.rs",
            "mod a; mod b; mod c; pub use self::a::Thing; pub struct Root; \
             pub use self::c::Other; fn f() { b::g(); }",
        ),
        // a uses its parent's own item: with the parent's re-export of a,
        // a circle.
        ("m/a.rs", "use super::Root; pub struct Thing;"),
        // b is called by its parent and uses nothing of it.
        ("m/b.rs", "pub fn g() {}"),
        // c uses its parent's re-export of a: that leads to a, not up.
        ("m/c.rs", "use super::Thing; pub struct Other;"),
    ]));
    let g = krate.edges(&under(&[]));
    assert_eq!(edge_list(&g.up), vec![e("m::a", "m")]);
    assert_eq!(g.back_up(), vec!["m <-> m::a".to_string()]);
    assert!(circles(&g.edges).is_empty());
}
