//! The search's bounds, budget and cost on the embedded store (the conformance suite
//! holds the answers both backends give).

use super::embedded::{EmbeddedSearch, Plan, STEPS_PER_CHECK};
use super::*;
use crate::query::{MAX_QUERY_BYTES, MAX_QUERY_WORDS};
use crate::{ChunkRow, FileRow, IndexStore, RowWrite, SqlIndexStore, WriteBatch};

fn row(path: &str) -> FileRow {
    FileRow {
        project: "p".into(),
        source: "s".into(),
        path: path.into(),
        content_hash: format!("hash:{path}"),
        size: 1,
        modified: 0,
        classification: "file".into(),
        payload: serde_json::json!({}),
        usable_manifest: false,
        privacy_owner: None,
        payload_version: 1,
        real_path: None,
        content_flags: Vec::new(),
    }
}

/// The words `w0` .. `w63`, every one in every chunk: any query of them matches every
/// chunk, so its cost is the engine's, not a matter of how many rows it finds.
fn every_word() -> Vec<String> {
    (0..MAX_QUERY_WORDS).map(|i| format!("w{i}")).collect()
}

/// A store of `files` files of one chunk each: the chunk holds every word and `bodies`.
async fn store_with(files: usize, bodies: &[&str]) -> (tempfile::TempDir, SqlIndexStore) {
    let words = every_word().join(" ");
    store_of(files, |i| ChunkRow {
        ordinal: 0,
        body: format!("{words} {}", bodies[i % bodies.len()]),
        vector: None,
    })
    .await
}

/// A store of `files` files `f<i>.md`, each of the one chunk `chunk(i)`.
async fn store_of(
    files: usize,
    chunk: impl Fn(usize) -> ChunkRow,
) -> (tempfile::TempDir, SqlIndexStore) {
    let folder = tempfile::tempdir().expect("tempdir");
    let store = SqlIndexStore::open_embedded(&folder.path().join("index.db"))
        .await
        .expect("opens");
    let writes = (0..files)
        .map(|i| RowWrite::Put {
            row: row(&format!("f{i}.md")),
            chunks: Some(vec![chunk(i)]),
        })
        .collect();
    let batch = WriteBatch {
        project: "p".into(),
        source: "s".into(),
        source_id: None,
        writes,
    };
    store.write_batch(batch).await.expect("writes");
    (folder, store)
}

fn searcher(store: &SqlIndexStore) -> &EmbeddedSearch {
    store
        .searcher
        .as_deref()
        .expect("the embedded store has a searcher")
}

async fn steps(store: &SqlIndexStore, query: &str) -> u64 {
    let words = words_of(query, 10).expect("within bounds").expect("words");
    searcher(store)
        .run("p", Plan::Text(fts5_all_of(&words)), 10)
        .await
        .expect("searched")
        .steps
}

#[test]
fn the_engine_query_is_quoted_literals_linear_in_the_query() {
    let shapes = [
        "deploy".to_owned(),
        "NOT a OR b AND c NEAR(d e) f* ^g col:h \"i\"".to_owned(),
        "(a+)+$ ".repeat(60),
        "ü".repeat(MAX_QUERY_BYTES / 2),
        (0..64)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join("-"),
    ];
    for text in shapes {
        let words = words_of(&text, 10)
            .expect("within bounds")
            .unwrap_or_default();
        let built = fts5_all_of(&words);
        assert!(words.len() <= MAX_QUERY_WORDS);
        // Each word plus two quotes and a space: never more than three bytes per word
        // beyond the text itself (lowercase may lengthen a letter, so twice the text).
        assert!(built.len() <= 2 * text.len() + 3 * words.len(), "{built}");
        assert_eq!(built.matches('"').count(), 2 * words.len(), "{built}");
    }
    assert_eq!(fts5_all_of(&["a\"b".to_owned()]), "\"a\"\"b\"");
}

#[test]
fn a_query_past_its_bounds_is_refused_naming_the_query() {
    for text in ["x ".repeat(50_000), "y".repeat(3_500_000)] {
        match words_of(&text, 10) {
            Err(IndexError::InvalidValue { field, .. }) => assert_eq!(field, "query"),
            other => panic!("{other:?}"),
        }
    }
}

#[tokio::test]
async fn operators_quotes_and_patterns_are_searched_literally() {
    let (_folder, store) = store_with(
        3,
        &["NOT a drill", "deploy then rollback", "plain (a+)+$ text"],
    )
    .await;
    let paths = |hits: Vec<ChunkHit>| hits.into_iter().map(|h| h.path).collect::<Vec<_>>();
    let found = |query: &'static str| {
        let store = &store;
        async move { paths(store.search_text("p", query, 10).await.expect(query)) }
    };
    // As FTS5 syntax each would fail or widen the match; as words each is literal.
    assert_eq!(found("NOT drill").await, ["f0.md"]);
    assert!(found("deploy OR nothing").await.is_empty());
    assert_eq!(found("(a+)+$ plain").await, ["f2.md"]);
    assert_eq!(found("\"rollback\" then deploy*").await, ["f1.md"]);
    assert!(found("NEAR(deploy drill) col:x ^w1").await.is_empty());
    store.close().await;
}

/// Steps a word may add to a search, whatever the number of chunks it matches.
const STEPS_PER_WORD: u64 = 100;

#[tokio::test]
async fn search_steps_grow_no_faster_than_the_distinct_words() {
    // 300 chunks, each matching every query: were the match evaluated per chunk (the
    // plan issue 25 found), every word would cost steps for each of them (about 9,000
    // per word here), and a 64-word query 600,000 steps instead of 9,000.
    let (_folder, store) = store_with(300, &["filler"]).await;
    let words = every_word();
    let one = steps(&store, &words[0]).await;
    for n in [2, 4, 8, 16, 32, 64] {
        let cost = steps(&store, &words[..n].join(" ")).await;
        let most = one + n as u64 * STEPS_PER_WORD;
        assert!(cost <= most, "{n} words: {cost} steps, one word {one}");
    }
    // A word sent 64 times is one term: the cost of one word.
    let repeated = steps(&store, &vec!["w0"; MAX_QUERY_WORDS].join(" ")).await;
    assert!(
        repeated <= one + STEPS_PER_CHECK,
        "{repeated} against {one}"
    );
    store.close().await;
}

#[tokio::test]
async fn a_search_whose_caller_left_stops_and_returns_its_connection() {
    let (_folder, store) = store_with(300, &["filler"]).await;
    let searcher = searcher(&store);
    let outcome = searcher
        .run_abandoned_for_test("p", Plan::Text(fts5_all_of(&every_word())), 10)
        .await;
    match outcome {
        Err(IndexError::Unavailable(message)) => assert!(message.contains("abandoned")),
        other => panic!("{other:?}"),
    }
    assert_eq!(searcher.idle_connections(), 1);
    assert_eq!(searcher.free_slots(), SearchBudget::default().connections);
    store.close().await;
}

#[tokio::test]
async fn the_full_text_index_drives_the_search() {
    let (folder, store) = store_with(300, &["filler"]).await;
    let connection = rusqlite::Connection::open(folder.path().join("index.db")).expect("opens");
    let mut plan = connection
        .prepare(&format!("EXPLAIN QUERY PLAN {SQLITE_TEXT}"))
        .expect("plans");
    let steps: Vec<String> = plan
        .query_map(rusqlite::params!["\"w1\"", "p", 10], |row| {
            row.get::<_, String>(3)
        })
        .expect("plan rows")
        .collect::<Result<_, _>>()
        .expect("plan");
    // Driven by the chunk rows instead, the match would be evaluated again for each
    // chunk of the project: rows times words.
    assert!(steps[0].contains("index_chunks_fts"), "{steps:?}");
    store.close().await;
}

/// A store of `files` chunks, each with a vector and a line of text.
async fn store_with_vectors(files: usize) -> (tempfile::TempDir, SqlIndexStore) {
    store_of(files, |i| ChunkRow {
        ordinal: 0,
        body: format!("chunk {i}"),
        vector: Some(vec![i as f32, 1.0]),
    })
    .await
}

#[tokio::test]
async fn a_search_past_its_step_budget_stops_and_says_so_full_text_or_vector() {
    // Unbudgeted, the vector scan read every chunk of the project whatever it cost.
    let tight = SearchBudget {
        max_steps: 1_000,
        ..SearchBudget::default()
    };
    for vector in [false, true] {
        let (_folder, store) = match vector {
            false => store_with(300, &["filler"]).await,
            true => store_with_vectors(300).await,
        };
        let store = store.with_search_budget(tight);
        let searched = match vector {
            false => store.search_text("p", "w1 w2", 10).await,
            true => store.search_vector("p", &[1.0, 0.0], 10).await,
        };
        match searched {
            Err(IndexError::Exhausted(message)) => assert!(message.contains("budget"), "{message}"),
            other => panic!("vector {vector}: {other:?}"),
        }
        // The statement stopped and its connection went back to the searcher.
        assert_eq!(searcher(&store).idle_connections(), 1);
        assert_eq!(searcher(&store).free_slots(), tight.connections);
        store.close().await;
    }
}

#[tokio::test]
async fn a_vector_search_whose_caller_left_stops_and_returns_its_connection() {
    let (_folder, store) = store_with_vectors(300).await;
    let searcher = searcher(&store);
    let outcome = searcher
        .run_abandoned_for_test("p", Plan::Nearest(vec![1.0, 0.0]), 10)
        .await;
    match outcome {
        Err(IndexError::Unavailable(message)) => assert!(message.contains("abandoned")),
        other => panic!("{other:?}"),
    }
    assert_eq!(searcher.idle_connections(), 1);
    store.close().await;
}

#[tokio::test]
async fn a_vector_search_runs_on_the_searchers_connections_within_their_number() {
    // Every search connection taken: a vector search waits for one (and gives up at the
    // deadline), never reaching for the store's pool that syncs and reads share.
    let (_folder, store) = store_with_vectors(30).await;
    let short = SearchBudget {
        deadline: std::time::Duration::from_millis(200),
        connections: 1,
        ..SearchBudget::default()
    };
    let store = store.with_search_budget(short);
    let slots = searcher(&store).take_every_slot_for_test().await;
    match store.search_vector("p", &[1.0, 0.0], 10).await {
        Err(IndexError::Exhausted(message)) => assert!(message.contains("busy"), "{message}"),
        other => panic!("{other:?}"),
    }
    drop(slots);
    let hits = store
        .search_vector("p", &[1.0, 0.0], 3)
        .await
        .expect("searched");
    let paths: Vec<&str> = hits.iter().map(|hit| hit.path.as_str()).collect();
    assert_eq!(paths, ["f29.md", "f28.md", "f27.md"]);
    store.close().await;
}

#[tokio::test]
async fn a_postgres_search_waits_for_one_of_its_turns_within_its_deadline() {
    // Without turns, every search held a connection of the shared pool at once.
    let search = PostgresSearch::new(SearchBudget {
        deadline: std::time::Duration::from_millis(200),
        connections: 1,
        ..SearchBudget::default()
    });
    let (started, release) = (tokio::sync::Notify::new(), tokio::sync::Notify::new());
    let holding = search.within_budget(async {
        started.notify_one();
        release.notified().await;
        Ok(Vec::new())
    });
    let waiting = async {
        started.notified().await;
        let outcome = search.within_budget(async { Ok(Vec::new()) }).await;
        release.notify_one();
        outcome
    };
    let (held, waited) = tokio::join!(holding, waiting);
    match waited {
        Err(IndexError::Exhausted(message)) => assert!(message.contains("budget"), "{message}"),
        other => panic!("{other:?}"),
    }
    // The first gave its turn back when it ended (or its deadline passed first).
    assert!(held.is_ok() || matches!(held, Err(IndexError::Exhausted(_))));
    assert!(search.within_budget(async { Ok(Vec::new()) }).await.is_ok());
}

#[tokio::test]
async fn a_stored_vector_that_is_no_whole_number_of_floats_is_refused_naming_its_bytes() {
    let (folder, store) = store_with_vectors(3).await;
    let connection = rusqlite::Connection::open(folder.path().join("index.db")).expect("opens");
    connection
        .execute(
            "UPDATE index_chunks SET vector = x'000000' WHERE path = 'f1.md'",
            [],
        )
        .expect("damaged");
    match store.search_vector("p", &[1.0, 0.0], 10).await {
        Err(IndexError::Corrupt { message, .. }) => {
            assert!(
                message.contains("3 bytes is not a whole number"),
                "{message}"
            )
        }
        other => panic!("{other:?}"),
    }
    store.close().await;
}
