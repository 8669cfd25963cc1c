//! Entry points for fuzz targets (SPEC ARCH-02).
//!
//! A cargo-fuzz target is a ten-line shell calling one of these; `cargo
//! test` runs the same functions over generated inputs, so a crash found by
//! the fuzzer reproduces as an ordinary test. Each takes arbitrary bytes,
//! uses the first byte to choose where to split the rest into two chunks,
//! and checks that chunking does not change the outcome.
//!
//! # Panics
//!
//! Only when an invariant breaks — a panic inside a decoder, or different
//! results for different chunkings. Reporting that is the point.

#[cfg(feature = "openai")]
use crate::codec::{HttpCodec, StreamDecoder};
use crate::http::HttpResponseHead;
#[cfg(feature = "openai")]
use crate::openai::{Codec, Config, Preset};
use crate::sse::SseDecoder;
#[cfg(feature = "openai")]
use golem_core::model::Request;
#[cfg(feature = "openai")]
use golem_core::Message;

/// The SSE decoder: whole input versus two chunks.
pub fn sse(data: &[u8]) {
    let (cut, body) = split(data);
    let whole = sse_events(&[body]);
    let chunked = sse_events(&[&body[..cut], &body[cut..]]);
    assert_eq!(whole, chunked, "SSE events depend on chunking");
}

/// The Chat Completions stream decoder: whole input versus two chunks.
#[cfg(feature = "openai")]
pub fn chat_stream(data: &[u8]) {
    let (cut, body) = split(data);
    let (codec, request) = fixture();
    let whole = stream_outcome(&codec, &request, &[body]);
    let chunked = stream_outcome(&codec, &request, &[&body[..cut], &body[cut..]]);
    assert_eq!(whole, chunked, "stream outcome depends on chunking");
}

/// The whole-body response decoder, under a status chosen by the first
/// byte (2xx half the time).
#[cfg(feature = "openai")]
pub fn chat_response(data: &[u8]) {
    let (first, body) = match data.split_first() {
        Some((first, body)) => (*first, body),
        None => (0, data),
    };
    let status = if first < 128 { 200 } else { 300 + u16::from(first) };
    let (codec, request) = fixture();
    let _ = codec.decode(&request, &HttpResponseHead::new(status, vec![]), body);
}

/// The HTTP-date parser and Retry-After reading.
pub fn http_date(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let _ = crate::http_date::parse(&text);
    let head =
        HttpResponseHead::new(429, vec![("retry-after".into(), text.to_string()), ("date".into(), text.to_string())])
            .with_now_unix(u64::from(data.first().copied().unwrap_or(0)) << 24);
    let _ = head.retry_after();
}

fn split(data: &[u8]) -> (usize, &[u8]) {
    match data.split_first() {
        Some((first, body)) => (usize::from(*first).min(body.len()), body),
        None => (0, data),
    }
}

#[cfg(feature = "openai")]
fn fixture() -> (Codec, Request) {
    let config = Config::builder(Preset::ollama(), "fuzz").build().unwrap_or_else(|e| panic!("fixture config: {e}"));
    (Codec::new(config), Request::new(vec![Message::user("fuzz")]))
}

fn sse_events(chunks: &[&[u8]]) -> Vec<Result<crate::sse::SseEvent, crate::sse::SseError>> {
    let mut decoder = SseDecoder::new();
    let mut out = Vec::new();
    for chunk in chunks {
        decoder.feed(chunk);
        out.extend(std::iter::from_fn(|| decoder.next()));
    }
    decoder.finish();
    out.extend(std::iter::from_fn(|| decoder.next()));
    out
}

#[cfg(feature = "openai")]
type Outcome =
    (Vec<Result<golem_core::Delta, golem_core::ModelError>>, Result<golem_core::Response, golem_core::ModelError>);

#[cfg(feature = "openai")]
fn stream_outcome(codec: &Codec, request: &Request, chunks: &[&[u8]]) -> Outcome {
    let mut decoder = codec.stream_decoder(request, &HttpResponseHead::new(200, vec![]));
    let mut deltas = Vec::new();
    for chunk in chunks {
        decoder.feed(chunk);
        deltas.extend(std::iter::from_fn(|| decoder.next_delta()));
    }
    decoder.end();
    deltas.extend(std::iter::from_fn(|| decoder.next_delta()));
    (deltas, decoder.finish())
}
