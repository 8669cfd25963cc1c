//! The `observability` example (SPEC OBS-01): its spans reach an OTLP/HTTP
//! collector stand-in on 127.0.0.1 as protobuf.

#[path = "../../tests/support/mod.rs"]
mod support;

use std::io::Write;
use std::net::TcpListener;
use std::process::Command;
use support::read_request;

#[test]
fn spans_are_exported_over_otlp_http_when_the_endpoint_is_set() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    // The run has five spans; the simple processor posts each as it ends.
    let collector = std::thread::spawn(move || {
        let mut posts = Vec::new();
        for _ in 0..5 {
            let (mut socket, _) = listener.accept().unwrap();
            let (head, body) = read_request(&mut socket);
            socket.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n").unwrap();
            posts.push((head, body));
        }
        posts
    });
    let out = Command::new(env!("CARGO_BIN_EXE_observability"))
        .env_clear()
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(&format!("exporting spans over OTLP/HTTP to {endpoint}")), "{stdout}");
    let posts = collector.join().unwrap();
    let mut names = Vec::new();
    for (head, body) in &posts {
        assert!(head.starts_with("POST /v1/traces HTTP/1.1"), "{head}");
        assert!(head.to_ascii_lowercase().contains("content-type: application/x-protobuf"), "{head}");
        // Span names travel as plain protobuf strings.
        let text = String::from_utf8_lossy(body);
        for name in ["invoke_agent wardrobe", "chat gpt-4o-mini", "execute_tool forecast"] {
            if text.contains(name) {
                names.push(name);
            }
        }
    }
    names.sort_unstable();
    assert_eq!(
        names,
        ["chat gpt-4o-mini", "chat gpt-4o-mini", "chat gpt-4o-mini", "execute_tool forecast", "invoke_agent wardrobe"]
    );
}
