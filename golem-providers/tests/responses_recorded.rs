//! Recorded Responses API traffic (tests/fixtures/recorded/openai/responses_*,
//! azure/azure_responses_*, errors/openai_responses_*): every recorded
//! answer, plain or streamed, decodes to what its output items say —
//! text, calls, one thinking block per reasoning summary part with the
//! item's encrypted content kept, service-tool and message items kept
//! as provider parts among the thinking blocks in their order, the finish
//! reason from the status, the usage; every recorded stream decodes the
//! same at every chunking and, cut short, is a retryable truncation; and
//! each recorded request is what our encoder makes of the same history,
//! with what we decoded from the turn before in place of the recorder's
//! copy — the reasoning items going back with their encrypted content
//! byte for byte. SPEC PROV-RESP-01..03, STREAM-05/06/07, THINK-01/03/04, USAGE-02.

use crate::responses::{
    cases, codec_for_recorded, essential_input, expected, final_response, recorded, request_from_recorded,
};
use crate::support::{self, assert_assembles, run_stream};
use golem_core::message::{Message, Role};
use golem_core::model::{ModelErrorKind, Request, Response};
use golem_providers::codec::HttpCodec;
use golem_providers::http::HttpResponseHead;
use golem_providers::responses::FAMILY;
use serde_json::Value;

fn head() -> HttpResponseHead {
    HttpResponseHead::new(200, vec![("content-type".into(), "application/json".into())])
}

fn request_body(case: &str, n: usize) -> Value {
    serde_json::from_slice(&recorded(case, &format!("{n:02}.request.json"))).unwrap()
}

/// Interaction `n` of `case` decoded as the client would.
fn decode(case: &str, n: usize, file: &str) -> Response {
    let body = request_body(case, n);
    let codec = codec_for_recorded(&body);
    let request = request_from_recorded(&body);
    let bytes = recorded(case, file);
    if !file.ends_with(".sse") {
        return codec.decode(&request, &head(), &bytes).unwrap_or_else(|e| panic!("{case} {file}: {e}"));
    }
    let (deltas, result) = run_stream(&codec, &request, &HttpResponseHead::new(200, vec![]), [&bytes]);
    let response = result.unwrap_or_else(|e| panic!("{case} {file}: {e}"));
    assert_assembles(FAMILY, &deltas, &response, &format!("{case} {file}"));
    response
}

#[test]
fn every_recorded_answer_decodes_to_what_its_items_say() {
    let mut seen = 0;
    for (case, interactions) in cases() {
        for (n, status, file) in interactions.iter().filter(|(_, status, _)| *status == 200) {
            let _ = status;
            let response = decode(&case, *n, file);
            let bytes = recorded(&case, file);
            let whole =
                if file.ends_with(".sse") { final_response(&bytes) } else { serde_json::from_slice(&bytes).unwrap() };
            let want = expected(&whole);
            let what = format!("{case} {file}");
            let message = &response.message;
            assert_eq!(message.content, want.content, "{what}: text");
            let calls: Vec<_> = message
                .tool_calls
                .iter()
                .map(|c| (c.id.clone(), c.name.clone(), c.args.as_str().to_string()))
                .collect();
            assert_eq!(calls, want.calls, "{what}: calls");
            assert_eq!(message.thinking.len(), want.thinking.len(), "{what}: thinking blocks");
            for (block, (text, opaque)) in message.thinking.iter().zip(&want.thinking) {
                assert_eq!(&block.text, text, "{what}");
                assert_eq!(block.provider, FAMILY, "{what}");
                assert!(block.is_valid(), "{what}: {block:?}");
                if let Some(opaque) = opaque {
                    let kept = if block.signature.is_empty() { &block.redacted } else { &block.signature };
                    assert!(kept.contains(opaque.as_str()), "{what}: {opaque} kept");
                }
            }
            let parts: Vec<_> = message
                .provider_parts
                .iter()
                .map(|p| {
                    assert_eq!(p.provider, FAMILY, "{what}");
                    let item: Value = p.raw.parse().unwrap();
                    assert_eq!(item["type"], p.name.as_str(), "{what}: the item whole");
                    (p.name.clone(), p.id.clone(), p.thinking_at.unwrap(), p.at)
                })
                .collect();
            assert_eq!(parts, want.parts, "{what}: provider parts");
            assert_eq!(response.finish_reason, want.finish_reason, "{what}: finish reason");
            let usage = &response.usage;
            assert_eq!(
                (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.reasoning_tokens),
                want.usage,
                "{what}: usage"
            );
            seen += 1;
        }
    }
    assert!(seen >= 40, "only {seen} recorded answers");
}

/// STREAM-06/07 on every recorded stream: the same deltas and response
/// byte by byte and split in two at every byte (at some 2,000 places past
/// 16 KB, where every byte would take minutes), and cut before the terminal
/// event a retryable truncation.
#[test]
fn every_recorded_stream_decodes_the_same_at_every_split_and_cut_short_is_truncated() {
    let streams: Vec<(String, usize, String)> = cases()
        .into_iter()
        .flat_map(|(case, interactions)| {
            interactions
                .into_iter()
                .filter(|(_, s, f)| *s == 200 && f.ends_with(".sse"))
                .map(move |(n, _, file)| (case.clone(), n, file))
        })
        .collect();
    // Each stream on its own thread: thousands of decodes each.
    std::thread::scope(|scope| {
        for (case, n, file) in &streams {
            scope.spawn(move || splits_and_cuts(case, *n, file));
        }
    });
}

fn splits_and_cuts(case: &str, n: usize, file: &str) {
    let body = recorded(case, file);
    let request = request_from_recorded(&request_body(case, n));
    let codec = codec_for_recorded(&request_body(case, n));
    let what = format!("{case} {file}");
    let head = HttpResponseHead::new(200, vec![]);
    let (deltas, whole) = run_stream(&codec, &request, &head, [&body]);
    let whole = whole.unwrap_or_else(|e| panic!("{what}: {e}"));
    let (bytewise, result) = run_stream(&codec, &request, &head, body.chunks(1));
    assert_eq!((bytewise, result.unwrap()), (deltas.clone(), whole.clone()), "{what}: byte by byte");
    // Every byte up to 16 KB; past that some 2,000 places spread over the
    // body (the byte-by-byte run above crosses every boundary once).
    let step = if body.len() > 16 * 1024 { body.len() / 2048 } else { 1 };
    for cut in (0..=body.len()).step_by(step) {
        let (split, result) = run_stream(&codec, &request, &head, support::split_at(&body, &[cut]));
        assert_eq!(split, deltas, "{what}: split at {cut}");
        assert_eq!(result.as_ref().unwrap(), &whole, "{what}: split at {cut}");
    }
    let terminal = terminal_event_start(&body);
    for cut in (0..terminal).step_by(step) {
        let (_, result) = run_stream(&codec, &request, &head, [&body[..cut]]);
        let error = result.expect_err("a cut stream");
        assert_eq!((error.kind, error.retryable), (ModelErrorKind::Truncated, true), "{what}: cut at {cut}: {error}");
    }
}

/// Where the terminal event's data line starts: any cut before it loses
/// the end of the answer.
fn terminal_event_start(body: &[u8]) -> usize {
    let text = String::from_utf8_lossy(body);
    ["\"type\":\"response.completed\"", "\"type\":\"response.incomplete\""]
        .iter()
        .filter_map(|marker| text.find(marker))
        .map(|at| text[..at].rfind("data:").unwrap())
        .min()
        .unwrap()
}

/// The assistant turns of `request` replaced, in order, by `ours` (what we
/// decoded from the earlier interactions of the same conversation), the
/// tool results after them answering our calls' ids; and the recorded
/// call ids that differ from ours (an early pydantic-ai sent the item id
/// as the `call_id`), each with ours.
fn with_our_answers(mut request: Request, ours: &[Message]) -> (Request, Vec<(String, String)>) {
    let at: Vec<usize> =
        request.messages.iter().enumerate().filter(|(_, m)| m.role == Role::Assistant).map(|(i, _)| i).collect();
    let mut renamed = Vec::new();
    if at.len() > ours.len() {
        return (request, renamed);
    }
    for (i, message) in at.into_iter().zip(ours) {
        for (theirs, mine) in request.messages[i].tool_calls.iter().zip(&message.tool_calls) {
            if theirs.id != mine.id {
                renamed.push((theirs.id.clone(), mine.id.clone()));
            }
        }
        request.messages_mut()[i] = message.clone();
    }
    for message in request.messages_mut().iter_mut().filter(|m| m.role == Role::Tool) {
        if let Some((_, mine)) = renamed.iter().find(|(theirs, _)| *theirs == message.tool_call_id) {
            message.tool_call_id = mine.clone();
        }
    }
    (request, renamed)
}

/// `items` with the recorded call ids renamed to ours.
fn renamed(mut items: Vec<Value>, renamed: &[(String, String)]) -> Vec<Value> {
    for item in &mut items {
        if let Some((_, mine)) = renamed.iter().find(|(theirs, _)| item["call_id"] == theirs.as_str()) {
            item["call_id"] = mine.as_str().into();
        }
    }
    items
}

#[test]
fn requests_from_history_match_the_recordings_with_reasoning_replayed_byte_for_byte() {
    let mut replayed = 0;
    for (case, interactions) in cases() {
        let mut ours: Vec<Message> = Vec::new();
        for (n, status, file) in &interactions {
            let recorded_body = request_body(&case, *n);
            let mut request = request_from_recorded(&recorded_body);
            let mut ids = Vec::new();
            // One conversation per case, but for the error case whose
            // second turn leaves an item out on purpose.
            if !case.starts_with("errors/") {
                (request, ids) = with_our_answers(request, &ours);
            }
            let codec = codec_for_recorded(&recorded_body);
            let stream = recorded_body["stream"].as_bool().unwrap_or(false);
            let http = codec.encode(&request, stream).unwrap();
            let body: Value = serde_json::from_slice(&http.body).unwrap();
            let what = format!("{case} {n}");
            assert_eq!(essential_input(&body), renamed(essential_input(&recorded_body), &ids), "{what}: input");
            let reasoning = |b: &Value| {
                b["input"].as_array().unwrap().iter().filter(|i| i["type"] == "reasoning").cloned().collect::<Vec<_>>()
            };
            for (a, b) in reasoning(&body).iter().zip(&reasoning(&recorded_body)) {
                if b["id"].is_string() {
                    assert_eq!(a["id"], b["id"], "{what}: reasoning id");
                }
                if let Some(encrypted) = b["encrypted_content"].as_str() {
                    let exact = format!("\"encrypted_content\":{}", serde_json::to_string(encrypted).unwrap());
                    assert!(String::from_utf8_lossy(&http.body).contains(&exact), "{what}: byte for byte");
                    replayed += 1;
                }
            }
            assert_eq!(body["model"], recorded_body["model"], "{what}");
            assert_eq!(body["stream"], stream, "{what}");
            let encrypted =
                |b: &Value| b["include"].as_array().is_some_and(|i| i.contains(&"reasoning.encrypted_content".into()));
            assert_eq!(encrypted(&body), encrypted(&recorded_body), "{what}: include");
            if let Some(store) = recorded_body.get("store") {
                assert_eq!(&body["store"], store, "{what}: store");
            }
            for field in ["effort", "summary"] {
                assert_eq!(body["reasoning"].get(field), recorded_body["reasoning"].get(field), "{what}: {field}");
            }
            assert_eq!(body.get("max_output_tokens"), recorded_body.get("max_output_tokens"), "{what}");
            let functions = |b: &Value| -> Vec<(Value, Value)> {
                b["tools"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|t| t["type"] == "function")
                    .map(|t| (t["name"].clone(), t["parameters"].clone()))
                    .collect()
            };
            assert_eq!(functions(&body), functions(&recorded_body), "{what}: tools");
            if let Some(format) = recorded_body.pointer("/text/format").filter(|f| f["type"] == "json_schema") {
                let ours = &body["text"]["format"];
                assert_eq!(
                    (&ours["name"], &ours["schema"], &ours["strict"]),
                    (&format["name"], &format["schema"], &format["strict"])
                );
            }
            if let Some(choice) =
                recorded_body.get("tool_choice").filter(|c| *c != "required" && !functions(&body).is_empty())
            {
                assert_eq!(&body["tool_choice"], choice, "{what}: tool choice");
            }
            if *status == 200 {
                ours.push(decode(&case, *n, file).message);
            }
        }
    }
    assert!(replayed >= 10, "reasoning replayed {replayed} times");
}
