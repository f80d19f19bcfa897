//! The image runs as built (issue 28 item 2). No container engine runs here, so the
//! test reads the Dockerfile's final stage and does what the engine would: lays out the
//! data directory as the image's `COPY --chown` makes it, starts the entrypoint with the
//! image's own `CMD` as the image's `USER` (when the test runs as root), with an empty
//! environment and a read-only working directory, and asks every service's health.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failing test

use std::os::unix::fs::{PermissionsExt, chown};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use neuralis_tests::ports::free_port;

fn binary() -> PathBuf {
    neuralis_tests::process::neuralis_binary(env!("CARGO_BIN_EXE_neuralis-node"))
}

/// What the Dockerfile's last stage says about how the image runs.
#[derive(Debug)]
struct Image {
    entrypoint: Vec<String>,
    cmd: Vec<String>,
    user: (u32, u32),
    volumes: Vec<String>,
    /// Directories the final stage copies in with `--chown=uid:gid`.
    owned: Vec<(String, (u32, u32))>,
}

impl Image {
    fn read() -> Image {
        let text =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../Dockerfile"))
                .unwrap();
        let last = text.rsplit("\nFROM ").next().unwrap();
        let mut image = Image {
            entrypoint: Vec::new(),
            cmd: Vec::new(),
            user: (0, 0),
            volumes: Vec::new(),
            owned: Vec::new(),
        };
        for line in last.lines() {
            let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
            match word {
                "ENTRYPOINT" => image.entrypoint = serde_json::from_str(rest).unwrap(),
                "CMD" => image.cmd = serde_json::from_str(rest).unwrap(),
                "VOLUME" => image.volumes = serde_json::from_str(rest).unwrap(),
                "USER" => image.user = ids(rest),
                "COPY" if rest.starts_with("--from=") && rest.contains("--chown=") => {
                    let owner = rest.split("--chown=").nth(1).unwrap();
                    let owner = ids(owner.split_whitespace().next().unwrap());
                    let target = rest.split_whitespace().last().unwrap();
                    image.owned.push((target.to_owned(), owner));
                }
                _ => {}
            }
        }
        image
    }
}

fn ids(text: &str) -> (u32, u32) {
    let (user, group) = text.trim().split_once(':').unwrap();
    (user.parse().unwrap(), group.parse().unwrap())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| out.stdout.starts_with(b"0\n"))
}

/// Starts the image's entrypoint and command in `root` (the image's filesystem, as far
/// as the command reaches it). The gRPC port is moved to a free one, and the admin port
/// too: in a container each has its own network namespace.
fn start(image: &Image, root: &Path, port: u16, log: &Path) -> Child {
    let rewrite = |arg: &String| {
        if arg.starts_with('/') && image.volumes.iter().any(|v| arg.starts_with(v.as_str())) {
            root.join(arg.trim_start_matches('/')).display().to_string()
        } else {
            arg.replace("0.0.0.0:7400", &format!("127.0.0.1:{port}"))
        }
    };
    let args: Vec<String> = image.entrypoint[1..]
        .iter()
        .chain(&image.cmd)
        .map(rewrite)
        .collect();
    let cwd = root.join("work");
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::set_permissions(&cwd, std::fs::Permissions::from_mode(0o555)).unwrap();
    let mut command = Command::new(binary());
    command
        .args(&args)
        .env_clear()
        .env(
            "NEURALIS__ADMIN_LISTEN",
            format!("127.0.0.1:{}", free_port()),
        )
        .current_dir(&cwd)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).unwrap());
    if is_root() {
        use std::os::unix::process::CommandExt;
        command.uid(image.user.0).gid(image.user.1);
    }
    command.spawn().unwrap()
}

fn healthy(port: u16, service: &str) -> bool {
    Command::new(binary())
        .args(["health", "--server", &format!("http://127.0.0.1:{port}")])
        .args(["--service", service, "--timeout-ms", "2000"])
        .output()
        .is_ok_and(|out| out.status.success())
}

/// Lays the image's filesystem out under a fresh directory: every `COPY --chown`
/// target of the final stage, owned as the image owns it.
fn layout(image: &Image, honour_chown: bool) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    for (target, (uid, gid)) in &image.owned {
        let dir = root.path().join(target.trim_start_matches('/'));
        std::fs::create_dir_all(&dir).unwrap();
        let mut parent = dir.parent();
        while let Some(p) = parent.filter(|p| p.starts_with(root.path())) {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
            parent = p.parent();
        }
        if honour_chown && is_root() {
            chown(&dir, Some(*uid), Some(*gid)).unwrap();
        }
    }
    root
}

#[test]
fn the_image_command_as_its_user_answers_health_for_every_service() {
    let image = Image::read();
    assert_eq!(image.entrypoint[0], "/usr/local/bin/neuralis");
    assert_ne!(image.user.0, 0, "the image runs as a non-root user");
    let data = image
        .cmd
        .iter()
        .skip_while(|arg| *arg != "--data-dir")
        .nth(1)
        .expect("the command names its data directory");
    assert!(
        image.volumes.contains(data),
        "the data directory {data} is a declared volume: {:?}",
        image.volumes
    );
    assert!(
        image
            .owned
            .iter()
            .any(|(target, owner)| target == data && *owner == image.user),
        "the data directory belongs to the image's user: {:?}",
        image.owned
    );
    let root = layout(&image, true);
    let port = free_port();
    let log = root.path().join("serve.log");
    let mut child = start(&image, root.path(), port, &log);
    let deadline = Instant::now() + Duration::from_secs(60);
    let services = [
        "",
        "neuralis.sync.v1.SourceService",
        "neuralis.discovery.v1.DiscoveryService",
        "neuralis.policy.v1.PolicyService",
    ];
    while !services.iter().all(|service| healthy(port, service)) {
        if let Some(status) = child.try_wait().unwrap() {
            panic!(
                "the image's command exited with {status}: {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        assert!(
            Instant::now() < deadline,
            "never SERVING: {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

/// The check can fail: without the image's `--chown` the data directory is root's, and
/// the command exits as the image's user (what the image did before it declared one).
#[test]
fn without_the_chown_the_image_user_cannot_start() {
    if !is_root() {
        eprintln!("not root: the image's user cannot be taken, nothing to check");
        return;
    }
    let image = Image::read();
    let root = layout(&image, false);
    let log: PathBuf = root.path().join("serve.log");
    let mut child = start(&image, root.path(), free_port(), &log);
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "it served without a writable data dir"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(!status.success());
}
