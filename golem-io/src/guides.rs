//! The guides in `docs/guides/`, compiled and run as doctests: every
//! ```` ```rust ```` block of every guide is a test of this crate
//! (`cargo test -p golem-io --doc`). Only built under `cfg(doctest)`, so
//! nothing here is part of the public API.

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

/// `docs/guides/retries.md`
#[doc = include_str!("../../docs/guides/retries.md")]
pub struct Retries;

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

/// `docs/guides/providers.md` (its `golem-providers` blocks are `ignore`:
/// golem-io's doctests cannot see that crate).
#[doc = include_str!("../../docs/guides/providers.md")]
pub struct Providers;

/// `docs/guides/drivers-and-runtimes.md`
#[doc = include_str!("../../docs/guides/drivers-and-runtimes.md")]
pub struct DriversAndRuntimes;

/// `docs/guides/record-replay-resume.md`
#[doc = include_str!("../../docs/guides/record-replay-resume.md")]
pub struct RecordReplayResume;

/// `docs/guides/security.md` (its `golem-providers` block is `ignore`).
#[doc = include_str!("../../docs/guides/security.md")]
pub struct Security;

/// `docs/guides/migration-from-go.md`
#[doc = include_str!("../../docs/guides/migration-from-go.md")]
pub struct MigrationFromGo;

/// `README.md`: its quick start is compiled and run too.
#[doc = include_str!("../../README.md")]
pub struct Readme;
