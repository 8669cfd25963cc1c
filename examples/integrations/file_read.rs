//! File read (EX-04): `read_file` in a temp workspace — a whole file, a line
//! range, and a `..` path the tool rejects so the model can correct it.
//! Offline: a scripted model.

use golem_io::testing::ScriptedModel;
use golem_io::tools::file_read::FileRead;
use golem_io::Agent;
use golem_io::Role;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let workspace = tempfile::tempdir()?;
    std::fs::write(workspace.path().join("todo.md"), "# Todo\n- write docs\n- ship 0.1\n")?;
    let files = FileRead::builder(workspace.path()).build()?;

    let model = ScriptedModel::new()
        .tool_call("read_file", r#"{"path":"../etc/passwd"}"#)
        .tool_call("read_file", r#"{"path":"todo.md"}"#)
        .tool_call("read_file", r#"{"path":"todo.md","start_line":3}"#)
        .text("Two items: write docs, ship 0.1.");
    // One correction allowed: the rejected `..` path goes back to the model.
    let agent = Agent::builder(model).tool(files.tool().max_retries(1)).build()?;
    let result = agent.run((), "What is left to do?")?;

    for message in result.messages.iter().filter(|m| m.role == Role::Tool) {
        println!("read_file returned (failed: {}):\n{}\n", message.failed, message.content);
    }
    println!("output: {}", result.output);
    Ok(())
}
