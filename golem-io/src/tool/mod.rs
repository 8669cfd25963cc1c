//! Tools: a declaration the model sees plus the handler the driver runs
//! (SPEC TOOL-01..03). Handlers are blocking or async; either kind runs
//! under either driver (SPEC DRV-04). Also the tool-side vocabulary the
//! drivers use: contexts, progress, sub-run events, and the JSON Schema a
//! Rust type declares.
//!
//! May import: `run`, golem-core.

mod as_text;
pub(crate) mod context;
mod handler;
mod outcome;
pub(crate) mod progress;
pub(crate) mod schema;
pub(crate) mod sub_run_event;

#[cfg(feature = "async")]
pub(crate) use handler::AsyncFn;
#[cfg(feature = "blocking")]
pub(crate) use handler::BlockingFn;
pub(crate) use handler::Handler;
#[cfg(feature = "restate")]
pub(crate) use outcome::error_tag;
pub(crate) use outcome::into_outcome;
pub use outcome::{IntoToolResult, ToolError, ToolErrorExt, ToolResult};

use crate::tool::context::ToolContext;
use crate::tool::schema::object_schema_for;
use golem_core::model::BoxFuture;
use golem_core::texts;
use golem_core::tool::TimeoutPolicy;
use golem_core::ToolSpec;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

/// A tool an agent with dependencies `Deps` can call: its declaration
/// ([`ToolSpec`]) and its handler.
///
/// Every handler, blocking or async, has one shape: `|ctx, args|`, the
/// [`ToolContext`] by value (it is cheap to clone: the deps are an `Arc`),
/// returning `Result<R, ToolError>` where `R` is a [`ToolResult`] or any
/// `Serialize` value ([`IntoToolResult`]). `?` works on any error (a failed
/// result, see [`ToolError`]).
///
/// ```
/// use golem_io::{Tool, ToolContext};
/// use serde_json::json;
///
/// let greet = Tool::new("greet", "Greet the user.", json!({"type": "object"}), |ctx: ToolContext<String>, _args| {
///     Ok(format!("hello, {}", ctx.deps()))
/// });
/// assert_eq!(greet.name(), "greet");
/// ```
pub struct Tool<Deps> {
    spec: ToolSpec,
    pub(crate) handler: Handler<Deps>,
}

impl<Deps> Clone for Tool<Deps> {
    fn clone(&self) -> Self {
        Tool { spec: self.spec.clone(), handler: self.handler.clone() }
    }
}

impl<Deps> fmt::Debug for Tool<Deps> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool").field("spec", &self.spec).finish_non_exhaustive()
    }
}

impl<Deps: Send + Sync + 'static> Tool<Deps> {
    /// A tool taking raw JSON arguments. `schema` must be a JSON object
    /// schema (checked at agent build).
    pub fn new<R, F>(name: impl Into<String>, description: impl Into<String>, schema: Value, handler: F) -> Self
    where
        R: IntoToolResult,
        F: Fn(ToolContext<Deps>, Value) -> Result<R, ToolError> + Send + Sync + 'static,
    {
        Tool {
            spec: ToolSpec::new(name, description, schema),
            handler: Handler::Blocking(Arc::new(move |ctx, args| handler(ctx.clone(), args)?.into_tool_result())),
        }
    }

    /// A tool with typed arguments: the schema is derived from `Args`, and
    /// the arguments are deserialised before the handler runs. Arguments
    /// that do not fit are a correctable rejection quoting serde, so the
    /// model can fix them.
    ///
    /// ```
    /// use golem_io::{Agent, Tool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Roll {
    ///     /// Faces of the die.
    ///     sides: u32,
    /// }
    ///
    /// let roll = Tool::typed("roll", "Roll a die.", |_ctx, args: Roll| Ok(format!("rolled a d{}", args.sides)));
    /// assert_eq!(roll.spec().definition.parameters["type"], "object");
    /// let agent = Agent::<()>::builder(golem_core::testing::TestModel::new()).tool(roll).build()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn typed<Args, R>(
        name: impl Into<String>,
        description: impl Into<String>,
        handler: impl Fn(ToolContext<Deps>, Args) -> Result<R, ToolError> + Send + Sync + 'static,
    ) -> Self
    where
        Args: DeserializeOwned + JsonSchema,
        R: IntoToolResult,
    {
        Tool {
            spec: ToolSpec::new(name, description, object_schema_for::<Args>()),
            handler: Handler::Blocking(Arc::new(move |ctx, args| {
                let args: Args = serde_json::from_value(args).map_err(invalid_args)?;
                handler(ctx.clone(), args)?.into_tool_result()
            })),
        }
    }

    /// A tool whose handler is async, taking raw JSON arguments. The handler
    /// gets its own [`ToolContext`] (cheap to clone) so its future can be
    /// `Send + 'static`. Under the async driver it is polled inside the run;
    /// under the blocking driver a minimal `block_on` drives it — no runtime
    /// either way. A call that overruns its deadline is dropped.
    ///
    /// ```
    /// use golem_io::{Tool, ToolContext};
    /// use serde_json::json;
    ///
    /// let greet = Tool::new_async("greet", "Greet the user.", json!({"type": "object"}), |ctx: ToolContext<String>, _args| async move {
    ///     Ok(format!("hello, {}", ctx.deps()))
    /// });
    /// assert!(greet.is_async());
    /// ```
    pub fn new_async<R, F, Fut>(
        name: impl Into<String>,
        description: impl Into<String>,
        schema: Value,
        handler: F,
    ) -> Self
    where
        R: IntoToolResult,
        F: Fn(ToolContext<Deps>, Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, ToolError>> + Send + 'static,
    {
        Tool {
            spec: ToolSpec::new(name, description, schema),
            handler: Handler::Async(Arc::new(move |ctx, args| boxed(handler(ctx, args)))),
        }
    }

    /// An async tool with typed arguments: [`typed`](Self::typed) and
    /// [`new_async`](Self::new_async) in one. Arguments that do not fit are
    /// a correctable rejection quoting serde; the handler never runs.
    ///
    /// ```
    /// use golem_io::{Tool, ToolContext};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Wait {
    ///     /// Milliseconds to wait.
    ///     ms: u64,
    /// }
    ///
    /// let wait = Tool::typed_async("wait", "Wait a while.", |_ctx, args: Wait| async move {
    ///     async_io::Timer::after(std::time::Duration::from_millis(args.ms)).await;
    ///     Ok("waited")
    /// });
    /// assert_eq!(wait.spec().definition.parameters["required"][0], "ms");
    /// # let _: Tool<()> = wait;
    /// ```
    pub fn typed_async<Args, R, F, Fut>(name: impl Into<String>, description: impl Into<String>, handler: F) -> Self
    where
        Args: DeserializeOwned + JsonSchema,
        R: IntoToolResult,
        F: Fn(ToolContext<Deps>, Args) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<R, ToolError>> + Send + 'static,
    {
        Tool {
            spec: ToolSpec::new(name, description, object_schema_for::<Args>()),
            handler: Handler::Async(Arc::new(move |ctx, args| match serde_json::from_value::<Args>(args) {
                Ok(args) => boxed(handler(ctx, args)),
                Err(e) => Box::pin(std::future::ready(Err(invalid_args(e)))),
            })),
        }
    }

    /// Run the handler directly on the calling thread — handy in tests. An
    /// async handler is driven by a minimal `block_on`; if the context's
    /// token is canceled first, its future is dropped and the call fails.
    pub fn call(&self, ctx: ToolContext<Deps>, args: Value) -> Result<ToolResult, ToolError> {
        self.handler.run_blocking(&ctx, args).unwrap_or_else(|| Err(ToolError::fatal(CallDropped)))
    }

    /// Run the handler as a `Send + 'static` future; a blocking handler runs
    /// on the blocking thread pool.
    #[cfg(feature = "async")]
    pub fn call_async(
        &self,
        ctx: ToolContext<Deps>,
        args: Value,
    ) -> impl Future<Output = Result<ToolResult, ToolError>> + Send + 'static {
        self.handler.run_async(ctx, args)
    }
}

impl<Deps> Tool<Deps> {
    /// A tool from its declaration and a handler built in this crate.
    pub(crate) fn from_handler(spec: ToolSpec, handler: Handler<Deps>) -> Self {
        Tool { spec, handler }
    }
}

/// An async handler's future, boxed with its result converted.
fn boxed<R, Fut>(future: Fut) -> BoxFuture<'static, Result<ToolResult, ToolError>>
where
    R: IntoToolResult,
    Fut: Future<Output = Result<R, ToolError>> + Send + 'static,
{
    Box::pin(async move { future.await?.into_tool_result() })
}

/// Typed arguments that do not fit their type: a correctable rejection.
fn invalid_args(error: serde_json::Error) -> ToolError {
    ToolError::Reject(texts::invalid_args(&error.to_string()))
}

/// An async handler dropped because its call was canceled.
#[derive(Debug, thiserror::Error)]
#[error("the tool call was canceled before it finished")]
struct CallDropped;

impl<Deps> Tool<Deps> {
    /// Builder-style: this tool's own deadline, overriding the agent's.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.spec.timeout = Some(timeout);
        self
    }

    /// Builder-style: what an overrun does (fail the run, the default, or
    /// show the model a failed result).
    pub fn on_timeout(mut self, policy: TimeoutPolicy) -> Self {
        self.spec.on_timeout = policy;
        self
    }

    /// Builder-style: what a crash resume does when this tool's call had
    /// started but its result was lost (SPEC LOG-06): tell the model it may
    /// not have completed (the default), run it again, or ask a human.
    pub fn on_unknown_outcome(mut self, policy: golem_core::tool::UnknownOutcome) -> Self {
        self.spec.on_unknown_outcome = policy;
        self
    }

    /// Builder-style: running this tool twice does no harm, so a crash
    /// resume runs a call whose outcome was lost again
    /// ([`UnknownOutcome::Redo`](golem_core::tool::UnknownOutcome::Redo)).
    pub fn idempotent(self) -> Self {
        self.on_unknown_outcome(golem_core::tool::UnknownOutcome::Redo)
    }

    /// Builder-style: a barrier in parallel execution — earlier calls
    /// finish, this one runs alone, later ones follow (SPEC TOOL-08).
    pub fn sequential(mut self) -> Self {
        self.spec.sequential = true;
        self
    }

    /// Builder-style: this tool's own correction budget (SPEC TOOL-04).
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.spec.max_retries = Some(retries);
        self
    }

    /// Builder-style: this tool's own cap on its result's text, in bytes
    /// (SPEC CAP-01); over it the model reads the result cut, with a note
    /// saying so. Overrides the agent's
    /// [`max_tool_result_bytes`](crate::AgentBuilder::max_tool_result_bytes).
    pub fn max_result_bytes(mut self, bytes: u64) -> Self {
        self.spec.max_result_bytes = Some(bytes);
        self
    }

    /// Builder-style: this tool's own cap on the model's arguments, in bytes
    /// (SPEC CAP-01); over it the call is a correctable rejection. Overrides
    /// the agent's [`max_tool_args_bytes`](crate::AgentBuilder::max_tool_args_bytes).
    pub fn max_args_bytes(mut self, bytes: u64) -> Self {
        self.spec.max_args_bytes = Some(bytes);
        self
    }

    /// The declaration and policy.
    pub fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        self.spec.name()
    }

    /// True when the handler is async, or has an async face (a delegated
    /// agent's): the async driver then polls it natively.
    pub fn is_async(&self) -> bool {
        match self.handler {
            Handler::Blocking(_) => false,
            Handler::Async(_) => true,
            #[cfg(all(feature = "blocking", feature = "async"))]
            Handler::Both { .. } => true,
        }
    }
}
