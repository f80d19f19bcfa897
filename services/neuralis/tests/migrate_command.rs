//! `neuralis migrate status` and `neuralis migrate up` on the embedded stores of a data
//! directory: status lists each store's migrations and changes nothing (an operator
//! reads it before an upgrade, or beside a release that must not be migrated yet); up
//! applies them and says so; status then lists every one applied.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::{Command, Output};

fn migrate(action: &str, data: &Path) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_neuralis"))
        .args(["migrate", action, "--data-dir"])
        .arg(data)
        .env_remove("NEURALIS_CONFIG")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "migrate {action}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Each line of a status as (store, version, state).
fn status_lines(output: &Output) -> Vec<(String, String, String)> {
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .lines()
        .map(|line| {
            let mut fields = line.split('\t').map(str::to_owned);
            let mut next = || fields.next().unwrap_or_default();
            (next(), next(), next())
        })
        .collect()
}

#[test]
fn status_changes_nothing_and_up_applies_every_migration_it_listed() {
    let data = tempfile::tempdir().unwrap();

    let before = status_lines(&migrate("status", data.path()));
    for store in ["index", "access store"] {
        assert!(before.iter().any(|(s, _, _)| s == store), "{before:?}");
    }
    assert!(
        before.iter().all(|(_, _, state)| state == "pending"),
        "{before:?}"
    );
    let created: Vec<_> = std::fs::read_dir(data.path()).unwrap().collect();
    assert!(created.is_empty(), "status created {created:?}");

    let up = String::from_utf8(migrate("up", data.path()).stdout).unwrap();
    assert!(up.contains("index: up to date"), "{up}");
    assert!(up.contains("access store: up to date"), "{up}");

    let after = status_lines(&migrate("status", data.path()));
    let expected: Vec<_> = before
        .into_iter()
        .map(|(store, version, _)| (store, version, "applied".to_owned()))
        .collect();
    assert_eq!(after, expected);
}
