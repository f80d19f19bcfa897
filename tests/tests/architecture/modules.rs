//! A crate's module tree as written: which file holds each module, what each module
//! defines and what its `use` declarations bring in. Test-only code (`#[cfg(test)]`
//! modules and items) is left out: tests may reach any layer of what they test.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One module of a crate, inline or in its own file.
#[derive(Debug, Default)]
pub struct Module {
    /// Path from the crate root (`[]` is the root).
    pub path: Vec<String>,
    /// The file its items are written in.
    pub file: PathBuf,
    pub parent: Option<usize>,
    pub children: BTreeMap<String, usize>,
    /// Names of the items written in this module (types, functions, constants, macros).
    pub items: BTreeSet<String>,
    /// Names this module's `use` declarations bind, each to the path it names; `*` for
    /// globs (one entry per glob, keyed `*N`).
    pub uses: BTreeMap<String, Vec<String>>,
    /// Every path reference starting at `crate`, `super` or `self`, or at a name the module
    /// binds, in its code (including inside macro calls).
    pub references: Vec<Vec<String>>,
}

/// The module tree of one crate.
#[derive(Debug, Default)]
pub struct Crate {
    pub modules: Vec<Module>,
}

impl Crate {
    /// Reads the crate rooted at `root` (`src/lib.rs` or `src/main.rs`).
    pub fn read(root: &Path) -> Result<Self, String> {
        let mut krate = Crate::default();
        krate.read_file(root, Vec::new(), None, true)?;
        Ok(krate)
    }

    fn read_file(
        &mut self,
        file: &Path,
        path: Vec<String>,
        parent: Option<usize>,
        owns_dir: bool,
    ) -> Result<usize, String> {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let ast = syn::parse_file(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        // Where this file's own `mod x;` children live.
        let dir = if owns_dir {
            file.parent().map(Path::to_path_buf).unwrap_or_default()
        } else {
            let stem = file
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            file.parent().unwrap_or(Path::new("")).join(stem)
        };
        let id = self.push(path, file, parent);
        self.read_items(id, &ast.items, &dir)?;
        Ok(id)
    }

    fn push(&mut self, path: Vec<String>, file: &Path, parent: Option<usize>) -> usize {
        let id = self.modules.len();
        if let (Some(parent), Some(name)) = (parent, path.last()) {
            self.modules[parent].children.insert(name.clone(), id);
        }
        self.modules.push(Module {
            path,
            file: file.to_path_buf(),
            parent,
            ..Module::default()
        });
        id
    }

    fn read_items(&mut self, id: usize, items: &[syn::Item], dir: &Path) -> Result<(), String> {
        for item in items {
            if is_test_only(item_attrs(item)) {
                continue;
            }
            match item {
                syn::Item::Mod(module) => self.read_module(id, module, dir)?,
                syn::Item::Use(use_item) => {
                    let mut globs = 0;
                    bind_uses(
                        &use_item.tree,
                        Vec::new(),
                        &mut self.modules[id].uses,
                        &mut globs,
                    );
                }
                other => {
                    if let Some(name) = item_name(other) {
                        self.modules[id].items.insert(name);
                    }
                }
            }
        }
        let mut found = Vec::new();
        super::references::collect(items, &mut found);
        self.modules[id].references.extend(found);
        Ok(())
    }

    fn read_module(&mut self, id: usize, module: &syn::ItemMod, dir: &Path) -> Result<(), String> {
        let name = module.ident.to_string();
        let mut path = self.modules[id].path.clone();
        path.push(name.clone());
        if let Some((_, items)) = &module.content {
            let file = self.modules[id].file.clone();
            let child = self.push(path, &file, Some(id));
            return self.read_items(child, items, &dir.join(&name));
        }
        let (file, owns_dir) = match path_attribute(&module.attrs) {
            // Relative to the directory of the file that declares it.
            Some(custom) => (
                self.modules[id]
                    .file
                    .parent()
                    .unwrap_or(Path::new(""))
                    .join(custom),
                false,
            ),
            None if dir.join(format!("{name}.rs")).exists() => {
                (dir.join(format!("{name}.rs")), false)
            }
            None => (dir.join(&name).join("mod.rs"), true),
        };
        self.read_file(&file, path, Some(id), owns_dir).map(|_| ())
    }
}

/// Binds each leaf of a `use` tree to the full path it names.
fn bind_uses(
    tree: &syn::UseTree,
    prefix: Vec<String>,
    uses: &mut BTreeMap<String, Vec<String>>,
    globs: &mut usize,
) {
    let join = |last: &str| {
        let mut path = prefix.clone();
        path.push(last.to_owned());
        path
    };
    match tree {
        syn::UseTree::Path(p) => bind_uses(&p.tree, join(&p.ident.to_string()), uses, globs),
        syn::UseTree::Name(n) if n.ident == "self" => {
            if let Some(last) = prefix.last() {
                uses.insert(last.clone(), prefix.clone());
            }
        }
        syn::UseTree::Name(n) => {
            uses.insert(n.ident.to_string(), join(&n.ident.to_string()));
        }
        syn::UseTree::Rename(r) if r.ident == "self" => {
            uses.insert(r.rename.to_string(), prefix.clone());
        }
        syn::UseTree::Rename(r) => {
            uses.insert(r.rename.to_string(), join(&r.ident.to_string()));
        }
        syn::UseTree::Glob(_) => {
            uses.insert(format!("*{globs}"), prefix.clone());
            *globs += 1;
        }
        syn::UseTree::Group(g) => {
            for tree in &g.items {
                bind_uses(tree, prefix.clone(), uses, globs);
            }
        }
    }
}

fn item_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::TraitAlias(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        syn::Item::Macro(i) => i.ident.as_ref()?,
        _ => return None,
    };
    Some(ident.to_string())
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// `#[cfg(test)]` (or any `cfg` naming `test`, such as `cfg(any(test, fuzzing))`).
pub fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr.meta.require_list().is_ok_and(|list| {
                list.tokens
                    .to_string()
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .any(|word| word == "test")
            })
    })
}

fn path_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| {
        let syn::Meta::NameValue(nv) = &attr.meta else {
            return None;
        };
        if !nv.path.is_ident("path") {
            return None;
        }
        match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        }
    })
}
