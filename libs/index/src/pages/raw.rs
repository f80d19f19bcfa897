//! A page as the embedded store's listing thread fills it: each row's numbers, and the
//! bytes of its text columns appended to one buffer. The rows become [`ListedRow`]s (a
//! string per column, each checked as UTF-8) where the page is taken, on the reader's
//! side.
//!
//! Why: a cold fill waits on the listing thread, which stepped SQLite and made every
//! column an owned string on one core while the reader used about a quarter of the
//! other (BENCHMARKS.md, issue 31 round 21). Copying the bytes is a third cheaper for
//! that thread than a string per column (an allocation and a UTF-8 check each); the
//! strings are then made on the reader's side, which had the time.

use super::ListedRow;
use crate::IndexError;
use crate::error::corrupt;
use crate::stored_flags::decode_flags;

/// The text columns a listed row carries, in the order [`RawPage::push`] takes them.
pub(crate) const TEXT_FIELDS: [&str; 8] = [
    "source",
    "path",
    "content_hash",
    "classification",
    "payload",
    "privacy_owner",
    "real_path",
    "content_flags",
];

/// A row's columns that are not text, already checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Numbers {
    pub(crate) size: u64,
    pub(crate) modified: i64,
    pub(crate) usable_manifest: bool,
    pub(crate) payload_version: u32,
}

/// One row: its numbers, and where each text column ends in the page's text (`None`
/// for a NULL, which only the optional columns may be).
#[derive(Debug)]
struct RawRow {
    numbers: Numbers,
    ends: [Option<usize>; TEXT_FIELDS.len()],
}

/// Rows whose text is still bytes.
#[derive(Debug, Default)]
pub(crate) struct RawPage {
    text: Vec<u8>,
    rows: Vec<RawRow>,
}

impl RawPage {
    pub(crate) fn with_capacity(rows: usize, bytes: usize) -> Self {
        Self {
            text: Vec::with_capacity(bytes),
            rows: Vec::with_capacity(rows),
        }
    }

    /// Appends a row: its numbers and its text columns in [`TEXT_FIELDS`] order.
    pub(crate) fn push(&mut self, numbers: Numbers, texts: [Option<&[u8]>; TEXT_FIELDS.len()]) {
        let ends = texts.map(|text| {
            text.map(|bytes| {
                self.text.extend_from_slice(bytes);
                self.text.len()
            })
        });
        self.rows.push(RawRow { numbers, ends });
    }

    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Text bytes held, as [`ListedRow::text_bytes`] counts them.
    pub(crate) fn text_bytes(&self) -> usize {
        self.text.len()
    }

    /// The rows as [`ListedRow`]s; a column that is not UTF-8, or a NULL where text is
    /// required, is an error naming the column.
    pub(crate) fn into_rows(self) -> Result<Vec<ListedRow>, IndexError> {
        let mut start = 0;
        let mut rows = Vec::with_capacity(self.rows.len());
        for raw in &self.rows {
            let mut texts: [Option<&str>; TEXT_FIELDS.len()] = [None; TEXT_FIELDS.len()];
            for ((text, end), field) in texts.iter_mut().zip(raw.ends).zip(TEXT_FIELDS) {
                if let Some(end) = end {
                    let bytes = self.text.get(start..end).unwrap_or_default();
                    *text =
                        Some(std::str::from_utf8(bytes).map_err(|error| {
                            corrupt(field, format!("not UTF-8 text ({error})"))
                        })?);
                    start = end;
                }
            }
            rows.push(listed(raw.numbers, texts)?);
        }
        Ok(rows)
    }
}

fn listed(
    numbers: Numbers,
    texts: [Option<&str>; TEXT_FIELDS.len()],
) -> Result<ListedRow, IndexError> {
    let [
        source,
        path,
        hash,
        classification,
        payload,
        owner,
        real_path,
        flags,
    ] = texts;
    let required = |text: Option<&str>, field: &'static str| {
        text.map(str::to_owned)
            .ok_or_else(|| corrupt(field, "NULL where text is required"))
    };
    Ok(ListedRow {
        source: required(source, "source")?,
        path: required(path, "path")?,
        content_hash: required(hash, "content_hash")?,
        size: numbers.size,
        modified: numbers.modified,
        classification: required(classification, "classification")?,
        payload_json: required(payload, "payload")?,
        usable_manifest: numbers.usable_manifest,
        privacy_owner: owner.map(str::to_owned),
        payload_version: numbers.payload_version,
        real_path: real_path.map(str::to_owned),
        content_flags: decode_flags(required(flags, "content_flags")?.as_str()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn numbers(n: u64) -> Numbers {
        Numbers {
            size: n,
            modified: -(n as i64),
            usable_manifest: n.is_multiple_of(2),
            payload_version: n as u32,
        }
    }

    /// The row a listing made before raw pages: every text column its own string.
    fn direct(numbers: Numbers, texts: &[Option<String>; 8]) -> ListedRow {
        let text = |at: usize| texts[at].clone().unwrap_or_default();
        ListedRow {
            source: text(0),
            path: text(1),
            content_hash: text(2),
            size: numbers.size,
            modified: numbers.modified,
            classification: text(3),
            payload_json: text(4),
            usable_manifest: numbers.usable_manifest,
            privacy_owner: texts[5].clone(),
            payload_version: numbers.payload_version,
            real_path: texts[6].clone(),
            content_flags: decode_flags(&text(7)),
        }
    }

    fn texts_of(texts: &[Option<String>; 8]) -> [Option<&[u8]>; 8] {
        std::array::from_fn(|at| texts[at].as_deref().map(str::as_bytes))
    }

    proptest! {
        /// A page's rows are exactly the rows whose columns went in, whatever the texts
        /// (empty ones and multi-byte characters included) and the NULLs of the
        /// optional columns.
        #[test]
        fn a_raw_page_gives_back_the_rows_its_columns_made(
            rows in proptest::collection::vec(
                (
                    0u64..1000,
                    proptest::array::uniform5("[a-zé/,.\u{1F600}-]{0,12}"),
                    proptest::option::of("[a-zé/]{0,8}"),
                    proptest::option::of("[a-zé/]{0,8}"),
                    "[a-z,-]{0,20}",
                ),
                0..40,
            )
        ) {
            let mut page = RawPage::default();
            let mut expected = Vec::new();
            for (n, required, owner, real_path, flags) in rows {
                let [a, b, c, d, e] = required.map(Some);
                let texts = [a, b, c, d, e, owner, real_path, Some(flags)];
                page.push(numbers(n), texts_of(&texts));
                expected.push(direct(numbers(n), &texts));
            }
            prop_assert_eq!(page.into_rows().unwrap(), expected);
        }
    }

    #[test]
    fn a_column_that_is_not_utf8_is_named_in_the_error() {
        let mut page = RawPage::default();
        let mut texts: [Option<&[u8]>; 8] = [Some(b"s"); 8];
        texts[1] = Some(b"bad \xff path");
        page.push(numbers(1), texts);
        match page.into_rows() {
            Err(IndexError::Corrupt { field, message }) => {
                assert_eq!(field, "path");
                assert!(message.contains("UTF-8"), "{message}");
            }
            other => panic!("expected a corrupt path, got {other:?}"),
        }
    }

    #[test]
    fn a_null_where_text_is_required_is_named_in_the_error() {
        for (at, field) in TEXT_FIELDS.iter().enumerate() {
            let mut page = RawPage::default();
            let mut texts: [Option<&[u8]>; 8] = [Some(b"x"); 8];
            texts[at] = None;
            page.push(numbers(1), texts);
            let optional = matches!(*field, "privacy_owner" | "real_path");
            match page.into_rows() {
                Ok(_) => assert!(optional, "{field}: a NULL was taken for text"),
                Err(IndexError::Corrupt { field: named, .. }) => {
                    assert!(!optional, "{field}: a NULL was refused");
                    assert_eq!(named, *field);
                }
                Err(other) => panic!("{field}: {other:?}"),
            }
        }
    }
}
