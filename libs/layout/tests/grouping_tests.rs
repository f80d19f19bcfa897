//! Repeated rows (a sync that lists a path twice): one row per path, whatever else the
//! input holds (seed 000, "How files group into packages"; `grouping.rs` is full).

mod support;

use support::*;

#[test]
fn a_path_listed_more_than_once_is_one_file_even_when_nothing_else_is_listed() {
    let style = ".claude/rules/style.md";
    let cases: [&[(&str, &str)]; 3] = [
        // Only the one path, twice: the rows look sorted to a check that allows ties.
        &[(style, NAMED), (style, NAMED)],
        &[(style, NAMED), (style, NAMED), (style, NAMED)],
        // Twice, with another file between.
        &[
            (style, NAMED),
            (".claude/rules/other.md", NAMED),
            (style, NAMED),
        ],
    ];
    for files in cases {
        let layout = group_synced(files);
        let listed = layout
            .packages
            .iter()
            .flat_map(|p| &p.files)
            .filter(|f| f.path == style)
            .count();
        assert_eq!(listed, 1, "{files:?}: {:#?}", summary(&layout));
    }
}
