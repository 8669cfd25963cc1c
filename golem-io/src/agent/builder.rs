//! Building an agent (SPEC CFG): every setting, validated once at `build`.

use crate::agent::any_model::AnyModel;
use crate::agent::decode::{DecodeError, Decoder, JsonDecoder, TextDecoder};
use crate::agent::history::Processor;
use crate::agent::instructions::Instructions;
use crate::agent::output::{OutputPlan, RawSchema, TypedOutput};
use crate::agent::validate::Validated;
use crate::agent::{Agent, AgentInner, Observer};
use crate::run::context::RunContext;
use crate::tool::context::ToolContext;
use crate::tool::{IntoToolResult, Tool, ToolError};
use golem_core::model::BoxError;
use golem_core::{
    AsyncModel, Backoff, BuildError, Capabilities, Message, Model, RetryPolicy, RunConfig, RunEvent, ToolChoice,
    UsageLimits,
};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

impl<Deps: Send + Sync + 'static> Agent<Deps, String> {
    /// Start building an agent on `model`. The output is text until
    /// [`AgentBuilder::output`] or [`AgentBuilder::decoder`] says otherwise.
    ///
    /// `Deps` is inferred from the tools, the instructions function or the
    /// deps given to `run`; name it when nothing else does:
    /// `Agent::<MyDeps>::builder(model)`.
    pub fn builder(model: impl Model + 'static) -> AgentBuilder<Deps, String> {
        AgentBuilder::new(AnyModel::Blocking(Arc::new(model)))
    }

    /// Start building an agent on an async model. It runs natively under
    /// the async driver and, through a minimal `block_on` (no runtime),
    /// under the blocking one — unless it offers a blocking face
    /// ([`AsyncModel::as_blocking`]), which the blocking driver then uses.
    ///
    /// ```
    /// use golem_core::model::{AsyncModel, BoxFuture, ModelError, Request, Response};
    /// use golem_io::Agent;
    ///
    /// // An async-only model: no blocking face at all.
    /// struct Oracle;
    /// impl AsyncModel for Oracle {
    ///     fn generate_async<'a>(&'a self, _: &'a Request) -> BoxFuture<'a, Result<Response, ModelError>> {
    ///         Box::pin(async { Ok(Response::text("42")) })
    ///     }
    /// }
    ///
    /// let agent = Agent::<()>::builder_async(Oracle).build()?;
    /// assert_eq!(agent.run((), "the answer?")?.output, "42");
    /// let answer = futures_lite::future::block_on(agent.run_async((), "the answer?"))?;
    /// assert_eq!(answer.output, "42");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn builder_async(model: impl AsyncModel + 'static) -> AgentBuilder<Deps, String> {
        AgentBuilder::new(AnyModel::Async(Arc::new(model)))
    }
}

type BackoffFn = Arc<dyn Fn(u32) -> Duration + Send + Sync>;

/// The settings that do not depend on the output type, so a type-changing
/// step (`output`, `decoder`) can move them across whole.
struct Settings<Deps> {
    models: Vec<AnyModel>,
    config: RunConfig,
    tools: Vec<Tool<Deps>>,
    instructions: Instructions<Deps>,
    backoff: Option<BackoffFn>,
    tool_choice: Option<(String, bool)>,
    plan: OutputPlan,
    history_processor: Option<Processor>,
    observers: Vec<Observer>,
    trace: crate::observe::TraceSettings,
}

/// Builds an [`Agent`]; see [`Agent::builder`]. Nothing is checked until
/// [`build`](Self::build), which reports the first broken rule.
pub struct AgentBuilder<Deps, O> {
    settings: Settings<Deps>,
    decoder: Arc<dyn Decoder<O, Deps>>,
    typed: Option<TypedOutput<O>>,
}

impl<Deps, O> fmt::Debug for AgentBuilder<Deps, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentBuilder")
            .field("config", &self.settings.config)
            .field("tools", &self.settings.tools)
            .finish_non_exhaustive()
    }
}

impl<Deps: Send + Sync + 'static> AgentBuilder<Deps, String> {
    pub(crate) fn new(model: AnyModel) -> Self {
        AgentBuilder {
            settings: Settings {
                models: vec![model],
                config: RunConfig::default(),
                tools: Vec::new(),
                instructions: Instructions::default(),
                backoff: None,
                tool_choice: None,
                plan: OutputPlan::default(),
                history_processor: None,
                observers: Vec::new(),
                trace: crate::observe::TraceSettings::new(),
            },
            decoder: Arc::new(TextDecoder),
            typed: None,
        }
    }
}

impl<Deps: Send + Sync + 'static, O: 'static> AgentBuilder<Deps, O> {
    /// Static instructions, sent as the system message of every run.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.settings.instructions.fixed = instructions.into();
        self
    }

    /// Instructions computed from the run — its deps and ids, through a
    /// [`RunContext`] — once at the start of each run, joined after the
    /// static ones with a blank line; an empty result contributes nothing
    /// (SPEC CFG-04). A second call replaces the first. A panic fails the
    /// run as a setup error ([`SetupError::Instructions`](golem_core::machine::SetupError::Instructions)).
    ///
    /// ```
    /// use golem_core::{Model, ModelError, Request, Response, Role};
    /// use golem_io::{Agent, RunContext};
    ///
    /// // Echoes the instructions it was given, if any.
    /// struct InstructedModel;
    /// impl Model for InstructedModel {
    ///     fn generate(&self, request: &Request) -> Result<Response, ModelError> {
    ///         let system = request.messages.iter().find(|m| m.role == Role::System);
    ///         Ok(Response::text(system.map(|m| m.content.clone()).unwrap_or_default()))
    ///     }
    /// }
    ///
    /// struct Player {
    ///     name: String,
    /// }
    ///
    /// let agent = Agent::builder(InstructedModel)
    ///     .instructions("Always greet the player.")
    ///     .instructions_fn(|ctx: &RunContext<Player>| format!("The player's name is {}.", ctx.deps().name))
    ///     .build()?;
    /// let result = agent.run(Player { name: "Anne".into() }, "greet")?;
    /// let output = result.output;
    /// println!("{output}");
    /// assert_eq!(output, "Always greet the player.\n\nThe player's name is Anne.");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn instructions_fn(mut self, f: impl Fn(&RunContext<Deps>) -> String + Send + Sync + 'static) -> Self {
        self.settings.instructions.dynamic = Some(Arc::new(f));
        self
    }

    /// Register a tool. Tools are advertised in registration order.
    pub fn tool(mut self, tool: Tool<Deps>) -> Self {
        self.settings.tools.push(tool);
        self
    }

    /// Register [`Tool::typed`]`(name, description, handler)`. The same
    /// tool, written where the agent's `Deps` is already known — so a
    /// closure that reads the deps needs no annotation at all:
    ///
    /// ```
    /// use golem_core::testing::TestModel;
    /// use golem_io::Agent;
    ///
    /// struct Settings {
    ///     units: &'static str,
    /// }
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Forecast {
    ///     /// The city.
    ///     city: String,
    /// }
    ///
    /// let agent = Agent::<Settings>::builder(TestModel::new())
    ///     .typed_tool("forecast", "Today's forecast.", |ctx, args: Forecast| {
    ///         Ok(format!("{}: 31 {}", args.city, ctx.deps().units))
    ///     })
    ///     .build()?;
    /// let result = agent.run(Settings { units: "°C" }, "Lagos?")?;
    /// assert!(result.messages.iter().any(|m| m.content == "a: 31 °C"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// (`.tool(Tool::typed(…))` takes the same closure; there, a closure
    /// that reads fields of the deps names their type once, e.g.
    /// `|ctx: ToolContext<Settings>, args: Forecast|` — Rust checks the
    /// closure before it learns which agent the tool is for.)
    pub fn typed_tool<Args, R>(
        self,
        name: impl Into<String>,
        description: impl Into<String>,
        handler: impl Fn(ToolContext<Deps>, Args) -> Result<R, ToolError> + Send + Sync + 'static,
    ) -> Self
    where
        Args: DeserializeOwned + JsonSchema,
        R: IntoToolResult,
    {
        self.tool(Tool::typed(name, description, handler))
    }

    /// Register [`Tool::typed_async`]`(name, description, handler)`, with
    /// the deps' type known to the closure, as [`typed_tool`](Self::typed_tool).
    pub fn typed_tool_async<Args, R, F, Fut>(
        self,
        name: impl Into<String>,
        description: impl Into<String>,
        handler: F,
    ) -> Self
    where
        Args: DeserializeOwned + JsonSchema,
        R: IntoToolResult,
        F: Fn(ToolContext<Deps>, Args) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<R, ToolError>> + Send + 'static,
    {
        self.tool(Tool::typed_async(name, description, handler))
    }

    /// Register several tools.
    pub fn tools(mut self, tools: impl IntoIterator<Item = Tool<Deps>>) -> Self {
        self.settings.tools.extend(tools);
        self
    }

    /// Declare a tool the provider runs itself (web search, code execution,
    /// …). `build` refuses one that some model of the chain cannot run
    /// ([`BuildError::UnsupportedBuiltin`](golem_core::BuildError::UnsupportedBuiltin)).
    ///
    /// ```
    /// use golem_io::builtin::{BuiltinSupport, BuiltinTool, WebSearch};
    /// use golem_io::testing::TestModel;
    /// use golem_io::{Agent, BuildError, Capabilities};
    ///
    /// let plain = Agent::<()>::builder(TestModel::new()).builtin_tool(BuiltinTool::CodeExecution).build();
    /// assert!(matches!(plain, Err(BuildError::UnsupportedBuiltin("code_execution"))));
    ///
    /// let searching = TestModel::new()
    ///     .with_capabilities(Capabilities::new().builtin_tools(BuiltinSupport::NONE.web_search(true)));
    /// let agent = Agent::<()>::builder(searching).builtin_tool(BuiltinTool::WebSearch(WebSearch::new())).build();
    /// assert!(agent.is_ok());
    /// ```
    pub fn builtin_tool(mut self, tool: golem_core::builtin::BuiltinTool) -> Self {
        self.settings.config.builtin_tools.push(tool);
        self
    }

    /// Model turns per run, across correction rounds (default 10, ≥ 1).
    pub fn max_iterations(mut self, turns: u32) -> Self {
        self.settings.config.max_iterations = turns;
        self
    }

    /// Attempts per model call, the first included (default 1, ≥ 1).
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.settings.config.retry.max_attempts = attempts;
        self
    }

    /// The wait after failed attempt `n` (1-based). The function is sampled
    /// once, at build, into a table of `max_attempts − 1` waits, so a
    /// jittered or stateful function is frozen per agent (SPEC CFG-06).
    pub fn backoff(mut self, f: impl Fn(u32) -> Duration + Send + Sync + 'static) -> Self {
        self.settings.backoff = Some(Arc::new(f));
        self
    }

    /// Replace the whole retry policy (e.g. [`RetryPolicy::recommended`]);
    /// later calls to the single-field methods adjust it.
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.settings.config.retry = policy;
        self
    }

    /// Append a fallback model, tried in order within each attempt when the
    /// ones before it fail retryably (SPEC RETRY-05).
    pub fn fallback(mut self, model: impl Model + 'static) -> Self {
        self.settings.models.push(AnyModel::Blocking(Arc::new(model)));
        self
    }

    /// Append an async fallback model; a chain may mix blocking and async
    /// members, and each runs under both drivers (SPEC MODEL-01).
    pub fn fallback_async(mut self, model: impl AsyncModel + 'static) -> Self {
        self.settings.models.push(AnyModel::Async(Arc::new(model)));
        self
    }

    /// Output correction rounds (default 0): a decoder's correctable
    /// rejection is shown to the model, which answers again.
    ///
    /// ```
    /// use golem_core::{Model, ModelError, Request, Response};
    /// use golem_io::{decode_fn, Agent, DecodeError};
    /// use std::sync::atomic::{AtomicU32, Ordering};
    ///
    /// // Answers with a word first, then with the digit once corrected.
    /// #[derive(Default)]
    /// struct PickyModel {
    ///     calls: AtomicU32,
    /// }
    /// impl Model for PickyModel {
    ///     fn generate(&self, _: &Request) -> Result<Response, ModelError> {
    ///         let first = self.calls.fetch_add(1, Ordering::SeqCst) == 0;
    ///         Ok(Response::text(if first { "seven" } else { "7" }))
    ///     }
    /// }
    ///
    /// let agent = Agent::<()>::builder(PickyModel::default())
    ///     .decoder(decode_fn(|_ctx, r: &Response| {
    ///         let content = &r.message.content;
    ///         content.trim().parse::<i64>().map_err(|_| {
    ///             DecodeError::retry(format!("answer must be an integer, got {content:?}"))
    ///         })
    ///     }))
    ///     .output_retries(2)
    ///     .build()?;
    /// let result = agent.run((), "pick a number")?;
    /// println!("{}", result.output);
    /// println!("{} messages in the corrected conversation", result.messages.len());
    /// assert_eq!(result.output, 7);
    /// assert_eq!(result.messages.len(), 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn output_retries(mut self, retries: u32) -> Self {
        self.settings.config.retry.output_retries = retries;
        self
    }

    /// Correctable tool rejections fed back to the model per run (default 0).
    ///
    /// ```
    /// use golem_core::{Model, ModelError, Request, Response, Role, ToolCall};
    /// use golem_io::{Agent, Tool, ToolError};
    /// use serde_json::json;
    /// use std::sync::atomic::{AtomicU32, Ordering};
    ///
    /// // Requests the roll tool with an invalid argument first, then
    /// // corrects the call once it sees the rejection come back.
    /// #[derive(Default)]
    /// struct LearningModel {
    ///     calls: AtomicU32,
    /// }
    /// impl Model for LearningModel {
    ///     fn generate(&self, request: &Request) -> Result<Response, ModelError> {
    ///         if let Some(last) = request.messages.last() {
    ///             if last.role == Role::Tool && !last.content.contains("rejected") {
    ///                 return Ok(Response::text(format!("the die {}", last.content)));
    ///             }
    ///         }
    ///         let calls = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
    ///         let n = if calls > 1 { 4 } else { 0 };
    ///         Ok(Response::tool_calls(vec![ToolCall::new(format!("call-{calls}"), "roll", format!(r#"{{"n":{n}}}"#))]))
    ///     }
    /// }
    ///
    /// let roll = Tool::new(
    ///     "roll",
    ///     "Roll a die; n must be positive.",
    ///     json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
    ///     |_ctx, args| {
    ///         let n = args["n"].as_i64().unwrap_or(0);
    ///         if n <= 0 {
    ///             return Err(ToolError::reject(format!("n must be positive, got {n}")));
    ///         }
    ///         Ok(format!("rolled {n}"))
    ///     },
    /// );
    /// let agent = Agent::builder(LearningModel::default()).tool(roll).tool_retries(2).build()?;
    /// let result = agent.run((), "roll a 4")?;
    /// println!("{}", result.output);
    /// println!("{} messages in the corrected run", result.messages.len());
    /// assert_eq!(result.output, "the die rolled 4");
    /// assert_eq!(result.messages.len(), 6);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn tool_retries(mut self, retries: u32) -> Self {
        self.settings.config.retry.tool_retries = retries;
        self
    }

    /// The default deadline of one tool call (default none); a tool's own
    /// timeout wins. On expiry the run fails at the tool stage (SPEC
    /// TOOL-10). Takes a `Duration`, `Some(d)` or `None`, like the other
    /// deadline setters.
    pub fn tool_timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.settings.config.tool_timeout = timeout.into();
        self
    }

    /// The largest tool result the model is shown, in bytes (SPEC CAP-01;
    /// default 1 MiB, `None` for no cap): a longer one is cut, ending with
    /// a note saying so, which the history and the `tool_end` event carry.
    /// A tool's own [`Tool::max_result_bytes`] overrides it.
    pub fn max_tool_result_bytes(mut self, bytes: impl Into<Option<u64>>) -> Self {
        self.settings.config.max_tool_result_bytes = bytes.into();
        self
    }

    /// The largest arguments a tool call may carry, in bytes (SPEC CAP-01;
    /// default 1 MiB, `None` for no cap): larger ones are a correctable
    /// rejection, never parsed. A tool's own [`Tool::max_args_bytes`]
    /// overrides it.
    pub fn max_tool_args_bytes(mut self, bytes: impl Into<Option<u64>>) -> Self {
        self.settings.config.max_tool_args_bytes = bytes.into();
        self
    }

    /// Run a response's independent tool calls concurrently (default off);
    /// results stay in the model's emission order (SPEC TOOL-08).
    pub fn parallel_tools(mut self, parallel: bool) -> Self {
        self.settings.config.parallel_tools = parallel;
        self
    }

    /// At most `n` calls of a parallel group in flight at once.
    pub fn max_concurrency(mut self, n: u32) -> Self {
        self.settings.config.max_concurrency = Some(n);
        self
    }

    /// Advertise only the tool `name` (plus the output tool); nothing else
    /// changes on the wire (SPEC TOOL-11).
    pub fn tool_choice(mut self, name: &str) -> Self {
        self.settings.tool_choice = Some((name.to_string(), false));
        self
    }

    /// Like [`tool_choice`](Self::tool_choice), and also force the provider
    /// to call it until it has been called once — where every model of the
    /// chain supports forcing; elsewhere only the restriction applies.
    pub fn force_tool_choice(mut self, name: &str) -> Self {
        self.settings.tool_choice = Some((name.to_string(), true));
        self
    }

    /// Bound tokens, requests and tool calls per run (SPEC USAGE-03).
    ///
    /// ```
    /// use golem_core::{Model, ModelError, Request, Response, Usage, UsageLimits};
    /// use golem_io::Agent;
    ///
    /// // Reports heavy usage on every response.
    /// struct VerboseModel;
    /// impl Model for VerboseModel {
    ///     fn generate(&self, _: &Request) -> Result<Response, ModelError> {
    ///         Ok(Response::text("an expensive answer").with_usage(Usage::new(1200, 800)))
    ///     }
    /// }
    ///
    /// let agent = Agent::<()>::builder(VerboseModel)
    ///     .usage_limits(UsageLimits::new().total_tokens(1000))
    ///     .build()?;
    /// let err = agent.run((), "answer").unwrap_err();
    /// let err = err.as_run().expect("the run started and failed");
    /// println!("{}", err.stage);
    /// println!("{}", err.cause);
    /// assert_eq!(err.stage.to_string(), "usage");
    /// assert_eq!(err.cause.to_string(), "run exceeded the total token limit of 1000 (used 2000)");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn usage_limits(mut self, limits: UsageLimits) -> Self {
        self.settings.config.limits = limits;
        self
    }

    /// Native structured output: `schema` (a JSON value, or JSON text) rides
    /// every request; the decoder still validates. Text that is not JSON
    /// fails `build` with [`BuildError::InvalidOutputSchema`]. Exclusive with
    /// [`output_tool`](Self::output_tool).
    ///
    /// ```
    /// use golem_core::{Model, ModelError, Request, Response, Usage};
    /// use golem_io::{Agent, JsonDecoder};
    ///
    /// // Answers with JSON shaped by the output schema.
    /// struct ForecastModel;
    /// impl Model for ForecastModel {
    ///     fn generate(&self, _: &Request) -> Result<Response, ModelError> {
    ///         Ok(Response::text(r#"{"city":"Lagos","celsius":31}"#).with_usage(Usage::new(20, 6)))
    ///     }
    /// }
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Weather {
    ///     city: String,
    ///     celsius: i32,
    /// }
    ///
    /// let agent = Agent::<()>::builder(ForecastModel)
    ///     .decoder(JsonDecoder::<Weather>::new())
    ///     .output_schema(
    ///         r#"{
    ///             "type": "object",
    ///             "properties": {"city": {"type": "string"}, "celsius": {"type": "integer"}},
    ///             "required": ["city", "celsius"],
    ///             "additionalProperties": false
    ///         }"#,
    ///     )
    ///     .build()?;
    /// let result = agent.run((), "forecast for Lagos")?;
    /// let weather = result.output;
    /// let line = format!("{}: {}°C", weather.city, weather.celsius);
    /// println!("{line}");
    /// assert_eq!(line, "Lagos: 31°C");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn output_schema(mut self, schema: impl Into<RawSchema>) -> Self {
        self.settings.plan.schema = Some(schema.into());
        self
    }

    /// Tool-mode structured output: a synthesized tool `name` with
    /// parameters `schema`, advertised last; the model's first call to it
    /// ends the run and its arguments reach the decoder as the content
    /// (SPEC OUT-05). Exclusive with [`output_schema`](Self::output_schema).
    ///
    /// ```
    /// use golem_core::{Model, ModelError, Request, Response, ToolCall, Usage};
    /// use golem_io::{Agent, JsonDecoder};
    ///
    /// // Calls the output tool with its final arguments.
    /// struct ReportingModel;
    /// impl Model for ReportingModel {
    ///     fn generate(&self, _: &Request) -> Result<Response, ModelError> {
    ///         let call = ToolCall::new("out-1", "record_weather", r#"{"city":"Lagos","celsius":31}"#);
    ///         Ok(Response::tool_calls(vec![call]).with_usage(Usage::new(20, 6)))
    ///     }
    /// }
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Weather {
    ///     city: String,
    ///     celsius: i32,
    /// }
    ///
    /// let agent = Agent::<()>::builder(ReportingModel)
    ///     .decoder(JsonDecoder::<Weather>::new())
    ///     .output_tool(
    ///         "record_weather",
    ///         "Record the final weather report.",
    ///         r#"{
    ///             "type": "object",
    ///             "properties": {"city": {"type": "string"}, "celsius": {"type": "integer"}},
    ///             "required": ["city", "celsius"],
    ///             "additionalProperties": false
    ///         }"#,
    ///     )
    ///     .build()?;
    /// let result = agent.run((), "forecast for Lagos")?;
    /// let weather = result.output;
    /// let line = format!("{}: {}°C", weather.city, weather.celsius);
    /// println!("{line}");
    /// assert_eq!(line, "Lagos: 31°C");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn output_tool(mut self, name: &str, description: &str, schema: impl Into<RawSchema>) -> Self {
        self.settings.plan.tool = Some((name.to_string(), description.to_string(), schema.into()));
        self
    }

    /// Typed output: the schema is derived from `T` and the answer is read
    /// as JSON into `T`. The mode is chosen at build from the models'
    /// capabilities: native when they take a schema alongside tools, else an
    /// output tool named `final_result`. In both modes a `T` whose schema is
    /// not a plain object (a list, a number, an enum, an `Option`) travels
    /// as `{"response": T}` and is unwrapped before decoding, since tool
    /// arguments and OpenAI's structured output both need an object root
    /// (SPEC OUT-03, OUT-07).
    ///
    /// ```
    /// use golem_core::testing::TestModel;
    /// use golem_io::{Agent, OUTPUT_TOOL_NAME};
    ///
    /// #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    /// struct Forecast {
    ///     city: String,
    ///     celsius: i32,
    /// }
    ///
    /// // TestModel answers by calling the output tool with schema-valid arguments.
    /// let model = TestModel::new().with_output_tool(OUTPUT_TOOL_NAME);
    /// let agent = Agent::<()>::builder(model).output::<Forecast>().build()?;
    /// let forecast: Forecast = agent.run((), "forecast for Lagos")?.output;
    /// println!("{forecast:?}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn output<T>(self) -> AgentBuilder<Deps, T>
    where
        T: DeserializeOwned + JsonSchema + 'static,
    {
        AgentBuilder {
            settings: self.settings,
            decoder: Arc::new(JsonDecoder::<T>::new()),
            typed: Some(TypedOutput::<T>::of()),
        }
    }

    /// Decode the final answer with `decoder`, changing the output type.
    /// A schema requested by [`output`](Self::output) stays, unwrapped.
    pub fn decoder<O2>(self, decoder: impl Decoder<O2, Deps> + 'static) -> AgentBuilder<Deps, O2> {
        AgentBuilder {
            settings: self.settings,
            decoder: Arc::new(decoder),
            typed: self.typed.map(TypedOutput::without_decoder),
        }
    }

    /// Check each decoded output beyond its schema: `check` sees the run's
    /// context and the output; `Ok(())` accepts it,
    /// [`DecodeError::retry`] sends the model back with the reason — charged
    /// to the output correction budget ([`output_retries`](Self::output_retries)),
    /// as a schema mismatch is — and [`DecodeError::fatal`] fails the run at
    /// the decode stage. Validators run in the order given, after the
    /// decoder; set them after [`output`](Self::output) or
    /// [`decoder`](Self::decoder), which replace the decoding they wrap.
    ///
    /// ```
    /// use golem_io::testing::ScriptedModel;
    /// use golem_io::{Agent, DecodeError};
    ///
    /// #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
    /// struct Booking {
    ///     nights: u32,
    /// }
    ///
    /// // The model first books zero nights, then corrects itself.
    /// let model = ScriptedModel::new().text(r#"{"nights":0}"#).text(r#"{"nights":3}"#);
    /// let agent = Agent::<()>::builder(model)
    ///     .output::<Booking>()
    ///     .output_retries(1)
    ///     .output_validator(|_ctx, booking| match booking.nights {
    ///         0 => Err(DecodeError::retry("a booking needs at least one night")),
    ///         _ => Ok(()),
    ///     })
    ///     .build()?;
    /// assert_eq!(agent.run((), "book Lisbon")?.output.nights, 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn output_validator(
        mut self,
        check: impl Fn(&RunContext<Deps>, &O) -> Result<(), DecodeError> + Send + Sync + 'static,
    ) -> Self {
        self.decoder = Arc::new(Validated { inner: self.decoder, check: Arc::new(check) });
        self
    }

    /// Rewrite each run's history before it starts (once per run, on the
    /// history exactly as given); an error is a setup error. See
    /// [`trim_history`](crate::trim_history).
    pub fn history_processor(
        mut self,
        processor: impl Fn(Vec<Message>) -> Result<Vec<Message>, BoxError> + Send + Sync + 'static,
    ) -> Self {
        self.settings.history_processor = Some(Arc::new(processor));
        self
    }

    /// Observe every run's events, synchronously and in order, before any
    /// run-scoped observer. Observers must not block.
    pub fn observer(mut self, observer: impl Fn(&RunEvent) + Send + Sync + 'static) -> Self {
        self.settings.observers.push(Arc::new(observer));
        self
    }

    /// What this agent's runs' traces say beyond their events (SPEC OBS-01,
    /// OBS-02): the models behind the fallback chain, the agent's name, and
    /// whether message content may be recorded (off by default). With the
    /// `tracing` feature every run is traced whether or not this is set.
    ///
    /// ```
    /// use golem_core::testing::ScriptedModel;
    /// use golem_io::observe::{ModelInfo, TraceSettings};
    /// use golem_io::Agent;
    ///
    /// let agent = Agent::<()>::builder(ScriptedModel::new().text("hi"))
    ///     .trace(TraceSettings::new().agent_name("greeter").model(ModelInfo::new("openai", "gpt-4o-mini")))
    ///     .build()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn trace(mut self, settings: crate::observe::TraceSettings) -> Self {
        self.settings.trace = settings;
        self
    }

    /// The deadline of each model call (default 300 s): a `Duration`,
    /// `Some(d)`, or `None` for none. Overrunning it cancels the call as a
    /// retryable timeout (SPEC RETRY-07).
    pub fn model_deadline(mut self, deadline: impl Into<Option<Duration>>) -> Self {
        self.settings.config.model_deadline = deadline.into();
        self
    }

    /// How long each model call may take to its first chunk (default
    /// none; 120 s in [`production`](Self::production)): a streamed call's
    /// first fragment, a plain call's whole answer (SPEC TIME-01). Over it
    /// the call is abandoned as a retryable timeout.
    pub fn first_chunk_timeout(mut self, limit: impl Into<Option<Duration>>) -> Self {
        self.settings.config.first_chunk_timeout = limit.into();
        self
    }

    /// How long a streamed model call may stay silent between fragments
    /// (default none; 60 s in [`production`](Self::production), SPEC
    /// TIME-01). A stream that keeps producing is never cut by it; one
    /// silent past it is abandoned as a retryable timeout and retried.
    pub fn idle_timeout(mut self, limit: impl Into<Option<Duration>>) -> Self {
        self.settings.config.idle_timeout = limit.into();
        self
    }

    /// The deadline of each whole run (default none): a `Duration`,
    /// `Some(d)`, or `None`. It fires as an immediate cancellation
    /// ([`Error::is_canceled`](crate::Error::is_canceled)).
    pub fn run_deadline(mut self, deadline: impl Into<Option<Duration>>) -> Self {
        self.settings.config.run_deadline = deadline.into();
        self
    }

    /// With a custom [`backoff`](Self::backoff), still wait at least the
    /// provider's Retry-After hint (SPEC RETRY-03); the default backoff
    /// always does.
    pub fn honor_retry_after(mut self, honor: bool) -> Self {
        self.settings.config.retry.honor_retry_after = honor;
        self
    }

    /// Retry streamed turns like plain ones even after fragments reached
    /// the delta callback (SPEC RETRY-06; on in
    /// [`RetryPolicy::recommended`]). Each discarded turn is announced
    /// first — a `turn_discarded` event, and a
    /// [`StreamDelta`](crate::StreamDelta) with `discarded` set — so a UI
    /// can clear what it showed.
    pub fn discard_and_retry(mut self, discard: bool) -> Self {
        self.settings.config.retry.discard_and_retry = discard;
        self
    }

    /// The production setup in one call ([`RunConfig::production`]):
    /// [`RetryPolicy::recommended`] — 4 attempts, jittered backoff,
    /// discard-and-retry for streamed turns, 2 tool and 1 output
    /// corrections — with each model call's first chunk due within 120 s
    /// (a plain call's whole answer), at most 60 s of silence between a
    /// stream's chunks (a stream that keeps producing is never cut, SPEC
    /// TIME-01), each call bounded to 30 min as a whole and each run to
    /// 1 h. Single-field methods called after it adjust it.
    ///
    /// ```
    /// use golem_core::testing::ScriptedModel;
    /// use golem_core::RetryPolicy;
    /// use golem_io::Agent;
    /// use std::time::Duration;
    ///
    /// let agent = Agent::<()>::builder(ScriptedModel::new().text("ok")).production().build()?;
    /// let config = agent.config();
    /// assert_eq!(config.retry, RetryPolicy::recommended());
    /// assert_eq!(config.first_chunk_timeout, Some(Duration::from_secs(120)));
    /// assert_eq!(config.idle_timeout, Some(Duration::from_secs(60)));
    /// assert_eq!(config.model_deadline, Some(Duration::from_secs(30 * 60)));
    /// assert_eq!(config.run_deadline, Some(Duration::from_secs(60 * 60)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn production(mut self) -> Self {
        let preset = RunConfig::production();
        let config = &mut self.settings.config;
        config.retry = preset.retry;
        config.model_deadline = preset.model_deadline;
        config.first_chunk_timeout = preset.first_chunk_timeout;
        config.idle_timeout = preset.idle_timeout;
        config.run_deadline = preset.run_deadline;
        self
    }

    /// Fix the backoff jitter to `seed` (SPEC JIT-01): every run of the
    /// agent then waits exactly alike, whatever the random seed the driver
    /// drew for it — for tests. Without it each run's jitter comes from the
    /// OS, so runs never wait in lockstep; either way the log records what
    /// a replay needs to wait exactly as the run did.
    pub fn seed(mut self, seed: u64) -> Self {
        self.settings.config.seed = seed;
        self.settings.config.fixed_seed = true;
        self
    }

    /// Check every rule and build the agent.
    pub fn build(self) -> Result<Agent<Deps, O>, BuildError> {
        let AgentBuilder { settings, decoder, typed } = self;
        let Settings {
            models,
            mut config,
            tools,
            instructions,
            backoff,
            tool_choice,
            plan,
            history_processor,
            observers,
            trace,
        } = settings;
        let caps = models.iter().map(|m| m.capabilities()).reduce(Capabilities::intersect).unwrap_or_default();
        if let Some(tool) = config.builtin_tools.iter().find(|t| !caps.builtin_tools.supports(t)) {
            return Err(BuildError::UnsupportedBuiltin(tool.name()));
        }
        let (output, decoder) = plan.resolve(typed, decoder, caps)?;
        config.output = output;
        config.models = u32::try_from(models.len()).unwrap_or(u32::MAX);
        config.tools = tools.iter().map(|t| t.spec().clone()).collect();
        // Prices the trace settings give price the run too (cost on the
        // result, a cost limit); none given leaves the config unpriced.
        config.prices = (0..config.models).map(|m| trace.model_info(m).and_then(|i| i.price())).collect();
        if config.prices.iter().all(Option::is_none) {
            config.prices.clear();
        }
        config.tool_choice = tool_choice.map(|(name, force)| {
            if force && caps.forced_tool_choice {
                ToolChoice::Force(name)
            } else {
                ToolChoice::Restrict(name)
            }
        });
        if let Some(f) = backoff {
            let delays = (1..config.retry.max_attempts).map(|n| f(n)).collect();
            config.retry.backoff = Backoff::Table { delays };
        }
        config.validate()?;
        let streams = models.iter().all(AnyModel::streams);
        let (models, tools) = (Arc::from(models), Arc::from(tools));
        let trace = Arc::new(trace);
        let config = golem_core::machine::PreparedConfig::new(config);
        let inner =
            AgentInner { config, models, streams, tools, instructions, decoder, history_processor, observers, trace };
        Ok(Agent { inner: Arc::new(inner) })
    }
}

#[cfg(test)]
#[path = "builder_tests.rs"]
mod tests;
