//! Durable runs on a [Restate](https://restate.dev) server (feature
//! `restate`; SPEC DUR-01..DUR-05).
//!
//! golem resumes runs from its own event log on one machine. Where runs
//! must outlive processes, deploys and machines — wait days for a human,
//! survive a crash mid-tool — this module runs the same agents as a Restate
//! workflow: every model call and tool execution is a journaled step, a
//! retry's wait is a durable timer, and each deferred call is a durable
//! promise (an awakeable) that a separate handler resolves. After a crash
//! Restate replays the handler; the machine is fed the journaled inputs at
//! the journaled moments and reaches the same state, so no model call or
//! tool runs twice. A tool whose body was cut off by the crash is not run
//! again: its outcome is unknown, and its tool's
//! [`UnknownOutcome`](golem_core::tool::UnknownOutcome) policy decides, as
//! on the event-log driver.
//!
//! Serve agents with [`DurableAgents`]: one workflow, [`SERVICE_NAME`],
//! whose handlers are
//!
//! | handler | input | does |
//! |---|---|---|
//! | `run` | [`RunRequest`] | runs the named agent (and resumes it after each pause); returns the [`DurableOutcome`] |
//! | `resolve` | [`Resolution`] | approves, denies or supplies the result of one waiting call, by call id |
//! | `status` | — | the [`RunStatus`]: the calls the run waits on |
//!
//! The workflow key is the durable run's id. [`Ingress`] is a small
//! blocking client of Restate's ingress for these handlers, and
//! [`register_deployment`] tells the server where the service runs.
//!
//! What the in-process drivers do, this one does too (SPEC DUR-04): the
//! tool calls of a parallel batch run concurrently (each body's start and
//! answer journaled, answers in the order they came); a streamed run's
//! fragments reach observers as they arrive while the journal keeps the
//! call's answer; observers and spans happen once per real execution,
//! never again when Restate replays a run; and a failing tool's error
//! keeps its kind and its cause chain across a replay ([`JournaledError`],
//! [`DurableOutcome::causes`]).
//!
//! **Security** (SPEC DUR-05): the service answers whoever reaches its
//! port. Bind it to loopback, and give it Restate's request-identity
//! public key ([`DurableAgents::identity_key`]) whenever anything else can
//! reach it: it then refuses every request the server did not sign.
//!
//! The official SDK (`restate-sdk`, pinned) needs Rust 1.90 or newer,
//! above golem's 1.85 minimum, and tokio, which this feature alone brings;
//! [`DurableAgents::serve`] runs its own runtime, so callers need none.

// Room rule (ARCHITECTURE.md): the top room; it may import any other.

mod admin;
mod agents;
mod driver;
mod fragments;
mod identity;
mod ingress;
mod journaled_error;
mod live;
mod observer;
mod step;
mod wire;
mod workflow;

pub use admin::register_deployment;
pub use agents::DurableAgents;
pub use identity::IdentityKeyError;
pub use ingress::{Ingress, IngressError};
pub use journaled_error::JournaledError;
pub use observer::DurableEvent;
pub use wire::{Decision, DurableOutcome, Resolution, RunRequest, RunStatus, Waiting};
pub use workflow::SERVICE_NAME;
