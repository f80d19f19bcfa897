use std::sync::mpsc;
use std::sync::{Mutex, MutexGuard};
use std::thread::{self, ThreadId};
use std::time::Duration;

use super::*;

fn here() -> ThreadId {
    thread::current().id()
}

/// The inline slots are counted for the whole process: tests that read where a slot
/// would be taken run one at a time.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn multi_thread(workers: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_time()
        .build()
        .unwrap()
}

/// Runs `test` on a multi-thread runtime of `workers`, one such test at a time.
fn on_workers<F: std::future::Future>(workers: usize, test: F) -> F::Output {
    let _serial = one_at_a_time();
    multi_thread(workers).block_on(test)
}

/// On a worker of a multi-thread runtime (where the services' handlers run: a spawned
/// task, not the test's own `block_on`, which runs its reads directly either way).
#[test]
fn a_read_on_a_multi_thread_runtime_runs_inline_on_the_calling_worker() {
    on_workers(2, async {
        let (caller, ran_on) = tokio::spawn(async {
            assert_eq!(place(Rows::Few), Place::Inline);
            (here(), run(Rows::Few, here).await.unwrap())
        })
        .await
        .unwrap();
        assert_eq!(ran_on, caller);
    });
}

/// All workers but one may be inside an inline read: with two workers, a read asked
/// for while another runs inline is handed over; with three, it still runs inline.
#[test]
fn reads_run_inline_on_all_workers_but_one() {
    let _serial = one_at_a_time();
    for (workers, inside_one) in [
        (1, Place::HandedOver),
        (2, Place::HandedOver),
        (3, Place::Inline),
    ] {
        let runtime = multi_thread(workers);
        let (first, nested) = runtime.block_on(async {
            tokio::spawn(async {
                (
                    place(Rows::Few),
                    run(Rows::Few, || place(Rows::Few)).await.unwrap(),
                )
            })
            .await
            .unwrap()
        });
        let alone = if workers == 1 {
            Place::HandedOver
        } else {
            Place::Inline
        };
        assert_eq!((first, nested), (alone, inside_one), "{workers} workers");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_read_on_a_current_thread_runtime_runs_on_a_blocking_thread() {
    for rows in [Rows::Few, Rows::AnyNumber] {
        assert_eq!(place(rows), Place::BlockingThread);
        let caller = here();
        let ran_on = run(rows, here).await.unwrap();
        assert_ne!(ran_on, caller);
    }
}

#[test]
fn outside_any_runtime_the_place_is_a_blocking_thread() {
    for rows in [Rows::Few, Rows::AnyNumber] {
        assert_eq!(place(rows), Place::BlockingThread);
    }
}

/// A read that panics is a failed read on either place, never a panic of the caller.
#[test]
fn a_panicking_read_is_answered_stopped_on_every_place() {
    let _serial = one_at_a_time();
    let multi = multi_thread(2);
    let current = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    // Inline, handed over, on a blocking thread (twice).
    for (runtime, rows) in [
        (&multi, Rows::Few),
        (&multi, Rows::AnyNumber),
        (&current, Rows::Few),
        (&current, Rows::AnyNumber),
    ] {
        let answer = runtime.block_on(async {
            tokio::spawn(run(rows, || -> u32 { panic!("a corrupt page") }))
                .await
                .expect("the calling task survives the read's panic")
        });
        assert_eq!(answer, Err(Stopped), "{rows:?}");
    }
}

/// A read asked for while tasks wait in the runtime's global queue is handed over even
/// with an inline slot free: the worker's core goes on running them meanwhile. (Here
/// one worker is held by a task and the other runs the test, so a task spawned from
/// outside the runtime stays queued.)
#[test]
fn a_read_asked_for_while_tasks_wait_is_handed_over() {
    on_workers(2, async {
        let (started, running) = mpsc::channel();
        let (release, released) = mpsc::channel::<()>();
        let holder = tokio::spawn(async move {
            started.send(()).unwrap();
            released.recv_timeout(Duration::from_secs(5))
        });
        running.recv_timeout(Duration::from_secs(5)).unwrap();
        let handle = tokio::runtime::Handle::current();
        let places = tokio::spawn(async move {
            let alone = place(Rows::Few);
            let queued = thread::spawn(move || handle.spawn(async {}))
                .join()
                .unwrap();
            let waiting = place(Rows::Few);
            (alone, waiting, queued)
        })
        .await
        .unwrap();
        release.send(()).unwrap();
        assert_eq!(holder.await.unwrap(), Ok(()));
        let (alone, waiting, queued) = places;
        queued.await.unwrap();
        assert_eq!((alone, waiting), (Place::Inline, Place::HandedOver));
    });
}

/// A read that panicked inline gives its slot back: the next read runs inline again.
#[test]
fn a_read_that_panicked_inline_gives_its_slot_back() {
    on_workers(2, async {
        let (stopped, next) = tokio::spawn(async {
            let stopped = run(Rows::Few, || -> u32 { panic!("a corrupt page") }).await;
            (stopped, place(Rows::Few))
        })
        .await
        .unwrap();
        assert_eq!((stopped, next), (Err(Stopped), Place::Inline));
    });
}

/// A read that may not run inline holds no queue of other tasks: with one worker (no
/// inline slot) or for any number of rows, the worker's core goes to another thread
/// and the task the read waits for, queued on that worker, runs. (Were the read
/// inline, it would wait for a task only its own worker may run: bounded here.)
#[test]
fn other_tasks_run_while_a_read_that_may_not_be_inline_holds_its_worker() {
    let _serial = one_at_a_time();
    for (workers, rows) in [(1, Rows::Few), (1, Rows::AnyNumber), (2, Rows::AnyNumber)] {
        let runtime = multi_thread(workers);
        let waited = runtime.block_on(async move {
            tokio::spawn(async move {
                let (tell, heard) = mpsc::channel::<()>();
                // Spawned from the worker: queued on that worker (its next task).
                let other = tokio::spawn(async move { tell.send(()).unwrap() });
                let waited = run(rows, move || heard.recv_timeout(Duration::from_secs(5)))
                    .await
                    .unwrap();
                other.await.unwrap();
                waited
            })
            .await
            .unwrap()
        });
        assert_eq!(waited, Ok(()), "{workers} workers, {rows:?}");
    }
}

/// A read of any number of rows takes no inline slot: inside it, a read of a few rows
/// still finds every slot free.
#[test]
fn a_read_of_any_number_of_rows_takes_no_inline_slot() {
    on_workers(2, async {
        let (before, inside) = tokio::spawn(async {
            let before = place(Rows::AnyNumber);
            (
                before,
                run(Rows::AnyNumber, || place(Rows::Few)).await.unwrap(),
            )
        })
        .await
        .unwrap();
        assert_eq!((before, inside), (Place::HandedOver, Place::Inline));
    });
}

/// While reads hold every worker they can (one inline, the next handed over), the
/// runtime still runs new work: the worker that handed its core over left it to
/// another thread. (Were every read inline, both workers would be held and the task
/// spawned here would never run: bounded here.)
#[test]
fn new_work_runs_while_reads_hold_every_worker_they_may() {
    on_workers(2, async {
        let (entered, inside) = mpsc::channel();
        let mut releases = Vec::new();
        let mut reads = Vec::new();
        for _ in 0..2 {
            let (release, released) = mpsc::channel::<()>();
            let entered = entered.clone();
            releases.push(release);
            reads.push(tokio::spawn(run(Rows::Few, move || {
                entered.send(()).unwrap();
                released.recv_timeout(Duration::from_secs(5))
            })));
            // The next read starts once this one is inside (on a worker of its own).
            inside.recv_timeout(Duration::from_secs(5)).unwrap();
        }
        let ran = tokio::time::timeout(Duration::from_secs(5), tokio::spawn(async { 42 })).await;
        for release in releases {
            release.send(()).unwrap();
        }
        for read in reads {
            assert_eq!(read.await.unwrap(), Ok(Ok(())));
        }
        assert_eq!(ran.map(Result::ok), Ok(Some(42)));
    });
}

#[test]
fn a_stopped_read_says_so_without_naming_what_it_read() {
    assert_eq!(Stopped.to_string(), "the read stopped before it answered");
}
