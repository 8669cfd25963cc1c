//! The guides in `docs/guides/`, compiled and run as doctests: every
//! ```` ```rust ```` block of every guide is a test of this crate
//! (`cargo test -p golem-io --doc`). Only built under `cfg(doctest)`, so
//! nothing here is part of the public API, and only in the repository
//! (`cfg(golem_guides)`, set by build.rs): the published package has no
//! `docs/`.
//!
//! The guides of the common tools and the MCP client need their features
//! (`web-fetch`, `file-read`, `command`, `skills`, `mcp`, `restate`): `cargo test
//! --workspace` enables them through the examples crate; alone, run
//! `cargo test -p golem-io --doc --features web-fetch,file-read,command,skills,mcp`.
//! The documents guide needs `documents` (the integrations examples turn it
//! on for `cargo test --workspace`).
//! Without a guide's feature its item is not compiled and its blocks are not
//! tested.

/// `docs/guides/getting-started.md`
#[doc = include_str!("../../docs/guides/getting-started.md")]
pub struct GettingStarted;

/// `docs/guides/tools-and-dependencies.md`
#[doc = include_str!("../../docs/guides/tools-and-dependencies.md")]
pub struct ToolsAndDependencies;

/// `docs/guides/structured-output.md`
#[doc = include_str!("../../docs/guides/structured-output.md")]
pub struct StructuredOutput;

/// `docs/guides/self-correction.md`
#[doc = include_str!("../../docs/guides/self-correction.md")]
pub struct SelfCorrection;

/// `docs/guides/embeddings.md`
#[doc = include_str!("../../docs/guides/embeddings.md")]
pub struct Embeddings;

/// `docs/guides/retries.md`
#[doc = include_str!("../../docs/guides/retries.md")]
pub struct Retries;

/// `docs/guides/thinking.md`
#[doc = include_str!("../../docs/guides/thinking.md")]
pub struct Thinking;

/// `docs/guides/built-in-tools.md`
#[doc = include_str!("../../docs/guides/built-in-tools.md")]
pub struct BuiltinTools;

/// `docs/guides/streaming.md`
#[doc = include_str!("../../docs/guides/streaming.md")]
pub struct Streaming;

/// `docs/guides/run-events.md`
#[doc = include_str!("../../docs/guides/run-events.md")]
pub struct RunEvents;

/// `docs/guides/usage-limits.md`
#[doc = include_str!("../../docs/guides/usage-limits.md")]
pub struct UsageLimits;

/// `docs/guides/tool-timeouts.md`
#[doc = include_str!("../../docs/guides/tool-timeouts.md")]
pub struct ToolTimeouts;

/// `docs/guides/conversations-and-history.md`
#[doc = include_str!("../../docs/guides/conversations-and-history.md")]
pub struct ConversationsAndHistory;

/// `docs/guides/deferred-tools.md`
#[doc = include_str!("../../docs/guides/deferred-tools.md")]
pub struct DeferredTools;

/// `docs/guides/delegation.md`
#[doc = include_str!("../../docs/guides/delegation.md")]
pub struct Delegation;

/// `docs/guides/testing-without-a-provider.md`
#[doc = include_str!("../../docs/guides/testing-without-a-provider.md")]
pub struct TestingWithoutAProvider;

/// `docs/guides/multimodal-input.md`
#[doc = include_str!("../../docs/guides/multimodal-input.md")]
pub struct MultimodalInput;

/// `docs/guides/providers.md` (its `golem-providers` blocks are `no_run`:
/// compiled against the dev-dependency, never run, since they need keys).
#[doc = include_str!("../../docs/guides/providers.md")]
pub struct Providers;

/// `docs/guides/web-fetch.md`
#[cfg(all(doctest, feature = "web-fetch"))]
#[doc = include_str!("../../docs/guides/web-fetch.md")]
pub struct WebFetch;

/// `docs/guides/documents.md`
#[cfg(feature = "documents")]
#[doc = include_str!("../../docs/guides/documents.md")]
pub struct Documents;

/// `docs/guides/file-read.md`
#[cfg(all(doctest, feature = "file-read"))]
#[doc = include_str!("../../docs/guides/file-read.md")]
pub struct FileRead;

/// `docs/guides/command-execution.md` (the `command` tool is Unix only).
#[cfg(all(doctest, feature = "command", unix))]
#[doc = include_str!("../../docs/guides/command-execution.md")]
pub struct CommandExecution;

/// `docs/guides/skills.md`
#[cfg(all(doctest, feature = "skills"))]
#[doc = include_str!("../../docs/guides/skills.md")]
pub struct Skills;

/// `docs/guides/mcp-client.md`
#[cfg(all(doctest, feature = "mcp"))]
#[doc = include_str!("../../docs/guides/mcp-client.md")]
pub struct McpClient;

/// `docs/guides/drivers-and-runtimes.md`
#[doc = include_str!("../../docs/guides/drivers-and-runtimes.md")]
pub struct DriversAndRuntimes;

/// `docs/guides/record-replay-resume.md`
#[doc = include_str!("../../docs/guides/record-replay-resume.md")]
pub struct RecordReplayResume;

/// `docs/guides/durable-runs.md`
#[cfg(all(doctest, feature = "restate"))]
#[doc = include_str!("../../docs/guides/durable-runs.md")]
pub struct DurableRuns;
/// `docs/guides/observability.md`
#[doc = include_str!("../../docs/guides/observability.md")]
pub struct Observability;

/// `docs/guides/security.md` (its `golem-providers` block is `no_run`).
#[doc = include_str!("../../docs/guides/security.md")]
pub struct Security;

/// `docs/guides/migration-from-go.md`
#[doc = include_str!("../../docs/guides/migration-from-go.md")]
pub struct MigrationFromGo;

/// `README.md`: its quick start is compiled and run too.
#[doc = include_str!("../../README.md")]
pub struct Readme;
