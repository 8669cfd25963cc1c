//! Tools under the async driver, and async tools under the blocking one
//! (SPEC DRV-04, TOOL-08..10): parallel groups run concurrently and keep
//! emission order; deadlines drop async futures and signal blocking tools.

use golem_core::error::ToolFailureKind;
use golem_core::testing::ScriptedModel;
use golem_core::{Cause, EventKind, Message, Response, Role, RunEvent, Stage, ToolCall};
use golem_io::{Agent, Tool, ToolContext, ToolError};
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn calls(names: &[(&str, &str)]) -> Response {
    Response::tool_calls(names.iter().map(|(id, name)| ToolCall::new(*id, *name, "{}")).collect())
}

fn tool_messages(messages: &[Message]) -> Vec<(String, String)> {
    messages.iter().filter(|m| m.role == Role::Tool).map(|m| (m.tool_call_id.clone(), m.content.clone())).collect()
}

/// Sets its flag when dropped: proof that a future was dropped, not finished.
struct DropFlag(Arc<AtomicBool>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

fn wait_for(flag: &AtomicBool) -> bool {
    let give_up = Instant::now() + Duration::from_secs(2);
    while !flag.load(Ordering::SeqCst) && Instant::now() < give_up {
        std::thread::sleep(Duration::from_millis(5));
    }
    flag.load(Ordering::SeqCst)
}

#[test]
fn a_parallel_group_runs_concurrently_and_keeps_emission_order() {
    let running = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let finished = Arc::new(Mutex::new(Vec::new()));
    // Each tool finishes only after its turn comes (`fast` once all three
    // run, `mid` after `fast`, `slow` after `mid`), so the finishing order is
    // the reverse of emission order however the machine is loaded; a group
    // that ran one tool at a time would never let `fast` start and would
    // fail at the bound below.
    let gated = |name: &'static str, after: Option<&'static str>| {
        let (running, peak, finished) = (Arc::clone(&running), Arc::clone(&peak), Arc::clone(&finished));
        Tool::new_async(name, "", json!({"type": "object"}), move |_: ToolContext<()>, _| {
            let (running, peak, finished) = (Arc::clone(&running), Arc::clone(&peak), Arc::clone(&finished));
            async move {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(now, Ordering::SeqCst);
                let bound = Instant::now() + Duration::from_secs(60);
                let ready = || match after {
                    None => running.load(Ordering::SeqCst) == 3,
                    Some(before) => finished.lock().unwrap().contains(&before),
                };
                while !ready() {
                    assert!(Instant::now() < bound, "{name}: the group did not run concurrently");
                    async_io::Timer::after(Duration::from_millis(1)).await;
                }
                running.fetch_sub(1, Ordering::SeqCst);
                finished.lock().unwrap().push(name);
                Ok(name)
            }
        })
    };
    let model = ScriptedModel::new().respond(calls(&[("1", "slow"), ("2", "mid"), ("3", "fast")])).text("done");
    let events = Arc::new(Mutex::new(Vec::<RunEvent>::new()));
    let sink = Arc::clone(&events);
    let agent = Agent::builder(model)
        .tools([gated("slow", Some("mid")), gated("mid", Some("fast")), gated("fast", None)])
        .parallel_tools(true)
        .observer(move |e| sink.lock().unwrap().push(e.clone()))
        .build()
        .unwrap();

    // One thread polls everything: concurrency comes from the run's own future.
    let result = futures_lite::future::block_on(agent.run_async((), "go")).unwrap();

    assert_eq!(peak.load(Ordering::SeqCst), 3, "the group ran concurrently");
    assert_eq!(*finished.lock().unwrap(), ["fast", "mid", "slow"]);
    let expected: Vec<(String, String)> =
        [("1", "slow"), ("2", "mid"), ("3", "fast")].iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    assert_eq!(tool_messages(&result.messages), expected);
    let ends: Vec<String> = events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolEnd { call_id, .. } => Some(call_id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(ends, ["1", "2", "3"]);
}

#[test]
fn blocking_tools_of_a_group_run_on_the_pool_concurrently() {
    let peak = Arc::new(AtomicUsize::new(0));
    let running = Arc::new(AtomicUsize::new(0));
    let sleepy = |name: &'static str| {
        let (running, peak) = (Arc::clone(&running), Arc::clone(&peak));
        Tool::new(name, "", json!({"type": "object"}), move |_: ToolContext<()>, _| {
            peak.fetch_max(running.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(60));
            running.fetch_sub(1, Ordering::SeqCst);
            Ok(name)
        })
    };
    let model = ScriptedModel::new().respond(calls(&[("1", "a"), ("2", "b")])).text("done");
    let agent = Agent::builder(model).tools([sleepy("a"), sleepy("b")]).parallel_tools(true).build().unwrap();

    let result = futures_lite::future::block_on(agent.run_async((), "go")).unwrap();

    assert_eq!(peak.load(Ordering::SeqCst), 2);
    assert_eq!(tool_messages(&result.messages), [("1".into(), "a".into()), ("2".into(), "b".into())]);
}

/// An async tool that would run for a minute; `dropped` is set when its
/// future is dropped.
fn overrunning_async_tool(dropped: Arc<AtomicBool>) -> Tool<()> {
    Tool::new_async("slow", "", json!({"type": "object"}), move |_: ToolContext<()>, _| {
        let guard = DropFlag(Arc::clone(&dropped));
        async move {
            let _guard = guard;
            async_io::Timer::after(Duration::from_secs(60)).await;
            Ok("too late")
        }
    })
    .timeout(Duration::from_millis(30))
}

fn assert_timed_out(err: golem_io::Error) {
    let err = err.into_run().expect("a run error");
    assert_eq!(err.stage, Stage::Tool);
    let Cause::Tool(failure) = &err.cause else { panic!("{:?}", err.cause) };
    assert_eq!(failure.failure, ToolFailureKind::Timeout { after: Duration::from_millis(30) });
}

#[test]
fn an_overrunning_async_tool_is_dropped_at_its_deadline() {
    let dropped = Arc::new(AtomicBool::new(false));
    let model = ScriptedModel::new().tool_call("slow", "{}").text("never");
    let agent = Agent::builder(model).tool(overrunning_async_tool(Arc::clone(&dropped))).build().unwrap();

    let started = Instant::now();
    let err = smol::block_on(agent.run_async((), "go")).unwrap_err();

    assert!(started.elapsed() < Duration::from_secs(2), "took {:?}", started.elapsed());
    assert!(dropped.load(Ordering::SeqCst), "the future was dropped with the run's interest");
    assert_timed_out(err);
}

#[test]
fn an_overrunning_async_tool_is_dropped_under_the_blocking_driver_too() {
    let dropped = Arc::new(AtomicBool::new(false));
    let model = ScriptedModel::new().tool_call("slow", "{}").text("never");
    let agent = Agent::builder(model).tool(overrunning_async_tool(Arc::clone(&dropped))).build().unwrap();

    let started = Instant::now();
    let err = agent.run((), "go").unwrap_err();

    assert!(started.elapsed() < Duration::from_secs(2), "took {:?}", started.elapsed());
    assert!(wait_for(&dropped), "the block_on thread dropped the future");
    assert_timed_out(err);
}

#[test]
fn a_blocking_tool_under_the_async_driver_sees_cancellation_at_its_deadline() {
    let saw_cancel = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&saw_cancel);
    let polite = Tool::new("slow", "", json!({"type": "object"}), move |ctx: ToolContext<()>, _| {
        let give_up = Instant::now() + Duration::from_secs(2);
        while !ctx.is_canceled() && Instant::now() < give_up {
            std::thread::sleep(Duration::from_millis(2));
        }
        flag.store(ctx.is_canceled(), Ordering::SeqCst);
        Err::<String, _>(ToolError::failed("stopped"))
    });
    let model = ScriptedModel::new().tool_call("slow", "{}").text("never");
    let agent = Agent::builder(model).tool(polite.timeout(Duration::from_millis(30))).build().unwrap();

    let started = Instant::now();
    let err = futures::executor::block_on(agent.run_async((), "go")).unwrap_err();

    assert!(started.elapsed() < Duration::from_secs(1), "took {:?}", started.elapsed());
    assert_timed_out(err);
    assert!(wait_for(&saw_cancel), "the blocking tool on the pool was told to stop");
}

#[test]
fn an_async_tool_runs_under_the_blocking_driver_on_the_calling_thread() {
    let caller = std::thread::current().id();
    let here = Tool::new_async("here", "", json!({"type": "object"}), move |ctx: ToolContext<String>, _| async move {
        async_io::Timer::after(Duration::from_millis(1)).await;
        Ok(format!("{} {}", ctx.deps(), std::thread::current().id() == caller))
    });
    let model = ScriptedModel::new().tool_call("here", "{}").text("done");
    let agent = Agent::builder(model).tool(here).build().unwrap();

    let result = agent.run("Ada".to_string(), "go").unwrap();

    assert_eq!(tool_messages(&result.messages), [("call_1".into(), "Ada true".into())]);
}

#[test]
fn a_typed_async_tool_rejects_bad_arguments_without_running() {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Args {
        #[allow(dead_code)]
        n: u32,
    }
    let ran = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&ran);
    let typed = Tool::typed_async("count", "", move |_: ToolContext<()>, _: Args| {
        flag.store(true, Ordering::SeqCst);
        async { Ok("counted") }
    });
    let model = ScriptedModel::new().tool_call("count", r#"{"n":"x"}"#).text("done");
    let agent = Agent::builder(model).tool(typed).tool_retries(1).build().unwrap();

    let result = smol::block_on(agent.run_async((), "go")).unwrap();

    assert!(!ran.load(Ordering::SeqCst));
    let rejection = &tool_messages(&result.messages)[0].1;
    assert!(rejection.contains("invalid type"), "{rejection}");
}

#[test]
fn a_panicking_async_tool_fails_the_run_not_the_executor() {
    let boom = Tool::new_async("boom", "", json!({"type": "object"}), |_: ToolContext<()>, _| async {
        if true {
            panic!("kaboom");
        }
        Ok("unreachable")
    });
    let model = ScriptedModel::new().tool_call("boom", "{}").text("never");
    let agent = Agent::builder(model).tool(boom).build().unwrap();

    let err = smol::block_on(agent.run_async((), "go")).unwrap_err().into_run().unwrap();

    assert_eq!(err.stage, Stage::Tool);
    assert!(err.to_string().contains("the tool panicked: kaboom"), "{err}");
}

/// Async tools that record how many of them run at once.
fn counted(names: &[&'static str], running: &Arc<AtomicUsize>, peak: &Arc<AtomicUsize>) -> Vec<Tool<()>> {
    names
        .iter()
        .map(|name| {
            let (running, peak) = (Arc::clone(running), Arc::clone(peak));
            Tool::new_async(*name, "", json!({"type": "object"}), move |_: ToolContext<()>, _| {
                let (running, peak) = (Arc::clone(&running), Arc::clone(&peak));
                async move {
                    peak.fetch_max(running.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                    async_io::Timer::after(Duration::from_millis(10)).await;
                    running.fetch_sub(1, Ordering::SeqCst);
                    Ok("ok")
                }
            })
        })
        .collect()
}

#[test]
fn the_concurrency_cap_holds_under_the_async_driver() {
    let (running, peak) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let model = ScriptedModel::new().respond(calls(&[("1", "a"), ("2", "b"), ("3", "c"), ("4", "d")])).text("done");
    let agent = Agent::builder(model)
        .tools(counted(&["a", "b", "c", "d"], &running, &peak))
        .parallel_tools(true)
        .max_concurrency(2)
        .build()
        .unwrap();

    let result = smol::block_on(agent.run_async((), "go")).unwrap();

    assert_eq!(peak.load(Ordering::SeqCst), 2);
    let ids: Vec<String> = tool_messages(&result.messages).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["1", "2", "3", "4"]);
}

#[test]
fn a_sequential_tool_is_a_barrier_under_the_async_driver() {
    let (running, peak) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let mut tools = counted(&["a", "b", "c"], &running, &peak);
    let barrier = tools.remove(1).sequential();
    tools.insert(1, barrier);
    // a alone (the barrier b follows it), b alone, then c.
    let model = ScriptedModel::new().respond(calls(&[("1", "a"), ("2", "b"), ("3", "c")])).text("done");
    let agent = Agent::builder(model).tools(tools).parallel_tools(true).build().unwrap();

    smol::block_on(agent.run_async((), "go")).unwrap();

    assert_eq!(peak.load(Ordering::SeqCst), 1);
}

#[test]
fn a_timeout_shown_as_a_failed_result_lets_the_async_run_go_on() {
    let dropped = Arc::new(AtomicBool::new(false));
    let slow = overrunning_async_tool(Arc::clone(&dropped)).on_timeout(golem_core::tool::TimeoutPolicy::FailedResult);
    let model = ScriptedModel::new().tool_call("slow", "{}").text("moved on");
    let agent = Agent::builder(model).tool(slow).build().unwrap();

    let result = smol::block_on(agent.run_async((), "go")).unwrap();

    assert_eq!(result.output, "moved on");
    assert!(dropped.load(Ordering::SeqCst));
    let shown = result.messages.iter().find(|m| m.role == Role::Tool).unwrap();
    assert!(shown.failed, "{shown:?}");
}
