//! `neuralis demo --exit` (the README's first command, `make run`, without the serving)
//! and `neuralis health` against nothing: the two commands a newcomer runs first.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::Command;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn the_demo_registers_syncs_and_lists_the_example_source_as_an_agent_sees_it() {
    let data = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_neuralis"))
        .current_dir(workspace())
        .args(["demo", "tests/fixtures/example-source", "--exit"])
        .args(["--listen", "127.0.0.1:0", "--data-dir"])
        .arg(data.path().join("demo"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for step in [
        "1. registered source \"example\"",
        "2. stored a URI policy",
        "3. synced: 8 files seen, 8 indexed, 0 skipped",
        "4. packages a member acting as demo-agent sees:",
        "skills/release/SKILL.md",
        "5. the agent's overview block:",
    ] {
        assert!(stdout.contains(step), "missing {step:?} in:\n{stdout}");
    }
}

#[test]
fn health_exits_1_when_nothing_answers() {
    // A port just freed: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let output = Command::new(env!("CARGO_BIN_EXE_neuralis"))
        .args(["health", "--server", &format!("http://127.0.0.1:{port}")])
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
