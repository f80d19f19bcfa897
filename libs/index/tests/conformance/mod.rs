//! The store conformance suite: every backend of `IndexStore` must pass every case.
//! A backend's test file defines a fixture and calls `conformance_suite!`.

pub mod cases;
pub mod deltas;
pub mod leases;
pub mod pages;
pub mod pruning;
pub mod writes;

/// A fresh, empty store for one case, and how to clean it up afterwards.
pub trait Fixture: Sized {
    /// The store under test.
    fn store(&self) -> std::sync::Arc<dyn neuralis_index::IndexStore>;
    /// Removes whatever the fixture created (a schema, a file).
    fn cleanup(self) -> impl std::future::Future<Output = ()> + Send;
}

/// Expands to one `#[tokio::test]` per case, each on a fresh fixture from `$fresh`
/// (an async fn returning a `Fixture`), cleaning up even when the case panics.
#[macro_export]
macro_rules! conformance_suite {
    ($fresh:path; $($case:ident),+ $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                use futures::FutureExt;
                use $crate::conformance::Fixture;
                let fixture = $fresh(stringify!($case)).await;
                let outcome = std::panic::AssertUnwindSafe(
                    $crate::conformance::cases::$case(fixture.store()),
                )
                .catch_unwind()
                .await;
                fixture.cleanup().await;
                if let Err(panic) = outcome {
                    std::panic::resume_unwind(panic);
                }
            }
        )+
    };
}

/// Every case of the suite, for `conformance_suite!`.
#[macro_export]
macro_rules! all_conformance_cases {
    ($fresh:path) => {
        $crate::conformance_suite!($fresh;
            a_source_slug_is_unique_within_its_project,
            a_project_holds_at_most_its_sources_even_when_created_at_once,
            a_source_keeps_its_id_and_ids_are_never_shared,
            sources_round_trip_and_list_in_order,
            updating_or_deleting_a_missing_source_is_not_found,
            a_new_source_has_never_synced_and_keeps_its_recorded_status,
            the_revision_starts_at_zero_and_rises_with_every_committed_batch,
            projects_have_separate_revisions,
            rows_round_trip_every_column,
            a_put_without_chunks_keeps_the_chunks,
            new_chunks_replace_the_old_ones_of_a_path_among_new_paths,
            deleting_a_row_deletes_its_chunks,
            a_failed_batch_leaves_the_index_as_it_was,
            a_batch_naming_a_path_twice_is_refused,
            a_large_batch_commits_whole,
            rewritten_chunks_of_the_newest_rows_stay_searchable,
            mixed_batches_of_many_statements_write_every_row_once,
            a_project_snapshot_carries_the_revision_it_was_read_at,
            paged_rows_are_the_project_rows_of_one_revision_in_key_order,
            a_page_ends_at_its_row_bound_whatever_room_its_bytes_leave,
            an_empty_project_pages_no_row_at_revision_zero,
            paged_rows_stay_at_their_revision_while_writes_commit_beside_them,
            a_paged_read_given_up_halfway_leaves_the_store_as_it_was,
            deleting_a_source_deletes_its_rows_and_raises_the_revision,
            text_search_finds_words_within_the_project_only,
            text_search_never_fails_on_query_syntax,
            text_search_refuses_a_query_past_its_bounds_naming_the_query,
            text_search_reads_operators_as_words,
            vector_search_ranks_by_cosine,
            vector_search_breaks_ties_by_source_path_and_ordinal,
            concurrent_batches_each_raise_the_revision_once,
            visiting_a_source_yields_each_row_in_its_comparison_form,
            unusual_text_round_trips_through_a_batch,
            visiting_a_large_source_yields_every_row_once,
            a_delta_after_random_writes_equals_a_full_re_read,
            a_delta_carries_deletes_renames_and_deleted_sources,
            a_delta_from_before_the_floor_or_beyond_the_revision_is_refused,
            pruned_tombstones_raise_the_floor_and_an_older_reader_gets_a_full_re_read,
            pruning_keeps_every_tombstone_above_the_floor,
            a_new_source_has_a_free_lease_and_no_due_time,
            of_two_replicas_that_read_the_same_lease_one_takes_it,
            a_lease_is_renewed_and_released_only_by_its_holder,
            of_two_replicas_that_read_the_same_due_time_one_moves_it,
            a_source_created_again_starts_with_a_free_lease_and_no_due_time,
            a_batch_of_a_deleted_source_writes_nothing_even_under_its_slug_again,
        );
    };
}
