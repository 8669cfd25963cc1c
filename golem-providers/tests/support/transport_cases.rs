// The transport cases, included by `transport_blocking.rs` and
// `transport_async.rs`, each of which defines `KIND`.

use golem_core::model::{ModelError, ModelErrorKind};
use golem_providers::http::{HeaderValue, HttpRequest, Method};
use golem_providers::transport::{TimeoutPhase, TransportConfig, TransportError};
use golem_providers::Secret;
use server::{test_ca, Framing, Part, Reply, Server};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;
use transports::Sender;

fn sender() -> Sender {
    // A read timeout long enough for any CI hiccup, short enough that a
    // transport that buffers a stream fails the test instead of hanging it.
    Sender::new(KIND, TransportConfig::new().read_timeout(Duration::from_secs(10)))
}

fn post(url: &str) -> HttpRequest {
    HttpRequest::post_json(format!("{url}/v1/chat/completions"), br#"{"model":"m"}"#.to_vec(), false)
}

#[test]
fn a_json_response_arrives_whole_and_the_request_as_sent() {
    let server = Server::start(vec![Reply::json(200, r#"{"ok":true}"#).header("x-request-id", "req-1")]);
    let request = post(&server.url()).with_header("authorization", HeaderValue::Secret(Secret::new("Bearer sk-k")));
    let (head, body) = sender().send(&request).unwrap();
    assert_eq!(head.status, 200);
    assert_eq!(head.request_id(), Some("req-1"));
    assert!(head.now_unix.is_some(), "the arrival clock is stamped for HTTP-date Retry-After");
    assert_eq!(body.read_to_end().unwrap(), br#"{"ok":true}"#);
    let seen = &server.requests()[0];
    assert_eq!((seen.method.as_str(), seen.path.as_str()), ("POST", "/v1/chat/completions"));
    assert_eq!(seen.header("authorization"), Some("Bearer sk-k"));
    assert_eq!(seen.header("content-type"), Some("application/json"));
    assert!(seen.header("accept-encoding").unwrap_or_default().contains("gzip"));
    assert!(seen.header("cookie").is_none());
    assert_eq!(seen.body, br#"{"model":"m"}"#);
}

/// Heads of every size and bodies on both sides of the size that goes out
/// in the head's write (16 KiB) arrive as sent, over one connection.
#[test]
fn large_heads_and_bodies_of_any_size_arrive_as_sent() {
    let sizes = [0, 1, 16 * 1024 - 1, 16 * 1024, 16 * 1024 + 1, 200 * 1024];
    let server = Server::start(sizes.iter().map(|_| Reply::json(200, "ok")).collect());
    let sender = sender();
    let long = "v".repeat(20_000);
    let path = format!("/v1/{}", "p".repeat(5_000));
    for (at, &size) in sizes.iter().enumerate() {
        let body: Vec<u8> = (0..size).map(|i| b'a' + (i % 26) as u8).collect();
        let request = HttpRequest::post_json(format!("{}{path}", server.url()), body, false)
            .with_header("x-long", HeaderValue::Plain(long.clone().into()))
            .with_header("x-at", HeaderValue::Plain(at.to_string().into()));
        let (head, reply) = sender.send(&request).unwrap();
        assert_eq!((head.status, reply.read_to_end().unwrap()), (200, b"ok".to_vec()), "size {size}");
    }
    for (seen, &size) in server.requests().iter().zip(&sizes) {
        assert_eq!(seen.path, path);
        assert_eq!(seen.header("x-long"), Some(long.as_str()));
        assert_eq!(seen.body.len(), size);
        assert!(seen.body.iter().enumerate().all(|(i, &b)| b == b'a' + (i % 26) as u8), "size {size}");
    }
    assert_eq!(server.accepted(), 1, "every request went over the first connection");
}

/// Response heads past the first read's room and bodies on both sides of
/// the read buffer's steps (4 KiB first, then up to 16 KiB more at a time)
/// arrive whole and in order, one after another over one connection.
#[test]
fn response_heads_and_bodies_of_any_size_are_read_whole() {
    let sizes = [0usize, 1, 4095, 4096, 4097, 16 * 1024 - 1, 16 * 1024, 16 * 1024 + 1, 100_000];
    let long = "h".repeat(10_000);
    let body = |size: usize| -> Vec<u8> { (0..size).map(|i| b'a' + (i % 26) as u8).collect() };
    let replies = sizes
        .iter()
        .enumerate()
        .map(|(at, &size)| {
            let reply = Reply::new(200).header("content-type", "application/json").framing(Framing::Length);
            // Every other answer has a head bigger than the first read.
            let reply = if at % 2 == 0 { reply.header("x-long", &long) } else { reply };
            reply.data(body(size))
        })
        .collect();
    let server = Server::start(replies);
    let sender = sender();
    for (at, &size) in sizes.iter().enumerate() {
        let (head, reply) = sender.send(&post(&server.url())).unwrap();
        assert_eq!(head.header("x-long").is_some(), at % 2 == 0, "answer {at}");
        assert_eq!(reply.read_to_end().unwrap(), body(size), "a body of {size} bytes");
    }
    assert_eq!(server.accepted(), 1, "every answer came over the first connection");
}

/// A configured user agent of any length goes out whole with the head.
#[test]
fn a_long_configured_user_agent_is_sent_whole() {
    let agent = "a".repeat(30_000);
    let server = Server::start(vec![Reply::json(200, "ok")]);
    let sender = Sender::new(KIND, TransportConfig::new().read_timeout(Duration::from_secs(10)).user_agent(agent.clone()));
    let (head, reply) = sender.send(&post(&server.url())).unwrap();
    assert_eq!((head.status, reply.read_to_end().unwrap()), (200, b"ok".to_vec()));
    assert_eq!(server.requests()[0].header("user-agent"), Some(agent.as_str()));
}

#[test]
fn keep_alive_reuses_one_connection_for_consecutive_requests() {
    let server = Server::start(vec![
        Reply::json(200, "one"),
        Reply::sse([b"data: a\n\n".to_vec(), b"data: b\n\n".to_vec()]),
        Reply::json(429, "three"),
        Reply::json(200, "four"),
    ]);
    let sender = sender();
    let mut bodies = Vec::new();
    for _ in 0..4 {
        let (_, body) = sender.send(&post(&server.url())).unwrap();
        bodies.push(String::from_utf8(body.read_to_end().unwrap()).unwrap());
    }
    assert_eq!(bodies, ["one", "data: a\n\ndata: b\n\n", "three", "four"]);
    assert_eq!(server.accepted(), 1, "every request went over the first connection");
}

#[test]
fn a_connection_the_server_closed_is_not_reused() {
    let server = Server::start(vec![Reply::json(200, "one").close_after(), Reply::json(200, "two")]);
    let sender = sender();
    for expected in ["one", "two"] {
        // Give the server's close time to arrive, as it would between turns.
        std::thread::sleep(Duration::from_millis(50));
        let (_, body) = sender.send(&post(&server.url())).unwrap();
        assert_eq!(body.read_to_end().unwrap(), expected.as_bytes());
    }
    assert_eq!(server.accepted(), 2);
}

#[test]
fn an_error_status_is_a_response_with_its_retry_after() {
    let server = Server::start(vec![Reply::json(429, r#"{"error":{"message":"slow"}}"#).header("retry-after", "7")]);
    let (head, body) = sender().send(&post(&server.url())).unwrap();
    assert_eq!(head.status, 429);
    assert_eq!(head.retry_after(), Some(Duration::from_secs(7)));
    assert_eq!(body.read_to_end().unwrap(), br#"{"error":{"message":"slow"}}"#);
}

#[test]
fn a_streamed_body_arrives_chunk_by_chunk_before_the_server_finishes() {
    let (release, gate) = mpsc::channel();
    let server = Server::start(vec![Reply::sse([b"data: first\n\n".to_vec()])
        .then(Part::Gate(gate))
        .data(b"data: second\n\n".to_vec())]);
    let (_, mut body) = sender().send(&post(&server.url())).unwrap();
    // The server is blocked on the gate: this chunk can only come now if
    // the transport hands bytes on as they arrive.
    assert_eq!(body.next_chunk().unwrap().unwrap().as_ref(), b"data: first\n\n");
    release.send(()).unwrap();
    let mut rest = Vec::new();
    while let Some(chunk) = body.next_chunk().unwrap() {
        rest.extend_from_slice(&chunk);
    }
    assert_eq!(rest, b"data: second\n\n");
    assert_eq!(body.next_chunk().unwrap(), None, "the end is sticky");
}

#[test]
fn close_delimited_and_content_length_bodies_read_to_their_end() {
    let server = Server::start(vec![Reply::new(200).framing(Framing::Close).data("all of it").data(" and more")]);
    let (_, body) = sender().send(&post(&server.url())).unwrap();
    assert_eq!(body.read_to_end().unwrap(), b"all of it and more");
}

#[test]
fn silence_before_the_head_is_a_read_timeout() {
    let (_hold, gate) = mpsc::channel::<()>();
    let server = Server::start(vec![Reply::json(200, "late").before_head(Part::Gate(gate))]);
    let sender = Sender::new(KIND, TransportConfig::new().read_timeout(Duration::from_millis(300)));
    let error = sender.send(&post(&server.url())).unwrap_err();
    assert!(matches!(error, TransportError::Timeout { phase: TimeoutPhase::Read, .. }), "{error:?}");
    let model: ModelError = error.into();
    assert_eq!(model.kind, ModelErrorKind::Timeout);
    assert!(model.retryable);
}

#[test]
fn silence_mid_body_is_a_read_timeout() {
    let (_hold, gate) = mpsc::channel::<()>();
    let server =
        Server::start(vec![Reply::sse([b"data: first\n\n".to_vec()]).then(Part::Gate(gate)).data(b"never".to_vec())]);
    let sender = Sender::new(KIND, TransportConfig::new().read_timeout(Duration::from_millis(300)));
    let (_, mut body) = sender.send(&post(&server.url())).unwrap();
    assert!(body.next_chunk().unwrap().is_some());
    let error = body.next_chunk().unwrap_err();
    assert!(matches!(error, TransportError::Timeout { phase: TimeoutPhase::Read, .. }), "{error:?}");
}

#[test]
fn a_server_that_never_completes_the_tls_handshake_is_a_connect_timeout() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("https://{}", listener.local_addr().unwrap());
    let holder = std::thread::spawn(move || listener.accept().map(|(stream, _)| stream));
    let config = TransportConfig::new().connect_timeout(Duration::from_millis(300)).read_timeout(Duration::from_secs(10));
    let error = Sender::new(KIND, config).send(&post(&url)).unwrap_err();
    assert!(matches!(error, TransportError::Timeout { phase: TimeoutPhase::Connect, .. }), "{error:?}");
    drop(holder.join());
}

#[test]
fn a_refused_connection_is_a_retryable_connect_error() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let error = sender().send(&post(&format!("http://127.0.0.1:{port}"))).unwrap_err();
    assert!(matches!(error, TransportError::Connect { .. }), "{error:?}");
    let model = ModelError::from(error);
    assert_eq!((model.kind, model.retryable), (ModelErrorKind::Transport, true));
}

#[test]
fn a_body_cut_short_after_the_head_is_a_reset() {
    let server = Server::start(vec![Reply::new(200).framing(Framing::DeclaredLength(100)).data("ten bytes!").then(Part::Reset)]);
    let (head, body) = sender().send(&post(&server.url())).unwrap();
    assert_eq!(head.status, 200);
    let error = body.read_to_end().unwrap_err();
    assert!(matches!(error, TransportError::Reset { .. }), "{error:?}");
    assert!(error.is_retryable());
}

#[test]
fn a_stream_reset_mid_body_is_a_reset() {
    let server = Server::start(vec![Reply::sse([b"data: partial\n\n".to_vec()]).then(Part::Reset)]);
    let (_, mut body) = sender().send(&post(&server.url())).unwrap();
    assert_eq!(body.next_chunk().unwrap().unwrap().as_ref(), b"data: partial\n\n");
    let error = body.next_chunk().unwrap_err();
    assert!(matches!(error, TransportError::Reset { .. }), "{error:?}");
}

#[test]
fn a_server_that_hangs_up_before_answering_is_a_reset() {
    let server = Server::start(vec![Reply::json(200, "x").before_head(Part::Reset)]);
    let error = sender().send(&post(&server.url())).unwrap_err();
    assert!(error.is_retryable(), "{error:?}");
}

#[test]
fn a_request_the_server_read_before_hanging_up_is_never_sent_again() {
    // On a kept-alive connection too: the server may have acted on it, and
    // only the run machine retries model calls (issue 17).
    let server = Server::start(vec![
        Reply::json(200, "one"),
        Reply::json(200, "x").before_head(Part::Reset),
        Reply::json(200, "three"),
    ]);
    let sender = sender();
    let (_, body) = sender.send(&post(&server.url())).unwrap();
    assert_eq!(body.read_to_end().unwrap(), b"one");
    let error = sender.send(&post(&server.url())).unwrap_err();
    assert!(error.is_retryable(), "{error:?}");
    assert_eq!(server.requests().len(), 2, "the request was sent once");
}

#[test]
fn a_garbled_response_is_a_protocol_error() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        if let Ok((mut stream, _)) = listener.accept() {
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(b"SPDY/9 banana\r\nweird\r\n\r\n");
        }
    });
    let error = sender().send(&post(&url)).unwrap_err();
    assert!(matches!(error, TransportError::Protocol { .. } | TransportError::Reset { .. }), "{error:?}");
    assert!(error.is_retryable());
}

#[test]
fn gzip_bodies_are_decompressed() {
    let text = "hello gzip ".repeat(100);
    let server = Server::start(vec![Reply::json(200, gzip(text.as_bytes())).header("content-encoding", "gzip")]);
    let (_, body) = sender().send(&post(&server.url())).unwrap();
    assert_eq!(body.read_to_end().unwrap(), text.as_bytes());
}

#[test]
fn the_body_cap_applies_after_decompression() {
    let bomb = gzip(&vec![b'0'; 4 << 20]);
    assert!(bomb.len() < 64 * 1024);
    let server = Server::start(vec![Reply::json(200, bomb).header("content-encoding", "gzip")]);
    let sender = Sender::new(KIND, TransportConfig::new().max_body(1 << 20));
    let (_, body) = sender.send(&post(&server.url())).unwrap();
    let error = body.read_to_end().unwrap_err();
    assert_eq!(error, TransportError::BodyTooLarge { limit: 1 << 20 });
    assert!(!error.is_retryable());
}

#[test]
fn tls_with_a_trusted_test_ca_works_and_keeps_the_connection() {
    let ca = test_ca();
    let server = Server::start_tls(vec![Reply::json(200, "secure"), Reply::sse([b"data: x\n\n".to_vec()])], ca.server);
    let sender = Sender::new(KIND, TransportConfig::new().add_root_certificate(ca.ca_der.to_vec()));
    let (_, body) = sender.send(&post(&server.url())).unwrap();
    assert_eq!(body.read_to_end().unwrap(), b"secure");
    let (_, body) = sender.send(&post(&server.url())).unwrap();
    assert_eq!(body.read_to_end().unwrap(), b"data: x\n\n");
    assert_eq!(server.accepted(), 1);
}

#[test]
fn tls_with_an_untrusted_certificate_fails_as_tls() {
    let server = Server::start_tls(vec![Reply::json(200, "never")], test_ca().server);
    let error = sender().send(&post(&server.url())).unwrap_err();
    assert!(matches!(error, TransportError::Tls { .. }), "{error:?}");
    let model = ModelError::from(error);
    assert_eq!(model.kind, ModelErrorKind::Transport);
    assert!(!model.retryable, "an untrusted certificate stays untrusted");
}

#[test]
fn an_unsendable_header_is_refused_without_showing_its_value() {
    let request = HttpRequest::new(Method::Post, "http://127.0.0.1:9/v1")
        .with_header("authorization", HeaderValue::Secret(Secret::new("Bearer sk-line\nbreak")));
    let error = sender().send(&request).unwrap_err();
    assert!(matches!(error, TransportError::InvalidRequest { .. }), "{error:?}");
    let model = ModelError::from(error.clone());
    assert_eq!(model.kind, ModelErrorKind::Encode);
    for text in [format!("{error} {error:?}"), format!("{model} {model:?}")] {
        assert!(!text.contains("sk-line"), "{text}");
    }
}

#[test]
fn a_url_that_is_not_http_is_refused() {
    let error = sender().send(&HttpRequest::new(Method::Get, "ftp://127.0.0.1/x")).unwrap_err();
    assert!(matches!(error, TransportError::InvalidRequest { .. } | TransportError::Connect { .. }), "{error:?}");
    assert!(!matches!(error, TransportError::Timeout { .. }));
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// Mangled and random responses end in a response or an error, never a
/// panic (SPEC ARCH-02). Each case is served once by a raw socket.
#[test]
fn hostile_responses_never_panic() {
    let valid = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-encoding: gzip\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
    let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let sender = Sender::new(KIND, TransportConfig::new().read_timeout(Duration::from_secs(5)));
    for case in 0..40 {
        let mut bytes = valid.to_vec();
        match case % 4 {
            // Flip bytes of a valid response.
            0 | 1 => {
                for _ in 0..1 + next() % 6 {
                    let at = (next() % bytes.len() as u64) as usize;
                    bytes[at] = next() as u8;
                }
            }
            // Cut it anywhere.
            2 => bytes.truncate((next() % bytes.len() as u64) as usize),
            // A valid head over random body bytes.
            _ => {
                bytes.truncate(valid.iter().position(|&b| b == b'5').unwrap_or(0));
                bytes.extend((0..next() % 300).map(|_| next() as u8));
            }
        }
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let server = std::thread::spawn(move || {
            if let Ok((mut stream, _)) = listener.accept() {
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf);
                let _ = stream.write_all(&bytes);
            }
        });
        if let Ok((_, body)) = sender.send(&post(&url)) {
            let _ = body.read_to_end();
        }
        server.join().unwrap();
    }
}

#[test]
fn silence_past_the_requests_own_timeout_is_a_deadline_timeout() {
    let (_hold, gate) = mpsc::channel::<()>();
    let server = Server::start(vec![Reply::json(200, "late").before_head(Part::Gate(gate))]);
    let request = post(&server.url()).with_timeout(Duration::from_millis(300));
    let error = sender().send(&request).unwrap_err();
    let expected = TransportError::Timeout { phase: TimeoutPhase::Deadline, after: Duration::from_millis(300) };
    assert_eq!(error, expected);
    let model: ModelError = error.into();
    assert_eq!(model.kind, ModelErrorKind::Timeout);
}

#[test]
fn a_body_still_arriving_at_the_requests_timeout_is_cut_there() {
    // The server keeps the stream open: the per-read timeout (10 s) never
    // fires, the request's own limit does.
    let (_hold, gate) = mpsc::channel::<()>();
    let server =
        Server::start(vec![Reply::sse([b"data: first\n\n".to_vec()]).then(Part::Gate(gate)).data(b"never".to_vec())]);
    let request = post(&server.url()).with_timeout(Duration::from_millis(500));
    let (_, mut body) = sender().send(&request).unwrap();
    assert!(body.next_chunk().unwrap().is_some());
    let error = body.next_chunk().unwrap_err();
    assert!(matches!(error, TransportError::Timeout { phase: TimeoutPhase::Deadline, .. }), "{error:?}");
}

#[test]
fn a_deadline_over_a_second_stops_a_stalled_body_promptly() {
    // Deadlines of a second or more are where the blocking transport
    // rounds the socket's timeout up to a 10 ms grid to spare system
    // calls: the stall must still end at the deadline, not a read timeout
    // (10 s here) later, and be reported as the deadline.
    let (_hold, gate) = mpsc::channel::<()>();
    let server =
        Server::start(vec![Reply::sse([b"data: first\n\n".to_vec()]).then(Part::Gate(gate)).data(b"never".to_vec())]);
    let limit = Duration::from_millis(1_200);
    let started = std::time::Instant::now();
    let (_, mut body) = sender().send(&post(&server.url()).with_timeout(limit)).unwrap();
    assert!(body.next_chunk().unwrap().is_some());
    let error = body.next_chunk().unwrap_err();
    let waited = started.elapsed();
    assert_eq!(error, TransportError::Timeout { phase: TimeoutPhase::Deadline, after: limit });
    assert!(waited >= limit, "stopped {waited:?} after the start, before the {limit:?} deadline");
    // A generous bound for a loaded machine; the rounding itself adds < 10 ms.
    assert!(waited < limit + Duration::from_millis(800), "stopped only {waited:?} after the start");
}

#[test]
fn an_answer_within_the_requests_timeout_is_unaffected_and_keeps_the_connection() {
    let server = Server::start(vec![Reply::json(200, r#"{"ok":1}"#), Reply::json(200, r#"{"ok":2}"#)]);
    let sender = sender();
    for expected in [r#"{"ok":1}"#, r#"{"ok":2}"#] {
        let request = post(&server.url()).with_timeout(Duration::from_secs(10));
        let (head, body) = sender.send(&request).unwrap();
        assert_eq!(head.status, 200);
        assert_eq!(body.read_to_end().unwrap(), expected.as_bytes());
    }
    assert_eq!(server.accepted(), 1, "both requests went over one kept-alive connection");
}

#[test]
fn a_sized_body_arriving_in_pieces_is_read_whole_and_in_order() {
    // The blocking transport sizes its read buffer to a short body's
    // length: a body that arrives in several pieces must still be read
    // whole, and a long one in several chunks, byte for byte.
    for size in [1usize, 700, 16 * 1024 - 1, 16 * 1024, 40_000] {
        let bytes: Vec<u8> = (0..size).map(|i| b'a' + (i % 26) as u8).collect();
        let (first, rest) = bytes.split_at(size / 3);
        let reply = Reply::new(200)
            .header("content-type", "application/json")
            .framing(Framing::Length)
            .data(first.to_vec())
            .then(Part::Sleep(Duration::from_millis(20)))
            .data(rest.to_vec());
        let server = Server::start(vec![reply]);
        let (head, body) = sender().send(&post(&server.url())).unwrap();
        assert_eq!(head.header("content-length"), Some(size.to_string().as_str()));
        assert_eq!(body.read_to_end().unwrap(), bytes, "a body of {size} bytes");
    }
}
