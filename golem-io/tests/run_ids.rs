//! Run and conversation ids through both drivers (SPEC EXTRA-01, DRV-06,
//! LOG-01, LOG-04, LOG-05, LOG-07): minted or given, stamped on messages,
//! events, results and errors, kept in the log header, and the base of each
//! tool call's idempotency key.

use crate::log_buffer::Buffer;
use golem_core::log::{replay, EventLog};
use golem_core::testing::{FnModel, ScriptedModel};
use golem_core::{DeferredResults, Message, ModelError, Response, Role, RunEvent, ToolCall};
use golem_io::{Agent, Error, RunBuilder, RunResult, Tool, ToolContext, ToolError};
use serde_json::json;
use std::sync::{Arc, Mutex};

#[derive(Clone, Copy, Debug)]
enum Driver {
    Blocking,
    Async,
}

const DRIVERS: [Driver; 2] = [Driver::Blocking, Driver::Async];

fn call(run: RunBuilder<'_, (), String>, driver: Driver) -> Result<RunResult<String>, Error> {
    match driver {
        Driver::Blocking => run.call(),
        Driver::Async => futures_lite::future::block_on(run.call_async()),
    }
}

/// A UUIDv7 in its canonical text form (RFC 9562).
fn is_uuid_v7(id: &str) -> bool {
    let b = id.as_bytes();
    let hex = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_hexdigit);
    b.len() == 36
        && [8, 13, 18, 23].iter().all(|&i| b[i] == b'-')
        && hex(0..8)
        && hex(9..13)
        && hex(14..18)
        && hex(19..23)
        && hex(24..36)
        && b[14] == b'7'
        && matches!(b[19], b'8' | b'9' | b'a' | b'b')
}

/// What tools saw of their context: (run id, conversation id, idempotency key).
type Seen = Arc<Mutex<Vec<(String, String, String)>>>;

fn look(seen: &Seen) -> Tool<()> {
    let seen = Arc::clone(seen);
    Tool::new("look", "Look around.", json!({"type": "object"}), move |ctx: ToolContext<()>, _| {
        let ids = (ctx.run_id().to_string(), ctx.conversation_id().to_string(), ctx.idempotency_key());
        seen.lock().unwrap().push(ids);
        Ok("a table")
    })
}

/// One tool turn, then an answer.
fn tool_then_answer() -> ScriptedModel {
    ScriptedModel::new().respond(Response::tool_calls(vec![ToolCall::new("c1", "look", "{}")])).text("a table it is")
}

fn events_of(run: RunBuilder<'_, (), String>) -> (RunBuilder<'_, (), String>, Arc<Mutex<Vec<RunEvent>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    (run.observer(move |e| sink.lock().unwrap().push(e.clone())), events)
}

fn assert_added_messages_stamped(result: &RunResult<String>, from: usize) {
    for (i, m) in result.messages.iter().enumerate().skip(from) {
        assert_eq!((m.run_id.as_str(), m.conversation_id.as_str()), (result.run_id(), result.conversation_id()), "{i}");
    }
}

#[test]
fn extra_01_drivers_mint_uuid_v7_ids_and_stamp_messages_events_and_tool_contexts() {
    for driver in DRIVERS {
        let seen = Seen::default();
        let agent =
            Agent::<()>::builder(tool_then_answer()).instructions("Be brief.").tool(look(&seen)).build().unwrap();
        let (run, events) = events_of(agent.run_with(()).prompt("what is here?"));
        let result = call(run, driver).unwrap();
        assert!(is_uuid_v7(result.run_id()), "{driver:?}: {}", result.run_id());
        assert!(is_uuid_v7(result.conversation_id()), "{driver:?}: {}", result.conversation_id());
        assert_ne!(result.run_id(), result.conversation_id());
        assert_eq!(result.messages.len(), 5, "system, prompt, tool turn, result, answer");
        assert_added_messages_stamped(&result, 0);
        let events = events.lock().unwrap();
        assert!(!events.is_empty());
        for e in events.iter() {
            assert_eq!((e.run_id.as_str(), e.conversation_id.as_str()), (result.run_id(), result.conversation_id()));
        }
        let run = result.run_id().to_string();
        let expected = (run.clone(), result.conversation_id().to_string(), format!("{run}:c1"));
        assert_eq!(*seen.lock().unwrap(), vec![expected], "{driver:?}");
        // The JSON result names them too (SPEC RUN-08, RUN-10).
        let json = serde_json::to_value(&result).unwrap();
        assert_eq!(json["runId"], result.run_id());
        assert_eq!(json["conversationId"], result.conversation_id());
    }
}

#[test]
fn extra_01_every_run_gets_a_new_run_id() {
    let agent = Agent::<()>::builder(ScriptedModel::new().text("a").text("b")).build().unwrap();
    let first = agent.run((), "one").unwrap();
    let second = agent.run((), "two").unwrap();
    assert_ne!(first.run_id(), second.run_id());
    assert_ne!(first.conversation_id(), second.conversation_id(), "no history: a new conversation each");
}

#[test]
fn extra_01_given_ids_are_used_as_they_are() {
    for driver in DRIVERS {
        let seen = Seen::default();
        let agent = Agent::<()>::builder(tool_then_answer()).tool(look(&seen)).build().unwrap();
        let run = agent.run_with(()).prompt("p").run_id("job-42").conversation_id("ticket-7");
        let result = call(run, driver).unwrap();
        assert_eq!((result.run_id(), result.conversation_id()), ("job-42", "ticket-7"));
        assert_added_messages_stamped(&result, 0);
        assert_eq!(seen.lock().unwrap()[0].2, "job-42:c1", "{driver:?}");
        // An empty id means "mint one".
        let agent = Agent::<()>::builder(ScriptedModel::new().text("x")).build().unwrap();
        let result = call(agent.run_with(()).prompt("p").run_id("").conversation_id(""), driver).unwrap();
        assert!(is_uuid_v7(result.run_id()) && is_uuid_v7(result.conversation_id()));
    }
}

#[test]
fn extra_01_a_run_on_history_continues_its_newest_conversation() {
    for driver in DRIVERS {
        let agent = Agent::<()>::builder(ScriptedModel::new().text("hello").text("bye")).build().unwrap();
        let first = call(agent.run_with(()).prompt("hi"), driver).unwrap();
        let second = call(agent.run_with(()).history(first.messages.clone()).prompt("bye"), driver).unwrap();
        assert_eq!(second.conversation_id(), first.conversation_id(), "{driver:?}");
        assert_ne!(second.run_id(), first.run_id());
        assert_eq!(second.messages[..2], first.messages[..], "history keeps its own ids");
        assert_added_messages_stamped(&second, 2);
        assert_eq!(second.messages[2].run_id, second.run_id);
    }
    // The newest message with a conversation id decides; one without any opens a new one.
    let mut older = Message::user("a");
    older.conversation_id = "old".into();
    let mut newer = Message::assistant("b");
    newer.conversation_id = "new".into();
    let history = vec![older, newer, Message::user("c"), Message::assistant("d")];
    let agent = Agent::<()>::builder(ScriptedModel::new().text("x").text("y")).build().unwrap();
    let result = agent.run_with_history((), history, "e").unwrap();
    assert_eq!(result.conversation_id(), "new");
    // The run shares the history's id rather than copying it.
    let (given, added) = (&result.messages[1].conversation_id, &result.messages[5].conversation_id);
    assert_eq!((given.as_str(), added.as_str()), ("new", "new"));
    assert!(std::ptr::eq(given.as_str(), added.as_str()));
    let result = agent.run_with_history((), vec![Message::user("a"), Message::assistant("b")], "c").unwrap();
    assert!(is_uuid_v7(result.conversation_id()));
}

#[test]
fn extra_01_a_failed_run_exposes_its_ids_and_stamped_evidence() {
    for driver in DRIVERS {
        let model = ScriptedModel::new()
            .respond(Response::tool_calls(vec![ToolCall::new("c1", "look", "{}")]))
            .fail(ModelError::api(400, "bad request"));
        let agent = Agent::<()>::builder(model).tool(look(&Seen::default())).build().unwrap();
        let error = call(agent.run_with(()).prompt("p").run_id("r-1").conversation_id("c-1"), driver).unwrap_err();
        assert_eq!((error.run_id(), error.conversation_id()), (Some("r-1"), Some("c-1")), "{driver:?}");
        let run = error.as_run().unwrap();
        assert_eq!((run.run_id(), run.conversation_id()), ("r-1", "c-1"));
        let partial = run.partial.as_ref().unwrap();
        assert!(partial.messages.iter().all(|m| m.run_id == "r-1" && m.conversation_id == "c-1"));
        // A run that never started has no ids.
        let setup = Error::from(golem_core::machine::SetupError::StreamingUnsupported);
        assert_eq!(setup.run_id(), None);
    }
}

#[test]
fn extra_01_ids_are_never_in_what_a_model_is_asked_to_send() {
    // The ids live on messages, which providers encode field by field; a
    // provider test pins that the wire never carries them. Here: a model
    // sees them as evidence only on messages, never as extra content.
    let model = ScriptedModel::new().text("x");
    let probe = model.clone();
    let agent = Agent::<()>::builder(model).build().unwrap();
    agent.run_with(()).prompt("p").run_id("r-9").call().unwrap();
    let request = probe.last_request().unwrap();
    assert_eq!(request.messages.last().unwrap().content, "p");
    assert_eq!(request.messages.last().unwrap().run_id, "r-9");
}

#[test]
fn log_01_the_header_records_the_ids_and_replay_reproduces_the_run() {
    for driver in DRIVERS {
        let agent = Agent::<()>::builder(tool_then_answer()).tool(look(&Seen::default())).build().unwrap();
        let buffer = Buffer::default();
        let result = call(agent.run_with(()).prompt("p").record(buffer.clone()), driver).unwrap();
        let log = EventLog::parse(&buffer.text()).unwrap();
        assert_eq!(log.header.run_id, result.run_id(), "{driver:?}");
        assert_eq!(log.header.conversation_id, result.conversation_id());
        let replayed = replay(&log).unwrap();
        let Some(golem_core::machine::Outcome::Completed { summary, .. }) = replayed.machine.outcome() else {
            panic!("{:?}", replayed.machine.outcome())
        };
        assert_eq!(summary.messages, result.messages);
        assert_eq!(summary.run_id, result.run_id);
        // Writing the replayed log again gives the same bytes.
        assert_eq!(log.to_jsonl(), buffer.text());
    }
}

/// Asks for `pay` once, then answers.
fn pay_model() -> FnModel {
    FnModel::new(|request| {
        Ok(if request.messages.iter().any(|m| m.role == Role::Tool) {
            Response::text("paid")
        } else {
            Response::tool_calls(vec![ToolCall::new("call_pay", "pay", r#"{"amount":5}"#)])
        })
    })
}

fn pay_agent(keys: &Arc<Mutex<Vec<String>>>) -> Agent<()> {
    let keys = Arc::clone(keys);
    let pay = Tool::new("pay", "Pay.", json!({"type": "object"}), move |ctx: ToolContext<()>, _| {
        keys.lock().unwrap().push(ctx.idempotency_key());
        Ok("receipt")
    })
    .idempotent();
    Agent::builder(pay_model()).tool(pay).build().unwrap()
}

#[test]
fn log_05_log_07_a_redo_after_a_crash_sees_the_same_run_id_and_idempotency_key() {
    for driver in DRIVERS {
        // The first process: the tool body runs, then the process dies before
        // its result reaches the log — cut the log right after `ToolStarted`.
        let keys = Arc::new(Mutex::new(Vec::new()));
        let buffer = Buffer::default();
        let first = call(pay_agent(&keys).run_with(()).prompt("pay").record(buffer.clone()), driver).unwrap();
        let full = EventLog::parse(&buffer.text()).unwrap();
        let started = full
            .records
            .iter()
            .position(|r| matches!(r.input, Some(golem_core::machine::Input::ToolStarted { .. })))
            .unwrap();
        let mut crashed = EventLog::new(full.header.clone());
        crashed.records = full.records[..=started].to_vec();
        let crashed = EventLog::parse(&crashed.to_jsonl()).unwrap();

        // The new process continues the same run; the idempotent tool is redone.
        let agent = pay_agent(&keys);
        let run = agent.run_with(()).run_id("ignored").continue_log(&crashed).unwrap();
        let (run, events) = events_of(run);
        let resumed = call(run, driver).unwrap();
        assert_eq!(resumed.output, "paid");
        assert_eq!(resumed.run_id(), first.run_id(), "{driver:?}: a crash resume continues the run");
        assert_eq!(resumed.conversation_id(), first.conversation_id());
        let keys = keys.lock().unwrap();
        assert_eq!(keys.len(), 2, "once before the crash, once redone");
        assert_eq!(keys[0], keys[1], "{driver:?}");
        assert_eq!(keys[0], format!("{}:call_pay", first.run_id()));
        assert!(events.lock().unwrap().iter().all(|e| e.run_id == first.run_id));
        assert_added_messages_stamped(&resumed, 0);
    }
}

#[test]
fn log_04_a_paused_run_resumed_from_its_log_is_a_new_run_of_the_same_conversation() {
    for driver in DRIVERS {
        let gate = Tool::new("gate", "Needs approval.", json!({"type": "object"}), |ctx: ToolContext<()>, _| {
            if ctx.is_approved() {
                Ok("opened".to_string())
            } else {
                Err(ToolError::approval("opening needs a human"))
            }
        });
        let model = FnModel::new(|request| {
            Ok(if request.messages.iter().any(|m| m.role == Role::Tool) {
                Response::text("open")
            } else {
                Response::tool_calls(vec![ToolCall::new("g1", "gate", "{}")])
            })
        });
        let agent = Agent::<()>::builder(model).tool(gate).build().unwrap();
        let buffer = Buffer::default();
        let paused = call(agent.run_with(()).prompt("open it").record(buffer.clone()), driver).unwrap_err();
        let paused = paused.into_paused().expect("the run paused");
        let log = EventLog::parse(&buffer.text()).unwrap();
        let approve = DeferredResults::new().approval("g1", golem_core::Approval::approve());
        let resumed = call(agent.run_with(()).resume_log(&log, approve).unwrap(), driver).unwrap();
        assert_eq!(resumed.output, "open", "{driver:?}");
        assert_ne!(resumed.run_id(), paused.run_id(), "a resume is a new run");
        assert!(is_uuid_v7(resumed.run_id()));
        assert_eq!(resumed.conversation_id(), paused.conversation_id());
        // The approved result and the answer are the resumed run's messages.
        let n = paused.messages.len();
        assert_eq!(resumed.messages[..n], paused.messages[..]);
        assert_added_messages_stamped(&resumed, n);
    }
}
