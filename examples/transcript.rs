//! Print an event log as a readable conversation: turns, tool calls with
//! their arguments and results, retries, usage, and how the run ended.
//!
//! ```sh
//! cargo run -p golem-examples --bin transcript -- run.log.jsonl
//! cargo run -p golem-examples --bin transcript -- --html run.html run.log.jsonl
//! ```
//!
//! Without a path it records a small offline run (a retried model call, a
//! tool turn, an answer) and prints that. The log is replayed — no model and
//! no tools are needed to read it. `--html FILE` also writes the run as one
//! self-contained page ([`golem_io::observe::render_html`]): a timeline of
//! turns, attempts and tool calls with durations, tokens, errors and
//! retries, the messages expandable; open it in any browser.

use golem_io::log::{replay, EventLog};
use golem_io::machine::{Input, Outcome, Output};
use golem_io::testing::ScriptedModel;
use golem_io::{Agent, Tool, ToolContext};
use golem_io::{EventKind, ModelError, Response, ToolCall, ToolEndOutcome, Usage};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (mut html, mut path) = (None, None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--html" => html = Some(args.next().ok_or("--html needs a file to write the page to")?),
            _ if path.is_none() => path = Some(arg),
            _ => return Err(format!("unexpected argument {arg:?}; usage: transcript [--html FILE] [LOG]").into()),
        }
    }
    let bytes = match path {
        Some(path) => std::fs::read(path)?,
        None => demo_log()?.into_bytes(),
    };
    // Bytes, not text: a crash may have left a torn tail that is not UTF-8.
    let log = EventLog::read_bytes(&bytes)?.log;
    print!("{}", transcript(&log)?);
    if let Some(file) = html {
        // The log does not name its models; a program that knows them can
        // say so (and price them) in the settings.
        let page = golem_io::observe::render_html(&log, &golem_io::observe::TraceSettings::new())?;
        std::fs::write(&file, &page)?;
        println!("run report: {file} ({} bytes)", page.len());
    }
    Ok(())
}

/// An offline run recorded to memory.
fn demo_log() -> Result<String, Box<dyn std::error::Error>> {
    let model = ScriptedModel::new()
        .fail(ModelError::api(503, "the service is busy"))
        .respond(
            Response::tool_calls(vec![ToolCall::new("call_1", "forecast", r#"{"city":"Lagos"}"#)])
                .with_usage(Usage::new(120, 18)),
        )
        .respond(Response::text("Sunny and 31°C: pack light clothes.").with_usage(Usage::new(160, 12)));
    let forecast = Tool::new(
        "forecast",
        "Today's forecast for a city.",
        serde_json::json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        |_: ToolContext<()>, args| {
            let city = args["city"].as_str().unwrap_or("?").to_string();
            Ok(format!("{city}: sunny, 31°C"))
        },
    );
    let agent = Agent::builder(model)
        .instructions("Be brief.")
        .tool(forecast)
        .max_attempts(2)
        .backoff(|_| std::time::Duration::from_millis(5))
        .build()?;
    let mut log = Vec::new();
    agent.run_with(()).prompt("What should I wear in Lagos today?").record(&mut log).call()?;
    Ok(String::from_utf8(log)?)
}

/// The log as text.
fn transcript(log: &EventLog) -> Result<String, Box<dyn std::error::Error>> {
    use std::fmt::Write as _;
    let mut out = String::new();
    let header = &log.header;
    let start = &header.start;
    writeln!(out, "golem event log, format {} (golem-core {})", header.format, header.golem_core_version)?;
    let tools: Vec<&str> = header.config.tools.iter().map(|t| t.name()).collect();
    writeln!(out, "tools: {}", if tools.is_empty() { "none".to_string() } else { tools.join(", ") })?;
    if !start.instructions.is_empty() {
        writeln!(out, "\n[system] {}", start.instructions)?;
    }
    if !start.history.is_empty() {
        writeln!(out, "[history] {} earlier messages", start.history.len())?;
    }
    if let Some(prompt) = &start.prompt {
        writeln!(out, "[user] {}", prompt.text)?;
    }
    let replayed = replay(log)?;
    let inputs = log.records.iter().map(|r| r.input.as_ref());
    // outputs[0] is the first drain; outputs[i + 1] follows record i.
    let mut steps = vec![(None, &replayed.outputs[0])];
    steps.extend(inputs.zip(&replayed.outputs[1..]));
    let mut total = Usage::default();
    for (input, outputs) in steps {
        if let Some(Input::ModelFinished { result: Ok(response), .. }) = input {
            let message = &response.message;
            if !message.content.is_empty() {
                writeln!(out, "[assistant] {}", message.content)?;
            }
            for call in &message.tool_calls {
                writeln!(out, "[assistant → {}] {} ({})", call.name, call.args, call.id)?;
            }
            total.add(&response.usage);
            writeln!(
                out,
                "           usage {} in / {} out (run: {} / {})",
                response.usage.input_tokens, response.usage.output_tokens, total.input_tokens, total.output_tokens
            )?;
        }
        for output in outputs {
            let Output::Event(event) = output else { continue };
            match &event.kind {
                EventKind::ModelStart { turn, attempt, member } => {
                    let extra = if *member > 0 { format!(", fallback model {member}") } else { String::new() };
                    writeln!(out, "\n── turn {} (attempt {attempt}{extra})", turn + 1)?;
                }
                EventKind::ModelEnd { error: Some(error), .. } => {
                    let retry = if error.retryable { "retryable" } else { "not retryable" };
                    writeln!(out, "[model error] {error} ({retry})")?;
                }
                EventKind::Retrying { delay, .. } => writeln!(out, "[retrying in {} ms]", delay.as_millis())?,
                // The typed outcome tells a correction from a failure.
                EventKind::ToolEnd { tool, outcome, .. } => match outcome {
                    ToolEndOutcome::Output { content } => writeln!(out, "[{tool} →] {content}")?,
                    ToolEndOutcome::Rejected { reason } => writeln!(out, "[{tool} ↺ asked to correct] {reason}")?,
                    other => writeln!(out, "[{tool} ✗] {}", other.error_text().unwrap_or_default())?,
                },
                EventKind::Deferred { tool, kind, reason, .. } => {
                    writeln!(out, "[{tool} deferred: {kind:?}] {reason}")?
                }
                EventKind::OutputRejected { round, reason } => {
                    writeln!(out, "[output rejected, correction round {round}] {reason}")?
                }
                EventKind::Recovered { tool, started, decision, .. } => {
                    writeln!(out, "[recovered {tool} after a crash: started={started}, {decision:?}]")?
                }
                EventKind::Canceled { reason } => writeln!(out, "[canceled: {reason:?}]")?,
                _ => {}
            }
        }
    }
    writeln!(out)?;
    match replayed.machine.outcome() {
        Some(Outcome::Completed { summary, .. }) => writeln!(
            out,
            "completed: {} messages, {} requests, {} tool calls, {} input + {} output tokens",
            summary.messages.len(),
            summary.requests,
            summary.tool_calls,
            summary.usage.input_tokens,
            summary.usage.output_tokens
        )?,
        Some(Outcome::Paused { deferred, .. }) => writeln!(
            out,
            "paused: {} approvals and {} external results pending",
            deferred.approvals.len(),
            deferred.external.len()
        )?,
        Some(Outcome::Failed(error)) => writeln!(out, "failed at the {} stage: {}", error.stage, error.cause)?,
        None => writeln!(out, "the log stops mid-run (a crash): resume it with RunBuilder::continue_log")?,
    }
    Ok(out)
}
