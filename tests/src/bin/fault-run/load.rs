//! The steady load of a fault run: callers at a fixed rate, concurrency and count doing
//! `ListPackages`, `ActivateSkill` and `ReadFile`, a writer that edits a skill and
//! syncs, and the check of every answer against what the caller may see now.
//!
//! A skill's description carries the writer's generation (`gen-N`). Once a
//! `SyncSource` stream for generation N ended done, the writer raises the floor to N;
//! every call reads the floor when it starts, so an answer showing a generation below
//! it is a pre-write row after a finish: WRONG. A bundle file is hidden from the load
//! caller by the source's URI policy: its name or content in any answer is WRONG.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use neuralis_proto::discovery::v1 as pb;
use neuralis_proto::discovery::v1::discovery_service_client::DiscoveryServiceClient;
use neuralis_proto::sync::v1 as sync;
use neuralis_proto::sync::v1::source_service_client::SourceServiceClient;
use neuralis_tests::process::code_name;
use tokio::sync::Mutex;
use tonic::transport::Channel;

pub const PROJECT: &str = "proj";
pub const SLUG: &str = "repo";
pub const SKILL: &str = ".claude/skills/probe/SKILL.md";
/// The bundle file the load caller may not read.
pub const HIDDEN: &str = ".claude/skills/probe/hidden-ledger.md";
const HIDDEN_NAME: &str = "hidden-ledger";
const HIDDEN_CONTENT: &str = "LEDGER-MARKER";
/// Each call's deadline: no call outlives it, so the run always ends.
pub const CALL_DEADLINE: Duration = Duration::from_secs(5);

/// The skill's text at generation `n`.
pub fn skill_text(n: u64) -> String {
    format!("---\nname: probe\ndescription: probe at gen-{n}\n---\nBody of gen-{n}.\n")
}

pub fn hidden_text() -> String {
    format!("# Ledger\n{HIDDEN_CONTENT}\n")
}

/// The generation a text shows (`gen-N`), if any.
pub fn generation(text: &str) -> Option<u64> {
    let rest = &text[text.find("gen-")? + 4..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The shape of the load.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub calls: usize,
    pub rate: f64,
    pub concurrency: usize,
    pub write_every: Duration,
}

/// The four calls, in the order callers cycle through them.
pub const KINDS: [&str; 4] = [
    "ListPackages",
    "ActivateSkill",
    "ReadFile(skill)",
    "ReadFile(hidden)",
];

/// What one kind of call met.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub sent: usize,
    pub ok: usize,
    pub failed: BTreeMap<String, usize>,
    /// Answers to calls started after at least one finish (checked for pre-write rows).
    pub after_finish: usize,
    /// Pre-write rows after a finish (or the skill missing).
    pub stale: usize,
    /// The hidden file's name or content in an answer.
    pub leaked: usize,
}

/// One finished call, in seconds since the load started.
#[derive(Debug, Clone, Copy)]
pub struct Event {
    pub start: f64,
    pub end: f64,
    pub ok: bool,
    /// The failure's code (`OK` for an answer).
    pub code: &'static str,
}

/// A code name as a `'static` label for [`Event`].
fn label(code: &str) -> &'static str {
    match code {
        "OK" => "OK",
        "UNAVAILABLE" => "UNAVAILABLE",
        "CANCELLED" => "CANCELLED",
        "DEADLINE_EXCEEDED" => "DEADLINE_EXCEEDED",
        "NOT_FOUND" => "NOT_FOUND",
        "INTERNAL" => "INTERNAL",
        "UNKNOWN" => "UNKNOWN",
        _ => "OTHER",
    }
}

/// Everything a load saw.
#[derive(Debug, Default)]
pub struct Seen {
    pub tallies: Vec<Tally>,
    pub events: Vec<Event>,
    /// The writer's syncs: sent, failed by code, and events.
    pub writes: Tally,
    pub write_events: Vec<Event>,
    pub wall: f64,
}

/// The clients and names a load needs.
#[derive(Clone)]
pub struct Target {
    pub discovery: Channel,
    pub sources: Channel,
    pub member: String,
    pub admin: String,
    pub skill_id: String,
    pub root: PathBuf,
    /// Where the writer prepares a file before renaming it into the tree.
    pub scratch: PathBuf,
}

fn authorized<T>(message: T, token: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.set_timeout(CALL_DEADLINE);
    if let Ok(value) = format!("Bearer {token}").parse() {
        request.metadata_mut().insert("authorization", value);
    }
    request
}

fn scope() -> Option<pb::Scope> {
    Some(pb::Scope {
        project_id: PROJECT.into(),
        agent_id: "a1".into(),
        conversation_id: String::new(),
    })
}

/// A call's verdict: `Ok(wrong)` with what was wrong in the answer, or the code.
enum Verdict {
    Answered { stale: bool, leaked: bool },
    Failed(String),
}

fn leaks(text: &str) -> bool {
    text.contains(HIDDEN_NAME) || text.contains(HIDDEN_CONTENT)
}

/// Calls kind `kind` once and judges the answer against `floor` (read at its start).
async fn call(target: &Target, kind: usize, floor: u64) -> Verdict {
    let mut client = DiscoveryServiceClient::new(target.discovery.clone());
    let token = &target.member;
    let stale = |text: &str| generation(text).is_none_or(|g| g < floor);
    let read = |path: &str| pb::ReadFileRequest {
        scope: scope(),
        source_slug: SLUG.into(),
        package_id: String::new(),
        path: path.into(),
    };
    let outcome = match kind {
        0 => {
            let request = pb::ListPackagesRequest {
                scope: scope(),
                page_size: 100,
                ..Default::default()
            };
            client
                .list_packages(authorized(request, token))
                .await
                .map(|answer| {
                    let files: Vec<pb::PackageFile> = answer
                        .into_inner()
                        .packages
                        .into_iter()
                        .flat_map(|p| p.files)
                        .collect();
                    let leaked = files
                        .iter()
                        .any(|f| leaks(&f.path) || f.files.iter().any(|e| leaks(e)));
                    let skill = files.iter().find(|f| f.path == SKILL);
                    Verdict::Answered {
                        stale: skill.is_none_or(|f| stale(&f.description)),
                        leaked,
                    }
                })
        }
        1 => {
            let request = pb::ActivateSkillRequest {
                scope: scope(),
                skill_id: target.skill_id.clone(),
            };
            client
                .activate_skill(authorized(request, token))
                .await
                .map(|answer| {
                    let answer = answer.into_inner();
                    Verdict::Answered {
                        stale: stale(&answer.body),
                        leaked: leaks(&answer.body) || answer.files.iter().any(|e| leaks(e)),
                    }
                })
        }
        2 => client
            .read_file(authorized(read(SKILL), token))
            .await
            .map(|answer| {
                let content = String::from_utf8_lossy(&answer.get_ref().content).into_owned();
                Verdict::Answered {
                    stale: stale(&content),
                    leaked: leaks(&content),
                }
            }),
        // The hidden file: NOT_FOUND is the right answer, any content is a leak.
        _ => match client.read_file(authorized(read(HIDDEN), token)).await {
            Ok(_) => Ok(Verdict::Answered {
                stale: false,
                leaked: true,
            }),
            Err(status) if status.code() == tonic::Code::NotFound => Ok(Verdict::Answered {
                stale: false,
                leaked: leaks(status.message()),
            }),
            Err(status) => Err(status),
        },
    };
    match outcome {
        Ok(verdict) => verdict,
        Err(status) => Verdict::Failed(code_name(status.code())),
    }
}

/// Edits the skill to generation `n` (written aside, then renamed: never half a file)
/// and syncs; the floor rises once the stream ended done.
async fn write(target: &Target, n: u64) -> Result<(), String> {
    let scratch = target.scratch.join("SKILL.md");
    std::fs::write(&scratch, skill_text(n)).map_err(|e| format!("write: {e}"))?;
    std::fs::rename(&scratch, target.root.join(SKILL)).map_err(|e| format!("rename: {e}"))?;
    sync_source(target).await
}

/// One `SyncSource`, to the end of its stream; the code on failure.
pub async fn sync_source(target: &Target) -> Result<(), String> {
    let mut client = SourceServiceClient::new(target.sources.clone());
    let request = sync::SyncSourceRequest {
        project: PROJECT.into(),
        slug: SLUG.into(),
    };
    let mut request = authorized(request, &target.admin);
    request.set_timeout(Duration::from_secs(30));
    let mut stream = client
        .sync_source(request)
        .await
        .map_err(|s| code_name(s.code()))?
        .into_inner();
    let mut done = false;
    while let Some(update) = stream.message().await.map_err(|s| code_name(s.code()))? {
        done |= update.done;
    }
    if done {
        Ok(())
    } else {
        Err("ENDED_NOT_DONE".into())
    }
}

/// Runs the load to its last call, the writer beside it; starts at `t0`.
pub async fn run(target: Target, shape: Shape, t0: Instant) -> Seen {
    let next = Arc::new(AtomicUsize::new(0));
    let floor = Arc::new(AtomicU64::new(0));
    let seen = Arc::new(Mutex::new(Seen {
        tallies: vec![Tally::default(); KINDS.len()],
        ..Seen::default()
    }));
    let loading = Arc::new(AtomicBool::new(true));
    let writer = {
        let (target, floor, seen, loading) =
            (target.clone(), floor.clone(), seen.clone(), loading.clone());
        tokio::spawn(async move {
            let mut n = 0;
            while loading.load(Ordering::SeqCst) {
                tokio::time::sleep(shape.write_every).await;
                n += 1;
                let start = t0.elapsed().as_secs_f64();
                let result = write(&target, n).await;
                let end = t0.elapsed().as_secs_f64();
                if result.is_ok() {
                    floor.fetch_max(n, Ordering::SeqCst);
                }
                let mut seen = seen.lock().await;
                seen.writes.sent += 1;
                let ok = result.is_ok();
                match result {
                    Ok(()) => seen.writes.ok += 1,
                    Err(code) => *seen.writes.failed.entry(code).or_default() += 1,
                }
                seen.write_events.push(Event {
                    start,
                    end,
                    ok,
                    code: "OK",
                });
            }
        })
    };
    let mut callers = Vec::new();
    for _ in 0..shape.concurrency {
        let (target, next, floor, seen) =
            (target.clone(), next.clone(), floor.clone(), seen.clone());
        callers.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= shape.calls {
                    break;
                }
                let due = t0 + Duration::from_secs_f64(i as f64 / shape.rate);
                tokio::time::sleep_until(due.into()).await;
                let kind = i % KINDS.len();
                let start = t0.elapsed().as_secs_f64();
                let floor = floor.load(Ordering::SeqCst);
                let verdict = call(&target, kind, floor).await;
                let end = t0.elapsed().as_secs_f64();
                let mut seen = seen.lock().await;
                let tally = &mut seen.tallies[kind];
                tally.sent += 1;
                let (ok, code) = match verdict {
                    Verdict::Answered { stale, leaked } => {
                        tally.ok += 1;
                        tally.after_finish += usize::from(floor > 0);
                        tally.stale += usize::from(stale);
                        tally.leaked += usize::from(leaked);
                        (true, "OK")
                    }
                    Verdict::Failed(code) => {
                        let name = label(&code);
                        *tally.failed.entry(code).or_default() += 1;
                        (false, name)
                    }
                };
                seen.events.push(Event {
                    start,
                    end,
                    ok,
                    code,
                });
            }
        }));
    }
    for caller in callers {
        let _ = caller.await;
    }
    loading.store(false, Ordering::SeqCst);
    let _ = writer.await;
    let mut seen = std::mem::take(&mut *seen.lock().await);
    seen.wall = t0.elapsed().as_secs_f64();
    seen
}
