//! The architecture, drawn from the imports (issue 29): in every crate of the workspace
//! no files import each other in a loop, the top-level modules only look down, and
//! discovery's stages stand on at most six floors.
//!
//! A file imports another when its code names an item written there (`use` or a path in
//! code or in a macro call, re-exports followed to where the item is written). A file
//! naming its own ancestor or descendant module does not count: that is containment.
//! Test-only code is left out: a test may reach any layer of what it tests.

mod graph;
mod modules;
mod references;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use graph::{Import, floors, loops};
use modules::Crate;

/// Every crate root of the workspace: libraries, binaries and their `src/bin/` tools.
fn crate_roots() -> Vec<PathBuf> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut packages = vec![workspace.join("tests")];
    for group in ["libs", "services"] {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(workspace.join(group))
            .expect("the workspace's package folders are readable")
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|dir| dir.join("Cargo.toml").exists())
            .collect();
        dirs.sort();
        packages.extend(dirs);
    }
    let mut roots = Vec::new();
    for package in packages {
        let src = package.join("src");
        for root in ["lib.rs", "main.rs"] {
            if src.join(root).exists() {
                roots.push(src.join(root));
            }
        }
        if let Ok(bins) = std::fs::read_dir(src.join("bin")) {
            for bin in bins.filter_map(|e| e.ok().map(|e| e.path())) {
                let root = if bin.is_dir() {
                    bin.join("main.rs")
                } else {
                    bin
                };
                // A folder without `main.rs` holds a binary's `#[path]` modules.
                if root.exists() {
                    roots.push(root);
                }
            }
        }
    }
    roots
}

fn read(root: &Path) -> Crate {
    Crate::read(root).unwrap_or_else(|e| panic!("cannot read the crate at {}: {e}", root.display()))
}

fn file_graph(imports: &BTreeSet<Import>) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for import in imports {
        edges
            .entry(import.from.clone())
            .or_default()
            .insert(import.to.clone());
    }
    edges
}

/// The imports between top-level modules (the crate root's own items are left out:
/// every module is contained in it).
fn module_graph(krate: &Crate, imports: &BTreeSet<Import>) -> BTreeMap<String, BTreeSet<String>> {
    let top: BTreeMap<&PathBuf, Option<&String>> = krate
        .modules
        .iter()
        .rev()
        .map(|m| (&m.file, m.path.first()))
        .collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for m in krate.modules.iter().filter_map(|m| m.path.first()) {
        edges.entry(m.clone()).or_default();
    }
    for import in imports {
        if let (Some(Some(from)), Some(Some(to))) = (top.get(&import.from), top.get(&import.to))
            && from != to
        {
            edges
                .entry((*from).clone())
                .or_default()
                .insert((*to).clone());
        }
    }
    edges
}

fn describe(part: &[PathBuf], imports: &BTreeSet<Import>) -> String {
    let inside: BTreeSet<&PathBuf> = part.iter().collect();
    imports
        .iter()
        .filter(|i| inside.contains(&i.from) && inside.contains(&i.to))
        .map(|i| format!("    {} -> {} ({})\n", short(&i.from), short(&i.to), i.named))
        .collect()
}

fn short(path: &Path) -> String {
    let text = path.display().to_string();
    text.split_once("/../")
        .map_or(text.clone(), |(_, rest)| rest.to_owned())
}

#[test]
fn no_files_import_each_other_in_a_loop() {
    let mut report = String::new();
    for root in crate_roots() {
        let krate = read(&root);
        let imports = krate.imports();
        for part in loops(&file_graph(&imports)) {
            report += &format!("{}: a loop of {} files\n", short(&root), part.len());
            report += &describe(&part, &imports);
        }
    }
    assert!(
        report.is_empty(),
        "files importing each other in a loop:\n{report}"
    );
}

#[test]
fn top_level_modules_only_look_down() {
    let mut report = String::new();
    for root in crate_roots() {
        let krate = read(&root);
        for part in loops(&module_graph(&krate, &krate.imports())) {
            report += &format!("{}: modules {part:?} import each other\n", short(&root));
        }
    }
    assert!(report.is_empty(), "top-level modules in a loop:\n{report}");
}

#[test]
fn discovery_stands_on_at_most_six_floors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../services/discovery/src/lib.rs");
    let krate = read(&root);
    let modules = module_graph(&krate, &krate.imports());
    assert!(
        loops(&modules).is_empty(),
        "discovery's modules form a loop: {modules:#?}"
    );
    let floors = floors(&modules);
    let highest = floors.values().copied().max().unwrap_or(0);
    assert!(
        highest <= 6,
        "discovery stands on {highest} floors: {floors:#?}"
    );
}

mod drawing {
    //! The drawing itself, on crates written for it: a drawing that cannot see a loop
    //! would pass every check above.
    use super::*;

    fn crate_of(files: &[(&str, &str)]) -> (tempfile::TempDir, Crate) {
        let dir = tempfile::tempdir().expect("a temporary folder");
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
            std::fs::write(&path, text).expect("a file");
        }
        let krate = read(&dir.path().join("lib.rs"));
        (dir, krate)
    }

    #[test]
    fn a_loop_through_a_re_export_and_a_macro_call_is_seen() {
        let (_dir, krate) = crate_of(&[
            ("lib.rs", "mod a; mod b; pub use b::Thing;"),
            (
                "a.rs",
                "pub struct A; fn f() { let _ = format!(\"{:?}\", crate::Thing); }",
            ),
            ("b.rs", "pub struct Thing; fn g(_: super::a::A) {}"),
        ]);
        let found = loops(&file_graph(&krate.imports()));
        assert_eq!(found.len(), 1, "a.rs and b.rs import each other: {found:?}");
    }

    #[test]
    fn containment_and_test_code_are_not_layering() {
        let (_dir, krate) = crate_of(&[
            ("lib.rs", "mod a; mod b;"),
            ("a.rs", "mod inner; pub struct A; fn f(_: inner::I) {}"),
            ("a/inner.rs", "pub struct I; fn g(_: super::A) {}"),
            (
                "b.rs",
                "pub struct B; fn h(_: crate::a::A) {}\n#[cfg(test)] mod tests { use crate::b::B; }",
            ),
        ]);
        assert!(loops(&file_graph(&krate.imports())).is_empty());
        let modules = module_graph(&krate, &krate.imports());
        assert_eq!(
            floors(&modules).get("b"),
            Some(&2),
            "b stands on a: {modules:?}"
        );
    }

    #[test]
    fn a_use_through_an_alias_names_the_file_that_writes_the_item() {
        let (_dir, krate) = crate_of(&[
            ("lib.rs", "mod a; mod b; mod c;"),
            (
                "a.rs",
                "pub struct Z; use crate::b as other; fn f(_: other::B) {}",
            ),
            ("b.rs", "pub struct B; use crate::c::*; fn g(_: C) {}"),
            ("c.rs", "pub struct C; fn h() -> crate::a::Z { todo!() }"),
        ]);
        let found = loops(&file_graph(&krate.imports()));
        assert_eq!(found.len(), 1, "a -> b -> c -> a: {found:?}");
        assert_eq!(found[0].len(), 3);
    }
}
