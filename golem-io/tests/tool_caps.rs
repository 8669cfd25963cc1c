//! Tool results capped at the agent (issue 32, SPEC CAP-01), on both
//! drivers: a 3 MiB result reaches the model cut to 1 MiB with a note, and
//! the driver cuts it before it is logged, so the log never holds it whole.

use crate::log_buffer::Buffer;
use golem_core::testing::ScriptedModel;
use golem_io::{Agent, Tool};
use serde_json::json;

#[test]
fn cap_01_a_huge_result_is_cut_before_the_log_and_the_model_on_both_drivers() {
    for blocking in [true, false] {
        let model = ScriptedModel::new().tool_call("dump", "{}").text("summarized");
        let dump =
            Tool::new("dump", "Dump everything.", json!({"type": "object"}), |_ctx, _args| Ok("x".repeat(3 << 20)));
        let agent = Agent::<()>::builder(model).tool(dump).build().unwrap();
        let log = Buffer::default();
        let builder = agent.run_with(()).prompt("go").record(log.clone());
        let result =
            if blocking { builder.call() } else { futures_lite::future::block_on(builder.call_async()) }.unwrap();
        let shown = &result.messages[2].content;
        assert!(shown.len() <= 1 << 20, "{} bytes", shown.len());
        assert!(shown.ends_with(&format!("of {} bytes]", 3 << 20)), "blocking {blocking}");
        // The result is in the log once or twice (input, event), cut each time.
        assert!(log.text().len() < 3 << 20, "the log holds {} bytes", log.text().len());
    }
}

#[test]
fn cap_01_a_tool_s_own_cap_and_the_agent_s_setters() {
    let model = ScriptedModel::new().tool_call("dump", "{}").text("done");
    let dump =
        Tool::new("dump", "", json!({"type": "object"}), |_ctx, _args| Ok("y".repeat(5_000))).max_result_bytes(300);
    let agent = Agent::<()>::builder(model).tool(dump).max_tool_result_bytes(None).build().unwrap();
    assert_eq!(agent.config().max_tool_result_bytes, None);
    let result = agent.run((), "go").unwrap();
    assert!(result.messages[2].content.len() <= 300, "its own cap holds without the agent's");
}
