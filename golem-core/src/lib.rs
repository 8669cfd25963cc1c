//! # golem-core
//!
//! The sans-IO heart of golem: the message model, the model port, tool
//! declarations, run configuration, and the [`RunMachine`] that decides every
//! step of an agent run.
//!
//! **In scope:** pure data and pure logic. The machine consumes inputs (a
//! model response, a tool result, a decoder verdict, time passing) and emits
//! commands (call a model, run a tool, decode) and events.
//!
//! **Not in scope:** I/O of any kind. This crate never touches a socket,
//! file, thread or clock; drivers in `golem-io` do, and providers live in
//! `golem-providers`.
//!
//! ```
//! use golem_core::machine::{Command, Input, Output, Start};
//! use golem_core::{Moment, Response, RunConfig, RunMachine};
//!
//! let mut machine = RunMachine::new(RunConfig::default(), Start::prompt("hi"), Moment::ZERO).unwrap();
//! // The machine asks for a model call…
//! let call = loop {
//!     match machine.poll_output() {
//!         Output::Command(Command::CallModel { id, .. }) => break id,
//!         Output::Event(_) => continue,
//!         other => panic!("unexpected {other:?}"),
//!     }
//! };
//! // …and the driver answers it.
//! let answer = Input::ModelFinished { id: call, result: Ok(Box::new(Response::text("hello"))) };
//! machine.handle_input(Moment::from_millis(5), answer).unwrap();
//! ```
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

pub mod builtin;
pub mod config;
pub mod deferral;
pub mod embed;
pub mod error;
pub mod event;
#[doc(hidden)]
pub mod fuzzing;
pub mod history;
pub mod id;
pub mod jitter;
mod json_object;
pub mod log;
pub mod machine;
pub mod message;
pub mod model;
pub mod output;
pub mod price;
pub mod sim;
pub mod stream;
pub mod sub_run;
pub mod testing;
pub mod texts;
pub mod time;
pub mod tool;
pub mod tool_args;

pub use builtin::{BuiltinTool, ProviderPart, ProviderPartKind};
pub use config::{Backoff, BuildError, OutputMode, RetryPolicy, RunConfig, ToolChoice, UsageLimits};
pub use deferral::{Approval, DeferKind, DeferredRequests, DeferredResults, PendingCall};
pub use error::{Cause, CauseRecord, DeclineReason, PartialResult, RunError, Stage, UsageLimitError};
pub use event::{EventKind, Interruption, RunEvent, ToolEndOutcome};
pub use id::Id;
pub use machine::RunMachine;
pub use message::{FinishReason, Message, Part, PartKind, Role, ThinkingBlock, ToolArgs, ToolCall, Usage};
pub use model::{
    AsyncModel, AsyncStreamingModel, Capabilities, Delta, DeltaSink, Model, ModelError, ModelErrorKind, Request,
    Response, StreamingModel,
};
pub use price::Price;
pub use sub_run::{SubRunShare, SubRunUsage};
pub use time::Moment;
pub use tool::{ToolDefinition, ToolSpec};
