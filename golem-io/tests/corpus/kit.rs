//! Small deterministic building blocks for scenarios: gates, probes, and
//! tool and response shorthands.

use golem_core::{Message, Request, Response, Role, ToolCall, Usage};
use golem_io::{Tool, ToolContext, ToolError, ToolResult};
use serde_json::{json, Value};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// How long a gated tool waits before giving up, so a broken driver makes a
/// scenario slow and failing instead of hanging the suite.
pub const GIVE_UP: Duration = Duration::from_secs(5);

/// A one-way latch: closed until [`open`](Self::open), then open for good.
#[derive(Clone, Default)]
pub struct Gate(Arc<(Mutex<bool>, Condvar)>);

impl Gate {
    /// A closed gate.
    pub fn new() -> Self {
        Gate::default()
    }

    /// Open the gate, releasing every waiter.
    pub fn open(&self) {
        let (lock, cvar) = &*self.0;
        *lock.lock().unwrap_or_else(|p| p.into_inner()) = true;
        cvar.notify_all();
    }

    /// Wait until the gate opens or `limit` passes; true when it opened.
    pub fn wait(&self, limit: Duration) -> bool {
        let (lock, cvar) = &*self.0;
        let guard = lock.lock().unwrap_or_else(|p| p.into_inner());
        let (guard, _) = cvar.wait_timeout_while(guard, limit, |open| !*open).unwrap_or_else(|p| p.into_inner());
        *guard
    }

    /// True once opened.
    pub fn is_open(&self) -> bool {
        *self.0 .0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Notes tools write while a case runs; compared across drivers, so only
/// scheduling-independent facts may be noted.
#[derive(Clone, Default)]
pub struct Probe(Arc<Mutex<Vec<String>>>);

impl Probe {
    /// Append a note.
    pub fn note(&self, note: impl Into<String>) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).push(note.into());
    }

    /// Take every note so far.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// An object schema with one required string property `key`.
pub fn string_arg(key: &str) -> Value {
    json!({
        "type": "object",
        "properties": {key: {"type": "string"}},
        "required": [key],
        "additionalProperties": false,
    })
}

/// An empty object schema.
pub fn no_args() -> Value {
    json!({"type": "object"})
}

/// A tool answering `f(args)` and noting each call in `probe`.
pub fn tool<D: Send + Sync + 'static>(
    name: &'static str,
    probe: &Probe,
    f: impl Fn(ToolContext<D>, Value) -> Result<ToolResult, ToolError> + Send + Sync + 'static,
) -> Tool<D> {
    let probe = probe.clone();
    Tool::new(name, format!("The {name} tool."), no_args(), move |ctx: ToolContext<D>, args: Value| {
        probe.note(format!("{name} {}", ctx.call_id()));
        f(ctx, args)
    })
}

/// A tool that answers `text` at once.
pub fn fixed<D: Send + Sync + 'static>(name: &'static str, probe: &Probe, text: &'static str) -> Tool<D> {
    tool(name, probe, move |_, _| Ok(ToolResult::text(text)))
}

/// A tool that blocks until `gate` opens (the harness opens it once the run
/// returned), ignoring its own cancellation: the non-cooperative tool whose
/// late answer must never reach the run.
pub fn stuck<D: Send + Sync + 'static>(name: &'static str, probe: &Probe, gate: &Gate) -> Tool<D> {
    let gate = gate.clone();
    tool(name, probe, move |_, _| {
        gate.wait(GIVE_UP);
        Ok(ToolResult::text("too late"))
    })
}

/// One tool call.
pub fn call(id: &str, name: &str, args: &str) -> ToolCall {
    ToolCall::new(id, name, args)
}

/// A tool-call turn with usage.
pub fn calls(calls: Vec<ToolCall>, usage: (u64, u64)) -> Response {
    Response::tool_calls(calls).with_usage(Usage::new(usage.0, usage.1))
}

/// A text turn with usage.
pub fn text(content: &str, usage: (u64, u64)) -> Response {
    Response::text(content).with_usage(Usage::new(usage.0, usage.1))
}

/// The tool results in `request`, as `id=content`, in order.
pub fn tool_results(request: &Request) -> Vec<String> {
    request
        .messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| format!("{}={}", m.tool_call_id, m.content))
        .collect()
}

/// The last message of `request`.
pub fn last(request: &Request) -> Option<&Message> {
    request.messages.last()
}
