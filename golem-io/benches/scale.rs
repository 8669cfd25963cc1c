//! Scale (issue 3): 10,000 concurrent agent runs on one thread.
//!
//! Each run makes two model turns against an in-memory async model whose
//! latency is simulated with `async_io::Timer` (5–20 ms, varying by run),
//! plus one async tool call in between. Every run is a future polled by one
//! `join_all` under `async_io::block_on` on the main thread — no spawning,
//! no thread pool. Every result is checked.
//!
//! Memory: the peak resident set is reset (`/proc/self/clear_refs`) after a
//! warm-up, and a start gate in the model holds every run's first model call
//! until all runs are in flight, so the peak (`VmHWM`) covers all of them at
//! once. Per-run memory is (peak − baseline) / runs; the conversation bytes
//! each run holds at the end are estimated and subtracted to get the
//! overhead beyond the messages (target ≤ 16 KB).
//!
//! `cargo bench -p golem-io --bench scale` (runs: `GOLEM_SCALE_RUNS`,
//! default 10,000). Linux only for the memory and CPU figures.
//!
//! Tracing overhead (SPEC OBS-01): built with `--features tracing`, the
//! runs are traced; `GOLEM_SCALE_SUBSCRIBER=none` (default) leaves tracing's
//! no-op default in place, `enabled` installs a subscriber that accepts
//! every span and event and drops it — so every attribute is built and
//! recorded, and only exporting is left out.

use futures::channel::oneshot;
use futures::future::{join_all, FutureExt, Shared};
use golem_core::model::{AsyncModel, BoxFuture};
use golem_core::{Message, ModelError, Request, Response, Role, ToolCall, Usage};
use golem_io::{Agent, Tool, ToolContext};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Holds every first model call until all runs have made one.
/// Counts heap traffic, so the bench can report what each in-flight run
/// holds on the heap, apart from allocator slack and RSS noise.
#[global_allocator]
static GLOBAL: &stats_alloc::StatsAlloc<std::alloc::System> = &stats_alloc::INSTRUMENTED_SYSTEM;

/// Live heap bytes and blocks right now.
fn live_heap() -> (usize, usize) {
    let s = GLOBAL.stats();
    let bytes = (s.bytes_allocated as isize - s.bytes_deallocated as isize + s.bytes_reallocated).max(0) as usize;
    (bytes, s.allocations.saturating_sub(s.deallocations))
}

struct StartGate {
    expected: usize,
    arrived: AtomicUsize,
    open: Mutex<Option<oneshot::Sender<()>>>,
    opened: Shared<oneshot::Receiver<()>>,
    /// Resident set (kB) when the last run arrived, all of them in flight.
    rss_all_in_flight: AtomicUsize,
    heap_all_in_flight: AtomicUsize,
    blocks_all_in_flight: AtomicUsize,
}

impl StartGate {
    fn new(expected: usize) -> Self {
        let (tx, rx) = oneshot::channel();
        StartGate {
            expected,
            arrived: AtomicUsize::new(0),
            open: Mutex::new(Some(tx)),
            opened: rx.shared(),
            rss_all_in_flight: AtomicUsize::new(0),
            heap_all_in_flight: AtomicUsize::new(0),
            blocks_all_in_flight: AtomicUsize::new(0),
        }
    }

    async fn pass(&self) {
        if self.arrived.fetch_add(1, Ordering::SeqCst) + 1 == self.expected {
            self.rss_all_in_flight.store(status_kb("VmRSS"), Ordering::SeqCst);
            let (bytes, blocks) = live_heap();
            self.heap_all_in_flight.store(bytes, Ordering::SeqCst);
            self.blocks_all_in_flight.store(blocks, Ordering::SeqCst);
            if let Some(tx) = self.open.lock().unwrap().take() {
                let _ = tx.send(());
            }
        }
        let _ = self.opened.clone().await;
    }
}

/// The in-memory async model: turn 1 calls `lookup` with the run's number,
/// turn 2 answers with the tool's result. Latency 5–20 ms by run number.
struct LatentModel {
    gate: Arc<StartGate>,
}

fn run_number(request: &Request) -> u64 {
    let prompt = request.messages.iter().find(|m| m.role == Role::User).map_or("", |m| m.content.as_str());
    prompt.rsplit(' ').next().and_then(|n| n.parse().ok()).unwrap_or(0)
}

impl AsyncModel for LatentModel {
    fn generate_async<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(async move {
            let n = run_number(request);
            let result = request.messages.iter().find(|m| m.role == Role::Tool).map(|m| m.content.clone());
            if result.is_none() {
                self.gate.pass().await;
            }
            async_io::Timer::after(Duration::from_millis(5 + (n * 7919) % 16)).await;
            let usage = Usage::new(12, 4);
            Ok(match result {
                None => {
                    let call = ToolCall::new(format!("call-{n}"), "lookup", format!(r#"{{"n":{n}}}"#));
                    Response::tool_calls(vec![call]).with_usage(usage)
                }
                Some(value) => Response::text(format!("run {n}: {value}")).with_usage(usage),
            })
        })
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Lookup {
    n: u64,
}

fn status_kb(field: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse().ok())
        .unwrap_or(0)
}

/// Heap bytes a conversation holds, roughly: the message structs, their
/// strings and their tool calls. The run and conversation ids each message
/// carries are shared with the run (one copy per run), so they do not count.
fn message_bytes(messages: &[Message]) -> usize {
    messages
        .iter()
        .map(|m| {
            let calls: usize = m
                .tool_calls
                .iter()
                .map(|c| std::mem::size_of::<ToolCall>() + c.id.capacity() + c.name.capacity() + c.args.as_str().len())
                .sum();
            std::mem::size_of::<Message>()
                + m.content.capacity()
                + m.tool_call_id.capacity()
                + m.tool_name.capacity()
                + calls
        })
        .sum()
}

/// Process CPU time (user + system) in milliseconds, from /proc (Linux).
fn cpu_ms() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are the
    // 12th and 13th of them, in clock ticks (100 per second on Linux).
    let rest = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<u64> = rest.split_whitespace().filter_map(|f| f.parse().ok()).collect();
    fields.get(10..12).map_or(0, |t| (t[0] + t[1]) * 10)
}

/// A subscriber that wants everything and keeps nothing.
#[cfg(feature = "tracing")]
struct EnabledNoop(AtomicUsize);

#[cfg(feature = "tracing")]
impl tracing::Subscriber for EnabledNoop {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(self.0.fetch_add(1, Ordering::Relaxed) as u64 + 1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

fn main() {
    #[cfg(feature = "tracing")]
    let subscriber = std::env::var("GOLEM_SCALE_SUBSCRIBER").unwrap_or_else(|_| "none".to_string());
    #[cfg(feature = "tracing")]
    if subscriber == "enabled" {
        tracing::subscriber::set_global_default(EnabledNoop(AtomicUsize::new(0))).unwrap();
    }
    #[cfg(not(feature = "tracing"))]
    let subscriber = "tracing feature off".to_string();
    let runs: usize = std::env::var("GOLEM_SCALE_RUNS").ok().and_then(|n| n.parse().ok()).unwrap_or(10_000);
    let gate = Arc::new(StartGate::new(runs));
    let lookup = Tool::typed_async("lookup", "Look a number up.", |_: ToolContext<()>, args: Lookup| async move {
        Ok(format!("looked up {}", args.n * 2))
    });
    let agent = Agent::<()>::builder_async(LatentModel { gate: Arc::clone(&gate) }).tool(lookup).build().unwrap();

    // Warm up with another agent (so the gate stays closed): reactor thread,
    // allocator arenas, lazy statics.
    let warm_gate = Arc::new(StartGate::new(1));
    let warm_lookup =
        Tool::typed_async("lookup", "", |_: ToolContext<()>, a: Lookup| async move { Ok(a.n.to_string()) });
    let warm = Agent::<()>::builder_async(LatentModel { gate: warm_gate }).tool(warm_lookup).build().unwrap();
    let warmed = async_io::block_on(warm.run_with(()).prompt("warm up 1").call_async()).unwrap();
    assert_eq!(warmed.output, "run 1: 1");

    let prompts: Vec<String> = (0..runs).map(|i| format!("look up number {i}")).collect();
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let baseline = status_kb("VmRSS");
    let (heap_baseline, blocks_baseline) = live_heap();
    let in_flight = AtomicUsize::new(0);
    let peak_in_flight = AtomicUsize::new(0);

    let started = Instant::now();
    let cpu_before = cpu_ms();
    let results = async_io::block_on(join_all(prompts.iter().map(|prompt| {
        let (agent, in_flight, peak_in_flight) = (&agent, &in_flight, &peak_in_flight);
        async move {
            let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            peak_in_flight.fetch_max(now, Ordering::SeqCst);
            let result = agent.run_with(()).prompt(prompt.as_str()).call_async().await;
            in_flight.fetch_sub(1, Ordering::SeqCst);
            result
        }
    })));
    let wall = started.elapsed();
    let cpu = cpu_ms().saturating_sub(cpu_before);
    let peak = status_kb("VmHWM");

    assert_eq!(peak_in_flight.load(Ordering::SeqCst), runs, "every run was in flight at once");
    let mut messages = 0usize;
    for (i, result) in results.iter().enumerate() {
        let result = result.as_ref().unwrap_or_else(|e| panic!("run {i} failed: {e}"));
        assert_eq!(result.output, format!("run {i}: looked up {}", i * 2), "run {i}");
        assert_eq!((result.messages.len(), result.requests, result.tool_calls), (4, 2, 1), "run {i}");
        messages += message_bytes(&result.messages);
    }
    let all_in_flight = gate.rss_all_in_flight.load(Ordering::SeqCst);
    let per_run = |kb: usize| (kb.saturating_sub(baseline) * 1024) / runs;
    let message_per_run = messages / runs;
    println!("scale: {runs} concurrent runs, 2 model turns + 1 tool each, one thread (async_io::block_on + join_all)");
    println!("  all results checked; peak in flight: {}", peak_in_flight.load(Ordering::SeqCst));
    println!("  tracing: {subscriber}; CPU time {cpu} ms ({:.1} µs per run)", cpu as f64 * 1e3 / runs as f64);
    println!(
        "  wall time: {:.1} ms ({:.1} µs per run)",
        wall.as_secs_f64() * 1e3,
        wall.as_secs_f64() * 1e6 / runs as f64
    );
    println!("  baseline RSS {baseline} kB; RSS with every run in flight {all_in_flight} kB; peak (VmHWM) {peak} kB");
    println!("  per in-flight run: {} B at the start gate, {} B at peak", per_run(all_in_flight), per_run(peak));
    let heap = gate.heap_all_in_flight.load(Ordering::SeqCst).saturating_sub(heap_baseline);
    let blocks = gate.blocks_all_in_flight.load(Ordering::SeqCst).saturating_sub(blocks_baseline);
    println!(
        "  live heap per in-flight run at the start gate: {} B in {} blocks (no allocator slack)",
        heap / runs,
        blocks / runs
    );
    println!(
        "  final conversation per run ≈ {message_per_run} B; peak beyond it ≈ {} B (target ≤ 8192 B)",
        per_run(peak).saturating_sub(message_per_run)
    );
}
