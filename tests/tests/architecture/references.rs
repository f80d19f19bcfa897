//! Every path a module's code names, in types, expressions, patterns, bounds, attributes
//! and the tokens of macro calls (`format!("{}", crate::x::Y)` names `crate::x::Y` too).

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// Collects the multi-segment paths (and every `use` path) written in `items`, leaving
/// out nested modules (they are modules of their own) and test-only items.
pub fn collect(items: &[syn::Item], found: &mut Vec<Vec<String>>) {
    let mut visitor = Paths { found };
    for item in items {
        if matches!(item, syn::Item::Mod(_)) {
            continue;
        }
        visitor.visit_item(item);
    }
}

struct Paths<'a> {
    found: &'a mut Vec<Vec<String>>,
}

impl<'ast> Visit<'ast> for Paths<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if item_is_test_only(item) {
            return;
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_impl_item_fn(&mut self, function: &'ast syn::ImplItemFn) {
        if super::modules::is_test_only(&function.attrs) {
            return;
        }
        syn::visit::visit_impl_item_fn(self, function);
    }

    fn visit_item_use(&mut self, use_item: &'ast syn::ItemUse) {
        use_paths(&use_item.tree, Vec::new(), self.found);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.segments.len() > 1 || is_keyword(path.segments.first()) {
            self.found
                .push(path.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        macro_paths(mac.tokens.clone(), self.found);
        syn::visit::visit_macro(self, mac);
    }
}

fn item_is_test_only(item: &syn::Item) -> bool {
    let attrs = match item {
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        _ => return false,
    };
    super::modules::is_test_only(attrs)
}

fn is_keyword(segment: Option<&syn::PathSegment>) -> bool {
    segment.is_some_and(|s| s.ident == "crate" || s.ident == "super" || s.ident == "self")
}

fn use_paths(tree: &syn::UseTree, prefix: Vec<String>, found: &mut Vec<Vec<String>>) {
    let with = |last: String| {
        let mut path = prefix.clone();
        path.push(last);
        path
    };
    match tree {
        syn::UseTree::Path(p) => use_paths(&p.tree, with(p.ident.to_string()), found),
        syn::UseTree::Name(n) if n.ident == "self" => found.push(prefix),
        syn::UseTree::Name(n) => found.push(with(n.ident.to_string())),
        syn::UseTree::Rename(r) if r.ident == "self" => found.push(prefix),
        syn::UseTree::Rename(r) => found.push(with(r.ident.to_string())),
        syn::UseTree::Glob(_) => found.push(prefix),
        syn::UseTree::Group(g) => {
            for tree in &g.items {
                use_paths(tree, prefix.clone(), found);
            }
        }
    }
}

/// `a::b::c` sequences of identifiers in a macro's tokens, whatever the macro's grammar.
fn macro_paths(tokens: TokenStream, found: &mut Vec<Vec<String>>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        if let TokenTree::Group(group) = &tokens[i] {
            macro_paths(group.stream(), found);
            i += 1;
            continue;
        }
        let mut path = Vec::new();
        while let Some(TokenTree::Ident(ident)) = tokens.get(i) {
            path.push(ident.to_string());
            if is_path_separator(&tokens, i + 1) {
                i += 3;
            } else {
                i += 1;
                break;
            }
        }
        if path.len() > 1 {
            found.push(path);
        } else if path.is_empty() {
            i += 1;
        }
    }
}

fn is_path_separator(tokens: &[TokenTree], at: usize) -> bool {
    matches!(
        (tokens.get(at), tokens.get(at + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && b.as_char() == ':'
    )
}
