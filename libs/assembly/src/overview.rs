//! The agent's `<packages>` overview block.
//!
//! One block per package that has something for the agent, installed packages first
//! (the caller orders them with [`crate::order_packages`]). A file is listed when it
//! is active, or when it is docs (listed for manual reading); opt-in and disabled
//! files are not the agent's to see. Skills carry the `[files: …]` suffix of their
//! bundle.
//!
//! Everything in the block but its own tags comes from synced files (names, ids,
//! titles, descriptions, bundle entries), so it is escaped (`&`, `<`, `>`; quotes too
//! inside attributes): no file can open or close a tag of the block.

use std::fmt::Write as _;

use neuralis_layout::Category;

use crate::view::{FileState, FileView, Origin, PackageView};

/// Renders the `<packages>` block.
pub fn render_overview(packages: &[PackageView]) -> String {
    let mut out = String::from("<packages>\n");
    for package in packages {
        let listed: Vec<&FileView> = package.files.iter().filter(|f| is_listed(f)).collect();
        if listed.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "<package name=\"{}\" {}>",
            attr(&package.name),
            origin_attr(&package.origin)
        );
        for file in listed {
            out.push_str(&line(file));
            out.push('\n');
        }
        out.push_str("</package>\n");
    }
    out.push_str("</packages>\n");
    out
}

fn is_listed(file: &FileView) -> bool {
    matches!(file.state, FileState::Active | FileState::Manual)
}

fn origin_attr(origin: &Origin) -> String {
    match origin {
        Origin::Installed { package_id } => format!("id=\"{}\"", attr(package_id)),
        Origin::Source { slug } => format!("source=\"{}\"", attr(slug)),
    }
}

fn line(file: &FileView) -> String {
    let id = match file.category {
        Category::Skill => &file.activation_id,
        _ => &file.id,
    };
    let mut line = format!("- {} {}", file.category, escape_text(&one_line(id)));
    if file.title != *id {
        let _ = write!(line, " \"{}\"", escape_text(&one_line(&file.title)));
    }
    if let Some(description) = file.description.as_deref().filter(|d| !d.trim().is_empty()) {
        let _ = write!(line, ": {}", escape_text(&one_line(description)));
    }
    if file.state == FileState::Manual {
        line.push_str(" (read on demand)");
    }
    if file.category == Category::Skill && !file.bundle.is_empty() {
        let entries: Vec<String> = file
            .bundle
            .iter()
            .map(|entry| escape_text(&one_line(entry)))
            .collect();
        let _ = write!(line, " [files: {}]", entries.join(", "));
    }
    line
}

/// Descriptions come from files: keep each entry on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text from a file, made inert inside the block: `&`, `<` and `>` as entities.
pub fn escape_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn attr(text: &str) -> String {
    escape_text(text).replace('"', "&quot;")
}
