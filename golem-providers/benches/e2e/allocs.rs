//! Heap allocations counted by a global allocator that forwards to the
//! system's (`stats_alloc`, since the workspace forbids our own `unsafe`):
//! a load-independent measure of per-run work, unlike wall and CPU time on
//! a shared machine. The count is the whole process's, so over the
//! loopback it includes the scripted server's few allocations per request,
//! the same for every contender (a run of each makes the same requests).

use stats_alloc::{StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Allocations (reallocations included) made so far.
pub fn so_far() -> u64 {
    let stats = GLOBAL.stats();
    (stats.allocations + stats.reallocations) as u64
}
