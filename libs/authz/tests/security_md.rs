//! SECURITY.md shows the authorization tables as the code holds them: the text between
//! its markers is exactly `tables::markdown()`, so a changed rule changes the document
//! in the same commit.

#![allow(clippy::unwrap_used)]

const BEGIN: &str = "<!-- authorization tables: generated from libs/authz/src/tables.rs -->\n";
const END: &str = "<!-- end of the authorization tables -->";

#[test]
fn security_md_shows_every_table_as_the_code_holds_it() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../SECURITY.md");
    let text = std::fs::read_to_string(path).unwrap();
    let start = text
        .find(BEGIN)
        .expect("SECURITY.md has the tables' opening marker")
        + BEGIN.len();
    let end = text[start..]
        .find(END)
        .expect("SECURITY.md has the closing marker")
        + start;
    let expected = neuralis_authz::tables::markdown();
    assert!(
        text[start..end] == expected,
        "SECURITY.md's tables differ from the code; put this between the markers:\n{expected}"
    );
}
