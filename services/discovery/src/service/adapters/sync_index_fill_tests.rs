//! A full read keys its rows as they arrive by the sources listed before it, and
//! mends the keys by the listing after it: every row ends keyed as if the rows had been
//! held until that second listing (issue 31, a cold fill that holds no row twice).

use std::collections::VecDeque;
use std::sync::Mutex;

use neuralis_identity::{KeySource, Secret, ServiceIdentityConfig};
use neuralis_proto::common::v1 as common;
use neuralis_proto::sync::v1 as pb;

use super::entry::PLAIN_PAYLOAD;
use super::*;
use crate::rows::inventory::Filing;

/// A feed that answers each listing of sources with the next one scripted (the last
/// again once they run out) and every read with the same pages.
struct Scripted {
    listings: Mutex<VecDeque<Vec<pb::Source>>>,
    pages: Vec<feed::ListEntriesResponse>,
}

#[async_trait]
impl IndexFeedApi for Scripted {
    async fn list_project_sources(
        &self,
        _credential: &BearerToken,
        _request: feed::ListProjectSourcesRequest,
    ) -> Result<feed::ListProjectSourcesResponse, SyncError> {
        let mut listings = self.listings.lock().unwrap();
        let sources = match listings.len() {
            0 => Vec::new(),
            1 => listings[0].clone(),
            _ => listings.pop_front().unwrap_or_default(),
        };
        Ok(feed::ListProjectSourcesResponse { sources })
    }

    async fn list_entries(
        &self,
        _credential: &BearerToken,
        _request: feed::ListEntriesRequest,
    ) -> Result<SyncStream<feed::ListEntriesResponse>, SyncError> {
        let pages = self.pages.clone().into_iter().map(Ok);
        Ok(futures::stream::iter(pages).boxed())
    }

    async fn get_revision(
        &self,
        _credential: &BearerToken,
        _request: feed::GetRevisionRequest,
    ) -> Result<feed::GetRevisionResponse, SyncError> {
        Ok(feed::GetRevisionResponse { revision: 7 })
    }

    async fn read_file(
        &self,
        _credential: &BearerToken,
        _request: feed::ReadDecidedFileRequest,
    ) -> Result<feed::ReadDecidedFileResponse, SyncError> {
        Err(SyncError::NotFound("no file".into()))
    }

    async fn search(
        &self,
        _credential: &BearerToken,
        _request: feed::SearchChunksRequest,
    ) -> Result<feed::SearchChunksResponse, SyncError> {
        Ok(feed::SearchChunksResponse::default())
    }
}

/// A source of project `p1` as sync stores it: `slug` under the id ending in `tag`.
fn stored(slug: &str, tag: &str) -> pb::Source {
    pb::Source {
        id: format!("p1/{slug}.{tag}"),
        spec: Some(pb::SourceSpec {
            project: "p1".into(),
            slug: slug.into(),
            kind: pb::SourceKind::Local as i32,
            root: format!("/srv/{slug}"),
            scope: common::SourceScope::Project as i32,
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn entry(slug: &str, path: &str) -> feed::Entry {
    feed::Entry {
        source: slug.into(),
        path: path.into(),
        payload_json: PLAIN_PAYLOAD.clone(),
        ..Default::default()
    }
}

/// Two pages at revision 7 holding `rows` (slug, path), split after the first.
fn pages(rows: &[(&str, &str)]) -> Vec<feed::ListEntriesResponse> {
    let page = |rows: &[(&str, &str)]| feed::ListEntriesResponse {
        revision: 7,
        entries: rows.iter().map(|(slug, path)| entry(slug, path)).collect(),
        ..Default::default()
    };
    vec![
        page(&rows[..1.min(rows.len())]),
        page(&rows[1.min(rows.len())..]),
    ]
}

fn index(listings: Vec<Vec<pb::Source>>, pages: Vec<feed::ListEntriesResponse>) -> SyncIndex {
    let identity = ServiceIdentityConfig {
        keys: KeySource::Hs256 {
            secret: Secret::new("a service secret of thirty-two bytes!".to_owned()),
        },
        ..ServiceIdentityConfig::default()
    };
    let signer = ServiceSigner::from_config(&identity, "discovery").expect("a signer");
    let feed = Scripted {
        listings: Mutex::new(listings.into()),
        pages,
    };
    SyncIndex::new(Arc::new(feed), Arc::new(signer))
}

/// (source id, path) of every row, in order.
fn keys(rows: &[IndexRow]) -> Vec<(String, String)> {
    let mut keys: Vec<_> = rows
        .iter()
        .map(|row| (row.source_id.clone(), row.path.clone()))
        .collect();
    keys.sort();
    keys
}

/// A case: its name, the sources listed before the read and after it, the rows read
/// (slug, path), and the keys they must end with (source id, path).
type Case = (
    &'static str,
    Vec<pb::Source>,
    Vec<pb::Source>,
    Vec<(&'static str, &'static str)>,
    Vec<(&'static str, &'static str)>,
);

/// Each case: the sources listed before the read, those listed after it, the rows read,
/// and the (source id, path) every row must end keyed by: the listing after the read
/// decides, whatever the listing before it said.
#[tokio::test]
async fn a_full_read_keys_every_row_by_the_listing_after_it() {
    let cases: Vec<Case> = vec![
        (
            "no source came or went",
            vec![stored("a", "01"), stored("b", "02")],
            vec![stored("a", "01"), stored("b", "02")],
            vec![("a", "x.md"), ("b", "y.md"), ("a", "z.md")],
            vec![
                ("p1/a.01", "x.md"),
                ("p1/a.01", "z.md"),
                ("p1/b.02", "y.md"),
            ],
        ),
        (
            "a source deleted during the read drops its rows",
            vec![stored("a", "01"), stored("b", "02")],
            vec![stored("b", "02")],
            vec![("a", "x.md"), ("b", "y.md")],
            vec![("p1/b.02", "y.md")],
        ),
        (
            "a source created again under a new id takes the rows of its slug",
            vec![stored("a", "01")],
            vec![stored("a", "09")],
            vec![("a", "x.md"), ("a", "y.md")],
            vec![("p1/a.09", "x.md"), ("p1/a.09", "y.md")],
        ),
        (
            "a source created during the read keeps the rows read of it",
            vec![stored("a", "01")],
            vec![stored("a", "01"), stored("new", "03")],
            vec![("new", "n.md"), ("a", "x.md")],
            vec![("p1/a.01", "x.md"), ("p1/new.03", "n.md")],
        ),
        (
            "a slug in neither listing contributes nothing",
            vec![stored("a", "01")],
            vec![stored("a", "01")],
            vec![("ghost", "g.md"), ("a", "x.md")],
            vec![("p1/a.01", "x.md")],
        ),
    ];
    for (case, before, after, rows, expected) in cases {
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(id, path)| ((*id).to_owned(), (*path).to_owned()))
            .collect();
        // `rows` lists the sources itself (the first listing), then reads.
        let read = index(vec![before.clone(), after.clone()], pages(&rows));
        let collected = read.rows("p1").await.expect(case);
        assert_eq!(keys(&collected.rows), expected, "{case}: rows");
        assert_eq!(collected.revision, 7, "{case}");

        // The inventory's filing, keyed the same way.
        let listed: Vec<SourceInfo> = before.into_iter().filter_map(source_info).collect();
        let read = index(vec![after], pages(&rows));
        let mut filing = Filing::default();
        let revision = read
            .rows_into("p1", &listed, &mut filing)
            .await
            .expect(case);
        let snapshot = filing.snapshot(revision, &listed);
        assert_eq!(snapshot.row_count(), expected.len(), "{case}: filing");
        for (id, path) in &expected {
            let held = snapshot.sources.get(id).and_then(|s| s.facts(path));
            assert!(held.is_some(), "{case}: filing holds {id} {path}");
        }
    }
}

/// A full read is never answered with a delta: a sync that does so anyway is not
/// trusted with the whole project (and nothing is filed from its answer).
#[tokio::test]
async fn a_full_read_answered_with_a_delta_is_refused() {
    let mut answer = pages(&[("a", "x.md"), ("a", "y.md")]);
    answer[1].delta = true;
    let read = index(vec![vec![stored("a", "01")]], answer);
    let refused = read.rows("p1").await;
    assert!(
        matches!(refused, Err(DiscoveryError::Unavailable(_))),
        "{refused:?}"
    );
}

/// A delta request that sync answers in full (a gap) is keyed as a full read is, by
/// the listing after it, never by the request's own: a source deleted during the read
/// drops its rows.
#[tokio::test]
async fn a_delta_answered_in_full_is_keyed_by_the_listing_after_it() {
    let listed: Vec<SourceInfo> = [stored("a", "01"), stored("b", "02")]
        .into_iter()
        .filter_map(source_info)
        .collect();
    let read = index(
        vec![vec![stored("b", "02")]],
        pages(&[("a", "x.md"), ("b", "y.md")]),
    );
    let answer = read.rows_since("p1", 3, &listed).await.expect("an answer");
    let RowsSince::Full(rows) = answer else {
        panic!("a full answer is a full answer");
    };
    assert_eq!(
        keys(&rows.rows),
        [("p1/b.02".to_owned(), "y.md".to_owned())]
    );
}

/// A catch-up reads the sources and the delta at once: the rows are keyed by that
/// listing when it keys them all, else by a listing after the read (a source created
/// meanwhile), and the listing returned is the one they were keyed by (the catch-up
/// groups and prepares with it).
#[tokio::test]
async fn a_catch_up_keys_its_delta_by_the_listing_it_returns() {
    let delta_pages = |rows: &[(&str, &str)]| {
        let mut pages = pages(rows);
        pages.iter_mut().for_each(|page| page.delta = true);
        pages
    };
    let ids = |sources: &[SourceInfo]| -> Vec<String> {
        sources.iter().map(|source| source.id.clone()).collect()
    };
    let cases = [
        (
            "every row of a listed source: one listing",
            vec![("a", "x.md")],
            vec!["p1/a.01"],
            vec![("p1/a.01", "x.md")],
        ),
        (
            "a row of a source created meanwhile: listed again after the read",
            vec![("a", "x.md"), ("b", "y.md")],
            vec!["p1/a.01", "p1/b.02"],
            vec![("p1/a.01", "x.md"), ("p1/b.02", "y.md")],
        ),
    ];
    for (name, rows, sources, keyed) in cases {
        let listings = vec![
            vec![stored("a", "01")],
            vec![stored("a", "01"), stored("b", "02")],
        ];
        let read = index(listings, delta_pages(&rows));
        let (listed, answer) = read
            .sources_and_rows_since("p1", 3)
            .await
            .expect("an answer");
        let RowsSince::Delta(delta) = answer else {
            panic!("{name}: a delta is a delta");
        };
        assert_eq!(ids(&listed), sources, "{name}");
        let keyed: Vec<(String, String)> = keyed
            .iter()
            .map(|(id, path)| ((*id).to_owned(), (*path).to_owned()))
            .collect();
        assert_eq!(keys(&delta.rows), keyed, "{name}");
    }
}
