//! What the model reads from `run_command` (SPEC SHELL): the tool's name,
//! descriptions and schema, its rejections, failed results and markers.
//! Upstream's literals (Go golem v0.8.1) where it had them. A program name
//! is quoted whole up to 200 bytes, else as its first 200 bytes and its
//! length (issue 15).

use crate::tools::clip::quoted;
use serde_json::{json, Value};

/// The tool's name.
pub const TOOL_NAME: &str = "run_command";

/// The description in shell mode: upstream's (SPEC SHELL-02).
pub const DESCRIPTION: &str = "Run one shell command and return its combined stdout and stderr. A non-zero exit status is reported at the end of the output, not as a failure.";

/// The sentence added to [`DESCRIPTION`] by default, when shell features
/// are off (SPEC SHELL-02).
pub const SHELL_FEATURES_OFF_SENTENCE: &str = "Shell features are off: the command runs as one program with its arguments, split with POSIX quoting; pipes, redirections, command lists, substitutions, variables and globs are not available.";

/// The description by default: [`DESCRIPTION`], then [`SHELL_FEATURES_OFF_SENTENCE`].
pub fn description(shell: bool) -> String {
    if shell {
        DESCRIPTION.to_string()
    } else {
        format!("{DESCRIPTION} {SHELL_FEATURES_OFF_SENTENCE}")
    }
}

/// The description of the `command` argument in shell mode (upstream's).
pub const COMMAND_DESCRIPTION_SHELL: &str = "The shell command to run, as it would be typed at a prompt.";

/// The description of the `command` argument by default.
pub const COMMAND_DESCRIPTION: &str =
    "The program to run and its arguments, as typed at a prompt; quote arguments that contain spaces or special characters.";

/// The argument schema: `{command: string}`.
pub fn schema(shell: bool) -> Value {
    let description = if shell { COMMAND_DESCRIPTION_SHELL } else { COMMAND_DESCRIPTION };
    json!({
        "type": "object",
        "properties": {"command": {"type": "string", "description": description}},
        "required": ["command"],
        "additionalProperties": false
    })
}

/// Rejection: the arguments are not `{command: string}` (upstream's).
pub fn bad_args(serde_error: &str) -> String {
    format!("arguments must be an object with a string command: {}", quoted(serde_error))
}

/// Rejection: an empty command (upstream's; SPEC SHELL-03).
pub const COMMAND_REQUIRED: &str = "command is required";

/// Rejection: a quote left open.
pub fn unterminated_quote(quote: char) -> String {
    format!("the command has an unterminated {quote} quote")
}

/// Rejection: a backslash with nothing after it.
pub const TRAILING_BACKSLASH: &str = "the command ends with a backslash that escapes nothing";

/// Failed result: a shell feature while shell features are off (SPEC SHELL-02).
pub fn shell_features_off(feature: &str) -> String {
    format!(
        "shell features are off for this tool: {feature} is not available. Run one program with its arguments; quote a special character to pass it literally."
    )
}

/// Failed result: a program outside the allowlist.
pub fn not_allowed(program: &str, allowed: &[String]) -> String {
    let program = quoted(program);
    format!("program {program:?} is not allowed; allowed programs: {}", allowed.join(", "))
}

/// Failed result: the program does not exist (SPEC SHELL-05).
pub fn program_not_found(program: &str) -> String {
    let program = quoted(program);
    format!("cannot run {program:?}: program not found")
}

/// Failed result: the program exists but cannot start (SPEC SHELL-05).
pub fn cannot_start(program: &str, error: &str) -> String {
    let program = quoted(program);
    format!("cannot run {program:?}: {error}")
}

/// The status line of a non-zero exit (SPEC SHELL-03).
pub fn exited(code: i32) -> String {
    format!("[shell: exited with status {code}]")
}

/// The status line of a death by signal (SPEC SHELL-03).
pub fn signalled(signal: i32) -> String {
    format!("[shell: terminated by signal {signal}]")
}

/// The marker before the status line when output was cut (SPEC SHELL-03).
pub fn truncated(max_bytes: usize) -> String {
    format!("[shell: output truncated at {max_bytes} bytes]")
}

/// The end of a failed result after the tool's own timeout (SPEC SHELL-04).
pub fn timed_out(seconds: f64) -> String {
    format!("[shell: timed out after {seconds} s; process group killed]")
}

/// The end of a failed result when the run canceled the call.
pub const CANCELED: &str = "[shell: canceled; process group killed]";
