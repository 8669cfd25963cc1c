//! Durable runs on Restate (issues 22, 38; SPEC DUR): serve an agent as a
//! Restate workflow, start a run through Restate's ingress, approve its
//! gated tool later by call id, read the result.
//!
//! It starts a Restate server of its own on loopback ports with a
//! temporary data directory when it finds one — `GOLEM_RESTATE_SERVER`, or
//! the one golem's tests install under `target/` — and otherwise says how
//! to get one. Offline either way: a scripted model.

use golem_io::restate::{register_deployment, DurableAgents, Ingress, RunRequest};
use golem_io::{Agent, EventKind, Model, ModelError, Request, Response, Role, Tool, ToolCall, ToolContext, ToolError};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The server version golem pins.
const RESTATE_VERSION: &str = "1.7.12";

/// Asks for the refund, then reports what the tool said.
struct Support;

impl Model for Support {
    fn generate(&self, request: &Request) -> Result<Response, ModelError> {
        Ok(match request.messages.iter().rev().find(|m| m.role == Role::Tool) {
            Some(result) => Response::text(format!("Done: {}.", result.content)),
            None => Response::tool_calls(vec![ToolCall::new("r1", "refund", r#"{"order":"A-17"}"#)]),
        })
    }
}

fn agent() -> Result<Agent<()>, Box<dyn std::error::Error>> {
    let refund = Tool::new(
        "refund",
        "Refund an order.",
        serde_json::json!({"type": "object", "properties": {"order": {"type": "string"}}}),
        |ctx: ToolContext<()>, args| {
            let order = args["order"].as_str().unwrap_or("?").to_string();
            if !ctx.is_approved() {
                return Err(ToolError::approval(format!("refund order {order}?")));
            }
            Ok(format!("refunded order {order}"))
        },
    );
    Ok(Agent::builder(Support).tool(refund).build()?)
}

/// A Restate server binary, if one is at hand.
fn server_binary() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("GOLEM_RESTATE_SERVER").map(PathBuf::from) {
        return path.is_file().then_some(path);
    }
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        _ => return None,
    };
    let package = format!("restate-server-{}-{arch}", std::env::consts::OS);
    let relative =
        format!("tmp/restate-server-{RESTATE_VERSION}/node_modules/@restatedev/{package}/bin/restate-server");
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| PathBuf::from("target"), PathBuf::from);
    [target.join(&relative), PathBuf::from("..").join("target").join(&relative)].into_iter().find(|p| p.is_file())
}

fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// The server child, killed by PID when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The service's observers hear each run's events once, as they happen
    // (not again when Restate replays the run), with the run's key.
    let agents = DurableAgents::new().agent("support", agent()?, ()).observer(|e| match &e.event.kind {
        EventKind::ToolStart { tool, .. } => println!("[{}] {tool} starts", e.key),
        EventKind::Deferred { tool, .. } => println!("[{}] {tool} waits for a human", e.key),
        EventKind::ToolEnd { tool, .. } => println!("[{}] {tool} ended", e.key),
        _ => {}
    });
    println!("serving agent \"support\" as the Restate workflow {}", golem_io::restate::SERVICE_NAME);
    let Some(binary) = server_binary() else {
        println!("no Restate server here: install one (npm install @restatedev/restate-server@{RESTATE_VERSION})");
        println!("and set GOLEM_RESTATE_SERVER to its bin/restate-server, then run this again.");
        return Ok(());
    };

    let data = tempfile::tempdir()?;
    let (ingress_port, admin_port, node_port) = (free_port()?, free_port()?, free_port()?);
    let _server = Server(
        Command::new(binary)
            .args(["--no-logo", "--listen-mode", "tcp", "--base-dir"])
            .arg(data.path())
            .env("RESTATE_INGRESS__BIND_ADDRESS", format!("127.0.0.1:{ingress_port}"))
            .env("RESTATE_ADMIN__BIND_ADDRESS", format!("127.0.0.1:{admin_port}"))
            .env("RESTATE_BIND_ADDRESS", format!("127.0.0.1:{node_port}"))
            .env("RESTATE_ADVERTISED_ADDRESS", format!("http://127.0.0.1:{node_port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?,
    );

    // The service: one call serves the agent (on a runtime of its own), on
    // loopback — reachable from elsewhere, it would need an identity key
    // (`DurableAgents::identity_key`; see the guide's Security section).
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let service = format!("http://{}", listener.local_addr()?);
    std::thread::spawn(move || agents.serve(listener));
    register_deployment(&format!("http://127.0.0.1:{admin_port}"), &service, Duration::from_secs(60))?;

    let ingress = Ingress::new(format!("http://127.0.0.1:{ingress_port}"));
    let started = Instant::now();
    ingress.start("order-A-17", &RunRequest::new("support", "Refund order A-17, please."))?;
    let status = ingress.wait_until_waiting("order-A-17", Duration::from_secs(60))?;
    let waiting = &status.waiting[0];
    println!("run order-A-17 waits: {} (call {}) — {}", waiting.call.tool, waiting.call.call_id, waiting.call.reason);

    // Later — minutes or days, across restarts — someone approves it.
    ingress.resolve("order-A-17", &golem_io::restate::Resolution::approve(&waiting.call.call_id))?;
    let outcome = ingress.outcome("order-A-17")?;
    match (&outcome.result, &outcome.error) {
        (Some(result), _) => println!("output: {}", result.output.as_str().unwrap_or_default()),
        (None, Some(error)) => println!("failed: {error}"),
        (None, None) => println!("no outcome"),
    }
    println!("{} golem event logs, {:.1} s", outcome.logs.len(), started.elapsed().as_secs_f64());
    Ok(())
}
