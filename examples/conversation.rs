//! Conversation (SPEC EX-16): an interactive terminal chat. Each line read
//! from stdin is one run on the conversation so far (trimmed to its newest
//! messages), its answer streamed to stdout as it arrives; end of input
//! (Ctrl-D, or the end of a pipe) ends the chat. So a test, or a shell,
//! can pipe a whole conversation through it:
//!
//! ```sh
//! printf 'hello\ngoodbye\n' | cargo run -p golem-examples --bin conversation
//! ```
//!
//! With `OPENAI_API_KEY` or `OPENAI_BASE_URL` set it talks to that
//! OpenAI-compatible endpoint; without, to an offline model that answers
//! `heard: <your last line>`.

use golem_io::testing::FnModel;
use golem_io::{trim_history, Agent, Model};
use golem_io::{Message, Request, Response, Role};
use std::io::{BufRead, IsTerminal, Write};
use std::sync::Arc;

#[path = "support/env_model.rs"]
mod env_model;

/// The most history messages a run sends with the new line: the newest,
/// opening with a user message. Older ones leave the conversation.
const HISTORY_LIMIT: usize = 20;

/// A real endpoint when the environment names one, else the offline model.
fn model() -> Result<(Arc<dyn Model>, String), Box<dyn std::error::Error>> {
    if let Some(configured) = env_model::configured()? {
        return Ok(configured);
    }
    // Answers with the last user message it was sent, streamed in pieces.
    let echo = FnModel::new(|request: &Request| {
        let last = request.messages.iter().rev().find(|m| m.role == Role::User);
        Ok(Response::text(format!("heard: {}", last.map_or("", |m| m.content.as_str()))))
    });
    Ok((Arc::new(echo), "an offline echo (set OPENAI_API_KEY or OPENAI_BASE_URL for a real one)".into()))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (model, label) = model()?;
    let agent = Agent::<()>::builder(model).history_processor(trim_history(HISTORY_LIMIT)).build()?;

    let stdin = std::io::stdin();
    // A terminal shows what the user types; a pipe does not, so echo it.
    let echo_input = !stdin.is_terminal();
    let mut stdout = std::io::stdout();
    println!("model: {label}");
    println!("Type a message and press Enter; Ctrl-D ends the chat.");

    let mut history: Vec<Message> = Vec::new();
    let mut lines = stdin.lock().lines();
    loop {
        write!(stdout, "you> ")?;
        stdout.flush()?;
        let Some(line) = lines.next().transpose()? else { break };
        if echo_input {
            writeln!(stdout, "{line}")?;
        }
        let prompt = line.trim();
        if prompt.is_empty() {
            continue;
        }

        write!(stdout, "golem> ")?;
        stdout.flush()?;
        let run = agent
            .run_with(())
            .history(history.clone())
            .prompt(prompt)
            .on_delta(|d| {
                if let Some(text) = d.text() {
                    let mut out = std::io::stdout();
                    out.write_all(text.as_bytes())?;
                    out.flush()?;
                }
                Ok(())
            })
            .call();
        writeln!(stdout)?;
        match run {
            // The whole conversation so far, the next run's history.
            Ok(result) => history = result.messages,
            // A failed turn is reported and left out; the chat goes on.
            Err(err) => eprintln!("error: {err}"),
        }
    }

    writeln!(stdout)?;
    println!("{} messages in the conversation", history.len());
    Ok(())
}
