//! `tools/call` results as tool results (SPEC MCP-08) and the SSE decoder
//! under every chunking (SPEC STREAM-06/08, MCP-06).
#![cfg(feature = "mcp")]

use golem_core::PartKind;
use golem_io::mcp::sse::{self, SseDecoder, SseError};
use golem_io::mcp::{tool_result, IsErrorAs};
use golem_io::ToolError;
use serde_json::json;
use std::time::Duration;

#[test]
fn every_content_kind_has_a_rendering() {
    let result = json!({"content": [
        {"type": "text", "text": "first"},
        {"type": "image", "data": "iVBORw0K", "mimeType": "image/png"},
        {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
        {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"},
        {"type": "resource_link", "uri": "file:///b.txt"},
        {"type": "resource", "resource": {"uri": "mem://x", "text": "resource body"}},
        {"type": "resource", "resource": {"uri": "mem://y", "mimeType": "application/pdf", "blob": "AAAA"}},
        {"type": "resource", "resource": {"uri": "mem://z", "blob": "AAAA"}},
        {"type": "resource", "resource": {"blob": "AAAA"}},
        {"type": "image", "data": "%%% not base64", "mimeType": "image/png"},
        {"type": "hologram"},
        {"text": "no type"},
        {"type": "text", "text": "last"}
    ], "structuredContent": {"ignored": "there is text"}});
    let mapped = tool_result("t", &result, IsErrorAs::Failed).unwrap();
    assert_eq!(
        mapped.content,
        "first\n[resource link a.txt: file:///a.txt]\n[resource link: file:///b.txt]\nresource body\n\
         [mcp: binary resource mem://y, application/pdf, 3 bytes]\n[mcp: binary resource mem://z, unknown type, 3 bytes]\n\
         [mcp: invalid resource content]\n[mcp: invalid image content]\n[mcp: unsupported hologram content]\n\
         [mcp: unsupported untyped content]\nlast"
    );
    let kinds: Vec<(PartKind, &str)> = mapped.parts.iter().map(|p| (p.kind, p.media_type.as_str())).collect();
    assert_eq!(kinds, [(PartKind::Image, "image/png"), (PartKind::Audio, "audio/wav")]);
    assert!(mapped.parts.iter().all(|p| p.validate().is_ok()));
}

#[test]
fn structured_content_stands_in_for_missing_text() {
    let only_structured = json!({"content": [], "structuredContent": {"temperature": 21}});
    assert_eq!(tool_result("t", &only_structured, IsErrorAs::Failed).unwrap().content, r#"{"temperature":21}"#);
    let image_and_structured =
        json!({"content": [{"type": "image", "data": "iVBO", "mimeType": "image/png"}], "structuredContent": [1, 2]});
    let mapped = tool_result("t", &image_and_structured, IsErrorAs::Failed).unwrap();
    assert_eq!((mapped.content.as_str(), mapped.parts.len()), ("[1,2]", 1));
    assert_eq!(tool_result("t", &json!({}), IsErrorAs::Failed).unwrap().content, "");
}

#[test]
fn is_error_is_a_failed_result_or_a_rejection() {
    let failed = json!({"isError": true, "content": [{"type": "text", "text": "disk full"}, {"type": "text", "text": "try later"}]});
    assert!(
        matches!(tool_result("save", &failed, IsErrorAs::Failed), Err(ToolError::Failed(r)) if r == "tool save failed: disk full\ntry later")
    );
    assert!(
        matches!(tool_result("save", &failed, IsErrorAs::Rejection), Err(ToolError::Reject(r)) if r == "tool save failed: disk full\ntry later")
    );
    assert!(
        matches!(tool_result("save", &json!({"isError": true}), IsErrorAs::Failed), Err(ToolError::Failed(r)) if r == "tool save failed")
    );
    assert!(tool_result("save", &json!({"isError": false, "content": []}), IsErrorAs::Failed).is_ok());
}

fn decode(chunks: &[&[u8]], cap: usize) -> Vec<Result<String, SseError>> {
    let mut decoder = sse::decoder_with_cap(cap);
    let mut out = Vec::new();
    let mut drain = |decoder: &mut SseDecoder| {
        while let Some(event) = decoder.next() {
            match event {
                Ok(event) => out.extend(sse::message(&event).map(|data| Ok(data.to_owned()))),
                Err(error) => out.push(Err(error)),
            }
        }
    };
    for chunk in chunks {
        decoder.feed(chunk);
        drain(&mut decoder);
    }
    decoder.finish();
    drain(&mut decoder);
    out
}

#[test]
fn sse_events_do_not_depend_on_chunking() {
    let body: &[u8] = b"\xEF\xBB\xBFdata: bom\n\nid: prime\ndata: \n\n: comment\r\nevent: message\r\ndata: {\"a\":\r\ndata:1}\r\n\r\n\
        event: other\ndata: skipped\n\ndata:  spaced\rretry: 5\r\r\nevent: message\ndata: last\n\ndata: unterminated";
    let whole = decode(&[body], 1 << 20);
    assert_eq!(
        whole,
        [Ok("bom".to_string()), Ok("{\"a\":\n1}".to_string()), Ok(" spaced".to_string()), Ok("last".to_string())]
    );
    for cut in 0..=body.len() {
        assert_eq!(decode(&[&body[..cut], &body[cut..]], 1 << 20), whole, "split at {cut}");
    }
    let bytewise: Vec<&[u8]> = body.chunks(1).collect();
    assert_eq!(decode(&bytewise, 1 << 20), whole);
}

/// Feed `bytes` and read every message they complete, as the client does
/// after each chunk.
fn feed(decoder: &mut SseDecoder, bytes: &[u8]) -> Vec<String> {
    decoder.feed(bytes);
    std::iter::from_fn(|| decoder.next()).flatten().filter_map(|e| sse::message(&e).map(str::to_owned)).collect()
}

#[test]
fn sse_ids_and_retry_are_kept_for_reconnecting() {
    let mut decoder = sse::decoder();
    assert_eq!(feed(&mut decoder, b"retry: 250\nid: 1\ndata: a\n\n"), ["a"]);
    assert_eq!((decoder.last_event_id(), decoder.retry()), ("1", Some(Duration::from_millis(250))));
    assert_eq!(feed(&mut decoder, b"data: b\n\n"), ["b"]);
    assert_eq!(decoder.last_event_id(), "1", "an event without an id keeps the last one");
    assert_eq!(decoder.dispatched(), 2);
    // Invalid retry values and ids with NUL are ignored; an event of
    // nothing else is no event.
    assert!(feed(&mut decoder, b"retry: soon\nretry: 99999999999999999999999\nid: bad\0id\n\n").is_empty());
    assert_eq!(
        (decoder.last_event_id(), decoder.retry(), decoder.dispatched()),
        ("1", Some(Duration::from_millis(250)), 2)
    );
    // The id of an event the stream never finished is not the last one.
    assert!(feed(&mut decoder, b"id: 2\ndata: half").is_empty());
    decoder.finish();
    assert!(decoder.next().is_none());
    assert_eq!(decoder.last_event_id(), "1");
    let mut resumed = sse::decoder();
    resumed.set_last_event_id("1");
    assert_eq!(feed(&mut resumed, b": priming\n\ndata: c\n\n"), ["c"]);
    assert_eq!(resumed.last_event_id(), "1", "a reconnection carries the id over");
    assert!(feed(&mut resumed, b"id\n\n").is_empty());
    assert_eq!(resumed.last_event_id(), "", "an empty id resets it");
}

#[test]
fn sse_bounds_hold() {
    let long_line = [b"data: ".as_slice(), &[b'x'; 100], b"\n\n"].concat();
    assert_eq!(decode(&[&long_line], 64), [Err(SseError::LineTooLong { line: 1, limit: 64 })]);
    let many_lines = b"data: 0123456789\n".repeat(10);
    assert_eq!(decode(&[&many_lines, b"\n"], 64), [Err(SseError::EventTooLarge { line: 6, limit: 64 })]);
    let mut ok_then_big = b"data: ok\n\n".to_vec();
    ok_then_big.extend_from_slice(&[b'y'; 200]);
    ok_then_big.extend_from_slice(b"\n\ndata: never\n\n");
    assert_eq!(decode(&[&ok_then_big], 64), [Ok("ok".to_string()), Err(SseError::LineTooLong { line: 3, limit: 64 })]);
}
