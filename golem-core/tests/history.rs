//! History repair, validation, trimming and placement (SPEC HIST, DEFER-02,
//! DEFER-05, MSG-07, TOOL-13). Each test names the SPEC item it pins.

use golem_core::history::{
    drop_system, normalize_history, pending_calls, place_results, repair, sanitize_history, trim_history, validate,
    DroppedPart, HistoryError, PendingRef, RepairReport,
};
use golem_core::texts::INTERRUPTED_RESULT;
use golem_core::{Message, Part, PartKind, Role, ThinkingBlock, ToolCall};
use proptest::prelude::*;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn user(text: &str) -> Message {
    Message::user(text)
}

fn asst(text: &str) -> Message {
    Message::assistant(text)
}

/// An assistant message calling tool `t_<id>` once per id, args `{}`.
fn calls(ids: &[&str]) -> Message {
    Message::assistant_calls(ids.iter().map(|id| ToolCall::new(*id, format!("t_{id}"), "{}")).collect())
}

fn result(id: &str) -> Message {
    Message::tool_result(id, format!("t_{id}"), format!("result {id}"))
}

fn interrupted(id: &str) -> Message {
    Message::tool_result(id, format!("t_{id}"), INTERRUPTED_RESULT)
}

fn strings(ids: &[&str]) -> Vec<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

/// An independent statement of the HIST-01 invariant, written without the
/// library's code: every tool message answers a same-id call of its nearest
/// preceding assistant message, at most once per id, and every call with an id
/// has a result before the next assistant message.
fn is_well_paired(messages: &[Message]) -> bool {
    let mut turn: Option<(&Message, Vec<&str>)> = None;
    let closes = |turn: &Option<(&Message, Vec<&str>)>| match turn {
        None => true,
        Some((a, answered)) => a.tool_calls.iter().all(|c| c.id.is_empty() || answered.contains(&c.id.as_str())),
    };
    for m in messages {
        match m.role {
            Role::Assistant => {
                if !closes(&turn) {
                    return false;
                }
                turn = Some((m, Vec::new()));
            }
            Role::Tool => {
                let Some((a, answered)) = turn.as_mut() else { return false };
                let id = m.tool_call_id.as_str();
                if id.is_empty() || answered.contains(&id) || !a.tool_calls.iter().any(|c| c.id == id) {
                    return false;
                }
                answered.push(id);
            }
            _ => {}
        }
    }
    closes(&turn)
}

// ---------------------------------------------------------------------------
// HIST-05 validation
// ---------------------------------------------------------------------------

#[test]
fn hist_05_valid_history_passes() {
    let history = vec![
        Message::system("be brief"),
        user("look").with_parts(vec![Part::image_url("https://x/y.png")]),
        calls(&["a"]).with_thinking(vec![golem_core::ThinkingBlock::text("hmm")]),
        result("a").with_parts(vec![Part::image_data("image/png", vec![1u8, 2, 3])]),
        asst("done"),
    ];
    assert_eq!(validate(&history), Ok(()));
    assert_eq!(validate(&[]), Ok(()));
}

#[test]
fn hist_05_parts_only_on_user_and_tool() {
    let part = || vec![Part::image_url("https://x/y.png")];
    let history = vec![user("hi"), asst("ok").with_parts(part())];
    assert_eq!(validate(&history), Err(HistoryError::PartsNotAllowed { index: 1, role: Role::Assistant }));
    let history = vec![Message::system("s").with_parts(part())];
    assert_eq!(validate(&history), Err(HistoryError::PartsNotAllowed { index: 0, role: Role::System }));
}

#[test]
fn hist_05_each_part_valid() {
    let bad = {
        let mut part = Part::image_url("");
        part.url = String::new();
        part
    };
    let history = vec![user("a"), user("b").with_parts(vec![Part::image_url("https://ok"), bad])];
    match validate(&history) {
        Err(HistoryError::InvalidPart { index: 1, part: 1, .. }) => {}
        other => panic!("unexpected {other:?}"),
    }
    let no_media_type = Part::image_data("", vec![1u8]);
    let history = vec![result("a").with_parts(vec![no_media_type])];
    assert!(matches!(validate(&history), Err(HistoryError::InvalidPart { index: 0, part: 0, .. })));
}

#[test]
fn hist_05_thinking_only_on_assistant_and_valid() {
    let ok = || vec![golem_core::ThinkingBlock::text("t")];
    let history = vec![user("hi").with_thinking(ok())];
    assert_eq!(validate(&history), Err(HistoryError::ThinkingNotAllowed { index: 0, role: Role::User }));
    let history = vec![user("hi"), result("a").with_thinking(ok())];
    assert_eq!(validate(&history), Err(HistoryError::ThinkingNotAllowed { index: 1, role: Role::Tool }));

    let both = {
        let mut built = golem_core::ThinkingBlock::default();
        built.text = "t".into();
        built.redacted = "r".into();
        built
    };
    let signed_redacted = golem_core::ThinkingBlock::redacted("r").with_signature("s");
    let empty = ThinkingBlock::default();
    for (block, bad) in [(both, 1), (signed_redacted, 1), (empty, 1)] {
        let history = vec![user("hi"), asst("x").with_thinking(vec![ok()[0].clone(), block])];
        assert_eq!(validate(&history), Err(HistoryError::InvalidThinking { index: 1, block: bad }));
    }
}

// ---------------------------------------------------------------------------
// HIST-01 repair, table tests
// ---------------------------------------------------------------------------

#[test]
fn hist_01_valid_history_unchanged() {
    let history = vec![
        Message::system("sys"),
        user("q"),
        calls(&["a", "b"]),
        result("b"),
        result("a"),
        user("interjection"),
        calls(&["c"]),
        result("c"),
        asst("answer"),
    ];
    let (out, report) = normalize_history(history.clone());
    assert_eq!(out, history);
    assert_eq!(report, RepairReport::default());
    assert_eq!(repair(history.clone()), history);
}

#[test]
fn hist_01_tool_13_missing_result_synthesized_after_assistant_before_real_results() {
    let history = vec![user("q"), calls(&["a", "b", "c"]), result("b"), asst("done")];
    let (out, report) = normalize_history(history);
    assert_eq!(
        out,
        vec![user("q"), calls(&["a", "b", "c"]), interrupted("a"), interrupted("c"), result("b"), asst("done")]
    );
    assert_eq!(report.synthesized, strings(&["a", "c"]));
    assert!(report.dropped.is_empty());
}

#[test]
fn hist_01_synthesized_result_copies_only_name_and_run_ids() {
    let mut a = Message::assistant_calls(vec![ToolCall::new("a", "search", r#"{"q":1}"#).with_signature("sig")]);
    a.content = "let me look".into();
    a.run_id = "run-1".into();
    a.conversation_id = "conv-1".into();
    let out = repair(vec![user("q"), a.clone()]);
    let mut expected = Message::tool_result("a", "search", INTERRUPTED_RESULT);
    expected.run_id = "run-1".into();
    expected.conversation_id = "conv-1".into();
    assert_eq!(out, vec![user("q"), a, expected]);
}

#[test]
fn hist_01_orphans_and_empty_ids_dropped() {
    let history = vec![
        result("early"), // before any assistant message
        user("q"),
        calls(&["a"]),
        result("a"),
        result("zzz"), // no such call
        result(""),    // empty id
        Message::tool_result("", "t", "x"),
        asst("done"),
    ];
    let (out, report) = normalize_history(history);
    assert_eq!(out, vec![user("q"), calls(&["a"]), result("a"), asst("done")]);
    assert_eq!(report.dropped, strings(&["early", "zzz", "", ""]));
    assert!(report.synthesized.is_empty());
}

#[test]
fn hist_01_first_result_kept_later_duplicates_dropped() {
    let second = Message::tool_result("a", "t_a", "second");
    let history = vec![user("q"), calls(&["a"]), result("a"), second];
    let (out, report) = normalize_history(history);
    assert_eq!(out, vec![user("q"), calls(&["a"]), result("a")]);
    assert_eq!(report.dropped, strings(&["a"]));
}

#[test]
fn hist_01_result_pairs_only_with_nearest_preceding_assistant() {
    // The result for "a" arrives after another assistant message: providers
    // reject it there, so it is dropped and "a" is interrupted instead.
    let history = vec![user("q"), calls(&["a"]), asst("thinking aloud"), result("a")];
    let (out, report) = normalize_history(history);
    assert_eq!(out, vec![user("q"), calls(&["a"]), interrupted("a"), asst("thinking aloud")]);
    assert_eq!(report.synthesized, strings(&["a"]));
    assert_eq!(report.dropped, strings(&["a"]));
}

#[test]
fn hist_01_msg_07_same_provider_id_in_two_turns_is_two_keys() {
    let history = vec![user("q"), calls(&["a"]), result("a"), calls(&["a"]), user("more")];
    let out = repair(history);
    assert_eq!(out, vec![user("q"), calls(&["a"]), result("a"), calls(&["a"]), interrupted("a"), user("more")]);
}

#[test]
fn hist_01_calls_without_id_never_paired() {
    let history = vec![user("q"), calls(&["", "a"]), result("a")];
    let (out, report) = normalize_history(history.clone());
    assert_eq!(out, history);
    assert!(report.synthesized.is_empty());

    let history = vec![user("q"), calls(&[""]), result("")];
    let (out, report) = normalize_history(history);
    assert_eq!(out, vec![user("q"), calls(&[""])]);
    assert_eq!(report.dropped, strings(&[""]));
}

#[test]
fn hist_01_non_tool_messages_between_stay_in_place() {
    let history = vec![user("q"), calls(&["a", "b"]), user("hurry"), Message::system("s"), result("b")];
    let out = repair(history);
    assert_eq!(
        out,
        vec![user("q"), calls(&["a", "b"]), interrupted("a"), user("hurry"), Message::system("s"), result("b")]
    );
    assert!(is_well_paired(&out));
}

#[test]
fn hist_01_repeated_id_in_one_message_is_one_key() {
    let history = vec![user("q"), calls(&["a", "a"])];
    let (out, report) = normalize_history(history);
    assert_eq!(out, vec![user("q"), calls(&["a", "a"]), interrupted("a")]);
    assert_eq!(report.synthesized, strings(&["a"]));
    assert_eq!(repair(out.clone()), out);
}

#[test]
fn hist_01_paused_history_gets_interrupted_results() {
    // DEFER-05: a paused history given to plain run-with-history is repaired.
    let history = vec![user("q"), calls(&["a", "b"]), result("a")];
    assert_eq!(repair(history), vec![user("q"), calls(&["a", "b"]), interrupted("b"), result("a")]);
}

#[test]
fn hist_01_idempotent_on_table_cases() {
    let cases = vec![
        vec![result("x"), calls(&["a", "b", ""]), result("b"), result("b"), asst("a"), result("a")],
        vec![calls(&["a"]), calls(&["a"]), result("a"), result("a")],
        vec![user("q"), calls(&["a", "b"]), user("u"), result("b")],
    ];
    for history in cases {
        let once = repair(history);
        assert!(is_well_paired(&once), "{once:?}");
        let (twice, report) = normalize_history(once.clone());
        assert_eq!(twice, once);
        assert!(report.synthesized.is_empty() && report.dropped.is_empty());
    }
}

#[test]
fn hist_01_empty_history() {
    assert_eq!(normalize_history(Vec::new()), (Vec::new(), RepairReport::default()));
}

// ---------------------------------------------------------------------------
// HIST-06 normalize_history report
// ---------------------------------------------------------------------------

#[test]
fn hist_06_truncated_args_reported_bytes_kept() {
    let call_list = vec![
        ToolCall::new("ok", "t", r#"{"a": 1}"#),
        ToolCall::new("cut", "t", r#"{"a": "#),
        ToolCall::new("array", "t", "[1,2]"),
        ToolCall::new("blank", "t", ""),
        ToolCall::new("spaces", "t", "  "),
    ];
    let history = vec![
        user("q"),
        Message::assistant_calls(call_list),
        result("ok"),
        result("cut"),
        result("array"),
        result("blank"),
        result("spaces"),
    ];
    let (out, report) = normalize_history(history.clone());
    // Blank args go on the wire as `{}` (HIST-06), so they are not truncated.
    assert_eq!(report, RepairReport { truncated: strings(&["cut", "array"]), ..Default::default() });
    assert_eq!(out, history);
    assert_eq!(out[1].tool_calls[1].args.as_str(), r#"{"a": "#);
}

#[test]
fn hist_06_report_lists_all_changes() {
    let history = vec![
        user("q"),
        Message::assistant_calls(vec![ToolCall::new("a", "t_a", "{"), ToolCall::new("b", "t_b", "{}")]),
        result("b"),
        result("c"),
    ];
    let (_, report) = normalize_history(history);
    assert_eq!(
        report,
        RepairReport { synthesized: strings(&["a"]), dropped: strings(&["c"]), truncated: strings(&["a"]) }
    );
}

// ---------------------------------------------------------------------------
// HIST-04 trimming
// ---------------------------------------------------------------------------

#[test]
fn hist_04_budget_below_one_is_an_error() {
    assert_eq!(trim_history(&[user("q")], 0), Err(HistoryError::InvalidTrimBudget(0)));
    assert_eq!(trim_history(&[], 0), Err(HistoryError::InvalidTrimBudget(0)));
}

#[test]
fn hist_04_within_budget_unchanged() {
    let history = vec![Message::system("s"), user("q"), asst("a")];
    assert_eq!(trim_history(&history, 3), Ok(history.clone()));
    assert_eq!(trim_history(&history, 5), Ok(history));
    assert_eq!(trim_history(&[], 1), Ok(Vec::new()));
}

/// Issue 11: a history within budget that opens with an assistant turn is
/// not left as is — Anthropic-family APIs reject it.
#[test]
fn hist_04_within_budget_opening_with_an_assistant_is_cut_to_a_user_message() {
    let history = vec![asst("odd but within budget"), user("q")];
    assert_eq!(trim_history(&history, 2), Ok(vec![user("q")]));
    assert_eq!(trim_history(&history, 5), Ok(vec![user("q")]));
    let history = vec![result("orphan"), user("q"), asst("a")];
    assert_eq!(trim_history(&history, 3), Ok(vec![user("q"), asst("a")]));
}

#[test]
fn hist_04_keeps_newest_from_a_user_message() {
    let history = vec![user("1"), asst("1"), user("2"), asst("2")];
    assert_eq!(trim_history(&history, 2), Ok(vec![user("2"), asst("2")]));
}

#[test]
fn hist_04_skips_leading_tool_and_system_messages() {
    let history = vec![user("1"), calls(&["a"]), result("a"), Message::system("s"), user("2"), asst("2")];
    assert_eq!(trim_history(&history, 4), Ok(vec![user("2"), asst("2")]));
}

#[test]
fn hist_04_assistant_first_gets_newest_earlier_user_message() {
    // A long single-prompt tool loop keeps its prompt, and the prompt counts
    // toward the budget: the window shrinks to make room for it.
    let history = vec![
        user("old"),
        asst("old"),
        user("prompt"),
        calls(&["a"]),
        result("a"),
        calls(&["b"]),
        result("b"),
        asst("done"),
    ];
    assert_eq!(trim_history(&history, 2).unwrap(), vec![user("prompt"), asst("done")]);
    assert_eq!(trim_history(&history, 3).unwrap(), vec![user("prompt"), asst("done")]);
    let trimmed = trim_history(&history, 4).unwrap();
    assert_eq!(trimmed, vec![user("prompt"), calls(&["b"]), result("b"), asst("done")]);
    let trimmed = trim_history(&history, 5).unwrap();
    assert_eq!(trimmed, vec![user("prompt"), calls(&["b"]), result("b"), asst("done")]);
    let trimmed = trim_history(&history, 6).unwrap();
    assert_eq!(trimmed, vec![user("prompt"), calls(&["a"]), result("a"), calls(&["b"]), result("b"), asst("done")]);
    // A budget of one cannot hold a prompt and an answer.
    assert_eq!(trim_history(&history, 1), Err(HistoryError::NothingLeft));
}

/// Issue 11: trimming never returns more than the budget — the carried
/// prompt included.
#[test]
fn hist_04_never_more_than_the_budget() {
    let history = vec![user("prompt"), calls(&["a"]), result("a"), calls(&["b"]), result("b"), asst("done")];
    for n in 1..=8 {
        if let Ok(trimmed) = trim_history(&history, n) {
            assert!(trimmed.len() <= n, "n = {n}: {} messages", trimmed.len());
        }
    }
}

#[test]
fn hist_04_without_earlier_user_advances_to_first_user() {
    let history = vec![asst("0"), asst("1"), calls(&["a"]), result("a"), user("q"), asst("2")];
    assert_eq!(trim_history(&history, 5), Ok(vec![user("q"), asst("2")]));
}

#[test]
fn hist_04_nothing_left() {
    let history = vec![user("q"), calls(&["a"]), result("a")];
    assert_eq!(trim_history(&history, 1), Err(HistoryError::NothingLeft));
    let history = vec![asst("0"), asst("1"), asst("2")];
    assert_eq!(trim_history(&history, 2), Err(HistoryError::NothingLeft));
    let history = vec![Message::system("s"), Message::system("s"), Message::system("s")];
    assert_eq!(trim_history(&history, 2), Err(HistoryError::NothingLeft));
}

#[test]
fn hist_04_results_of_a_cut_call_dropped_even_past_a_user_message() {
    // Repair keeps a user message between a call and its result, so a cut at
    // that user message must not leave the result behind without its call.
    let history = vec![user("q"), calls(&["a"]), user("hurry"), result("a"), asst("done")];
    assert_eq!(repair(history.clone()), history);
    let trimmed = trim_history(&history, 3).unwrap();
    assert_eq!(trimmed, vec![user("hurry"), asst("done")]);
    assert_eq!(repair(trimmed.clone()), trimmed);
}

#[test]
fn hist_04_system_inside_window_stays() {
    let history = vec![user("1"), asst("1"), user("2"), Message::system("s"), asst("2")];
    assert_eq!(trim_history(&history, 3), Ok(vec![user("2"), Message::system("s"), asst("2")]));
}

// ---------------------------------------------------------------------------
// DEFER-02 pending calls
// ---------------------------------------------------------------------------

#[test]
fn defer_02_pending_calls_lists_unanswered_calls_with_ids() {
    let history = vec![user("q"), calls(&["a", "b"]), result("a"), user("u"), calls(&["c", "", "d", "e"]), result("d")];
    assert_eq!(
        pending_calls(&history),
        vec![
            PendingRef { message: 1, call: 1 },
            PendingRef { message: 4, call: 0 },
            PendingRef { message: 4, call: 3 }
        ]
    );
    assert!(pending_calls(&repair(history)).is_empty());
}

#[test]
fn defer_02_msg_07_repeated_pending_ids_each_listed() {
    // The resume refuses two pending calls with one id; it can only see them
    // if both are listed.
    let history = vec![user("q"), calls(&["a", "a"])];
    assert_eq!(pending_calls(&history), vec![PendingRef { message: 1, call: 0 }, PendingRef { message: 1, call: 1 }]);
    let history = vec![user("q"), calls(&["a"]), asst("x"), calls(&["a"])];
    assert_eq!(pending_calls(&history), vec![PendingRef { message: 1, call: 0 }, PendingRef { message: 3, call: 0 }]);
}

#[test]
fn defer_02_results_across_an_assistant_do_not_count() {
    let history = vec![user("q"), calls(&["a"]), asst("x"), result("a")];
    assert_eq!(pending_calls(&history), vec![PendingRef { message: 1, call: 0 }]);
}

// ---------------------------------------------------------------------------
// DEFER-05 placement
// ---------------------------------------------------------------------------

#[test]
fn defer_05_last_turn_results_interleaved_in_emission_order() {
    let mut history = vec![user("q"), calls(&["a", "b", "c", "d"]), result("b"), result("d")];
    place_results(&mut history, vec![result("c"), result("a")]);
    assert_eq!(
        history,
        vec![user("q"), calls(&["a", "b", "c", "d"]), result("a"), result("b"), result("c"), result("d")]
    );
    assert_eq!(repair(history.clone()), history);
}

#[test]
fn defer_05_older_turn_results_go_after_that_turns_results() {
    let mut history =
        vec![user("q"), calls(&["a", "b"]), result("a"), user("more"), calls(&["c"]), result("c"), asst("done")];
    place_results(&mut history, vec![result("b")]);
    assert_eq!(
        history,
        vec![
            user("q"),
            calls(&["a", "b"]),
            result("a"),
            result("b"),
            user("more"),
            calls(&["c"]),
            result("c"),
            asst("done")
        ]
    );
    assert!(is_well_paired(&history));
}

#[test]
fn defer_05_latest_assistant_with_the_id_wins() {
    let mut history = vec![user("q"), calls(&["a"]), result("a"), calls(&["a"])];
    let late = Message::tool_result("a", "t_a", "late");
    place_results(&mut history, vec![late.clone()]);
    assert_eq!(history, vec![user("q"), calls(&["a"]), result("a"), calls(&["a"]), late]);
}

#[test]
fn defer_05_unknown_or_empty_ids_appended_then_dropped_by_repair() {
    let mut history = vec![user("q"), calls(&["a"]), result("a"), asst("done")];
    place_results(&mut history, vec![result("nope"), result("")]);
    assert_eq!(history.len(), 6);
    assert_eq!(history[4], result("nope"));
    assert_eq!(history[5], result(""));
    let (out, report) = normalize_history(history);
    assert_eq!(out, vec![user("q"), calls(&["a"]), result("a"), asst("done")]);
    assert_eq!(report.dropped, strings(&["nope", ""]));
}

#[test]
fn defer_05_existing_strays_in_block_are_stepped_over() {
    let mut history = vec![user("q"), calls(&["a", "b"]), result("x"), result("b")];
    place_results(&mut history, vec![result("a")]);
    assert_eq!(history, vec![user("q"), calls(&["a", "b"]), result("x"), result("a"), result("b")]);
}

// ---------------------------------------------------------------------------
// HIST-02 and HIST-07
// ---------------------------------------------------------------------------

#[test]
fn hist_02_drop_system() {
    let history = vec![Message::system("a"), user("q"), Message::system("b"), asst("x")];
    assert_eq!(drop_system(history), vec![user("q"), asst("x")]);
}

#[test]
fn hist_07_sanitize_history() {
    let history = vec![
        Message::system("s"),
        user("").with_parts(vec![Part::image_url("file:///etc/passwd")]),
        user("look").with_parts(vec![
            Part::image_url("HTTPS://ok/1.png"),
            Part::image_url("data:image/png;base64,AA=="),
            Part::image_data("image/png", vec![1u8]),
            Part::image_url("/relative.png"),
        ]),
        calls(&["a"]),
        Message::tool_result("a", "t_a", "").with_parts(vec![Part::image_url("ftp://x")]),
        user("   "),
        calls(&["b"]),
    ];
    let (out, report) = sanitize_history(history);
    assert_eq!(
        out,
        vec![
            user("look")
                .with_parts(vec![Part::image_url("HTTPS://ok/1.png"), Part::image_data("image/png", vec![1u8])]),
            calls(&["a"]),
            Message::tool_result("a", "t_a", ""),
            calls(&["b"]),
            interrupted("b"),
        ]
    );
    assert_eq!(report.dropped_system, vec![0]);
    assert_eq!(report.dropped_user, vec![1, 5]);
    let dropped = |message, scheme: &str| DroppedPart { message, kind: PartKind::Image, scheme: scheme.into() };
    assert_eq!(report.dropped_parts, vec![dropped(1, "file"), dropped(2, "data"), dropped(2, ""), dropped(4, "ftp")]);
    assert_eq!(report.repair.synthesized, strings(&["b"]));

    let (again, report) = sanitize_history(out.clone());
    assert_eq!(again, out);
    assert_eq!(report, Default::default());
}

// ---------------------------------------------------------------------------
// Property tests (HIST-01 [ours]: property-tested on generated histories)
// ---------------------------------------------------------------------------

const IDS: &[&str] = &["", "a", "b", "c", "d"];
const RESULT_IDS: &[&str] = &["", "a", "b", "c", "d", "x"];
const ARGS: &[&str] = &["{}", "", r#"{"q":1}"#, r#"{"q":"#, "[1]", "null"];

fn arb_call() -> impl Strategy<Value = ToolCall> {
    (prop::sample::select(IDS), 0..3usize, prop::sample::select(ARGS))
        .prop_map(|(id, name, args)| ToolCall::new(id, format!("tool{name}"), args))
}

fn arb_message() -> impl Strategy<Value = Message> {
    let text = "[a-z ]{0,6}";
    prop_oneof![
        2 => text.prop_map(Message::user),
        1 => text.prop_map(Message::system),
        1 => text.prop_map(Message::assistant),
        3 => (prop::collection::vec(arb_call(), 0..4), "[a-z]{0,3}", "[a-z]{0,3}").prop_map(|(c, run, conv)| {
            let mut m = Message::assistant_calls(c);
            m.run_id = run.into();
            m.conversation_id = conv.into();
            m
        }),
        4 => (prop::sample::select(RESULT_IDS), "[a-z]{0,4}").prop_map(|(id, text)| Message::tool_result(id, "tool", text)),
    ]
}

fn arb_history() -> impl Strategy<Value = Vec<Message>> {
    prop::collection::vec(arb_message(), 0..14)
}

/// A history valid by construction: each assistant turn's distinct ids are
/// answered once, in a shuffled order, with user/system messages around.
fn arb_valid_history() -> impl Strategy<Value = Vec<Message>> {
    let turn = (prop::collection::vec((prop::sample::select(IDS), any::<bool>()), 0..4), any::<bool>(), any::<u64>())
        .prop_map(|(spec, with_user, seed)| {
            let mut out = Vec::new();
            if with_user {
                out.push(Message::user("u"));
            }
            let call_list: Vec<ToolCall> = spec.iter().map(|(id, _)| ToolCall::new(*id, "t", "{}")).collect();
            let mut ids: Vec<&str> = Vec::new();
            for (id, _) in &spec {
                if !id.is_empty() && !ids.contains(id) {
                    ids.push(id);
                }
            }
            // Deterministic shuffle from the seed.
            let mut s = seed;
            for i in (1..ids.len()).rev() {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ids.swap(i, (s >> 33) as usize % (i + 1));
            }
            out.push(Message::assistant_calls(call_list));
            for id in ids {
                out.push(Message::tool_result(id, "t", "r"));
            }
            if spec.first().is_some_and(|(_, interject)| *interject) {
                out.push(Message::system("s"));
            }
            out
        });
    prop::collection::vec(turn, 0..5).prop_map(|turns| {
        let mut history = vec![Message::user("start")];
        history.extend(turns.into_iter().flatten());
        history
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// HIST-01: repair never panics, is idempotent, and leaves every call with an id
    /// answered exactly once before the next assistant message, with no orphan.
    #[test]
    fn hist_01_prop_repair_idempotent_and_well_paired(history in arb_history()) {
        let (once, report) = normalize_history(history.clone());
        prop_assert!(is_well_paired(&once), "not paired: {:?}", once);
        let (twice, report2) = normalize_history(once.clone());
        prop_assert_eq!(&twice, &once);
        prop_assert!(report2.synthesized.is_empty() && report2.dropped.is_empty());
        prop_assert_eq!(report2.truncated, report.truncated.clone());
        // Only tool messages are removed and only interrupted results added.
        prop_assert_eq!(once.len() + report.dropped.len(), history.len() + report.synthesized.len());
        let others = |h: &[Message]| h.iter().filter(|m| m.role != Role::Tool).cloned().collect::<Vec<_>>();
        prop_assert_eq!(others(&once), others(&history));
        prop_assert!(pending_calls(&once).is_empty());
    }

    /// HIST-01: input unchanged when nothing is wrong.
    #[test]
    fn hist_01_prop_valid_history_unchanged(history in arb_valid_history()) {
        prop_assert!(is_well_paired(&history));
        let (out, report) = normalize_history(history.clone());
        prop_assert_eq!(out, history);
        prop_assert!(report.synthesized.is_empty() && report.dropped.is_empty());
    }

    /// HIST-01: on arbitrary input, a history the independent checker calls
    /// well paired is returned unchanged.
    #[test]
    fn hist_01_prop_well_paired_random_history_unchanged(history in arb_history()) {
        if is_well_paired(&history) {
            prop_assert_eq!(repair(history.clone()), history);
        }
    }

    /// DEFER-02 / HIST-01: the pending calls are exactly what repair interrupts
    /// (repeated ids inside one message collapse to one interrupted result).
    #[test]
    fn defer_02_prop_pending_matches_synthesized(history in arb_history()) {
        let mut expected: Vec<String> = Vec::new();
        let mut seen: Vec<(usize, String)> = Vec::new();
        for p in pending_calls(&history) {
            let id = history[p.message].tool_calls[p.call].id.clone();
            prop_assert!(!id.is_empty());
            if !seen.contains(&(p.message, id.clone())) {
                seen.push((p.message, id.clone()));
                expected.push(id);
            }
        }
        prop_assert_eq!(normalize_history(history).1.synthesized, expected);
    }

    /// HIST-04: the trimmed history holds at most `n` messages (a carried
    /// prompt included), opens with a user message, keeps the newest
    /// message, is the input's messages in order, and stays repaired.
    #[test]
    fn hist_04_prop_trim_fits_opens_with_user_and_stays_repaired(history in arb_history(), n in 1usize..16) {
        let repaired = repair(history);
        match trim_history(&repaired, n) {
            Ok(trimmed) => {
                if repaired.len() <= n && opens_with_user(&repaired) {
                    prop_assert_eq!(&trimmed, &repaired);
                } else {
                    prop_assert!(!trimmed.is_empty());
                    prop_assert!(opens_with_user(&trimmed));
                    // The newest message stays — unless it is a result whose
                    // call fell outside the window.
                    if repaired.last().map(|m| m.role) != Some(Role::Tool) {
                        prop_assert_eq!(trimmed.last(), repaired.last());
                    }
                }
                prop_assert!(trimmed.len() <= n);
                prop_assert!(is_subsequence(&trimmed, &repaired));
                prop_assert_eq!(repair(trimmed.clone()), trimmed);
            }
            Err(e) => prop_assert_eq!(e, HistoryError::NothingLeft),
        }
    }

    /// HIST-04 on unrepaired input: never panics, never exceeds the budget,
    /// opens with a user message.
    #[test]
    fn hist_04_prop_trim_any_input(history in arb_history(), n in 0usize..16) {
        match trim_history(&history, n) {
            Ok(trimmed) => {
                prop_assert!(trimmed.len() <= n);
                prop_assert!(opens_with_user(&trimmed));
                prop_assert!(is_subsequence(&trimmed, &history));
            }
            Err(HistoryError::InvalidTrimBudget(0)) => prop_assert_eq!(n, 0),
            Err(e) => prop_assert_eq!(e, HistoryError::NothingLeft),
        }
    }

    /// HIST-04: when a user message opens the window of the newest `n`, the
    /// result is that window, less only the results whose calls were cut.
    #[test]
    fn hist_04_prop_a_window_opening_with_a_user_is_kept(history in arb_history(), n in 1usize..16) {
        let repaired = repair(history);
        if repaired.len() > n && repaired[repaired.len() - n].role == Role::User {
            let window = &repaired[repaired.len() - n..];
            let first_assistant = window.iter().position(|m| m.role == Role::Assistant).unwrap_or(window.len());
            let expected: Vec<Message> = window
                .iter()
                .enumerate()
                .filter(|(i, m)| !(m.role == Role::Tool && *i < first_assistant))
                .map(|(_, m)| m.clone())
                .collect();
            prop_assert_eq!(trim_history(&repaired, n).unwrap(), expected);
        }
    }

    /// DEFER-05: removing results from a history with unique ids and results
    /// in emission order, then placing them back in any order, restores it.
    #[test]
    fn defer_05_prop_place_results_restores_emission_order(
        turns in prop::collection::vec((1usize..5, any::<bool>()), 1..5),
        removed in prop::collection::vec(any::<bool>(), 20),
        order in any::<u64>(),
    ) {
        let mut history = vec![Message::user("q")];
        for (t, (n, interject)) in turns.iter().enumerate() {
            let ids: Vec<String> = (0..*n).map(|k| format!("t{t}c{k}")).collect();
            let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
            history.push(calls(&refs));
            history.extend(refs.iter().map(|id| result(id)));
            if *interject {
                history.push(Message::user("u"));
            }
        }
        let mut kept = Vec::new();
        let mut taken = Vec::new();
        let mut k = 0;
        for m in &history {
            if m.role == Role::Tool && removed.get(k).copied().unwrap_or(false) {
                taken.push(m.clone());
            } else {
                kept.push(m.clone());
            }
            if m.role == Role::Tool {
                k += 1;
            }
        }
        let mut s = order;
        for i in (1..taken.len()).rev() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            taken.swap(i, (s >> 33) as usize % (i + 1));
        }
        place_results(&mut kept, taken);
        prop_assert_eq!(kept, history);
    }

    /// HIST-07: sanitize never panics and is idempotent.
    #[test]
    fn hist_07_prop_sanitize_idempotent(history in arb_history()) {
        let (once, _) = sanitize_history(history);
        let (twice, report) = sanitize_history(once.clone());
        prop_assert_eq!(twice, once);
        prop_assert_eq!(report.dropped_system.len() + report.dropped_user.len() + report.dropped_parts.len(), 0);
    }
}

/// The first message that is not a system message is a user message (or
/// there is none): what a request may open with.
fn opens_with_user(messages: &[Message]) -> bool {
    messages.iter().find(|m| m.role != Role::System).is_none_or(|m| m.role == Role::User)
}

/// `part` is `whole`'s messages with some left out, order kept.
fn is_subsequence(part: &[Message], whole: &[Message]) -> bool {
    let mut rest = whole.iter();
    part.iter().all(|m| rest.any(|w| w == m))
}
