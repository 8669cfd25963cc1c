//! Amazon Nova system tools on recorded Converse traffic: declared
//! built-ins become `systemTool` entries; the answer's server `toolUse` and
//! typed `toolResult` decode into provider parts — never a client tool call
//! (before, the code interpreter's call came back as a local tool to run) —
//! plain and streamed alike, at every split; fed back as history they are
//! the next recorded request's blocks. Grounding's citations are kept as
//! metadata parts, the same plain and streamed, and not sent back. A model
//! without system tools, or an option Nova cannot take, is refused before
//! sending.

use crate::bedrock::{codec_for_recorded, recorded, request_from_converse};
use crate::support::{self, assert_split_invariant, interactions};
use golem_core::builtin::{BuiltinTool, ProviderPartKind, WebSearch};
use golem_core::message::Message;
use golem_core::model::{ModelErrorKind, Request, Response};
use golem_providers::codec::HttpCodec;
use golem_providers::http::HttpResponseHead;
use serde_json::Value;

const CASES: [&str; 4] = [
    "converse_nova_code_interpreter_two_turns",
    "converse_nova_grounding",
    "converse_stream_nova_code_interpreter",
    "converse_stream_nova_grounding",
];

/// A recorded answer decoded under a plain 200 head (some of these
/// cassettes keep none); a stream in one piece.
fn decode(codec: &golem_providers::bedrock::Codec, request: &Request, case: &str, _n: usize, file: &str) -> Response {
    let body = recorded(case, file);
    if !file.ends_with(".bin") {
        return codec.decode(request, &head(), &body).unwrap_or_else(|e| panic!("{case} {file}: {e}"));
    }
    let (_, result) = support::run_stream(codec, request, &head(), [&body[..]]);
    result.unwrap_or_else(|e| panic!("{case} {file}: {e}"))
}

fn head() -> HttpResponseHead {
    HttpResponseHead::new(200, vec![])
}

#[test]
fn recorded_turns_declare_decode_and_replay_system_tools() {
    for case in CASES {
        let mut previous: Option<Message> = None;
        for (n, _, file) in interactions(&format!("bedrock/{case}")) {
            let body: Value = serde_json::from_slice(&recorded(case, &format!("{n:02}.request.json"))).unwrap();
            let mut request = request_from_converse(&body);
            assert!(!request.builtin_tools.is_empty(), "{case}: the recording declares a system tool");
            if let Some(ours) = previous.take() {
                let at = request.messages.iter().rposition(|m| m.role == golem_core::Role::Assistant).unwrap();
                assert_eq!(request.messages[at].provider_parts, ours.provider_parts, "{case} {n}: kept as recorded");
                request.messages_mut()[at] = ours;
            }
            let codec = codec_for_recorded(case, &body);
            let sent: Value =
                serde_json::from_slice(&codec.encode(&request, file.ends_with(".bin")).unwrap().body).unwrap();
            assert_eq!(sent["messages"], body["messages"], "{case} {n}: messages");
            assert_eq!(sent["toolConfig"]["tools"], body["toolConfig"]["tools"], "{case} {n}: tools");

            let response = decode(&codec, &request, case, n, &file);
            let message = &response.message;
            assert!(
                message.tool_calls.iter().all(|c| !c.name.starts_with("nova_")),
                "{case} {n}: a system tool became a client call: {:?}",
                message.tool_calls
            );
            if n == 1 {
                // Grounding's citations follow as metadata (tested below).
                let replayed: Vec<_> =
                    message.provider_parts.iter().filter(|p| p.kind != ProviderPartKind::Metadata).collect();
                let kinds: Vec<_> = replayed.iter().map(|p| p.kind).collect();
                assert_eq!(kinds, [ProviderPartKind::Call, ProviderPartKind::Result], "{case}");
                assert!(replayed.iter().all(|p| p.provider == "bedrock" && !p.id.is_empty()));
            }
            if file.ends_with(".bin") {
                assert_split_invariant(&codec, &request, &head(), &recorded(case, &file), case);
            }
            previous = Some(response.message);
        }
    }
}

/// The plain and the streamed recording of one exchange keep the same
/// parts (the stream's input arrives as text, its result as deltas).
#[test]
fn plain_and_streamed_code_interpreter_agree() {
    let plain = {
        let case = "converse_nova_code_interpreter_two_turns";
        let body: Value = serde_json::from_slice(&recorded(case, "01.request.json")).unwrap();
        let request = request_from_converse(&body);
        decode(&codec_for_recorded(case, &body), &request, case, 1, "01.response.json").message
    };
    let streamed = {
        let case = "converse_stream_nova_code_interpreter";
        let body: Value = serde_json::from_slice(&recorded(case, "01.request.json")).unwrap();
        let request = request_from_converse(&body);
        decode(&codec_for_recorded(case, &body), &request, case, 1, "01.response.bin").message
    };
    let shape = |m: &Message| -> Vec<(ProviderPartKind, Value)> {
        m.provider_parts
            .iter()
            .map(|p| {
                let mut raw: Value = p.raw.parse().unwrap();
                // Ids differ between the two recordings; the shape must not.
                for inner in ["toolUse", "toolResult"] {
                    if let Some(block) = raw.get_mut(inner) {
                        block.as_object_mut().unwrap().remove("toolUseId");
                    }
                }
                (p.kind, raw)
            })
            .collect()
    };
    assert_eq!(shape(&plain), shape(&streamed));
}

#[test]
fn system_tools_are_refused_where_nova_has_none() {
    let request = Request::new(vec![Message::user("hi")]).with_builtin_tools(vec![BuiltinTool::CodeExecution]);
    let claude = crate::bedrock::codec();
    let error = claude.encode(&request, false).unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Unsupported);
    assert!(!claude.capabilities().builtin_tools.supports(&BuiltinTool::CodeExecution));

    let body: Value = serde_json::from_slice(&recorded("converse_nova_grounding", "01.request.json")).unwrap();
    let nova = codec_for_recorded("converse_nova_grounding", &body);
    assert!(nova.capabilities().builtin_tools.supports(&BuiltinTool::CodeExecution));
    for refused in [BuiltinTool::UrlContext, BuiltinTool::WebSearch(WebSearch::new().max_uses(1))] {
        let request = Request::new(vec![Message::user("hi")]).with_builtin_tools(vec![refused.clone()]);
        let error = nova.encode(&request, false).unwrap_err();
        assert_eq!(error.kind, ModelErrorKind::Unsupported, "{refused:?}");
        assert!(error.message.contains(refused.name()), "{error}");
    }
}

/// Guardrails and latency-optimized inference are tuning: the recorded
/// requests are what a tuned config sends, and an intervention decodes as
/// a content filter.
#[test]
fn guardrail_and_performance_config_match_the_recordings() {
    use golem_providers::bedrock::{Guardrail, Tuning};
    for case in
        ["converse_guardrail_config_trace", "converse_guardrail_intervened", "converse_performance_config_latency"]
    {
        let body: Value = serde_json::from_slice(&recorded(case, "01.request.json")).unwrap();
        let mut tuning = Tuning::new();
        if let Some(max) = body.pointer("/inferenceConfig/maxTokens").and_then(Value::as_u64) {
            tuning = tuning.max_tokens(max as u32);
        }
        if let Some(g) = body.get("guardrailConfig") {
            let guardrail =
                Guardrail::new(g["guardrailIdentifier"].as_str().unwrap(), g["guardrailVersion"].as_str().unwrap());
            tuning = tuning.guardrail(guardrail.trace(g["trace"].as_str().unwrap()));
        }
        if let Some(latency) = body.pointer("/performanceConfig/latency").and_then(Value::as_str) {
            tuning = tuning.latency(latency);
        }
        let manifest: Value = serde_json::from_slice(&recorded(case, "manifest.json")).unwrap();
        let uri = manifest["interactions"][0]["uri"].as_str().unwrap();
        let model = uri.split("/model/").nth(1).unwrap().split('/').next().unwrap().replace("%3A", ":");
        let config = golem_providers::bedrock::Config::builder("us-east-1", model)
            .credentials(crate::bedrock::credentials())
            .tuning(tuning)
            // Recorded without prompt caching (on by default for Nova).
            .no_cache()
            .build()
            .unwrap();
        let codec = golem_providers::bedrock::Codec::new(config);
        let request = request_from_converse(&body);
        let sent: Value = serde_json::from_slice(&codec.encode(&request, false).unwrap().body).unwrap();
        for field in ["guardrailConfig", "performanceConfig", "messages"] {
            assert_eq!(sent[field], body[field], "{case}: {field}");
        }
        let response = decode(&codec, &request, case, 1, "01.response.json");
        if case == "converse_guardrail_intervened" {
            assert_eq!(response.finish_reason, golem_core::FinishReason::ContentFilter);
        }
    }
}

/// Media by S3 location (`s3://` URLs) in tool results, and Nova's video
/// — which the API refuses inside a tool result (recorded 400), so it
/// follows the result in the same turn — as the recorded follow-ups send
/// them.
#[test]
fn s3_media_and_video_match_the_recordings() {
    use golem_core::message::{Part, PartKind};
    for case in [
        "converse_nova_video_s3_location",
        "converse_nova_image_s3_in_tool_result",
        "converse_claude_document_s3_in_tool_result",
    ] {
        let body: Value = serde_json::from_slice(&recorded(case, "02.request.json")).unwrap();
        let mut request = request_from_converse(&body);
        let last = body["messages"].as_array().unwrap().last().unwrap()["content"].as_array().unwrap().clone();
        let mut parts = Vec::new();
        let media = last.iter().flat_map(|b| match b.get("toolResult") {
            Some(result) => result["content"].as_array().unwrap().clone(),
            None => vec![b.clone()],
        });
        for block in media {
            for (field, kind) in
                [("image", PartKind::Image), ("document", PartKind::Document), ("video", PartKind::Video)]
            {
                if let Some(uri) = block.pointer(&format!("/{field}/source/s3Location/uri")).and_then(Value::as_str) {
                    parts.push(Part::from_url(kind, uri));
                }
            }
        }
        assert_eq!(parts.len(), 1, "{case}");
        let tool = request.messages_mut().iter_mut().rev().find(|m| m.role == golem_core::Role::Tool).unwrap();
        tool.parts = parts;
        let codec = codec_for_recorded(case, &body);
        let mut sent: Value = serde_json::from_slice(&codec.encode(&request, false).unwrap().body).unwrap();
        let mut want = body["messages"].clone();
        // Document names are golem's own (unique per request).
        for messages in [&mut sent["messages"], &mut want] {
            for turn in messages.as_array_mut().unwrap() {
                for block in turn["content"].as_array_mut().unwrap() {
                    if let Some(Value::Array(inner)) = block.pointer_mut("/toolResult/content") {
                        for item in inner {
                            if let Some(doc) = item.get_mut("document") {
                                doc["name"] = Value::from("doc");
                            }
                        }
                    }
                }
            }
        }
        assert_eq!(sent["messages"], want, "{case}");
    }
}

/// The recorded answer decoded: its parts' kinds and (for metadata) raw
/// text and offset.
fn grounded(case: &str, file: &str) -> Message {
    let body: Value = serde_json::from_slice(&recorded(case, "01.request.json")).unwrap();
    let request = request_from_converse(&body);
    decode(&codec_for_recorded(case, &body), &request, case, 1, file).message
}

/// `{"citations":[…]}` of the given web pages, as the part keeps it.
fn cited(pages: &[(&str, &str)]) -> String {
    let list: Vec<Value> = pages
        .iter()
        .map(|(domain, url)| serde_json::json!({"location": {"web": {"domain": domain, "url": url}}}))
        .collect();
    serde_json::json!({ "citations": list }).to_string()
}

/// Issue 36: Nova grounding's `citationsContent` blocks are kept as
/// `citations` metadata parts, each at the end of the text it follows; the
/// text reads as the text blocks joined.
#[test]
fn grounding_citations_are_kept_as_metadata_where_they_stood() {
    let case = "converse_nova_grounding";
    let message = grounded(case, "01.response.json");
    let response: Value = serde_json::from_slice(&recorded(case, "01.response.json")).unwrap();
    let content = response["output"]["message"]["content"].as_array().unwrap();
    let text: String = content.iter().filter_map(|b| b["text"].as_str()).collect();
    assert_eq!(message.content, text);
    let kinds: Vec<_> = message.provider_parts.iter().map(|p| p.kind).collect();
    use ProviderPartKind::{Call, Metadata, Result};
    assert_eq!(kinds, [Call, Result, Metadata, Metadata, Metadata]);
    let first_text = content[2]["text"].as_str().unwrap();
    let metadata: Vec<_> =
        message.provider_parts[2..].iter().map(|p| (p.name.as_str(), p.raw.as_str(), p.at)).collect();
    let (ruby, org) = ("ruby-lang.org", "https://www.ruby-lang.org/en/downloads/");
    assert_eq!(
        metadata,
        [
            ("citations", &*cited(&[(ruby, "https://www.ruby-lang.org/en/downloads/releases/")]), first_text.len()),
            ("citations", &*cited(&[(ruby, org)]), first_text.len()),
            ("citations", &*cited(&[("install.guide", "https://mac.install.guide/ruby/")]), first_text.len()),
        ]
    );
    // The raw text is each block's `citationsContent`, compact.
    for (part, block) in message.provider_parts[2..].iter().zip(&content[3..6]) {
        assert_eq!(part.raw.parse().unwrap(), block["citationsContent"]);
    }
}

/// The stream's `citation` deltas of one block index are one part, the
/// citations in the order they came, placed at the block's stop; at every
/// byte split the same.
#[test]
fn streamed_grounding_citations_gather_per_block() {
    let case = "converse_stream_nova_grounding";
    let message = grounded(case, "01.response.bin");
    let head_text = "The latest stable Ruby version is 4.0.6";
    assert!(message.content.starts_with(head_text), "{}", message.content);
    let metadata: Vec<_> = message
        .provider_parts
        .iter()
        .filter(|p| p.kind == ProviderPartKind::Metadata)
        .map(|p| (p.raw.as_str(), p.at))
        .collect();
    let (ruby, org) = ("ruby-lang.org", "https://www.ruby-lang.org/en/downloads/");
    let guide = ("install.guide", "https://mac.install.guide/ruby/");
    assert_eq!(
        metadata,
        [(&*cited(&[(ruby, org), guide]), head_text.len()), (&*cited(&[(ruby, org)]), message.content.len() - 1)]
    );
    assert!(message.content.ends_with("4.0 series."), "{}", message.content);
}

/// The streamed answer, rewritten as the whole response the same answer
/// would be (each block index one content block: texts joined, a
/// citations block's `citation` deltas as its `citations`), decodes to
/// the same message: same text, same parts at the same offsets.
#[test]
fn plain_and_streamed_grounding_keep_identical_parts() {
    use golem_providers::eventstream::FrameDecoder;
    let case = "converse_stream_nova_grounding";
    let mut frames = FrameDecoder::new();
    frames.feed(&recorded(case, "01.response.bin"));
    frames.finish();
    let mut blocks: std::collections::BTreeMap<u64, Value> = Default::default();
    while let Some(frame) = frames.next_frame() {
        let frame = frame.unwrap();
        let payload: Value = serde_json::from_slice(&frame.payload).unwrap();
        let Some(index) = payload["contentBlockIndex"].as_u64() else { continue };
        let block = blocks.entry(index).or_insert(Value::Null);
        match frame.string_header(":event-type").unwrap() {
            "contentBlockStart" => *block = payload["start"].clone(),
            "contentBlockDelta" => {
                let delta = &payload["delta"];
                if let Some(piece) = delta["text"].as_str() {
                    let text = block.get("text").and_then(Value::as_str).unwrap_or_default().to_string() + piece;
                    *block = serde_json::json!({ "text": text });
                } else if let Some(citation) = delta.get("citation") {
                    if block.is_null() {
                        *block = serde_json::json!({"citationsContent": {"citations": []}});
                    }
                    block["citationsContent"]["citations"].as_array_mut().unwrap().push(citation.clone());
                } else if let Some(input) = delta.pointer("/toolUse/input").and_then(Value::as_str) {
                    block["toolUse"]["input"] = serde_json::from_str(input).unwrap();
                } else if let Some(items) = delta.get("toolResult") {
                    block["toolResult"]["content"] = items.clone();
                }
            }
            _ => {}
        }
    }
    let content: Vec<Value> = blocks.into_values().collect();
    assert!(content.iter().filter(|b| b.get("citationsContent").is_some()).count() == 2, "{content:?}");
    let body = serde_json::json!({
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": "end_turn",
    });
    let plain = golem_providers::bedrock::decode_body(&head(), body.to_string().as_bytes(), 1, None).unwrap().message;
    let streamed = grounded(case, "01.response.bin");
    assert_eq!(plain.content, streamed.content);
    assert_eq!(plain.provider_parts, streamed.provider_parts);
}

/// Citations are metadata: a grounded answer fed back as history sends
/// its call, its result and its text — as the code interpreter's recorded
/// follow-up does — and no `citationsContent` (the texts the citations
/// stood between go as one).
#[test]
fn grounding_citations_are_not_replayed() {
    let case = "converse_nova_grounding";
    let answer = grounded(case, "01.response.json");
    assert!(answer.provider_parts.iter().any(|p| p.kind == ProviderPartKind::Metadata));
    let body: Value = serde_json::from_slice(&recorded(case, "01.request.json")).unwrap();
    let mut request = request_from_converse(&body);
    request.messages_mut().push(answer);
    request.messages_mut().push(Message::user("thanks"));
    let codec = codec_for_recorded(case, &body);
    let sent: Value = serde_json::from_slice(&codec.encode(&request, false).unwrap().body).unwrap();
    let blocks = sent["messages"][1]["content"].as_array().unwrap();
    assert!(blocks.iter().all(|b| b.get("citationsContent").is_none()), "{blocks:?}");
    let response: Value = serde_json::from_slice(&recorded(case, "01.response.json")).unwrap();
    let recorded_blocks = response["output"]["message"]["content"].as_array().unwrap();
    // Without the citations between them, the two texts are one.
    let text: String = recorded_blocks.iter().filter_map(|b| b["text"].as_str()).collect();
    assert_eq!(blocks[..2], recorded_blocks[..2]);
    assert_eq!(blocks[2..], [serde_json::json!({ "text": text })]);
}

/// A `citation` delta on an index already open as a tool call is a decode
/// error, like any delta of the wrong kind for its block.
#[test]
fn a_citation_on_a_tool_block_is_a_decode_error() {
    use golem_providers::eventstream::{encode_frame, Header, HeaderValue};
    let event = |kind: &str, payload: &str| {
        let headers = vec![
            Header { name: ":message-type".into(), value: HeaderValue::String("event".into()) },
            Header { name: ":event-type".into(), value: HeaderValue::String(kind.into()) },
        ];
        encode_frame(&headers, payload.as_bytes())
    };
    let body = [
        event("contentBlockStart", r#"{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"t","name":"f"}}}"#),
        event("contentBlockDelta", r#"{"contentBlockIndex":0,"delta":{"citation":{"title":"x"}}}"#),
        event("messageStop", r#"{"stopReason":"end_turn"}"#),
    ]
    .concat();
    let request = Request::new(vec![Message::user("hi")]);
    let (_, result) = support::run_stream(&crate::bedrock::codec(), &request, &head(), [&body[..]]);
    let error = result.unwrap_err();
    assert_eq!(error.kind, ModelErrorKind::Decode, "{error}");
    assert!(error.message.contains("citation"), "{error}");
}
