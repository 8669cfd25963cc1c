//! Crash a run mid-batch, then resume it from its event log (SPEC LOG-05,
//! LOG-06). Offline.
//!
//! The program re-runs itself as a child process whose agent records to a
//! log file; the child's `charge_card` tool kills the process while it runs,
//! after `lookup_order` finished and before `send_receipt` started. The
//! parent then continues the run from the log with live tools and prints the
//! ledger's decision for each call the crash left open: the finished
//! lookup is replayed (never re-run), the charge — which may or may not have
//! gone through — is reported to the model as unknown, and the receipt,
//! which never started, simply runs.

use golem_io::testing::FnModel;
use golem_io::{Agent, LogFile, Tool, ToolContext};
use golem_io::{EventKind, Response, Role, ToolCall};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};

static CRASH: AtomicBool = AtomicBool::new(false);

/// A model that needs no memory: it asks for the three calls, then answers
/// by summarising the tool results it sees.
fn model() -> FnModel {
    FnModel::new(|request| {
        let results: Vec<&str> =
            request.messages.iter().filter(|m| m.role == Role::Tool).map(|m| m.content.as_str()).collect();
        Ok(if results.is_empty() {
            Response::tool_calls(vec![
                ToolCall::new("c1", "lookup_order", r#"{"order":"A-17"}"#),
                ToolCall::new("c2", "charge_card", r#"{"order":"A-17","cents":4200}"#),
                ToolCall::new("c3", "send_receipt", r#"{"order":"A-17"}"#),
            ])
        } else {
            Response::text(format!("Done. Tool results: {}", results.join(" | ")))
        })
    })
}

fn agent() -> Agent<()> {
    let schema = serde_json::json!({"type": "object"});
    let lookup = Tool::new("lookup_order", "Look an order up.", schema.clone(), |_: ToolContext<()>, _| {
        Ok("order A-17: 1 umbrella, 42.00 EUR".to_string())
    })
    .idempotent();
    let charge = Tool::new("charge_card", "Charge the customer's card.", schema.clone(), |_: ToolContext<()>, _| {
        if CRASH.load(Ordering::SeqCst) {
            // The process dies in the middle of the side effect.
            std::process::exit(3);
        }
        Ok("charged 42.00 EUR".to_string())
    });
    let receipt =
        Tool::new("send_receipt", "Email the receipt.", schema, |_: ToolContext<()>, _| Ok("receipt sent".to_string()));
    Agent::builder(model()).tool(lookup).tool(charge).tool(receipt).build().expect("a valid agent")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--child") {
        let path = args.get(2).ok_or("--child needs a log path")?;
        CRASH.store(true, Ordering::SeqCst);
        let file = LogFile::create(path)?;
        agent().run_with(()).prompt("Settle order A-17.").record(file).call()?;
        return Err("the child was supposed to crash".into());
    }

    let dir = std::env::temp_dir().join(format!("golem-crash-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("run.log.jsonl");
    let status = Command::new(std::env::current_exe()?).arg("--child").arg(&path).status()?;
    println!("child process ended: {status}");

    // Read the log, cut off whatever the crash tore, and append from there.
    let (log, file) = LogFile::open_for_continue(&path)?;
    println!("the log holds {} records and no end marker: {}", log.records.len(), log.end.is_none());

    let agent = agent();
    let result = agent
        .run_with(())
        .continue_log(&log)?
        .record(file)
        .observer(|event| match &event.kind {
            EventKind::Recovered { call_id, tool, started, decision } => {
                println!("ledger: {tool} ({call_id}) started={started} -> {decision:?}")
            }
            EventKind::ToolEnd { tool, outcome, .. } => {
                println!("ran after resume: {tool} -> {}", outcome.output().unwrap_or("(no result)"))
            }
            _ => {}
        })
        .call()?;
    println!("answer: {}", result.output);
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
