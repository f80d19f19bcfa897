//! Hostile input through the whole path a sync takes (walk, read, capture, group):
//! every case ends in a reported skip or diagnostic, never a panic or a hang. The
//! tree is generated at test time; nothing large is committed.
#![allow(clippy::unwrap_used)]

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn write(root: &Path, path: &str, content: &[u8]) {
    let full = root.join(path);
    fs::create_dir_all(full.parent().unwrap()).unwrap();
    fs::write(full, content).unwrap();
}

fn alias_bomb() -> String {
    let mut text = String::from("---\nname: bomb\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    text + "---\nbody\n"
}

fn hostile_tree(root: &Path, outside: &Path) {
    write(root, "kit/rules/bomb.md", alias_bomb().as_bytes());
    let deep = format!(
        "---\nname: deep\nnest: {}{}\n---\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    write(root, "kit/agents/deep.md", deep.as_bytes());
    let block = format!("---\nname: blocky\nnest:\n{}x\n---\n", "- ".repeat(10_000));
    write(root, "kit/agents/blocky.md", block.as_bytes());
    write(
        root,
        "kit/rules/garbage.md",
        &[0xff, 0xfe, 0x00, 0x2d, 0x2d, 0x2d, 0x0a, 0x80],
    );
    write(root, "kit/instructions/ok.md", b"---\nname: ok\n---\n");
    fs::create_dir_all(root.join("kit/docs")).unwrap();
    // a 50 MB file, sparse: it costs no disk
    let big = fs::File::create(root.join("kit/docs/big.md")).unwrap();
    big.set_len(50 * 1024 * 1024).unwrap();
    symlink(root, root.join("kit/loop")).unwrap();
    symlink(outside, root.join("kit/out")).unwrap();
    fs::write(
        root.join(std::ffi::OsStr::from_bytes(b"kit/rules/bad\xff.md")),
        b"---\nname: x\n---\n",
    )
    .unwrap();
    // a chain deeper than the default depth limit
    fs::create_dir_all(root.join(format!("deep{}", "/d".repeat(300)))).unwrap();
}

fn unloaded_reason(report: &Value, path: &str) -> Option<String> {
    report["unloaded"]
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["path"] == path)
        .map(|u| u["reason"].as_str().unwrap().to_owned())
}

#[test]
fn hostile_input_gives_skips_and_diagnostics_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.md", b"---\nname: secret\n---\n");
    hostile_tree(dir.path(), outside.path());
    let output = Command::new(env!("CARGO_BIN_EXE_neuralis"))
        .arg("inspect")
        .arg(dir.path())
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(!text.contains("secret"), "nothing outside the root is read");
    let expectations = [
        ("kit/docs/big.md", "skipped-too-large"),
        ("kit/loop", "skipped-symlink-loop"),
        ("kit/out", "skipped-symlink-outside-root"),
        ("kit/rules/bad\u{fffd}.md", "skipped-non-utf8-name"),
        ("kit/rules/garbage.md", "no-id-or-name"),
    ];
    for (path, reason) in expectations {
        assert_eq!(
            unloaded_reason(&report, path).as_deref(),
            Some(reason),
            "{path}"
        );
    }
    let too_deep = report["unloaded"]
        .as_array()
        .unwrap()
        .iter()
        .any(|u| u["reason"] == "skipped-too-deep");
    assert!(too_deep, "the deep chain is reported");
    let diagnosed: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    for path in [
        "kit/rules/bomb.md",
        "kit/agents/deep.md",
        "kit/agents/blocky.md",
    ] {
        assert!(
            diagnosed.contains(&path),
            "{path} has a diagnostic: {diagnosed:?}"
        );
    }
    // the flat `name:` line survives the refusal of the hostile structure
    let found: Vec<&str> = report["packages"][0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    for path in [
        "kit/rules/bomb.md",
        "kit/agents/deep.md",
        "kit/agents/blocky.md",
        "kit/instructions/ok.md",
    ] {
        assert!(found.contains(&path), "{path} in {found:?}");
    }
}
