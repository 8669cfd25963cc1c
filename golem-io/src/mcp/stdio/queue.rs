//! The bounded queue between the client and the stdin writer thread
//! (issue 15): a server that stops reading its stdin must not make the
//! client hold an ever-growing backlog.
//!
//! The bound is in bytes. A message that does not fit is refused at once
//! — the client never blocks on a server that does not read — except into
//! an empty queue, so one message larger than the bound still goes out.
//! Closing drops whatever is queued and refuses everything after. A writer
//! that finds the server's stdin closed [breaks](OutQueue::break_off) the
//! queue: it hands back the requests that were waiting, to be failed at
//! once, and refuses every later message as [`Refused::Broken`].

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};

/// How many bytes of messages may wait for the server to read them.
pub const MAX_QUEUED: usize = 8 << 20;

/// Why a message was not queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The queue holds its bound already.
    Full,
    /// The client closed it.
    Closed,
    /// The server closed its stdin: nothing can reach it any more.
    Broken,
}

/// One message for the writer, and the request it carries, if any.
pub(crate) struct Line {
    pub(crate) bytes: Vec<u8>,
    pub(crate) request: Option<u64>,
}

/// Lines waiting for the writer thread.
pub(crate) struct OutQueue {
    state: Mutex<State>,
    ready: Condvar,
    limit: usize,
}

#[derive(Default)]
struct State {
    lines: VecDeque<Line>,
    bytes: usize,
    closed: bool,
    broken: bool,
}

impl OutQueue {
    pub(crate) fn new(limit: usize) -> Self {
        OutQueue { state: Mutex::new(State::default()), ready: Condvar::new(), limit }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queue `line` (for `request`, when it carries one) for the writer,
    /// or say why not.
    pub(crate) fn push(&self, line: Vec<u8>, request: Option<u64>) -> Result<(), Refused> {
        let mut state = self.lock();
        if state.broken {
            return Err(Refused::Broken);
        }
        if state.closed {
            return Err(Refused::Closed);
        }
        if state.bytes > 0 && state.bytes.saturating_add(line.len()) > self.limit {
            return Err(Refused::Full);
        }
        state.bytes += line.len();
        state.lines.push_back(Line { bytes: line, request });
        self.ready.notify_one();
        Ok(())
    }

    /// The next line, waiting for one; `None` once closed.
    pub(crate) fn pop(&self) -> Option<Line> {
        let mut state = self.lock();
        loop {
            if state.closed {
                return None;
            }
            if let Some(line) = state.lines.pop_front() {
                state.bytes -= line.bytes.len();
                return Some(line);
            }
            state = self.ready.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// The server's stdin is closed: close the queue for good and hand back
    /// the requests still waiting in it (to be failed).
    pub(crate) fn break_off(&self) -> Vec<u64> {
        let mut state = self.lock();
        state.broken = true;
        state.closed = true;
        state.bytes = 0;
        let waiting = std::mem::take(&mut state.lines).into_iter().filter_map(|line| line.request).collect();
        self.ready.notify_all();
        waiting
    }

    /// Drop what is queued, refuse what comes, wake the writer; idempotent.
    pub(crate) fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        state.lines = VecDeque::new();
        state.bytes = 0;
        self.ready.notify_all();
    }

    /// The bytes waiting now.
    #[cfg(test)]
    fn queued(&self) -> usize {
        self.lock().bytes
    }

    /// The bound, in bytes.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_holds_and_close_frees_the_backlog() {
        let queue = OutQueue::new(10);
        assert_eq!(queue.push(vec![b'a'; 25], None), Ok(()), "an empty queue takes any one message");
        assert_eq!(queue.push(vec![b'b'; 1], None), Err(Refused::Full));
        assert_eq!(queue.pop().map(|l| l.bytes.len()), Some(25));
        for _ in 0..10 {
            queue.push(vec![b'c'], None).unwrap();
        }
        assert_eq!(queue.push(vec![b'd'], None), Err(Refused::Full));
        assert_eq!(queue.queued(), 10);
        queue.close();
        assert_eq!(queue.queued(), 0, "nothing is kept after close");
        assert_eq!(queue.push(vec![b'e'], None), Err(Refused::Closed));
        assert!(queue.pop().is_none());
    }

    #[test]
    fn close_wakes_a_waiting_writer() {
        let queue = std::sync::Arc::new(OutQueue::new(10));
        let writer = {
            let queue = std::sync::Arc::clone(&queue);
            std::thread::spawn(move || queue.pop())
        };
        queue.close();
        assert!(writer.join().unwrap().is_none());
    }

    #[test]
    fn breaking_off_hands_back_the_waiting_requests_and_refuses_the_rest() {
        let queue = OutQueue::new(100);
        queue.push(b"reply".to_vec(), None).unwrap();
        queue.push(b"request 4".to_vec(), Some(4)).unwrap();
        queue.push(b"request 5".to_vec(), Some(5)).unwrap();
        assert_eq!(queue.break_off(), [4, 5]);
        assert_eq!(queue.push(b"request 6".to_vec(), Some(6)), Err(Refused::Broken));
        assert!(queue.pop().is_none());
        queue.close();
        assert_eq!(queue.push(Vec::new(), None), Err(Refused::Broken), "broken stays broken");
    }
}
