use super::*;
use crate::base::fixtures::row;
use proptest::prelude::*;

fn paged(pages: &[Vec<IndexRow>]) -> RowPages {
    let mut rows = RowPages::default();
    for page in pages {
        rows.push_page(page.clone());
    }
    rows
}

fn pages() -> impl Strategy<Value = Vec<Vec<IndexRow>>> {
    let page = prop::collection::vec("[a-c]{1,3}".prop_map(|path| row(&path)), 0..5);
    prop::collection::vec(page, 0..6)
}

proptest! {
    /// Rows in pages answer as the rows of every page one after another: by reference,
    /// by value, in number, and after some are dropped and others changed.
    #[test]
    fn rows_in_pages_answer_as_one_vector(pages in pages(), dropped in "[a-c]") {
        let whole: Vec<IndexRow> = pages.concat();
        let rows = paged(&pages);
        prop_assert_eq!(rows.len(), whole.len());
        prop_assert_eq!(rows.is_empty(), whole.is_empty());
        prop_assert!(rows.iter().eq(whole.iter()));
        prop_assert!(rows.clone().into_iter().eq(whole.iter().cloned()));

        let keep = |row: &mut IndexRow| {
            row.size += 1;
            !row.path.starts_with(dropped.as_str())
        };
        let (mut kept, mut expected) = (rows, whole);
        kept.retain_mut(keep);
        expected.retain_mut(keep);
        prop_assert_eq!(kept.len(), expected.len());
        prop_assert!(kept.into_iter().eq(expected));
    }
}

#[test]
fn an_empty_page_is_not_kept() {
    let mut rows = RowPages::from(Vec::new());
    rows.push_page(Vec::new());
    assert_eq!(rows, RowPages::default());
    rows.push_page(vec![row("a")]);
    let mut dropped = rows.clone();
    dropped.retain_mut(|_| false);
    assert_eq!(dropped, RowPages::default(), "a page left empty goes");
    assert_eq!(RowPages::from_iter([row("a")]), rows);
}
