//! End to end (issue 20): golem with its defaults against a hand-written
//! client on the same transports, interleaved in one process run.
//!
//! A scripted OpenAI-compatible server runs in this process on 127.0.0.1
//! (its own threads; its CPU time is measured and subtracted) — or, where
//! the open-file limit cannot hold both ends of every connection (10,000
//! runs in flight), in a child process, each measured segment then on a
//! fresh pool warmed just before it (see `Layout`). Each
//! scenario runs every contender in turn, several rounds, rotating the
//! order: the golem blocking driver and the bare blocking loop (both on
//! `UreqTransport`), the golem async driver and the bare async loop (both
//! on `AsyncIoTransport`). The blocking driver's agent has the tool as a
//! plain closure and the async driver's as an async fn, as each kind of
//! program writes it; a second async contender has the plain closure, which
//! SPEC DRV-04 runs on the blocking thread pool (the price of that hand-off). A run is one user prompt, `turns` tool calls
//! (`lookup`) and a final answer, every answer checked.
//!
//! Reported per contender: runs/s, client CPU per run (process CPU time
//! minus the server's), peak RSS of the segment (`VmHWM` after
//! `clear_refs`), p99 latency where runs overlap; and golem ÷ bare.
//!
//! `cargo bench -p golem-providers --bench e2e` (`GOLEM_BENCH_SCALE=0.2`
//! for a quick look, `=5` for steadier numbers; `GOLEM_BENCH_ONLY=stream`
//! for the scenarios whose name holds a word, `GOLEM_BENCH_DRIVER=Blocking`
//! or `Async` for one driver's pair; `GOLEM_BENCH_ROUNDS=20` with
//! `GOLEM_BENCH_SCALE=0.5` interleaves more finely on a busy machine;
//! `GOLEM_BENCH_TRANSPORT=memory` answers in memory instead of over the
//! loopback, every contender alike, which leaves only the client code's CPU;
//! `loopback_parts.rs` names the variables that add parts of the loopback
//! back; `GOLEM_BENCH_BARE_TIMEOUT=1` gives the bare loop's requests the
//! 300 s deadline golem's calls carry by default, `GOLEM_BENCH_NO_DEADLINE=1`
//! takes it off golem's agents; `GOLEM_BENCH_DRIVER`
//! also takes whole contender names, `GolemAsync,BareAsync`;
//! `GOLEM_BENCH_POLLS=1` counts the runs' polls; `GOLEM_BENCH_TASKS=8`
//! runs the in-flight scenarios with that many runs in flight instead;
//! `GOLEM_BENCH_BARE_EXTRA=walk:N` gives the bare loop N functions' more code
//! to walk per plain answer (`extra_code.rs`: what a line of code costs);
//! `GOLEM_BENCH_PERCENTILES=1` prints p50 to the slowest run where runs overlap (a segment's slowest
//! runs are its tasks' first, started in one burst); `GOLEM_BENCH_CLOCK=proc`
//! reads CPU clocks from `/proc`, so valgrind's tools can run the bench).
//! Allocations per run are counted by `allocs.rs`.
//! Linux only for RSS.

mod allocs;
mod bare;
mod extra_code;
mod loopback_parts;
mod memory;
mod server;

use golem_io::{Agent, Tool, ToolContext};
use golem_providers::openai::{Config, Preset};
use golem_providers::transport::{AsyncIoTransport, AsyncTransport, Transport, UreqTransport};
use golem_providers::OpenAi;
use serde_json::Value;
use server::Server;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Contender {
    GolemBlocking,
    BareBlocking,
    GolemAsync,
    /// The async driver with the tool as a plain closure, which SPEC DRV-04
    /// runs on the blocking thread pool: a hand-off per tool call.
    GolemAsyncPoolTool,
    BareAsync,
}

use Contender::*;

#[derive(Clone, Copy)]
enum Shape {
    /// One run after another on the main thread.
    Sequential { runs: usize },
    /// `tasks` runs in flight at once, each task doing `each` runs, on an
    /// executor of `threads` threads (async contenders only).
    InFlight { threads: usize, tasks: usize, each: usize },
}

struct Scenario {
    name: &'static str,
    turns: usize,
    stream: bool,
    shape: Shape,
    contenders: &'static [Contender],
}

/// Everything one contender needs.
struct Clients {
    url: String,
    /// The tool as a plain closure (what a blocking program writes).
    agent: Agent<()>,
    /// The tool as an async fn (what an async program writes).
    agent_async_tool: Agent<()>,
    /// The bare loops' transports: a default `UreqTransport` and
    /// `AsyncIoTransport`, or in memory mode the in-memory one.
    blocking: Arc<dyn Transport>,
    asynchronous: Arc<dyn AsyncTransport>,
    tools: Value,
}

#[derive(Default, Clone)]
struct Totals {
    runs: usize,
    wall: Duration,
    cpu_ns: u64,
    peak_kb: usize,
    latencies: Vec<Duration>,
    /// Heap allocations (`allocs.rs`).
    allocs: u64,
    /// Polls of the async runs' futures.
    polls: u64,
}

fn scale() -> f64 {
    std::env::var("GOLEM_BENCH_SCALE").ok().and_then(|s| s.parse().ok()).unwrap_or(1.0)
}

/// Interleaved rounds per scenario: more, shorter rounds (with a smaller
/// scale) spread a loaded machine's bursts evenly over the contenders.
fn rounds() -> usize {
    std::env::var("GOLEM_BENCH_ROUNDS").ok().and_then(|s| s.parse().ok()).filter(|&n| n > 0).unwrap_or(3)
}

fn scaled(n: usize) -> usize {
    ((n as f64 * scale()).round() as usize).max(1)
}

fn process_cpu_ns() -> u64 {
    if server::proc_clock() {
        return server::schedstat_ns("/proc/self/task");
    }
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

fn status_kb(field: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|l| l.starts_with(field));
    line.and_then(|l| l.split_whitespace().nth(1)).and_then(|kb| kb.parse().ok()).unwrap_or(0)
}

/// `GOLEM_BENCH_TRANSPORT=memory`: every contender on the in-memory
/// transport (`memory.rs`) instead of the loopback.
fn in_memory() -> bool {
    std::env::var("GOLEM_BENCH_TRANSPORT").is_ok_and(|t| t == "memory")
}

/// `own_pool`: golem's model on an `AsyncIoTransport` of its own (default
/// configuration), closed with the clients, instead of the process-wide
/// one; the bare loop's transport is always its own.
fn clients(server: &Server, turns: usize, own_pool: bool) -> Clients {
    let lookup = Tool::new("lookup", "Look a number up.", bare::tools()[0]["function"]["parameters"].clone(), {
        |_: ToolContext<()>, args: Value| Ok(bare::lookup(&args))
    });
    let lookup_async =
        Tool::new_async("lookup", "Look a number up.", bare::tools()[0]["function"]["parameters"].clone(), {
            |_: ToolContext<()>, args: Value| async move { Ok(bare::lookup(&args)) }
        });
    // Defaults throughout, but for the turn limit the 20-turn scenario needs.
    let (model, blocking, asynchronous): (_, Arc<dyn Transport>, Arc<dyn AsyncTransport>) = if in_memory() {
        let memory = Arc::new(memory::MemoryTransport { turns });
        let model = OpenAi::builder()
            .model("m")
            .base_url(server.url.clone())
            .api_key("k")
            .transport(memory.clone())
            .async_transport(memory.clone())
            .build()
            .unwrap();
        (model, memory.clone(), memory)
    } else {
        let model = if own_pool {
            let pool: Arc<dyn AsyncTransport> = Arc::new(AsyncIoTransport::default());
            OpenAi::builder()
                .model("m")
                .base_url(server.url.clone())
                .api_key("k")
                .async_transport(pool)
                .build()
                .unwrap()
        } else {
            let config =
                Config::builder(Preset::openai(), "m").base_url(server.url.clone()).api_key("k").build().unwrap();
            OpenAi::new(config)
        };
        (model, Arc::new(UreqTransport::default()), Arc::new(AsyncIoTransport::default()))
    };
    let deadline = Agent::<()>::builder(model.clone()).build().unwrap().config().model_deadline;
    let deadline = if no_deadline() { None } else { deadline };
    let agent =
        Agent::<()>::builder(model.clone()).tool(lookup).max_iterations(64).model_deadline(deadline).build().unwrap();
    let agent_async_tool =
        Agent::<()>::builder(model).tool(lookup_async).max_iterations(64).model_deadline(deadline).build().unwrap();
    Clients { url: server.url.clone(), agent, agent_async_tool, blocking, asynchronous, tools: bare::tools() }
}

/// `GOLEM_BENCH_TASKS=8`: the in-flight scenarios with that many runs in
/// flight instead, each task running more of them so a segment makes as
/// many runs — whether a gap depends on how many runs share the caches.
fn tasks_override(tasks: usize, each: usize) -> (usize, usize) {
    match std::env::var("GOLEM_BENCH_TASKS").ok().and_then(|t| t.parse::<usize>().ok()).filter(|&t| t > 0) {
        Some(t) => (t, (tasks * each).div_ceil(t)),
        None => (tasks, each),
    }
}

/// `GOLEM_BENCH_NO_DEADLINE=1`: golem's agents without the default model
/// deadline, so the async driver arms no timer — what the deadline costs
/// golem, which the bare loop in memory never pays.
fn no_deadline() -> bool {
    std::env::var("GOLEM_BENCH_NO_DEADLINE").is_ok_and(|v| v == "1")
}

fn prompt(i: usize) -> String {
    format!("look up number {i}")
}

fn check(contender: Contender, output: &str) {
    assert_eq!(output, "all done", "{contender:?}");
}

/// Times a run's future was polled (every wake-up of a run costs a walk
/// down its stack of futures), counted across contenders by `measure`.
static POLLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// `work`, counting its polls in [`POLLS`].
async fn counted<T>(work: impl std::future::Future<Output = T>) -> T {
    let mut work = std::pin::pin!(work);
    std::future::poll_fn(|cx| {
        POLLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        work.as_mut().poll(cx)
    })
    .await
}

/// `GOLEM_BENCH_POLLS=1`: count the runs' polls. Off by default, as the
/// counting wrapper moves each run's future once more (a cost that grows
/// with the future, so not the same for every contender).
fn count_polls() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("GOLEM_BENCH_POLLS").is_ok_and(|v| v == "1"))
}

async fn one_async(clients: &Clients, contender: Contender, i: usize, stream: bool) {
    if count_polls() {
        counted(one_async_uncounted(clients, contender, i, stream)).await
    } else {
        one_async_uncounted(clients, contender, i, stream).await
    }
}

async fn one_async_uncounted(clients: &Clients, contender: Contender, i: usize, stream: bool) {
    let output = match contender {
        GolemAsync => {
            clients.agent_async_tool.run_with(()).prompt(prompt(i)).stream(stream).call_async().await.unwrap().output
        }
        GolemAsyncPoolTool => {
            clients.agent.run_with(()).prompt(prompt(i)).stream(stream).call_async().await.unwrap().output
        }
        BareAsync => bare::run_async(&*clients.asynchronous, &clients.url, &clients.tools, &prompt(i), stream).await,
        other => unreachable!("{other:?} is not async"),
    };
    check(contender, &output);
}

fn one_blocking(clients: &Clients, contender: Contender, i: usize, stream: bool) {
    let output = match contender {
        GolemBlocking => clients.agent.run_with(()).prompt(prompt(i)).stream(stream).call().unwrap().output,
        BareBlocking => bare::run_blocking(&*clients.blocking, &clients.url, &clients.tools, &prompt(i), stream),
        other => unreachable!("{other:?} is not blocking"),
    };
    check(contender, &output);
}

/// One segment: `contender` runs the scenario's shape once.
/// `ramp`: the runs in flight start 250 every 10 ms instead of all at
/// once, so a pool's thousands of connections are opened at a pace the
/// server's accept queue (at most `somaxconn`, 4,096 here) keeps up with;
/// for a warm-up, whose connections the measured segment reuses. Each
/// task then keeps making runs until the last one has started, so that
/// at the end every task has a call out at once and the pool holds a
/// connection per run in flight: a warm-up whose tasks made one run each
/// finished its early runs before its late ones began, left the pool a
/// fraction of the connections, and the measured segment opened the rest
/// in one burst — connection set-up (and the accept queue's overflow),
/// not the clients, was then most of what that segment measured.
fn segment(scenario: &Scenario, clients: &Clients, contender: Contender, ramp: bool) -> Vec<Duration> {
    let stream = scenario.stream;
    match scenario.shape {
        Shape::Sequential { runs } => (0..runs)
            .map(|i| {
                let started = Instant::now();
                match contender {
                    GolemBlocking | BareBlocking => one_blocking(clients, contender, i, stream),
                    GolemAsync | GolemAsyncPoolTool | BareAsync => {
                        async_io::block_on(one_async(clients, contender, i, stream))
                    }
                }
                started.elapsed()
            })
            .collect(),
        Shape::InFlight { threads, tasks, each } => {
            let (tasks, each) = tasks_override(tasks, each);
            let begun = &std::sync::atomic::AtomicUsize::new(0);
            let task = |t: usize| async move {
                if ramp {
                    async_io::Timer::after(Duration::from_millis((t / 250) as u64 * 10)).await;
                    begun.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                let mut latencies = Vec::with_capacity(each);
                let mut k = 0;
                while k < each || (ramp && begun.load(std::sync::atomic::Ordering::Relaxed) < tasks) {
                    let started = Instant::now();
                    one_async(clients, contender, t * each + k, stream).await;
                    latencies.push(started.elapsed());
                    k += 1;
                }
                latencies
            };
            if threads == 1 {
                let all = async_io::block_on(futures::future::join_all((0..tasks).map(task)));
                return all.into_iter().flatten().collect();
            }
            let executor = smol::Executor::new();
            let (stop, stopped) = smol::channel::bounded::<()>(1);
            std::thread::scope(|scope| {
                for _ in 1..threads {
                    scope.spawn(|| async_io::block_on(executor.run(stopped.recv())));
                }
                let handles: Vec<_> = (0..tasks).map(|t| executor.spawn(task(t))).collect();
                let all = async_io::block_on(executor.run(futures::future::join_all(handles)));
                drop(stop);
                all.into_iter().flatten().collect()
            })
        }
    }
}

/// Where a scenario's sockets go.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// The server in this process, every contender's pool kept from the
    /// warm-up through all rounds.
    Together,
    /// The server in a child process, and each measured segment with a
    /// fresh pool of its own, warmed by an unmeasured segment just before
    /// and closed after: one contender's connections open at a time.
    Apart,
}

/// How a scenario can run over the loopback here, or why it cannot: every
/// run in flight holds a connection, whose two ends are both this
/// process's when the server runs in it, and each contender's pool keeps
/// its connections open for the next segment — four descriptors per run
/// in flight for a golem and a bare contender. Where the open-file limit
/// does not allow that (a hard `ulimit -n` of 20,000 cannot hold 10,000
/// runs' 40,000), the server moves to a child process and the pools open
/// one at a time: a run's descriptor on each side.
fn layout(scenario: &Scenario) -> Result<Layout, String> {
    let Shape::InFlight { tasks, .. } = scenario.shape else { return Ok(Layout::Together) };
    if in_memory() {
        return Ok(Layout::Together);
    }
    let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile).current.unwrap_or(u64::MAX);
    if limit >= 4 * tasks as u64 + 256 {
        return Ok(Layout::Together);
    }
    let needed = tasks as u64 + 256;
    if limit >= needed {
        return Ok(Layout::Apart);
    }
    Err(format!("{tasks} runs in flight need about {needed} open files over the loopback, the limit is {limit} (raise `ulimit -n`, or GOLEM_BENCH_TRANSPORT=memory)"))
}

/// One segment of `contender`, added to `totals`.
fn measure(scenario: &Scenario, clients: &Clients, server: &Server, contender: Contender, totals: &mut Totals) {
    measure_ramped(scenario, clients, server, contender, totals, false)
}

fn measure_ramped(
    scenario: &Scenario,
    clients: &Clients,
    server: &Server,
    contender: Contender,
    totals: &mut Totals,
    ramp: bool,
) {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let (cpu, server_cpu) = (process_cpu_ns(), server.cpu_ns());
    let allocs = allocs::so_far();
    let polls = POLLS.load(std::sync::atomic::Ordering::Relaxed);
    let started = Instant::now();
    let latencies = segment(scenario, clients, contender, ramp);
    totals.wall += started.elapsed();
    totals.allocs += allocs::so_far() - allocs;
    totals.polls += POLLS.load(std::sync::atomic::Ordering::Relaxed) - polls;
    let client_cpu = (process_cpu_ns() - cpu).saturating_sub(server.cpu_ns() - server_cpu);
    totals.cpu_ns += client_cpu;
    // One latency per run made (`GOLEM_BENCH_TASKS` may round a segment up).
    totals.runs += latencies.len();
    totals.peak_kb = totals.peak_kb.max(status_kb("VmHWM"));
    totals.latencies.extend(latencies);
}

/// p50, p90, p99, p99.9 and the slowest of two sorted latency lists.
fn percentiles(golem: &[Duration], bare: &[Duration]) -> String {
    let at = |l: &[Duration], q: f64| {
        l.get(((l.len() as f64 * q).ceil() as usize).saturating_sub(1)).copied().unwrap_or_default()
    };
    [0.5, 0.9, 0.99, 0.999, 1.0]
        .iter()
        .map(|&q| {
            format!(
                "p{}: {:.1} / {:.1} ms",
                q * 100.0,
                at(golem, q).as_secs_f64() * 1e3,
                at(bare, q).as_secs_f64() * 1e3
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn p99(latencies: &mut [Duration]) -> Duration {
    latencies.sort();
    latencies.get((latencies.len() * 99).div_ceil(100).saturating_sub(1)).copied().unwrap_or_default()
}

fn main() {
    if let Some(turns) = std::env::var("GOLEM_BENCH_SERVE").ok().and_then(|t| t.parse().ok()) {
        server::serve_for_parent(turns);
    }
    extra_code::configure();
    const BLOCKING_AND_ASYNC: &[Contender] = &[GolemBlocking, BareBlocking, GolemAsync, GolemAsyncPoolTool, BareAsync];
    const ASYNC: &[Contender] = &[GolemAsync, GolemAsyncPoolTool, BareAsync];
    let scenarios = [
        Scenario {
            name: "sequential, 1 tool turn",
            turns: 1,
            stream: false,
            shape: Shape::Sequential { runs: scaled(300) },
            contenders: BLOCKING_AND_ASYNC,
        },
        Scenario {
            name: "256 in flight, 1-thread executor",
            turns: 1,
            stream: false,
            shape: Shape::InFlight { threads: 1, tasks: 256, each: scaled(4) },
            contenders: ASYNC,
        },
        Scenario {
            name: "256 in flight, 2-thread executor",
            turns: 1,
            stream: false,
            shape: Shape::InFlight { threads: 2, tasks: 256, each: scaled(4) },
            contenders: ASYNC,
        },
        Scenario {
            name: "10,000 in flight, 1-thread executor",
            turns: 1,
            stream: false,
            shape: Shape::InFlight { threads: 1, tasks: 10_000, each: 1 },
            contenders: ASYNC,
        },
        Scenario {
            name: "10,000 in flight, 2-thread executor",
            turns: 1,
            stream: false,
            shape: Shape::InFlight { threads: 2, tasks: 10_000, each: 1 },
            contenders: ASYNC,
        },
        Scenario {
            name: "streaming, sequential",
            turns: 1,
            stream: true,
            shape: Shape::Sequential { runs: scaled(300) },
            contenders: BLOCKING_AND_ASYNC,
        },
        Scenario {
            name: "20 tool turns, sequential",
            turns: 20,
            stream: false,
            shape: Shape::Sequential { runs: scaled(30) },
            contenders: BLOCKING_AND_ASYNC,
        },
    ];
    let rounds = rounds();
    let mut table = String::new();
    let _ = writeln!(
        table,
        "| scenario | driver | golem runs/s | bare runs/s | golem ÷ bare | golem CPU/run | bare CPU/run | CPU golem ÷ bare | golem peak RSS | bare peak RSS | p99 golem ÷ bare | allocs/run golem / bare | polls/run golem / bare (`GOLEM_BENCH_POLLS=1`) |"
    );
    let _ = writeln!(table, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    // `GOLEM_BENCH_ONLY=stream` runs the scenarios whose name holds it.
    let only = std::env::var("GOLEM_BENCH_ONLY").unwrap_or_default();
    // `GOLEM_BENCH_DRIVER=Blocking` (or `Async`) runs only those contenders;
    // whole names (`GolemAsync`, or `GolemAsync,BareAsync`) run just those.
    let driver = std::env::var("GOLEM_BENCH_DRIVER").unwrap_or_default();
    let names: Vec<&str> = driver.split(',').collect();
    let exact = [GolemBlocking, BareBlocking, GolemAsync, GolemAsyncPoolTool, BareAsync]
        .iter()
        .any(|c| names.contains(&format!("{c:?}").as_str()));
    let wanted = |c: Contender| {
        let name = format!("{c:?}");
        if exact {
            names.contains(&name.as_str())
        } else {
            name.contains(driver.as_str())
        }
    };
    for scenario in scenarios.iter().filter(|s| s.name.contains(only.as_str())) {
        let layout = match layout(scenario) {
            Ok(layout) => layout,
            Err(skipped) => {
                println!("skipped \"{}\": {skipped}", scenario.name);
                continue;
            }
        };
        let server = match layout {
            Layout::Together => Server::start(scenario.turns),
            Layout::Apart => Server::start_process(scenario.turns),
        };
        let clients = clients(&server, scenario.turns, false);
        // Warm up every contender with one unmeasured segment: the pool's
        // connections, worker threads, lazy statics, the allocator. Apart,
        // each measured segment has a warm-up of its own.
        for &contender in scenario.contenders.iter().filter(|&&c| wanted(c) && layout == Layout::Together) {
            let mut ignored = Totals::default();
            measure(scenario, &clients, &server, contender, &mut ignored);
        }
        let mut totals = vec![Totals::default(); scenario.contenders.len()];
        for round in 0..rounds {
            let n = scenario.contenders.len();
            for k in 0..n {
                let index = (k + round) % n;
                if !wanted(scenario.contenders[index]) {
                    continue;
                }
                let contender = scenario.contenders[index];
                if layout == Layout::Together {
                    measure(scenario, &clients, &server, contender, &mut totals[index]);
                    continue;
                }
                let own = self::clients(&server, scenario.turns, true);
                measure_ramped(scenario, &own, &server, contender, &mut Totals::default(), true);
                measure(scenario, &own, &server, contender, &mut totals[index]);
            }
        }
        let pairs = [
            (GolemBlocking, BareBlocking, "blocking"),
            (GolemAsync, BareAsync, "async"),
            (GolemAsyncPoolTool, BareAsync, "async, blocking tool (pool)"),
        ];
        for pair in pairs {
            let position = |c| scenario.contenders.iter().position(|&x| x == c);
            let (Some(g), Some(b)) = (position(pair.0), position(pair.1)) else { continue };
            if totals[g].runs == 0 || totals[b].runs == 0 {
                continue;
            }
            let (mut golem, mut bare) = (totals[g].clone(), totals[b].clone());
            let rate = |t: &Totals| t.runs as f64 / t.wall.as_secs_f64();
            let cpu = |t: &Totals| t.cpu_ns as f64 / t.runs as f64 / 1e3;
            let p99_ratio = match scenario.shape {
                Shape::InFlight { .. } => {
                    let (pg, pb) = (p99(&mut golem.latencies), p99(&mut bare.latencies));
                    if std::env::var("GOLEM_BENCH_PERCENTILES").is_ok_and(|v| v == "1") {
                        println!(
                            "{}: latency percentiles, golem / bare: {}",
                            scenario.name,
                            percentiles(&golem.latencies, &bare.latencies)
                        );
                    }
                    format!(
                        "{:.2} ({:.1} / {:.1} ms)",
                        pg.as_secs_f64() / pb.as_secs_f64(),
                        pg.as_secs_f64() * 1e3,
                        pb.as_secs_f64() * 1e3
                    )
                }
                Shape::Sequential { .. } => "–".to_string(),
            };
            let polls = if count_polls() {
                format!("{:.1} / {:.1}", golem.polls as f64 / golem.runs as f64, bare.polls as f64 / bare.runs as f64)
            } else {
                "–".to_string()
            };
            let _ = writeln!(
                table,
                "| {} | {} | {:.0} | {:.0} | {:.2}× | {:.0} µs | {:.0} µs | {:.2}× | {} MiB | {} MiB | {} | {:.0} / {:.0} | {} |",
                scenario.name,
                pair.2,
                rate(&golem),
                rate(&bare),
                rate(&golem) / rate(&bare),
                cpu(&golem),
                cpu(&bare),
                cpu(&golem) / cpu(&bare),
                golem.peak_kb / 1024,
                bare.peak_kb / 1024,
                p99_ratio,
                golem.allocs as f64 / golem.runs as f64,
                bare.allocs as f64 / bare.runs as f64,
                polls,
            );
        }
    }
    println!("e2e: golem (defaults) vs a hand-written client on the same transport, {rounds} interleaved rounds");
    println!("scale {}; {} CPUs available", scale(), std::thread::available_parallelism().map_or(0, |n| n.get()));
    print!("{table}");
}
