//! A project's rows read in pages, for a cold fill: the reader starts grouping the
//! first page while the store reads the next, and no side holds the project twice.
//!
//! A page is bounded both in rows and in bytes ([`PageBounds`]): the feed sends one page
//! per gRPC message in split mode, so its size is a frame's, and a page of manifests
//! with long descriptions stays as small as a page of plain files.

mod raw;

use crate::{FileRow, IndexError, ProjectSnapshot};
use tokio::sync::mpsc;

pub(crate) use raw::{Numbers, RawPage, TEXT_FIELDS};

/// A file row as a listing reads it: every column, the payload still the JSON text the
/// store holds (a reader decodes it straight into its own type, never through a
/// generic JSON value).
#[derive(Debug, Clone, PartialEq)]
pub struct ListedRow {
    /// The source slug.
    pub source: String,
    /// The path relative to the source root, `/`-separated.
    pub path: String,
    /// The SHA-256 of the content, lowercase hex.
    pub content_hash: String,
    /// The size in bytes.
    pub size: u64,
    /// The modification time, in milliseconds since the Unix epoch.
    pub modified: i64,
    /// The layout core's classification of the path.
    pub classification: String,
    /// The payload as stored (JSON).
    pub payload_json: String,
    /// For a manifest: whether it can anchor a package.
    pub usable_manifest: bool,
    /// The agent this file is private to.
    pub privacy_owner: Option<String>,
    /// The payload schema version the payload was captured with.
    pub payload_version: u32,
    /// The real path when the file was reached through an in-root symlink.
    pub real_path: Option<String>,
    /// The content flags of its last read, sorted.
    pub content_flags: Vec<String>,
}

impl ListedRow {
    /// The listing form of a typed row (the payload encoded again).
    pub fn of(row: FileRow) -> Self {
        Self {
            payload_json: row.payload.to_string(),
            source: row.source,
            path: row.path,
            content_hash: row.content_hash,
            size: row.size,
            modified: row.modified,
            classification: row.classification,
            usable_manifest: row.usable_manifest,
            privacy_owner: row.privacy_owner,
            payload_version: row.payload_version,
            real_path: row.real_path,
            content_flags: row.content_flags,
        }
    }

    /// What the row weighs in a page: its text (the fixed part is bounded by rows).
    pub fn text_bytes(&self) -> usize {
        self.source.len()
            + self.path.len()
            + self.content_hash.len()
            + self.classification.len()
            + self.payload_json.len()
            + self.privacy_owner.as_ref().map_or(0, String::len)
            + self.real_path.as_ref().map_or(0, String::len)
            + self.content_flags.iter().map(String::len).sum::<usize>()
    }
}

/// How large one page may grow: a page ends at whichever bound it reaches first (a
/// single row larger than `bytes` is a page of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageBounds {
    /// Rows per page.
    pub rows: usize,
    /// Text bytes per page (see [`ListedRow::text_bytes`]).
    pub bytes: usize,
}

impl PageBounds {
    /// Whether a page of `rows` rows and `bytes` text bytes is full: either bound
    /// reached ends it.
    pub(crate) fn reached(&self, rows: usize, bytes: usize) -> bool {
        rows >= self.rows || bytes >= self.bytes
    }
}

impl Default for PageBounds {
    /// 4,096 rows or 1 MiB of text: a quarter of tonic's default 4 MiB message limit,
    /// and few enough pages for the 100,000-file project (25) that their hand-offs cost
    /// nothing beside the rows.
    fn default() -> Self {
        Self {
            rows: 4096,
            bytes: 1 << 20,
        }
    }
}

/// Fills pages under [`PageBounds`].
#[derive(Debug)]
pub(crate) struct PageFill {
    bounds: PageBounds,
    rows: Vec<ListedRow>,
    bytes: usize,
}

impl PageFill {
    pub(crate) fn new(bounds: PageBounds) -> Self {
        let bounds = PageBounds {
            rows: bounds.rows.max(1),
            bytes: bounds.bytes.max(1),
        };
        Self {
            rows: Vec::with_capacity(bounds.rows.min(4096)),
            bounds,
            bytes: 0,
        }
    }

    /// Adds `row`; a page that is full is returned.
    pub(crate) fn push(&mut self, row: ListedRow) -> Option<Vec<ListedRow>> {
        self.bytes += row.text_bytes();
        self.rows.push(row);
        self.bounds
            .reached(self.rows.len(), self.bytes)
            .then(|| self.take())
    }

    /// The rows not yet returned (possibly none).
    pub(crate) fn take(&mut self) -> Vec<ListedRow> {
        self.bytes = 0;
        let capacity = self.bounds.rows.min(4096);
        std::mem::replace(&mut self.rows, Vec::with_capacity(capacity))
    }
}

/// Pages in flight between the store's reader and the caller: the reader runs at most
/// this far ahead, so a slow caller holds the reader, not the memory.
pub(crate) const PAGES_AHEAD: usize = 2;

/// A page as a store's reader sends it: rows, or (the embedded store) rows whose text
/// is still bytes, made rows where the page is taken ([`raw`]).
#[derive(Debug)]
pub(crate) enum Page {
    Rows(Vec<ListedRow>),
    Raw(RawPage),
}

/// What the reader sends: a page, or the end. The end is said, never inferred from
/// the channel closing: a reader that stopped early (a panic, a dropped task) must not
/// pass for a project with fewer rows.
pub(crate) type Sent = Result<Option<Page>, IndexError>;

/// A project's rows at one revision, arriving in pages ordered by source then path.
/// Dropping it stops the read.
#[derive(Debug)]
pub struct RowPages {
    /// The revision every page was read at.
    pub revision: u64,
    pages: mpsc::Receiver<Sent>,
    ended: bool,
}

impl RowPages {
    pub(crate) fn new(revision: u64, pages: mpsc::Receiver<Sent>) -> Self {
        Self {
            revision,
            pages,
            ended: false,
        }
    }

    /// Pages of rows already read (a store without a paged reader).
    pub fn of_snapshot(snapshot: ProjectSnapshot, bounds: PageBounds) -> Self {
        let mut fill = PageFill::new(bounds);
        let mut pages = Vec::new();
        for row in snapshot.rows {
            pages.extend(fill.push(ListedRow::of(row)));
        }
        let last = fill.take();
        if !last.is_empty() {
            pages.push(last);
        }
        let (sender, receiver) = mpsc::channel(pages.len() + 1);
        // The channel holds every page and the end: it cannot be full.
        for page in pages {
            let _ = sender.try_send(Ok(Some(Page::Rows(page))));
        }
        let _ = sender.try_send(Ok(None));
        Self::new(snapshot.revision, receiver)
    }

    /// The next page; `None` after the last. An error ends the pages: the rows before
    /// it are not the project's (the caller discards them).
    pub async fn next_page(&mut self) -> Option<Result<Vec<ListedRow>, IndexError>> {
        if self.ended {
            return None;
        }
        let next = match self.pages.recv().await {
            Some(Ok(Some(Page::Rows(rows)))) => return Some(Ok(rows)),
            Some(Ok(Some(Page::Raw(raw)))) => match raw.into_rows() {
                Ok(rows) => return Some(Ok(rows)),
                Err(error) => Some(Err(error)),
            },
            Some(Ok(None)) => None,
            Some(Err(error)) => Some(Err(error)),
            None => Some(Err(IndexError::Backend(
                "the read of the rows stopped before its end".into(),
            ))),
        };
        self.ended = true;
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(path: &str, payload_bytes: usize) -> ListedRow {
        ListedRow {
            source: String::new(),
            path: path.into(),
            content_hash: String::new(),
            size: 0,
            modified: 0,
            classification: String::new(),
            payload_json: "x".repeat(payload_bytes),
            usable_manifest: false,
            privacy_owner: None,
            payload_version: 0,
            real_path: None,
            content_flags: Vec::new(),
        }
    }

    #[test]
    fn a_page_ends_at_its_row_bound_or_its_byte_bound_whichever_comes_first() {
        let mut fill = PageFill::new(PageBounds {
            rows: 3,
            bytes: 100,
        });
        assert!(fill.push(listed("a", 10)).is_none());
        assert!(fill.push(listed("b", 10)).is_none());
        let by_rows = fill.push(listed("c", 10)).expect("three rows are a page");
        assert_eq!(by_rows.len(), 3);
        assert!(fill.push(listed("d", 60)).is_none());
        let by_bytes = fill
            .push(listed("e", 60))
            .expect("past 100 bytes is a page");
        assert_eq!(by_bytes.len(), 2);
        let alone = fill
            .push(listed("f", 500))
            .expect("a row past the bytes is a page");
        assert_eq!(alone.len(), 1);
        assert!(fill.take().is_empty());
    }

    #[test]
    fn a_page_is_full_at_either_bound_exactly() {
        let bounds = PageBounds {
            rows: 3,
            bytes: 100,
        };
        for (rows, bytes, full) in [
            (2, 99, false),
            (3, 0, true),
            (2, 100, true),
            (4, 101, true),
            (0, 0, false),
        ] {
            assert_eq!(
                bounds.reached(rows, bytes),
                full,
                "{rows} rows, {bytes} bytes"
            );
        }
    }

    #[test]
    fn zero_bounds_still_make_progress_one_row_a_page() {
        let mut fill = PageFill::new(PageBounds { rows: 0, bytes: 0 });
        assert_eq!(fill.push(listed("a", 0)).map(|page| page.len()), Some(1));
    }

    #[tokio::test]
    async fn a_read_that_stops_before_its_end_is_an_error_not_a_shorter_project() {
        let (sender, receiver) = mpsc::channel(4);
        sender
            .send(Ok(Some(Page::Rows(vec![listed("a", 1)]))))
            .await
            .expect("sent");
        drop(sender); // the reader stopped without saying the end
        let mut pages = RowPages::new(7, receiver);
        assert!(matches!(pages.next_page().await, Some(Ok(page)) if page.len() == 1));
        assert!(matches!(
            pages.next_page().await,
            Some(Err(IndexError::Backend(_)))
        ));
        assert!(pages.next_page().await.is_none(), "nothing after the error");
    }

    #[tokio::test]
    async fn a_raw_page_that_cannot_be_read_ends_the_pages_with_its_column_named() {
        let (sender, receiver) = mpsc::channel(4);
        let numbers = Numbers {
            size: 1,
            modified: 0,
            usable_manifest: false,
            payload_version: 1,
        };
        let mut good = RawPage::default();
        good.push(numbers, [Some(&b"s"[..]); TEXT_FIELDS.len()]);
        let mut bad = RawPage::default();
        let mut texts = [Some(&b"s"[..]); TEXT_FIELDS.len()];
        texts[2] = Some(b"\xc3(");
        bad.push(numbers, texts);
        for page in [good, bad] {
            sender.send(Ok(Some(Page::Raw(page)))).await.expect("sent");
        }
        sender.send(Ok(None)).await.expect("sent");
        let mut pages = RowPages::new(7, receiver);
        assert!(matches!(pages.next_page().await, Some(Ok(page)) if page.len() == 1));
        assert!(matches!(
            pages.next_page().await,
            Some(Err(IndexError::Corrupt {
                field: "content_hash",
                ..
            }))
        ));
        assert!(pages.next_page().await.is_none(), "nothing after the error");
    }

    #[tokio::test]
    async fn rows_read_whole_come_in_the_same_bounded_pages() {
        let rows = (0..10)
            .map(|n| FileRow {
                project: "p".into(),
                source: "s".into(),
                path: format!("f{n}"),
                content_hash: String::new(),
                size: 0,
                modified: 0,
                classification: "file".into(),
                payload: serde_json::json!({}),
                usable_manifest: false,
                privacy_owner: None,
                payload_version: 0,
                real_path: None,
                content_flags: Vec::new(),
            })
            .collect();
        let snapshot = ProjectSnapshot { revision: 3, rows };
        let bounds = PageBounds {
            rows: 4,
            bytes: usize::MAX,
        };
        let mut pages = RowPages::of_snapshot(snapshot, bounds);
        assert_eq!(pages.revision, 3);
        let mut sizes = Vec::new();
        while let Some(page) = pages.next_page().await {
            sizes.push(page.expect("page").len());
        }
        assert_eq!(sizes, [4, 4, 2]);
    }
}
