//! What a port gives by default.

use super::*;

const SOURCE: &str = "p/repo.00000000000000aa";

/// A plain file's row of the source `SOURCE` (this layer's own: no fixture from above).
fn row(path: &str, body: &str) -> IndexRow {
    IndexRow {
        source_id: SOURCE.into(),
        path: path.into(),
        size: body.len() as u64,
        payload: FilePayload::default(),
        real_path: None,
        content_flags: Default::default(),
        fingerprint: 1,
    }
}

/// A port that answers rows only (as the test fakes do).
struct RowsOnly(ProjectRows);

#[async_trait]
impl IndexPort for RowsOnly {
    async fn sources(&self, _project: &str) -> Result<Vec<SourceInfo>, DiscoveryError> {
        Ok(vec![crate::base::fixtures::source(&[])])
    }
    async fn rows(&self, _project: &str) -> Result<ProjectRows, DiscoveryError> {
        Ok(self.0.clone())
    }
    async fn revision(&self, _project: &str) -> Result<u64, DiscoveryError> {
        Ok(self.0.revision)
    }
    async fn read(
        &self,
        _project: &str,
        _source_id: &str,
        _path: &str,
        _decided: &DecidedRow<'_>,
    ) -> Result<Vec<u8>, DiscoveryError> {
        Err(DiscoveryError::NotFound)
    }
    async fn search(
        &self,
        _project: &str,
        _query: &str,
        _limit: u32,
    ) -> Result<Vec<RawHit>, DiscoveryError> {
        Ok(Vec::new())
    }
}

/// Each row `put` is given, with the source id it was put under.
#[derive(Default)]
struct Puts(Vec<(String, String)>);

impl RowSink for Puts {
    fn put(&mut self, source_id: &str, row: IndexRow) {
        self.0.push((source_id.to_owned(), row.path));
    }
    fn rekey(&mut self, _from: &str, _to: Option<&str>) {}
}

/// By default a full read into a sink puts every row `rows` answers, in order and
/// keyed by its source id, and answers their revision.
#[tokio::test]
async fn a_port_puts_every_row_it_reads_into_the_sink_by_default() {
    let mut other = row("b.md", "b");
    other.source_id = "p/other.00000000000000bb".into();
    let port = RowsOnly(ProjectRows {
        revision: 9,
        rows: vec![row("a.md", "a"), other],
    });
    let mut sink = Puts::default();
    let revision = port.rows_into("p", &[], &mut sink).await.expect("rows");
    assert_eq!(revision, 9);
    assert_eq!(
        sink.0,
        [
            (SOURCE.to_owned(), "a.md".to_owned()),
            ("p/other.00000000000000bb".to_owned(), "b.md".to_owned()),
        ]
    );
}

/// By default a catch-up's read is the sources, then the rows as `rows_since` answers
/// them (in full, for a port that keeps no changes), with the sources it listed.
#[tokio::test]
async fn a_port_reads_the_sources_then_the_rows_since_by_default() {
    let port = RowsOnly(ProjectRows {
        revision: 9,
        rows: vec![row("a.md", "a")],
    });
    let (listed, rows) = port.sources_and_rows_since("p", 3).await.expect("a read");
    let ids: Vec<&str> = listed.iter().map(|source| source.id.as_str()).collect();
    assert_eq!(ids, [crate::base::fixtures::SOURCE_ID]);
    let RowsSince::Full(rows) = rows else {
        panic!("a port that keeps no changes answers in full");
    };
    assert_eq!(rows.revision, 9);
    assert_eq!(rows.rows.len(), 1);
}
