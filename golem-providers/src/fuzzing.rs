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
use crate::codec::HttpCodec;
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
    // The typed chunk view must mean what the lenient `Value` path means.
    // Fields it never reads are skipped, not parsed, so a number beyond f64
    // there fails only the `Value` parse: such a stream is not compared.
    use crate::codec::StreamDecoder;
    let head = HttpResponseHead::new(200, vec![]);
    let mut lenient = crate::chat_completions::ChatStream::new(&head, 1, None).lenient_only();
    let mut deltas = Vec::new();
    lenient.feed(body);
    lenient.end();
    deltas.extend(std::iter::from_fn(|| lenient.next_delta()));
    let lenient = (deltas, lenient.finish());
    let unparsable = |outcome: &Outcome| {
        let error = outcome.0.iter().find_map(|d| d.as_ref().err()).or(outcome.1.as_ref().err());
        error.is_some_and(|e| e.message.contains("invalid JSON"))
    };
    if !unparsable(&lenient) {
        assert_eq!(format!("{whole:?}"), format!("{lenient:?}"), "the typed and Value chunk decoders disagree");
    }
}

/// The whole-body response decoder, under a status chosen by the first
/// byte (2xx half the time); on a body its typed fast path accepts, that
/// path and the lenient `Value` path agree.
#[cfg(feature = "openai")]
pub fn chat_response(data: &[u8]) {
    let (first, body) = match data.split_first() {
        Some((first, body)) => (*first, body),
        None => (0, data),
    };
    let status = if first < 128 { 200 } else { 300 + u16::from(first) };
    let (codec, request) = fixture();
    let head = HttpResponseHead::new(status, vec![]);
    let _ = codec.decode(&request, &head, body);
    // The typed fast path must mean what the lenient `Value` path means on
    // every body it accepts.
    use crate::chat_completions::response::{decode_typed, decode_value, DecodeContext};
    let ctx = DecodeContext::for_request(&request, None);
    // Fields the typed path never reads are skipped, not parsed, so a number
    // beyond f64 or a lone surrogate there fails only the `Value` parse;
    // wherever that parse succeeds, the two must agree.
    if let Some(typed) = decode_typed(&head, body, &ctx) {
        if serde_json::from_slice::<serde_json::Value>(body).is_ok() {
            let lenient = decode_value(&head, body, &ctx);
            assert_eq!(format!("{typed:?}"), format!("{lenient:?}"), "the typed and Value decoders disagree");
        }
    }
}

/// The event-stream frame decoder: whole input versus two chunks, and
/// every frame re-encoded decodes to itself.
#[cfg(feature = "bedrock")]
pub fn eventstream(data: &[u8]) {
    use crate::eventstream::{encode_frame, FrameDecoder};
    let (cut, body) = split(data);
    let frames = |chunks: &[&[u8]]| {
        let mut decoder = FrameDecoder::new();
        let mut out = Vec::new();
        for chunk in chunks {
            decoder.feed(chunk);
            out.extend(std::iter::from_fn(|| decoder.next_frame()));
        }
        decoder.finish();
        out.extend(std::iter::from_fn(|| decoder.next_frame()));
        out
    };
    let whole = frames(&[body]);
    assert_eq!(whole, frames(&[&body[..cut], &body[cut..]]), "frames depend on chunking");
    for frame in whole.iter().flatten() {
        let again = frames(&[&encode_frame(&frame.headers, &frame.payload)]);
        assert_eq!(again, vec![Ok(frame.clone())], "a decoded frame re-encodes to itself");
    }
}

/// The ConverseStream decoder: whole input versus two chunks. The input
/// is taken as event-stream bytes as they are.
#[cfg(feature = "bedrock")]
pub fn bedrock_stream(data: &[u8]) {
    let (cut, body) = split(data);
    let (codec, request) = bedrock_fixture();
    let whole = stream_outcome(&codec, &request, &[body]);
    let chunked = stream_outcome(&codec, &request, &[&body[..cut], &body[cut..]]);
    assert_eq!(whole, chunked, "stream outcome depends on chunking");
}

/// The ConverseStream decoder over frames built from the input: each
/// line of the rest becomes one event frame, its first word the
/// `:event-type` (a leading `!` makes it an exception frame), the rest its
/// payload — so the fuzzer reaches the event logic past the checksums.
#[cfg(feature = "bedrock")]
pub fn bedrock_events(data: &[u8]) {
    use crate::eventstream::{encode_frame, Header, HeaderValue};
    let (cut, body) = split(data);
    let mut bytes = Vec::new();
    for line in body.split(|b| *b == b'\n') {
        let text = String::from_utf8_lossy(line);
        let (kind, payload) = text.split_once(' ').unwrap_or((&text, ""));
        let (message_type, type_header, kind) = match kind.strip_prefix('!') {
            Some(kind) => ("exception", ":exception-type", kind),
            None => ("event", ":event-type", kind),
        };
        let headers = vec![
            Header { name: ":message-type".into(), value: HeaderValue::String(message_type.into()) },
            Header { name: type_header.into(), value: HeaderValue::String(kind.into()) },
        ];
        bytes.extend(encode_frame(&headers, payload.as_bytes()));
    }
    let (codec, request) = bedrock_fixture();
    let cut = cut.min(bytes.len());
    let whole = stream_outcome(&codec, &request, &[&bytes]);
    let chunked = stream_outcome(&codec, &request, &[&bytes[..cut], &bytes[cut..]]);
    assert_eq!(whole, chunked, "stream outcome depends on chunking");
    if let (deltas, Ok(response)) = &whole {
        let mut assembler = golem_core::stream::StreamAssembler::new().with_provider(crate::bedrock::FAMILY);
        for delta in deltas.iter().flatten() {
            let _ = assembler.push(delta);
        }
        assert_eq!(assembler.finish(), response.message, "deltas assemble to the response");
    }
}

/// The Converse body decoder, under a status chosen by the first byte.
#[cfg(feature = "bedrock")]
pub fn bedrock_response(data: &[u8]) {
    let (first, body) = match data.split_first() {
        Some((first, body)) => (*first, body),
        None => (0, data),
    };
    let status = if first < 128 { 200 } else { 300 + u16::from(first) };
    let (codec, request) = bedrock_fixture();
    let head = HttpResponseHead::new(
        status,
        vec![("x-amzn-errortype".into(), String::from_utf8_lossy(&body[..body.len().min(24)]).into_owned())],
    );
    let _ = crate::codec::HttpCodec::decode(&codec, &request, &head, body);
}

/// The embeddings decoders (OpenAI `/embeddings`, Gemini
/// `batchEmbedContents`, Bedrock Titan and Cohere) on arbitrary bytes: the
/// first byte picks the family and the number of inputs asked, the second
/// the status. Never a panic; an answer accepted is one finite vector per
/// input, all of one non-zero length.
#[cfg(all(feature = "openai", feature = "gemini", feature = "bedrock"))]
pub fn embeddings(data: &[u8]) {
    use crate::codec::EmbedCodec;
    use golem_core::embed::EmbedRequest;

    let (pick, rest) = data.split_first().map_or((0, data), |(first, rest)| (*first, rest));
    let (code, body) = rest.split_first().map_or((0, rest), |(first, rest)| (*first, rest));
    let status = if code < 192 { 200 } else { 208 + u16::from(code) };
    let inputs = 1 + usize::from(pick / 4 % 4);
    let request = EmbedRequest::documents((0..inputs).map(|i| format!("text {i}")));
    let head = HttpResponseHead::new(status, vec![("x-amzn-bedrock-input-token-count".into(), "7".into())]);
    let bedrock = |model: &str| {
        let credentials = crate::sigv4::Credentials::new("AKIDFUZZ", "fuzz-secret");
        let config = crate::bedrock::Config::builder("us-east-1", model)
            .credentials(credentials)
            .build()
            .unwrap_or_else(|e| panic!("fixture config: {e}"));
        crate::bedrock::Codec::new(config)
    };
    let answer = match pick % 4 {
        0 => fixture().0.decode_embed(&request, &head, body),
        1 => gemini_fixture().0.decode_embed(&request, &head, body),
        2 => bedrock("amazon.titan-embed-text-v2:0").decode_embed(&request, &head, body),
        _ => bedrock("cohere.embed-english-v3").decode_embed(&request, &head, body),
    };
    if let Ok(answer) = answer {
        assert_eq!(answer.vectors.len(), inputs, "one vector per input");
        let width = answer.vectors[0].len();
        assert!(width > 0 && answer.vectors.iter().all(|v| v.len() == width), "vectors of one non-zero length");
        assert!(answer.vectors.iter().flatten().all(|x| x.is_finite()), "finite values");
    }
}

/// The Gemini stream decoder (SSE or JSON-array framing): whole input
/// versus two chunks, and the deltas of a successful stream assemble to
/// its response.
#[cfg(feature = "gemini")]
pub fn gemini_stream(data: &[u8]) {
    let (cut, body) = split(data);
    let (codec, request) = gemini_fixture();
    let whole = stream_outcome(&codec, &request, &[body]);
    let chunked = stream_outcome(&codec, &request, &[&body[..cut], &body[cut..]]);
    assert_eq!(whole, chunked, "stream outcome depends on chunking");
    if let (deltas, Ok(response)) = &whole {
        let mut assembler = golem_core::stream::StreamAssembler::new().with_provider(crate::gemini::FAMILY);
        for delta in deltas.iter().flatten() {
            let _ = assembler.push(delta);
        }
        assert_eq!(assembler.finish(), response.message, "deltas assemble to the response");
    }
}

/// The `generateContent` body decoder, under a status chosen by the
/// first byte (2xx half the time).
#[cfg(feature = "gemini")]
pub fn gemini_response(data: &[u8]) {
    let (first, body) = match data.split_first() {
        Some((first, body)) => (*first, body),
        None => (0, data),
    };
    let status = if first < 128 { 200 } else { 300 + u16::from(first) };
    let (codec, request) = gemini_fixture();
    let _ = crate::codec::HttpCodec::decode(&codec, &request, &HttpResponseHead::new(status, vec![]), body);
}

/// The Anthropic Messages stream decoder: whole input versus two chunks,
/// and the deltas of a successful stream assemble to its response.
#[cfg(feature = "anthropic")]
pub fn anthropic_stream(data: &[u8]) {
    let (cut, body) = split(data);
    let (codec, request) = anthropic_fixture();
    let whole = stream_outcome(&codec, &request, &[body]);
    let chunked = stream_outcome(&codec, &request, &[&body[..cut], &body[cut..]]);
    assert_eq!(whole, chunked, "stream outcome depends on chunking");
    if let (deltas, Ok(response)) = &whole {
        let mut assembler = golem_core::stream::StreamAssembler::new().with_provider(crate::anthropic::FAMILY);
        for delta in deltas.iter().flatten() {
            let _ = assembler.push(delta);
        }
        assert_eq!(assembler.finish(), response.message, "deltas assemble to the response");
    }
}

/// The Messages body decoder, under a status chosen by the first byte
/// (2xx half the time).
#[cfg(feature = "anthropic")]
pub fn anthropic_response(data: &[u8]) {
    let (first, body) = match data.split_first() {
        Some((first, body)) => (*first, body),
        None => (0, data),
    };
    let status = if first < 128 { 200 } else { 300 + u16::from(first) };
    let (codec, request) = anthropic_fixture();
    let _ = crate::codec::HttpCodec::decode(&codec, &request, &HttpResponseHead::new(status, vec![]), body);
}

/// The Responses API stream decoder: whole input versus two chunks, the
/// deltas of a successful stream assemble to its response, and that
/// response (its built-in items among its reasoning) goes back as history
/// without a panic.
#[cfg(feature = "responses")]
pub fn responses_stream(data: &[u8]) {
    let (cut, body) = split(data);
    let (codec, request) = responses_fixture();
    let whole = stream_outcome(&codec, &request, &[body]);
    let chunked = stream_outcome(&codec, &request, &[&body[..cut], &body[cut..]]);
    assert_eq!(whole, chunked, "stream outcome depends on chunking");
    if let (deltas, Ok(response)) = &whole {
        let mut assembler = golem_core::stream::StreamAssembler::new().with_provider(crate::responses::FAMILY);
        for delta in deltas.iter().flatten() {
            let _ = assembler.push(delta);
        }
        assert_eq!(assembler.finish(), response.message, "deltas assemble to the response");
        let mut history = request.messages.to_vec();
        history.push(response.message.clone());
        let _ = crate::codec::HttpCodec::encode(&codec, &golem_core::model::Request::new(history), false);
    }
}

/// The Responses API body decoder, under a status chosen by the first
/// byte (2xx half the time); a body that decodes, re-encoded as history,
/// encodes.
#[cfg(feature = "responses")]
pub fn responses_response(data: &[u8]) {
    let (first, body) = match data.split_first() {
        Some((first, body)) => (*first, body),
        None => (0, data),
    };
    let status = if first < 128 { 200 } else { 300 + u16::from(first) };
    let (codec, request) = responses_fixture();
    let decoded = crate::codec::HttpCodec::decode(&codec, &request, &HttpResponseHead::new(status, vec![]), body);
    if let Ok(response) = decoded {
        // What was decoded goes back as history without a panic.
        let mut history = request.messages.to_vec();
        history.push(response.message);
        let _ = crate::codec::HttpCodec::encode(&codec, &golem_core::model::Request::new(history), false);
    }
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

#[cfg(feature = "bedrock")]
fn bedrock_fixture() -> (crate::bedrock::Codec, golem_core::model::Request) {
    let credentials = crate::sigv4::Credentials::new("AKIDFUZZ", "fuzz-secret");
    let config = crate::bedrock::Config::builder("us-east-1", "fuzz")
        .credentials(credentials)
        .build()
        .unwrap_or_else(|e| panic!("fixture config: {e}"));
    (crate::bedrock::Codec::new(config), golem_core::model::Request::new(vec![golem_core::Message::user("fuzz")]))
}

#[cfg(feature = "gemini")]
fn gemini_fixture() -> (crate::gemini::Codec, golem_core::model::Request) {
    let config = crate::gemini::Config::builder("fuzz")
        .api_key("fuzz-key")
        .build()
        .unwrap_or_else(|e| panic!("fixture config: {e}"));
    (crate::gemini::Codec::new(config), golem_core::model::Request::new(vec![golem_core::Message::user("fuzz")]))
}

#[cfg(feature = "anthropic")]
fn anthropic_fixture() -> (crate::anthropic::Codec, golem_core::model::Request) {
    let config = crate::anthropic::Config::builder("fuzz")
        .api_key("fuzz-key")
        .build()
        .unwrap_or_else(|e| panic!("fixture config: {e}"));
    let request = golem_core::model::Request::new(vec![golem_core::Message::user("fuzz")]);
    (crate::anthropic::Codec::new(config), request)
}

#[cfg(feature = "responses")]
fn responses_fixture() -> (crate::responses::Codec, golem_core::model::Request) {
    let config = crate::responses::Config::builder("fuzz")
        .api_key("fuzz-key")
        .build()
        .unwrap_or_else(|e| panic!("fixture config: {e}"));
    let request = golem_core::model::Request::new(vec![golem_core::Message::user("fuzz")]);
    (crate::responses::Codec::new(config), request)
}

#[cfg(any(feature = "openai", feature = "bedrock", feature = "gemini", feature = "anthropic", feature = "responses"))]
type Outcome =
    (Vec<Result<golem_core::Delta, golem_core::ModelError>>, Result<golem_core::Response, golem_core::ModelError>);

#[cfg(any(feature = "openai", feature = "bedrock", feature = "gemini", feature = "anthropic", feature = "responses"))]
fn stream_outcome<C: crate::codec::HttpCodec>(
    codec: &C,
    request: &golem_core::model::Request,
    chunks: &[&[u8]],
) -> Outcome {
    use crate::codec::StreamDecoder;
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
