# Search latency on an index written like the 100k first sync (53 batches of ~2000
# chunks), with FTS5 merging 16 at a time (the previous setting, crisis merge 16) or 64.
import sqlite3, time, os, statistics, tempfile
def build(merge):
    path = tempfile.mktemp(suffix=".db")
    c = sqlite3.connect(path)
    c.executescript("""
    PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
    CREATE TABLE index_chunks (project TEXT, source TEXT, path TEXT, ordinal INT, body TEXT, PRIMARY KEY (project, source, path, ordinal));
    CREATE VIRTUAL TABLE index_chunks_fts USING fts5(body, project UNINDEXED, source UNINDEXED, path UNINDEXED, ordinal UNINDEXED, content='index_chunks', content_rowid='rowid');
    """)
    c.execute("INSERT INTO index_chunks_fts(index_chunks_fts, rank) VALUES ('automerge', ?)", (merge,))
    c.execute("INSERT INTO index_chunks_fts(index_chunks_fts, rank) VALUES ('crisismerge', ?)", (merge,))
    c.commit()
    n = 0
    for batch in range(53):
        c.execute("BEGIN")
        last = c.execute("SELECT coalesce(max(rowid),0) FROM index_chunks").fetchone()[0]
        rows = []
        for i in range(2000):
            rows.append(("bench", "tree", f"src/area{n%50}/module{n%977}/file{n}.rs", 0,
                         f"// file {n}\npub fn f{n}(x: u64) -> u64 {{\n    x.wrapping_mul({n})\n}}\n"))
            n += 1
        c.executemany("INSERT INTO index_chunks VALUES (?,?,?,?,?)", rows)
        c.execute("INSERT INTO index_chunks_fts (rowid, body, project, source, path, ordinal) SELECT rowid, body, project, source, path, ordinal FROM index_chunks WHERE rowid > ?", (last,))
        c.execute("COMMIT")
    return c
Q = ("SELECT c.source, c.path, c.ordinal, -bm25(index_chunks_fts) FROM index_chunks_fts JOIN index_chunks c ON c.rowid = index_chunks_fts.rowid "
     "WHERE index_chunks_fts MATCH ? AND c.project = ? ORDER BY bm25(index_chunks_fts), c.source, c.path, c.ordinal LIMIT 10")
for merge in (16, 64):
    c = build(merge)
    segs = c.execute("SELECT count(*) FROM index_chunks_fts_data").fetchone()[0]
    for term in ('"f4242"', '"wrapping_mul"', '"file" "f99"'):
        times = []
        for _ in range(20):
            t = time.perf_counter(); r = c.execute(Q, (term, "bench")).fetchall(); times.append(time.perf_counter() - t)
        print(f"merge {merge}: {term:20} median {statistics.median(times)*1000:8.3f} ms ({len(r)} hits; data rows {segs})")
