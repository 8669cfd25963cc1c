//! Test support: the recorded fixtures, golden files, recorded-request
//! conversion and stream driving. Each test binary uses part of it.
#![allow(dead_code)]

use golem_core::message::{Message, Role, ToolArgs, ToolCall};
use golem_core::model::{Delta, ModelError, Request, Response, WireToolChoice};
use golem_providers::codec::{HttpCodec, StreamDecoder};
use golem_providers::http::HttpResponseHead;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The fixtures folder of this crate's tests: recorded traffic and
/// published specs (its README names where each came from).
pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A recorded case directory, e.g. `openai/chat_tool_call_gpt4o`.
pub fn case_dir(case: &str) -> PathBuf {
    fixtures_dir().join("recorded").join(case)
}

pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

pub fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&read(path)).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// The manifest's interactions: (n, status, response file name).
pub fn interactions(case: &str) -> Vec<(usize, u16, String)> {
    let manifest = read_json(&case_dir(case).join("manifest.json"));
    manifest["interactions"]
        .as_array()
        .expect("interactions")
        .iter()
        .map(|i| {
            (
                i["n"].as_u64().unwrap() as usize,
                i["status"].as_u64().unwrap() as u16,
                i["response_file"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The response head of interaction `n` (1-based), headers from the YAML
/// cassette.
pub fn cassette_head(case: &str, n: usize) -> HttpResponseHead {
    let path = case_dir(case).with_extension("yaml");
    let yaml: serde_norway::Value =
        serde_norway::from_slice(&read(&path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let interaction = &yaml["interactions"][n - 1]["response"];
    let status = interaction["status"]["code"].as_u64().expect("status") as u16;
    let mut headers = Vec::new();
    if let serde_norway::Value::Mapping(map) = &interaction["headers"] {
        for (name, values) in map {
            let name = name.as_str().unwrap().to_string();
            match values {
                serde_norway::Value::Sequence(values) => {
                    for v in values {
                        headers.push((name.clone(), yaml_scalar(v)));
                    }
                }
                other => headers.push((name, yaml_scalar(other))),
            }
        }
    }
    HttpResponseHead::new(status, headers)
}

fn yaml_scalar(v: &serde_norway::Value) -> String {
    match v {
        serde_norway::Value::String(s) => s.clone(),
        serde_norway::Value::Number(n) => n.to_string(),
        serde_norway::Value::Bool(b) => b.to_string(),
        _ => String::new(),
    }
}

/// Compare `actual` with `tests/golden/<name>.json`; `GOLEM_BLESS=1`
/// rewrites the file instead.
pub fn golden(name: &str, actual: &Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(format!("{name}.json"));
    let text = serde_json::to_string_pretty(actual).unwrap() + "\n";
    if std::env::var_os("GOLEM_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let expected = read_json(&path);
    assert_eq!(&expected, actual, "golden {name} differs; actual:\n{text}");
}

/// Remove null-valued object keys everywhere: Chat Completions treats an
/// explicit null like an absent field.
pub fn drop_nulls(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(drop_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_nulls),
        _ => {}
    }
}

/// A golem request equivalent to a recorded Chat Completions body:
/// messages, tools and tool choice. Tool messages get their tool name from
/// the call they answer (golem stores it; the wire does not carry it).
pub fn request_from_recorded(body: &Value) -> Request {
    let mut messages: Vec<Message> = Vec::new();
    for m in body["messages"].as_array().expect("messages") {
        let content = m["content"].as_str().unwrap_or_default().to_string();
        let message = match m["role"].as_str().unwrap() {
            "system" => Message::system(content),
            "user" => Message::user(content),
            "assistant" => {
                let calls = m["tool_calls"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|c| {
                        ToolCall::new(
                            c["id"].as_str().unwrap(),
                            c["function"]["name"].as_str().unwrap(),
                            ToolArgs::new(c["function"]["arguments"].as_str().unwrap()),
                        )
                    })
                    .collect();
                {
                    let mut message = Message::new(Role::Assistant);
                    message.content = content;
                    message.tool_calls = calls;
                    message
                }
            }
            "tool" => {
                let id = m["tool_call_id"].as_str().unwrap();
                let name = tool_name(&messages, id);
                Message::tool_result(id, name, content)
            }
            other => panic!("unexpected role {other}"),
        };
        messages.push(message);
    }
    let tools = body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            golem_core::tool::ToolDefinition::new(
                t["function"]["name"].as_str().unwrap().to_string(),
                t["function"]["description"].as_str().unwrap_or_default().to_string(),
                t["function"]["parameters"].clone(),
            )
        })
        .collect();
    let tool_choice = match &body["tool_choice"] {
        Value::String(s) if s == "auto" => Some(WireToolChoice::Auto),
        Value::Object(o) => Some(WireToolChoice::Tool(o["function"]["name"].as_str().unwrap().to_string())),
        _ => None,
    };
    {
        let mut request = golem_core::Request::new(messages);
        request.tools = Arc::new(tools);
        request.output_schema = None;
        request.tool_choice = tool_choice;
        request
    }
}

/// The name of the tool whose call `id` a message of `messages` made:
/// golem stores it on a tool result, the wire does not carry it.
pub fn tool_name(messages: &[Message], id: &str) -> String {
    messages.iter().flat_map(|m| &m.tool_calls).find(|c| c.id == id).map(|c| c.name.clone()).unwrap_or_default()
}

/// What a stream decoder made of `chunks`: every delta (until the first
/// error) and the final result.
pub fn run_stream<C: HttpCodec>(
    codec: &C,
    request: &Request,
    head: &HttpResponseHead,
    chunks: impl IntoIterator<Item = impl AsRef<[u8]>>,
) -> (Vec<Delta>, Result<Response, ModelError>) {
    let mut decoder = codec.stream_decoder(request, head);
    let mut deltas = Vec::new();
    let drain = |decoder: &mut C::Stream, deltas: &mut Vec<Delta>| {
        while let Some(delta) = decoder.next_delta() {
            match delta {
                Ok(d) => deltas.push(d),
                Err(_) => break,
            }
        }
    };
    for chunk in chunks {
        decoder.feed(chunk.as_ref());
        drain(&mut decoder, &mut deltas);
    }
    decoder.end();
    drain(&mut decoder, &mut deltas);
    (deltas, decoder.finish())
}

/// STREAM-06: `body` gives the same deltas and the same response whole,
/// byte by byte, and split in two at every position; `what` names it in
/// failures.
pub fn assert_split_invariant<C: HttpCodec>(
    codec: &C,
    request: &Request,
    head: &HttpResponseHead,
    body: &[u8],
    what: &str,
) {
    let (deltas, result) = run_stream(codec, request, head, [body]);
    let whole = result.unwrap_or_else(|e| panic!("{what}: {e}"));
    let (bytewise, result) = run_stream(codec, request, head, body.chunks(1));
    assert_eq!(bytewise, deltas, "{what}: byte by byte");
    assert_eq!(result.unwrap(), whole, "{what}: byte by byte");
    for cut in 0..=body.len() {
        let (split, result) = run_stream(codec, request, head, split_at(body, &[cut]));
        assert_eq!(split, deltas, "{what}: split at {cut}");
        assert_eq!(result.as_ref().unwrap(), &whole, "{what}: split at {cut}");
    }
}

/// `body` split into pieces at `cuts` (sorted positions).
pub fn split_at<'a>(body: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    for &cut in cuts {
        out.push(&body[start..cut]);
        start = cut;
    }
    out.push(&body[start..]);
    out
}

/// A response as JSON, for goldens and comparisons.
pub fn response_json(response: &Response) -> Value {
    serde_json::to_value(response).unwrap()
}

/// An error as JSON (the serialisable fields).
pub fn error_json(error: &ModelError) -> Value {
    serde_json::to_value(error).unwrap()
}

/// The request body of interaction `n` of a recorded `family/case`.
pub fn recorded_request(family: &str, case: &str, n: usize) -> Value {
    read_json(&case_dir(&format!("{family}/{case}")).join(format!("{n:02}.request.json")))
}

/// Interaction `n` of a recorded `family/case` decoded as the client would
/// (its head from the cassette): a streamed body through the stream
/// decoder, whose deltas must assemble to the response (MODEL-04), a whole
/// one through `decode`.
pub fn decode_recorded<C: HttpCodec>(
    codec: &C,
    request: &Request,
    (family, case, n): (&'static str, &str, usize),
    file: &str,
    streamed: bool,
) -> Response {
    let head = cassette_head(&format!("{family}/{case}"), n);
    let body = read(&case_dir(&format!("{family}/{case}")).join(file));
    if !streamed {
        return codec.decode(request, &head, &body).unwrap_or_else(|e| panic!("{case} {file}: {e}"));
    }
    let (deltas, result) = run_stream(codec, request, &head, [&body]);
    let response = result.unwrap_or_else(|e| panic!("{case} {file}: {e}"));
    assert_assembles(family, &deltas, &response, &format!("{case} {file}"));
    response
}

/// MODEL-04: `deltas`, assembled as codec `family` stamps them, are the
/// message of `response`.
pub fn assert_assembles(family: &'static str, deltas: &[Delta], response: &Response, what: &str) {
    let mut assembler = golem_core::stream::StreamAssembler::new().with_provider(family);
    deltas.iter().for_each(|d| assembler.push(d).unwrap());
    assert_eq!(assembler.finish(), response.message, "{what}: deltas assemble to the response (SPEC MODEL-04)");
}

/// A recorded stream gives the same deltas and response at every chunking
/// (STREAM-06), and cut anywhere before its last byte of substance it is a
/// retryable truncation, never a success (STREAM-07).
pub fn assert_recorded_stream<C: HttpCodec>(codec: &C, request: &Request, body: &[u8], what: &str) {
    let head = HttpResponseHead::new(200, vec![]);
    assert_split_invariant(codec, request, &head, body, what);
    let last = body.iter().rposition(|b| !b.is_ascii_whitespace()).unwrap();
    for cut in 0..=last {
        let (_, result) = run_stream(codec, request, &head, [&body[..cut]]);
        let error = result.expect_err("a cut stream");
        assert_eq!(error.kind, golem_core::model::ModelErrorKind::Truncated, "{what}: cut at {cut}: {error}");
        assert!(error.retryable);
    }
}

/// An in-memory event-log sink shared between clones: a run records into
/// one clone while the test reads the text back from another.
#[derive(Clone, Default)]
pub struct SharedLog(Arc<Mutex<Vec<u8>>>);

impl Write for SharedLog {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl SharedLog {
    /// Everything written so far, as UTF-8 text.
    pub fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}
