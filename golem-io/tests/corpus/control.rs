//! Scenarios of limits, failures, deadlines, cancellation, deferral,
//! delegation, history and streaming.

use super::kit::{call, calls, fixed, stuck, text, tool, tool_results, Gate, Probe, GIVE_UP};
use super::{case, resolutions, Case, Pin, Scenario, Stage, Step};
use golem_core::testing::{FnModel, ScriptedModel};
use golem_core::tool::TimeoutPolicy;
use golem_core::{Message, ModelError, UsageLimits};
use golem_io::{Agent, CancellationToken, ToolError, ToolResult};
use std::time::Duration;

pub(super) fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario { name: "usage_limit_tokens", covers: "USAGE-03 USAGE-04 USAGE-05 ERR-03", build: usage_limit_tokens },
        Scenario { name: "request_limit", covers: "USAGE-04 USAGE-05", build: request_limit },
        Scenario { name: "loop_limit", covers: "RUN-07 ERR-02", build: loop_limit },
        Scenario { name: "model_error_fatal", covers: "RETRY-01 ERR-05", build: model_error_fatal },
        Scenario { name: "tool_fatal_error", covers: "TOOL-03 ERR-02 ERR-03", build: tool_fatal_error },
        Scenario { name: "deferral_pause_and_resume", covers: "DEFER-01..05", build: deferral_pause_and_resume },
        Scenario { name: "tool_timeout_fails_run", covers: "TOOL-10 DRV-02", build: tool_timeout_fails_run },
        Scenario { name: "tool_timeout_failed_result", covers: "TOOL-10", build: tool_timeout_failed_result },
        Scenario { name: "tool_cancel_run", covers: "TOOL-12 TOOL-13 ERR-05", build: tool_cancel_run },
        Scenario {
            name: "caller_cancel_mid_batch",
            covers: "MACH-07 ERR-02 ERR-04 ERR-05",
            build: caller_cancel_mid_batch,
        },
        Scenario { name: "caller_cancel_before_start", covers: "DRV-05 ERR-05", build: caller_cancel_before_start },
        Scenario { name: "run_deadline", covers: "MACH-07 ERR-02", build: run_deadline },
        Scenario { name: "streaming_run", covers: "STREAM-01 STREAM-04 EVT-02", build: streaming_run },
        Scenario { name: "streaming_on_delta", covers: "STREAM-01 STREAM-04 RUN-06", build: streaming_on_delta },
        Scenario { name: "stream_sink_abort", covers: "STREAM-02 ERR-02", build: stream_sink_abort },
        Scenario { name: "streaming_run_here", covers: "STREAM-01 DRV-02", build: streaming_run_here },
        Scenario { name: "streaming_on_delta_here", covers: "STREAM-01 RUN-06 DRV-02", build: streaming_on_delta_here },
        Scenario { name: "stream_sink_abort_here", covers: "STREAM-02 DRV-02", build: stream_sink_abort_here },
        Scenario { name: "delegation", covers: "DELEG-01", build: delegation },
        Scenario { name: "history_continuation", covers: "HIST-02 RUN-02", build: history_continuation },
        Scenario { name: "history_repaired", covers: "HIST-01 ERR-04", build: history_repaired },
    ]
}

fn usage_limit_tokens() -> Box<dyn Case> {
    let probe = Probe::default();
    let model = ScriptedModel::new()
        .respond(calls(vec![call("l1", "weather", "{}")], (40, 10)))
        .respond(calls(vec![call("l2", "weather", "{}")], (50, 20)))
        .respond(text("never", (1, 1)));
    let agent = Agent::builder(model)
        .tool(fixed("weather", &probe, "rain"))
        .usage_limits(UsageLimits::new().total_tokens(100))
        .build()
        .unwrap();
    let pin = Pin::failed(Stage::Usage, "run exceeded the total token limit of 100 (used 120)");
    case(agent, ()).probe(&probe).step(Step::prompt("weather?", pin.messages(4).requests(2).tool_calls(1))).boxed()
}

fn request_limit() -> Box<dyn Case> {
    let probe = Probe::default();
    let model =
        ScriptedModel::new().respond(calls(vec![call("q1", "weather", "{}")], (10, 4))).respond(text("never", (1, 1)));
    let agent = Agent::builder(model)
        .tool(fixed("weather", &probe, "rain"))
        .usage_limits(UsageLimits::new().requests(1))
        .build()
        .unwrap();
    let pin = Pin::failed(Stage::Usage, "run exceeded the request limit of 1 (used 2)");
    case(agent, ()).probe(&probe).step(Step::prompt("weather?", pin.messages(3).requests(1).tool_calls(1))).boxed()
}

fn loop_limit() -> Box<dyn Case> {
    let probe = Probe::default();
    let model = FnModel::new(|request| {
        let n = tool_results(request).len() + 1;
        Ok(calls(vec![call(&format!("loop{n}"), "again", "{}")], (10, 2)))
    });
    let agent = Agent::builder(model).tool(fixed("again", &probe, "once more")).max_iterations(2).build().unwrap();
    let pin = Pin::failed(Stage::Loop, "run exceeded the limit of 2 model turns");
    case(agent, ()).probe(&probe).step(Step::prompt("go", pin.messages(5).requests(2).tool_calls(2))).boxed()
}

fn model_error_fatal() -> Box<dyn Case> {
    let model = ScriptedModel::new().fail(ModelError::api(400, "bad request")).respond(text("never", (1, 1)));
    let agent = Agent::<()>::builder(model).max_attempts(3).build().unwrap();
    let pin = Pin::failed(Stage::Model, "bad request (status 400)");
    case(agent, ()).step(Step::prompt("hi", pin.messages(0).requests(1).tool_calls(0))).boxed()
}

fn tool_fatal_error() -> Box<dyn Case> {
    let probe = Probe::default();
    let burn = tool("burn", &probe, |_, _| Err(ToolError::fatal("disk on fire")));
    let model = ScriptedModel::new()
        .respond(calls(vec![call("e1", "burn", "{}"), call("e2", "burn", "{}")], (10, 4)))
        .respond(text("never", (1, 1)));
    let agent = Agent::builder(model).tool(burn).build().unwrap();
    let pin = Pin::failed(Stage::Tool, "tool burn failed: disk on fire");
    case(agent, ()).probe(&probe).step(Step::prompt("go", pin.messages(2).requests(1).tool_calls(1))).boxed()
}

fn deferral_pause_and_resume() -> Box<dyn Case> {
    let probe = Probe::default();
    let delete = tool("delete", &probe, |ctx, args| {
        let path = args["path"].as_str().unwrap_or_default().to_string();
        if !ctx.is_approved() {
            return Err(ToolError::approval(format!("delete {path}?")));
        }
        Ok(ToolResult::text(format!("deleted {path}")))
    });
    let stock = tool("stock", &probe, |_, _| Err(ToolError::external("ask the warehouse")));
    let model = FnModel::new(|request| match tool_results(request).as_slice() {
        [] => Ok(calls(
            vec![
                call("d1", "delete", r#"{"path":"a.txt"}"#),
                call("d2", "delete", r#"{"path":"b.txt"}"#),
                call("x1", "stock", "{}"),
            ],
            (30, 12),
        )),
        results => Ok(text(&results.join(" | "), (60, 20))),
    });
    let agent = Agent::builder(model).tool(delete).tool(stock).build().unwrap();
    let answer = format!("d1=deleted a.txt | d2={} | x1=42 crates", golem_core::texts::denied("keep b.txt"));
    case(agent, ())
        .probe(&probe)
        .step(Step::prompt("clean up and count", Pin::paused(&["d1", "d2"], &["x1"]).messages(2).tool_calls(3)))
        .step(Step::resume(
            resolutions(&["d1"], &[("d2", "keep b.txt")], &[("x1", "42 crates")]),
            Pin::completed(answer).messages(6).requests(1).tool_calls(1),
        ))
        .boxed()
}

fn tool_timeout_fails_run() -> Box<dyn Case> {
    let (probe, gate) = (Probe::default(), Gate::new());
    let model =
        ScriptedModel::new().respond(calls(vec![call("s1", "stuck", "{}")], (10, 4))).respond(text("never", (1, 1)));
    let agent = Agent::builder(model)
        .tool(stuck("stuck", &probe, &gate))
        .tool_timeout(Duration::from_millis(100))
        .build()
        .unwrap();
    let pin = Pin::failed(Stage::Tool, "tool stuck exceeded its deadline of 100 ms");
    case(agent, ()).probe(&probe).gate(&gate).step(Step::prompt("go", pin.messages(2).tool_calls(1))).boxed()
}

fn tool_timeout_failed_result() -> Box<dyn Case> {
    let (probe, gate) = (Probe::default(), Gate::new());
    let model = FnModel::new(|request| match tool_results(request).as_slice() {
        [] => Ok(calls(vec![call("s1", "stuck", "{}")], (10, 4))),
        results => Ok(text(&format!("moved on after {}", results.join(", ")), (20, 5))),
    });
    let stuck =
        stuck("stuck", &probe, &gate).timeout(Duration::from_millis(100)).on_timeout(TimeoutPolicy::FailedResult);
    let agent = Agent::builder(model).tool(stuck).build().unwrap();
    let answer = "moved on after s1=the tool call exceeded its deadline of 100 ms";
    let step = Step::prompt("go", Pin::completed(answer).messages(4).requests(2).tool_calls(1));
    case(agent, ()).probe(&probe).gate(&gate).step(step).boxed()
}

fn tool_cancel_run() -> Box<dyn Case> {
    let probe = Probe::default();
    let model = ScriptedModel::new()
        .respond(calls(vec![call("k1", "first", "{}"), call("k2", "stop", "{}"), call("k3", "first", "{}")], (10, 9)))
        .respond(text("never", (1, 1)));
    let agent = Agent::builder(model)
        .tool(fixed("first", &probe, "fine"))
        .tool(tool("stop", &probe, |_, _| Err(ToolError::cancel_run("enough for today"))))
        .build()
        .unwrap();
    let pin = Pin::failed(Stage::Canceled, "a tool canceled the run: enough for today");
    case(agent, ()).probe(&probe).step(Step::prompt("go", pin.messages(5).requests(1).tool_calls(2))).boxed()
}

fn caller_cancel_mid_batch() -> Box<dyn Case> {
    let (probe, gate, token) = (Probe::default(), Gate::new(), CancellationToken::new());
    let canceller = {
        let (gate, token) = (gate.clone(), token.clone());
        tool("cancel", &probe, move |_, _| {
            token.cancel();
            gate.wait(GIVE_UP);
            Ok(ToolResult::text("too late"))
        })
    };
    let model = ScriptedModel::new()
        .respond(calls(vec![call("h1", "first", "{}"), call("h2", "cancel", "{}"), call("h3", "first", "{}")], (10, 9)))
        .respond(text("picked up where we left off", (50, 6)));
    // The tool timeout only puts the calls on their own threads, so the
    // driver hears the caller while the canceller blocks; it never fires.
    let agent = Agent::builder(model)
        .tool(fixed("first", &probe, "fine"))
        .tool(canceller)
        .tool_timeout(GIVE_UP * 2)
        .build()
        .unwrap();
    let pin = Pin::failed(Stage::Tool, "run canceled by the caller");
    case(agent, ())
        .probe(&probe)
        .gate(&gate)
        .step(Step::prompt("go", pin.messages(5).requests(1).tool_calls(2)).cancellation(&token))
        .step(Step::continued("go on", Pin::completed("picked up where we left off").messages(7).requests(1)))
        .boxed()
}

fn caller_cancel_before_start() -> Box<dyn Case> {
    let (probe, token) = (Probe::default(), CancellationToken::new());
    token.cancel();
    let note = probe.clone();
    let model = FnModel::new(move |_| {
        note.note("the model was called");
        Ok(text("never", (1, 1)))
    });
    let agent = Agent::<()>::builder(model).build().unwrap();
    // The driver feeds the cancellation before the first turn starts, so no
    // request is made or counted (SPEC USAGE-06 counts provider calls); the
    // probe shows the model was never called.
    let pin = Pin::failed(Stage::Model, "run canceled by the caller");
    case(agent, ()).probe(&probe).step(Step::prompt("hi", pin.messages(0).requests(0)).cancellation(&token)).boxed()
}

fn run_deadline() -> Box<dyn Case> {
    let (probe, gate) = (Probe::default(), Gate::new());
    let model =
        ScriptedModel::new().respond(calls(vec![call("z1", "stuck", "{}")], (10, 4))).respond(text("never", (1, 1)));
    // The tool timeout never fires; the run deadline ends the run first.
    let agent = Agent::builder(model)
        .tool(stuck("stuck", &probe, &gate))
        .tool_timeout(GIVE_UP * 2)
        .run_deadline(Some(Duration::from_millis(200)))
        .build()
        .unwrap();
    let pin = Pin::failed(Stage::Tool, "run deadline exceeded");
    case(agent, ()).probe(&probe).gate(&gate).step(Step::prompt("go", pin.messages(3).tool_calls(1))).boxed()
}

/// A model that stops at a call's deadline itself, as the provider clients
/// do: the blocking driver then streams a lone call on the calling thread,
/// feeding the machine fragment by fragment (issue 20). The `_here`
/// scenarios repeat the streaming ones with it, so every driver and the
/// recorder see that placement too.
fn punctual(model: ScriptedModel) -> ScriptedModel {
    model.with_capabilities(golem_core::model::Capabilities::new().honours_timeout(true))
}

fn streaming_run() -> Box<dyn Case> {
    streaming_run_of(ScriptedModel::new())
}

fn streaming_run_here() -> Box<dyn Case> {
    streaming_run_of(punctual(ScriptedModel::new()))
}

fn streaming_run_of(model: ScriptedModel) -> Box<dyn Case> {
    let probe = Probe::default();
    let model = model
        .chunk_size(3)
        .respond(calls(vec![call("st1", "weather", r#"{"city":"Lagos"}"#)], (20, 8)))
        .respond(text("Sunny in Lagos, 31C.", (30, 7)));
    let agent = Agent::builder(model).tool(fixed("weather", &probe, "31C, sunny")).build().unwrap();
    case(agent, ())
        .probe(&probe)
        .step(Step::prompt("weather?", Pin::completed("Sunny in Lagos, 31C.").messages(4).requests(2)).streamed())
        .boxed()
}

fn streaming_on_delta() -> Box<dyn Case> {
    streaming_on_delta_of(ScriptedModel::new())
}

fn streaming_on_delta_here() -> Box<dyn Case> {
    streaming_on_delta_of(punctual(ScriptedModel::new()))
}

fn streaming_on_delta_of(model: ScriptedModel) -> Box<dyn Case> {
    let probe = Probe::default();
    // A tool turn with leading text (RUN-06: not an answer), then an answer
    // the decoder rejects, then the corrected one: every fragment of every
    // turn and round reaches the callback.
    let mut tool_turn = calls(vec![call("sd1", "weather", r#"{"city":"Lagos"}"#)], (20, 8));
    tool_turn.message.content = "Let me check. ".into();
    let model = model.chunk_size(5).respond(tool_turn).respond(text("warm", (30, 2))).respond(text("31", (40, 1)));
    let agent = Agent::builder(model)
        .tool(fixed("weather", &probe, "31C, sunny"))
        .decoder(golem_io::decode_fn(|_ctx, r: &golem_core::Response| {
            let content = &r.message.content;
            content.parse::<i64>().map_err(|_| golem_io::DecodeError::retry(format!("want degrees, got {content:?}")))
        }))
        .output_retries(1)
        .build()
        .unwrap();
    case(agent, ())
        .probe(&probe)
        .step(Step::prompt("how warm?", Pin::completed(31).messages(6).requests(3)).on_delta())
        .boxed()
}

fn stream_sink_abort() -> Box<dyn Case> {
    stream_sink_abort_of(ScriptedModel::new())
}

fn stream_sink_abort_here() -> Box<dyn Case> {
    stream_sink_abort_of(punctual(ScriptedModel::new()))
}

fn stream_sink_abort_of(model: ScriptedModel) -> Box<dyn Case> {
    let model = model.chunk_size(2).respond(text("a long answer nobody reads", (30, 6)));
    let agent = Agent::<()>::builder(model).build().unwrap();
    let pin = Pin::failed(Stage::Model, "the delta callback had enough after fragment 2");
    case(agent, ()).step(Step::prompt("talk", pin.requests(1)).sink_fails_at(2)).boxed()
}

fn delegation() -> Box<dyn Case> {
    let specialist =
        Agent::<()>::builder(ScriptedModel::new().respond(text("Paris", (5, 1)))).instructions("Answer in one word.");
    let specialist = specialist.build().unwrap();
    let model = ScriptedModel::new()
        .respond(calls(vec![call("g1", "researcher", r#"{"prompt":"capital of France?"}"#)], (20, 9)))
        .respond(text("The researcher says Paris.", (30, 6)));
    let agent = Agent::builder(model).tool(specialist.as_tool("researcher", "Answers geography questions.")).build();
    case(agent.unwrap(), ())
        // Two requests of its own and the specialist's one (issue 31).
        .step(Step::prompt("capital of France?", Pin::completed("The researcher says Paris.").messages(4).requests(3)))
        .boxed()
}

fn history_continuation() -> Box<dyn Case> {
    let model = FnModel::new(|request| {
        let users = request.messages.iter().filter(|m| m.role == golem_core::Role::User).count();
        let last = request.messages.last().map(|m| m.content.clone()).unwrap_or_default();
        Ok(text(&format!("heard {last:?} ({users} user turns)"), (10, 4)))
    });
    let agent = Agent::<()>::builder(model).instructions("Be brief.").build().unwrap();
    case(agent, ())
        .step(Step::prompt("hello", Pin::completed("heard \"hello\" (1 user turns)").messages(3)))
        .step(Step::continued("goodbye", Pin::completed("heard \"goodbye\" (2 user turns)").messages(5)))
        .boxed()
}

fn history_repaired() -> Box<dyn Case> {
    let model = FnModel::new(|request| Ok(text(&format!("saw {}", tool_results(request).join(", ")), (10, 4))));
    let agent = Agent::<()>::builder(model).build().unwrap();
    let history = vec![
        Message::system("old instructions"),
        Message::user("look it up"),
        Message::assistant_calls(vec![call("old1", "lookup", "{}")]),
    ];
    let expected = format!("saw old1={}", golem_core::texts::INTERRUPTED_RESULT);
    case(agent, ()).step(Step::prompt("continue", Pin::completed(expected).messages(5)).with_history(history)).boxed()
}
