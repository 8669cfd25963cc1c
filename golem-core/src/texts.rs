//! Model-facing texts (SPEC "Model-facing texts").
//!
//! Every sentence the machine shows the model lives here, pinned by golden
//! tests; changing one changes what models read and breaks prompt caches and
//! recorded histories, so treat each as a public contract.

/// The result given to a tool call that never produced one (SPEC TOOL-13).
pub const INTERRUPTED_RESULT: &str =
    "Tool call was interrupted before execution; no result was produced. Call the tool again if you need its result.";

/// The result recorded for the output-tool call once its arguments were
/// accepted (SPEC OUT-05).
pub const OUTPUT_RECORDED: &str = "Result recorded.";

/// The text decoder's rejection of an empty reply (SPEC RUN-11).
pub const EMPTY_RESPONSE: &str = "the response was empty";

/// The built-in decoders' rejection of an empty reply whose finish reason
/// is `content_filter` (a Gemini safety stop, say): the run reports why
/// the answer is missing rather than an empty answer (SPEC RUN-11,
/// PROV-GEM-06).
pub const CONTENT_FILTERED: &str = "the response was stopped by a content filter";

/// A tool's correctable rejection shown to the model (SPEC TOOL-03).
pub fn tool_rejected(reason: &str) -> String {
    format!("Your tool call was rejected: {reason}. Correct the arguments and call the tool again.")
}

/// The decoder's rejection in text mode (SPEC OUT-06).
pub fn output_rejected(reason: &str) -> String {
    format!("Your previous response was rejected: {reason}. Correct it and respond again.")
}

/// The decoder's rejection in tool mode (SPEC OUT-06).
pub fn output_tool_rejected(reason: &str, tool: &str) -> String {
    format!("Your result was rejected: {reason}. Correct the arguments and call {tool} again.")
}

/// A denied approval (SPEC DEFER-03).
pub fn denied(reason: &str) -> String {
    if reason.is_empty() {
        "Your tool call was denied. Do not call it again; continue without its result.".to_string()
    } else {
        format!("Your tool call was denied: {reason}. Do not call it again; continue without its result.")
    }
}

/// The rejection of a call to a tool the model may not use (SPEC TOOL-06).
pub fn unknown_tool(name: &str, available: &[&str]) -> String {
    if available.is_empty() {
        format!("unknown tool {name:?}; no tools are available")
    } else {
        format!("unknown tool {name:?}; available tools: {}", available.join(", "))
    }
}

/// The rejection of arguments that are not a JSON object (SPEC TOOL-05).
pub const INCOMPLETE_ARGS: &str =
    "the arguments were incomplete or not a JSON object; send the complete arguments as one JSON object";

/// The rejection of arguments that fail the tool's typed decoding (SPEC TOOL-01).
pub fn invalid_args(serde_error: &str) -> String {
    format!("invalid arguments: {serde_error}")
}

/// The name of the output tool a typed output synthesizes in tool mode.
pub const OUTPUT_TOOL_NAME: &str = "final_result";

/// The description of that output tool.
pub const OUTPUT_TOOL_DESCRIPTION: &str = "Return the final result. Calling this tool ends the conversation.";

/// The description of a delegation tool's `prompt` argument (SPEC DELEG-01).
pub const DELEGATE_PROMPT_DESCRIPTION: &str =
    "The complete task for the sub-agent. It sees nothing else of the delegating conversation, so include every detail it needs.";

/// A delegation call whose arguments are not `{prompt: string}` (SPEC DELEG-01).
pub fn delegate_bad_args(serde_error: &str) -> String {
    format!("arguments must be an object with a string prompt: {serde_error}")
}

/// A delegation call with an empty prompt (SPEC DELEG-01).
pub const DELEGATE_EMPTY_PROMPT: &str = "prompt is required";

/// The JSON decoder's correctable rejection (SPEC OUT-02); `type_name` is
/// the output type's name without its path.
pub fn not_valid_json(type_name: &str, serde_error: &str) -> String {
    format!("response content is not valid JSON for {type_name}: {serde_error}")
}

/// The result of a call whose outcome a crash made unknown (SPEC LOG-06).
pub const OUTCOME_UNKNOWN: &str = "The run was interrupted while this tool call was executing and its result was lost; it may or may not have completed. Check its effect before calling it again.";

/// Why a call whose outcome is unknown waits for a human (SPEC LOG-06).
pub const OUTCOME_UNKNOWN_ASK: &str = "the run crashed while this call was executing; approve to run it again, or deny";

/// A decoder's reason for refusing an answer the provider cut off at its
/// output-token limit (finish reason `length`), so the failure says why the
/// answer broke off (issue 11, OUT-06).
pub fn cut_off(reason: &str) -> String {
    format!("the response was cut off at the output token limit (finish reason length): {reason}")
}

/// The correction for a cut-off answer in text mode: the same answer would
/// be cut again, so the model is asked for a shorter one.
pub fn output_cut_off(reason: &str) -> String {
    format!(
        "Your previous response was cut off at the output token limit before it was complete, so it was rejected: \
         {reason}. Respond again with a shorter answer that fits within the limit."
    )
}

/// The correction for cut-off output-tool arguments in tool mode.
pub fn output_tool_cut_off(reason: &str, tool: &str) -> String {
    format!(
        "Your result was cut off at the output token limit before it was complete, so it was rejected: {reason}. \
         Call {tool} again with shorter arguments that fit within the limit."
    )
}

/// The note that ends a tool result cut to its cap (SPEC CAP-01).
pub fn result_truncated(kept: usize, total: usize) -> String {
    format!("\n[golem: the tool result was cut to its first {kept} of {total} bytes]")
}

/// The rejection of arguments over their cap (SPEC CAP-01).
pub fn args_too_large(bytes: usize, cap: u64) -> String {
    format!("the arguments are {bytes} bytes, over this tool's limit of {cap}; send smaller arguments")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_off_texts_are_pinned() {
        assert_eq!(
            cut_off("EOF while parsing"),
            "the response was cut off at the output token limit (finish reason length): EOF while parsing"
        );
        assert_eq!(
            output_cut_off("EOF"),
            "Your previous response was cut off at the output token limit before it was complete, so it was \
             rejected: EOF. Respond again with a shorter answer that fits within the limit."
        );
        assert_eq!(
            output_tool_cut_off("EOF", "final_result"),
            "Your result was cut off at the output token limit before it was complete, so it was rejected: EOF. \
             Call final_result again with shorter arguments that fit within the limit."
        );
    }
}
