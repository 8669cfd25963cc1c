//! Scenarios of async models and tools, which both drivers must run alike:
//! the blocking driver drives them with a minimal `block_on`, the async one
//! polls them inside the run (SPEC DRV-04).

use super::kit::{call, calls, fixed, text, tool_results, Probe};
use super::{case, Case, Pin, Scenario, Stage, Step};
use golem_core::model::{AsyncModel, BoxFuture};
use golem_core::{ModelError, Request, Response};
use golem_io::{Agent, Tool, ToolContext};
use std::time::Duration;

pub(super) fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario { name: "async_tools_parallel", covers: "DRV-04 TOOL-08", build: async_tools_parallel },
        Scenario { name: "async_model_only", covers: "DRV-04 MODEL", build: async_model_only },
        Scenario { name: "async_tool_timeout", covers: "DRV-04 TOOL-10", build: async_tool_timeout },
    ]
}

/// An async-only model (no blocking face): a tool turn calling `tool` with
/// `{}`, then an answer quoting the results. Each call awaits a short timer.
struct AsyncOnly {
    tool: &'static str,
}

impl AsyncModel for AsyncOnly {
    fn generate_async<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Result<Response, ModelError>> {
        Box::pin(async move {
            async_io::Timer::after(Duration::from_millis(2)).await;
            Ok(match tool_results(request).as_slice() {
                [] => calls(vec![call("am1", self.tool, "{}")], (15, 5)),
                results => text(&format!("async says {}", results.join(", ")), (25, 4)),
            })
        })
    }
}

/// An async tool answering `text` after a timer of `ms`.
fn timed(name: &'static str, ms: u64, answer: &'static str) -> Tool<()> {
    Tool::new_async(name, "", super::kit::no_args(), move |_: ToolContext<()>, _| async move {
        async_io::Timer::after(Duration::from_millis(ms)).await;
        Ok(answer)
    })
}

fn async_tools_parallel() -> Box<dyn Case> {
    let probe = Probe::default();
    let model = golem_core::testing::ScriptedModel::new()
        .respond(calls(
            vec![call("ap1", "slow", "{}"), call("ap2", "plain", "{}"), call("ap3", "quick", "{}")],
            (10, 9),
        ))
        .respond(text("mixed kinds done", (40, 3)));
    let agent = Agent::builder(model)
        .tool(timed("slow", 30, "slow async"))
        .tool(fixed("plain", &probe, "blocking"))
        .tool(timed("quick", 0, "quick async"))
        .parallel_tools(true)
        .build()
        .unwrap();
    case(agent, ())
        .probe(&probe)
        .step(Step::prompt("go", Pin::completed("mixed kinds done").messages(6).tool_calls(3)))
        .boxed()
}

fn async_model_only() -> Box<dyn Case> {
    let agent = Agent::<()>::builder_async(AsyncOnly { tool: "quick" }).tool(timed("quick", 1, "42")).build().unwrap();
    case(agent, ()).step(Step::prompt("ask", Pin::completed("async says am1=42").messages(4).requests(2))).boxed()
}

fn async_tool_timeout() -> Box<dyn Case> {
    let never = Tool::new_async("never", "", super::kit::no_args(), |_: ToolContext<()>, _| async move {
        futures_lite::future::pending::<()>().await;
        Ok("unreachable")
    });
    let agent = Agent::<()>::builder_async(AsyncOnly { tool: "never" })
        .tool(never.timeout(Duration::from_millis(100)))
        .build()
        .unwrap();
    let pin = Pin::failed(Stage::Tool, "tool never exceeded its deadline of 100 ms");
    case(agent, ()).step(Step::prompt("ask", pin.messages(2).requests(1).tool_calls(1))).boxed()
}
