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
    let mut out = String::from(OPEN);
    for package in packages {
        let listed: Vec<&FileView> = package.files.iter().filter(|f| is_listed(f)).collect();
        if listed.is_empty() {
            continue;
        }
        out.push_str(&package_open(package));
        for file in listed {
            out.push_str(&line(file, Detail::Full));
            out.push('\n');
        }
        out.push_str(PACKAGE_CLOSE);
    }
    out.push_str(CLOSE);
    out
}

/// How much of an entry the overview shows: everything, or (to fit a budget) a short
/// description and the bundle's size instead of its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Detail {
    Full,
    Short,
}

/// Descriptions of a shortened entry keep at most this many characters.
pub(crate) const SHORT_DESCRIPTION_CHARS: usize = 80;

pub(crate) const OPEN: &str = "<packages>\n";
pub(crate) const CLOSE: &str = "</packages>\n";
pub(crate) const PACKAGE_CLOSE: &str = "</package>\n";

/// The opening tag of one package's block, with its line end.
pub(crate) fn package_open(package: &PackageView) -> String {
    format!(
        "<package name=\"{}\" {}>\n",
        attr(&package.name),
        origin_attr(&package.origin)
    )
}

pub(crate) fn is_listed(file: &FileView) -> bool {
    matches!(file.state, FileState::Active | FileState::Manual)
}

fn origin_attr(origin: &Origin) -> String {
    match origin {
        Origin::Installed { package_id } => format!("id=\"{}\"", attr(package_id)),
        Origin::Source { slug } => format!("source=\"{}\"", attr(slug)),
    }
}

/// One entry's line, without its line end.
pub(crate) fn line(file: &FileView, detail: Detail) -> String {
    let id = match file.category {
        Category::Skill => &file.activation_id,
        _ => &file.id,
    };
    let mut line = format!("- {} {}", file.category, escape_text(&one_line(id)));
    if file.title != *id {
        let _ = write!(line, " \"{}\"", escape_text(&one_line(&file.title)));
    }
    if let Some(description) = file.description.as_deref().filter(|d| !d.trim().is_empty()) {
        let description = match detail {
            Detail::Full => one_line(description),
            Detail::Short => shortened(&one_line(description)),
        };
        let _ = write!(line, ": {}", escape_text(&description));
    }
    if file.state == FileState::Manual {
        line.push_str(" (read on demand)");
    }
    if file.category == Category::Skill && detail == Detail::Short && file.bundle.len() > 1 {
        let _ = write!(line, " [files: {}]", file.bundle.len());
    } else if file.category == Category::Skill && !file.bundle.is_empty() {
        let entries: Vec<String> = file
            .bundle
            .iter()
            .map(|entry| escape_text(&one_line(entry)))
            .collect();
        let _ = write!(line, " [files: {}]", entries.join(", "));
    }
    line
}

/// A description cut at a word boundary to [`SHORT_DESCRIPTION_CHARS`], marked `…`.
fn shortened(description: &str) -> String {
    if description.chars().count() <= SHORT_DESCRIPTION_CHARS {
        return description.to_string();
    }
    let mut kept = String::new();
    for word in description.split(' ') {
        let needed = kept.chars().count() + usize::from(!kept.is_empty()) + word.chars().count();
        if needed > SHORT_DESCRIPTION_CHARS - 1 {
            break;
        }
        if !kept.is_empty() {
            kept.push(' ');
        }
        kept.push_str(word);
    }
    if kept.is_empty() {
        // One word longer than the limit: cut it.
        kept = description
            .chars()
            .take(SHORT_DESCRIPTION_CHARS - 1)
            .collect();
    }
    kept.push('…');
    kept
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_description_is_cut_after_the_last_whole_word_within_80_characters() {
        let words = |n: usize| vec!["abcd"; n].join(" ");
        let a = |n: usize| "a".repeat(n);
        let cases = [
            // (description, shortened)
            (words(16), words(16)), // 79 characters: kept whole
            (a(80), a(80)),         // exactly the limit: kept whole
            (words(20), format!("{}…", words(16))),
            // The next word and its space would make 80 before the `…`: cut before it.
            (format!("{} bbbb cc", a(75)), format!("{}…", a(75))),
            // The next word and its space make exactly 79: kept.
            (format!("{} bbbb cc", a(74)), format!("{} bbbb…", a(74))),
            // One word longer than the limit is cut inside it.
            (a(85), format!("{}…", a(79))),
        ];
        for (description, expected) in cases {
            let got = shortened(&description);
            assert_eq!(got, expected, "{description:?}");
            assert!(got.chars().count() <= SHORT_DESCRIPTION_CHARS, "{got:?}");
        }
    }

    #[test]
    fn a_short_skill_line_counts_its_bundle_only_when_it_has_more_than_one_entry() {
        let skill = |bundle: &[&str]| FileView {
            path: "skills/review/SKILL.md".into(),
            category: Category::Skill,
            id: "review".into(),
            title: "review".into(),
            description: None,
            identity: false,
            default_enabled: true,
            state: FileState::Active,
            bundle: bundle.iter().map(|e| (*e).to_owned()).collect(),
            activation_id: "review".into(),
            size: 10,
            allowed_tools: Vec::new(),
        };
        let cases: [(&[&str], &str); 3] = [
            (&[], "- skill review"),
            (&["SKILL.md"], "- skill review [files: SKILL.md]"),
            (&["SKILL.md", "run.sh"], "- skill review [files: 2]"),
        ];
        for (bundle, expected) in cases {
            assert_eq!(line(&skill(bundle), Detail::Short), expected, "{bundle:?}");
        }
    }
}
