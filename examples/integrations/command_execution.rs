//! Command execution (EX-05): `run_command` running local commands; a
//! non-zero exit status is reported in the result, and shell features are
//! refused unless enabled. Offline: a scripted model. Unix only.

#[cfg(unix)]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    use golem_io::testing::ScriptedModel;
    use golem_io::tools::command::RunCommand;
    use golem_io::Agent;
    use golem_io::Role;

    let workspace = tempfile::tempdir()?;
    std::fs::write(workspace.path().join("hello.txt"), "hello\n")?;
    let command = RunCommand::builder(workspace.path()).build()?;

    let model = ScriptedModel::new()
        .tool_call("run_command", r#"{"command":"ls hello.txt missing.txt"}"#)
        .tool_call("run_command", r#"{"command":"cat hello.txt | wc -l"}"#)
        .text("hello.txt exists; missing.txt does not.");
    let agent = Agent::builder(model).tool(command.tool()).build()?;
    let result = agent.run((), "Which files exist?")?;

    for message in result.messages.iter().filter(|m| m.role == Role::Tool) {
        println!("run_command returned (failed: {}):\n{}\n", message.failed, message.content);
    }
    println!("output: {}", result.output);
    Ok(())
}

#[cfg(not(unix))]
fn main() {
    println!("run_command is Unix only");
}
