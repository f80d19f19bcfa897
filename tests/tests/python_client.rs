//! The API from another language (issue 12, "polyglot API"): `tests/python/client_test.py`
//! generates Python stubs from `proto/` at test time (grpcio-tools) and drives a real
//! all-in-one server on an ephemeral port: health, reflection, a source created and
//! synced, packages listed with a minted member token, and the `ErrorInfo` reason of an
//! unauthenticated call. The Python packages come from `tests/support/python-tools.sh`
//! (pinned, installed once into `target/tools/venv`); without PyPI the test fails and
//! says which packages it could not install. It is never skipped.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_grpcio_client_with_stubs_from_proto_syncs_lists_and_reads_error_reasons() {
    neuralis_tests::polyglot::run_client(
        "Python",
        "py-agent",
        &[
            "tests/support/python-tools.sh",
            "python",
            "tests/python/client_test.py",
        ],
    )
    .await;
}
