//! The blocking driver's worker threads, reused across calls and runs.
//!
//! Work that must not run on the driver's thread (SPEC DRV-02: parallel
//! groups, deadline-bound tools, models that cannot stop at a deadline,
//! runs a caller may cancel) goes to a worker. Workers are
//! kept for a while after their job, so a busy process starts a thread per
//! burst of concurrency rather than per call. The pool never makes a job
//! wait for a busy worker: a non-cooperative tool may hold its worker
//! forever, and the driver abandons it at its deadline — so when no worker
//! is idle, a new one starts.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, OnceLock, PoisonError};
use std::time::Duration;

/// How long an idle worker waits for another job before it exits.
const KEEP_IDLE: Duration = Duration::from_secs(10);

type Queued = Box<dyn FnOnce() + Send + 'static>;

/// Jobs waiting for a worker, and how many workers are waiting for jobs.
struct Queue {
    jobs: VecDeque<Queued>,
    idle: usize,
}

struct Pool {
    queue: Mutex<Queue>,
    wake: Condvar,
}

/// Run `job` on a worker thread of the process-wide pool: an idle one
/// when there is one, else a new one. Fails only when a needed thread
/// cannot be started.
pub(super) fn spawn(job: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(Pool::new).spawn(Box::new(job))
}

impl Pool {
    fn new() -> Self {
        Pool { queue: Mutex::new(Queue { jobs: VecDeque::new(), idle: 0 }), wake: Condvar::new() }
    }

    fn spawn(&'static self, job: Queued) -> std::io::Result<()> {
        let pool = self;
        let mut queue = pool.queue.lock().unwrap_or_else(PoisonError::into_inner);
        // Every queued job has an idle worker promised to it; this one gets
        // the next idle worker, if one is left over.
        if queue.idle > queue.jobs.len() {
            queue.jobs.push_back(job);
            drop(queue);
            pool.wake.notify_one();
            return Ok(());
        }
        drop(queue);
        std::thread::Builder::new().name("golem-work".into()).spawn(move || work(pool, job)).map(drop)
    }
}

/// A worker: run `first`, then whatever is queued, until idle too long.
fn work(pool: &'static Pool, first: Queued) {
    let mut job = first;
    loop {
        // Jobs contain their own panics (they report them as failures);
        // one that escapes anyway ends this worker, not the pool.
        job();
        let mut queue = pool.queue.lock().unwrap_or_else(PoisonError::into_inner);
        queue.idle += 1;
        let next = loop {
            if let Some(next) = queue.jobs.pop_front() {
                break Some(next);
            }
            let (guard, waited) = pool.wake.wait_timeout(queue, KEEP_IDLE).unwrap_or_else(PoisonError::into_inner);
            queue = guard;
            if waited.timed_out() && queue.jobs.is_empty() {
                break None;
            }
        };
        queue.idle -= 1;
        match next {
            Some(next) => job = next,
            None => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;
    use std::sync::{Arc, Barrier};
    use std::thread::ThreadId;

    /// A pool of the test's own, so other tests cannot take its workers.
    fn own_pool() -> &'static Pool {
        Box::leak(Box::new(Pool::new()))
    }

    fn idle(pool: &Pool) -> usize {
        pool.queue.lock().unwrap().idle
    }

    #[test]
    fn an_idle_worker_takes_the_next_job_instead_of_a_new_thread() {
        let pool = own_pool();
        let (tx, rx) = channel::<ThreadId>();
        let first = tx.clone();
        pool.spawn(Box::new(move || first.send(std::thread::current().id()).unwrap())).unwrap();
        let a = rx.recv().unwrap();
        while idle(pool) == 0 {
            std::thread::yield_now();
        }
        pool.spawn(Box::new(move || tx.send(std::thread::current().id()).unwrap())).unwrap();
        assert_eq!(rx.recv().unwrap(), a, "the idle worker ran the second job");
        assert_ne!(a, std::thread::current().id());
    }

    #[test]
    fn jobs_that_wait_for_each_other_all_get_workers() {
        // Four jobs that can only finish together, submitted while one
        // worker is idle: had any waited for a busy worker, they would
        // never finish.
        let pool = own_pool();
        let (tx, rx) = channel();
        let warm = tx.clone();
        pool.spawn(Box::new(move || warm.send(()).unwrap())).unwrap();
        rx.recv().unwrap();
        while idle(pool) == 0 {
            std::thread::yield_now();
        }
        let barrier = Arc::new(Barrier::new(4));
        for _ in 0..4 {
            let (barrier, tx) = (Arc::clone(&barrier), tx.clone());
            pool.spawn(Box::new(move || {
                barrier.wait();
                tx.send(()).unwrap();
            }))
            .unwrap();
        }
        for _ in 0..4 {
            rx.recv_timeout(Duration::from_secs(60)).expect("every job ran");
        }
    }
}
