//! # golem-io
//!
//! golem's typed front door and its drivers: build an [`Agent`] with a
//! model, tools, instructions and a typed output, then run it.
//!
//! **In scope:** the [`Agent`] and its [builder](AgentBuilder); tools with
//! typed arguments, blocking or async, and their [context](ToolContext);
//! output [decoders](Decoder); the two drivers that execute what
//! golem-core's `RunMachine` commands — a blocking one (std threads, no
//! async runtime) and an async one (any executor, no runtime of its own);
//! streaming; cancellation; delegation of one agent to another as a tool;
//! history processors.
//!
//! **Not in scope:** run policy. Retries, backoff, budgets, limits,
//! ordering and deadlines are decided by the machine in `golem-core`; the
//! drivers here only execute commands and feed back what happened, stamped
//! with a [`Clock`]. Providers live in `golem-providers`.
//!
//! **Runs.** [`Agent::run`], [`Agent::run_with_history`],
//! [`Agent::resume`] and [`Agent::run_stream`] cover the common cases, each
//! with an async twin ([`Agent::run_async`], …); [`Agent::run_with`] gives a
//! [`RunBuilder`] for prompt parts, run-scoped observers, a delta callback,
//! a [`CancellationToken`] and a clock, run with [`RunBuilder::call`],
//! [`RunBuilder::call_async`] or — as a stream of its events ending with
//! the outcome — [`RunBuilder::events`]. A run returns a [`RunResult`] whose
//! `output` is the typed output, or an [`Error`]: a setup error (no stage,
//! no evidence), a [`RunError`] with its stage, cause
//! and partial evidence, or — for a run that paused on deferred tool calls
//! — [`Error::Paused`] with the [`PausedRun`]. Agents whose tools defer run
//! with [`RunBuilder::call_pausable`], which returns a [`RunOutcome`]:
//! completed or paused. Both drivers give the same result and the same events.
//! Every run has a run id and belongs to a conversation: UUIDv7 strings
//! ([`ids`]) minted by the driver or given ([`RunBuilder::run_id`],
//! [`RunBuilder::conversation_id`]), stamped on the messages the run adds,
//! its events, its result and its error.
//!
//! **Models and tools in both drivers.** A model is given as a blocking
//! [`Model`] ([`Agent::builder`], [`AgentBuilder::fallback`]) or an
//! [`AsyncModel`] ([`Agent::builder_async`], [`AgentBuilder::fallback_async`]);
//! a model that streams implements [`StreamingModel`] or
//! [`AsyncStreamingModel`] instead. Tools are [`Tool::new`] /
//! [`Tool::typed`] or [`Tool::new_async`] / [`Tool::typed_async`], all with
//! one handler shape, `|ctx, args|`. Either kind runs under either driver:
//! async code under the blocking driver through a minimal `block_on`,
//! blocking code under the async driver on the `blocking` thread pool.
//!
//! **One crate.** The golem-core types a program needs are re-exported
//! here (`golem_io::Model`, `golem_io::UsageLimits`, …), and
//! [`prelude`] gathers everything in one `use`.
//!
//! **Threads (blocking driver).** A lone tool or model call without a
//! deadline runs on the calling thread, and so does a lone model call with
//! one (model calls have one by default) when the model stops by it itself,
//! as the provider clients do — streamed or not. Parallel groups, tools
//! with a deadline and calls of models that cannot stop at one run on
//! worker threads, so the driver can stop waiting when the machine says so.
//! A call that ignores its cancellation is abandoned with its own `Arc` of
//! the deps.
//!
//! **Futures (async driver).** The run is one future that spawns nothing:
//! model and tool futures are polled inside it, deadlines are async-io
//! timers, so it works under smol, inside tokio or under any `block_on`. It
//! is `Send` when the deps and the output are. Work the machine cancels is
//! dropped, and dropping the run cancels everything at once.
//!
//! **Cargo features.** Each names a capability and only adds (SPEC
//! ARCH-04); the agent, tools, cancellation, recording and the machinery the
//! drivers share are always compiled.
//!
//! | feature | default | adds |
//! |---|---|---|
//! | `blocking` | yes | the blocking driver: [`Agent::run`], `run_with_history`, `resume`, `run_stream`, [`RunBuilder::call`] |
//! | `async` | yes | the async driver: [`Agent::run_async`] and its twins, [`RunBuilder::call_async`], [`RunBuilder::events`], [`Tool::call_async`], `McpClient`'s async calls; deps async-io, futures-lite, blocking, async-channel |
//! | `web-fetch` | no | the `web_fetch` tool (`tools::web_fetch`) |
//! | `file-read` | no | the `read_file` tool (`tools::file_read`) |
//! | `command` | no | the `run_command` tool (`tools::command`, Unix) |
//! | `skills` | no | the `skill` tool (`tools::skills`) |
//! | `documents` | no | the `extract_pdf` and `extract_doc` tools (`tools::documents`); deps lopdf, zip, quick-xml (Rust 1.89+) |
//! | `mcp` | no | the MCP client and bridge (`mcp`) |
//! | `restate` | no | durable runs on a Restate server (`restate`); brings tokio and `restate-sdk` (Rust 1.90+) |
//! | `tracing` | no | OpenTelemetry GenAI spans and metrics of every run, through `tracing` ([`observe`]) |
//!
//! **Watching runs.** [`observe`] holds the trace settings, cost estimates
//! and [`observe::render_html`], which turns an event log into one
//! self-contained HTML page.
//!
//! Either model kind and either tool kind works with either driver; without
//! `async`, async models and tools under the blocking driver are driven by a
//! std-only `block_on`. Typed tools and typed output always derive their
//! schemas with schemars (golem-core's `schemars` feature is always on here).
//!
//! ```
//! use golem_io::{Agent, Model, ModelError, Request, Response, Role, Tool, ToolCall, ToolContext, Usage};
//! use serde_json::json;
//!
//! // Scripts the tool exchange: asks for the player's name once, then
//! // answers. Real applications use a provider from golem-providers.
//! struct DiceModel;
//! impl Model for DiceModel {
//!     fn generate(&self, request: &Request) -> Result<Response, ModelError> {
//!         let usage = Usage::new(54, 2);
//!         if let Some(result) = request.messages.iter().find(|m| m.role == Role::Tool) {
//!             return Ok(Response::text(format!("winner: {}", result.content)).with_usage(usage));
//!         }
//!         let call = ToolCall::new("call-1", "get_player_name", "{}");
//!         Ok(Response::tool_calls(vec![call]).with_usage(usage))
//!     }
//! }
//!
//! let get_player_name = Tool::new(
//!     "get_player_name",
//!     "Get the player's name.",
//!     json!({"type": "object"}),
//!     |ctx: ToolContext<String>, _args| Ok(ctx.deps().clone()),
//! );
//! let agent = Agent::builder(DiceModel).tool(get_player_name).build()?;
//! let result = agent.run("Anne".to_string(), "My guess is 4")?;
//! println!("{}", result.output);
//! println!("{} messages, {} output tokens", result.messages.len(), result.usage.output_tokens);
//! assert_eq!(result.output, "winner: Anne");
//! assert_eq!((result.messages.len(), result.usage.output_tokens), (4, 4));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
// Without a driver the shared machinery has no caller, yet it stays
// compiled, so that turning a driver on only adds (SPEC ARCH-04).
#![cfg_attr(not(any(feature = "blocking", feature = "async")), allow(dead_code, unused_imports))]

// The rooms (ARCHITECTURE.md): the agent and its building; starting and
// reading runs; the drivers; recording; tools (the type and the common
// ones); and the integrations — MCP, observability, Restate. Each room's
// module docs say what it holds and what it may import.
mod agent;
mod drive;
// The repository's guides as doctests (see build.rs: not in the package).
#[cfg(all(doctest, golem_guides))]
mod guides;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod observe;
mod record;
#[cfg(feature = "restate")]
pub mod restate;
mod results;
mod run;
mod start;
mod tool;
pub mod tools;

pub use agent::builder::AgentBuilder;
pub use agent::decode::{decode_fn, DecodeError, DecodeFn, Decoder, JsonDecoder, TextDecoder};
pub use agent::history::trim_history;
pub use agent::output::{RawSchema, OUTPUT_TOOL_DESCRIPTION, OUTPUT_TOOL_NAME};
pub use agent::Agent;
pub use record::{LogFile, SyncedFile};
pub use results::error::Error;
pub use results::result::{PausedRun, RunOutcome, RunResult};
pub use results::stream_delta::StreamDelta;
pub use run::cancel::{Canceled, CancellationToken};
pub use run::clock::{Clock, ManualClock, ShiftedClock, SystemClock};
pub use run::context::RunContext;
pub use run::ids;
#[cfg(feature = "async")]
pub use start::events::{RunEvents, RunItem};
pub use start::RunBuilder;
pub use tool::context::ToolContext;
pub use tool::progress::ToolProgress;
pub use tool::sub_run_event::{SubRunCall, SubRunEvent};
pub use tool::{IntoToolResult, Tool, ToolError, ToolErrorExt, ToolResult};
pub use tools::delegation::{Delegation, DELEGATE_PROMPT_DESCRIPTION};

/// A boxed error that can cross threads (re-exported from golem-core).
pub use golem_core::model::BoxError;

// The golem-core types a program needs, so one crate is enough to write
// an agent (issue 11): models and their messages, limits and policies,
// deferral, errors and events. Everything else stays in `golem_core`.
/// The event log: its records and header, reading a log back
/// ([`EventLog`]), replaying it ([`replay`](log::replay)) and its errors
/// ([`LogError`]).
pub use golem_core::log::{self, EventLog, LogError};
/// Why a run could not start: bad prompt parts, an invalid history, refused
/// deferred results (re-exported from golem-core; [`Error::Setup`] holds one).
pub use golem_core::machine::SetupError;
/// What a provider is asked for when a tool choice is set (re-exported
/// from golem-core for providers of one's own).
pub use golem_core::model::WireToolChoice;
/// How a tool's deadline ends the call (re-exported from golem-core).
pub use golem_core::tool::TimeoutPolicy;
pub use golem_core::{
    Approval, AsyncModel, AsyncStreamingModel, Backoff, BuildError, Capabilities, Cause, CauseRecord, DeclineReason,
    DeferKind, DeferredRequests, DeferredResults, Delta, DeltaSink, EventKind, FinishReason, Id, Interruption, Message,
    Model, ModelError, ModelErrorKind, Moment, OutputMode, Part, PartKind, PartialResult, PendingCall, Price, Request,
    Response, RetryPolicy, Role, RunConfig, RunError, RunEvent, Stage, StreamingModel, ThinkingBlock, ToolArgs,
    ToolCall, ToolChoice, ToolDefinition, ToolEndOutcome, ToolSpec, Usage, UsageLimitError, UsageLimits,
};

// Whole rooms of golem-core a program reaches into, so that `golem_io` is
// the one crate a program names (issue 31): the offline test models and
// the simulated-time harness, history repair and trimming, the machine for
// drivers of one's own, and every text the model is shown.
/// The embeddings port (SPEC EXTRA-02): what an embeddings client
/// implements and a retrieval tool calls (re-exported from golem-core).
pub use golem_core::embed::{self, AsyncEmbedder, EmbedRequest, EmbedTask, Embedder, Embeddings};
pub use golem_core::{builtin, history, machine, sim, testing, texts};

/// Everything an agent program uses, in one import:
/// `use golem_io::prelude::*;`.
///
/// The streaming traits ([`StreamingModel`],
/// [`AsyncStreamingModel`]) are left out on
/// purpose: with both `Model` and `StreamingModel` in scope, `generate`
/// on a streaming model is ambiguous. Import them by name to implement one.
///
/// ```
/// use golem_io::prelude::*;
///
/// struct Clock;
/// impl Model for Clock {
///     fn generate(&self, _: &Request) -> Result<Response, ModelError> {
///         Ok(Response::text("noon").with_usage(Usage::new(3, 1)))
///     }
/// }
///
/// let agent = Agent::<()>::builder(Clock)
///     .retry_policy(RetryPolicy::recommended())
///     .usage_limits(UsageLimits::new().total_tokens(100))
///     .build()?;
/// let result: RunResult<String> = agent.run((), "time?")?;
/// assert_eq!(result.output, "noon");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub mod prelude {
    pub use crate::{
        decode_fn, trim_history, Agent, AgentBuilder, CancellationToken, DecodeError, Decoder, Error, IntoToolResult,
        JsonDecoder, PausedRun, RunBuilder, RunContext, RunOutcome, RunResult, StreamDelta, TextDecoder, Tool,
        ToolContext, ToolError, ToolErrorExt, ToolResult,
    };
    pub use golem_core::model::BoxError;
    pub use golem_core::{
        Approval, AsyncModel, Capabilities, DeferredRequests, DeferredResults, Delta, DeltaSink, EventKind,
        FinishReason, Message, Model, ModelError, ModelErrorKind, Part, PendingCall, Price, Request, Response,
        RetryPolicy, Role, RunError, RunEvent, Stage, ToolCall, ToolEndOutcome, Usage, UsageLimits,
    };
}
