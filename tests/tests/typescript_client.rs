//! The API from TypeScript (issue 28 item 5), beside the Python client:
//! `tests/typescript/client_test.ts` loads `proto/` as published with
//! `@grpc/proto-loader`, calls through `@grpc/grpc-js`, and drives a real all-in-one
//! server on an ephemeral port: health, a source created and synced, packages listed
//! with a minted member token, and the `ErrorInfo` reason of an unauthenticated call.
//! The packages come from `tests/support/node-tools.sh` (pinned, installed once into
//! `target/tools/node`); without the npm registry the test fails and says so. It is
//! never skipped.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typescript_grpc_js_client_from_proto_syncs_lists_and_reads_error_reasons() {
    neuralis_tests::polyglot::run_client(
        "TypeScript",
        "ts-agent",
        &[
            "tests/support/node-tools.sh",
            "node",
            "target/tools/node/out/client_test.js",
        ],
    )
    .await;
}
