//! Idle keep-alive connections, per target (scheme, host, port).

use super::conn::Conn;
use super::target::Target;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The idle connections. Most recently returned first out: the freshest
/// connection is the least likely to have been closed by the server.
pub(crate) struct Pool {
    idle: Mutex<HashMap<Target, Vec<(Conn, Instant)>>>,
    max_per_target: usize,
    max_age: Duration,
}

impl Pool {
    pub(crate) fn new(max_per_target: usize, max_age: Duration) -> Self {
        Pool { idle: Mutex::new(HashMap::new()), max_per_target, max_age }
    }

    /// A live idle connection to `target`, if any; stale ones are dropped.
    pub(crate) fn checkout(&self, target: &Target) -> Option<Conn> {
        let mut idle = self.idle.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let conns = idle.get_mut(target)?;
        let found = loop {
            let Some((conn, since)) = conns.pop() else { break None };
            if since.elapsed() < self.max_age && conn.looks_alive() {
                break Some(conn);
            }
        };
        if conns.is_empty() {
            idle.remove(target);
        }
        found
    }

    /// Keep `conn` for reuse.
    pub(crate) fn checkin(&self, target: Target, conn: Conn) {
        if self.max_per_target == 0 {
            return;
        }
        let now = Instant::now();
        let mut idle = self.idle.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let conns = idle.entry(target).or_default();
        // Oldest first: the connections past their age lead the list, and
        // go now, so the count is bounded by the idle timeout even when it
        // has no limit of its own.
        let stale = conns.iter().take_while(|(_, since)| now.duration_since(*since) >= self.max_age).count();
        let over = (conns.len() - stale + 1).saturating_sub(self.max_per_target);
        conns.drain(..stale + over);
        conns.push((conn, now));
    }

    /// Forget every idle connection to `target` (after one proved stale,
    /// its older siblings are suspect too).
    pub(crate) fn clear(&self, target: &Target) {
        let mut idle = self.idle.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        idle.remove(target);
    }
}
