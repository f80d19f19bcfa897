use std::thread::{self, ThreadId};

use super::*;

fn here() -> ThreadId {
    thread::current().id()
}

/// On a worker of a multi-thread runtime (where the services' handlers run: a spawned
/// task, not the test's own `block_on`, which runs its reads directly either way).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_on_a_multi_thread_runtime_runs_on_the_calling_worker() {
    let (caller, ran_on) = tokio::spawn(async {
        assert_eq!(place(), Place::InPlace);
        (here(), run(here).await.unwrap())
    })
    .await
    .unwrap();
    assert_eq!(ran_on, caller);
}

#[tokio::test(flavor = "current_thread")]
async fn a_read_on_a_current_thread_runtime_runs_on_a_blocking_thread() {
    assert_eq!(place(), Place::BlockingThread);
    let caller = here();
    let ran_on = run(here).await.unwrap();
    assert_ne!(ran_on, caller);
}

#[test]
fn outside_any_runtime_the_place_is_a_blocking_thread() {
    assert_eq!(place(), Place::BlockingThread);
}

/// A read that panics is a failed read on either place, never a panic of the caller.
#[test]
fn a_panicking_read_is_answered_stopped_on_either_runtime() {
    let multi = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let current = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    for runtime in [multi, current] {
        let answer = runtime.block_on(async {
            tokio::spawn(run(|| -> u32 { panic!("a corrupt page") }))
                .await
                .expect("the calling task survives the read's panic")
        });
        assert_eq!(answer, Err(Stopped));
    }
}

/// While one read holds the only worker, the runtime's other tasks still run: the
/// worker's core went to another thread. (A read run inline would hold the core, and
/// the task it waits for, queued on that worker, would never run: bounded here.)
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn other_tasks_run_while_a_read_holds_the_only_worker() {
    let waited = tokio::spawn(async {
        let (tell, heard) = std::sync::mpsc::channel::<()>();
        // Spawned from the worker: queued on that worker, runnable by no other thread.
        let other = tokio::spawn(async move { tell.send(()).unwrap() });
        let waited = run(move || heard.recv_timeout(std::time::Duration::from_secs(5)))
            .await
            .unwrap();
        other.await.unwrap();
        waited
    })
    .await
    .unwrap();
    assert_eq!(waited, Ok(()));
}

#[test]
fn a_stopped_read_says_so_without_naming_what_it_read() {
    assert_eq!(Stopped.to_string(), "the read stopped before it answered");
}
