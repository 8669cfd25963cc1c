//! The `conversation` example (SPEC EX-16) with a conversation piped
//! through it: each line is answered before the next is written, every run
//! carries the history, and end of input ends the chat. Offline, and
//! against a loopback OpenAI-compatible stand-in reached through
//! `OPENAI_BASE_URL`, whose answers arrive as a stream.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::thread::JoinHandle;
use support::read_request;

/// The example, running with only the environment given, and its pipes.
struct Chat {
    child: std::process::Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Chat {
    fn start(env: &[(&str, &str)]) -> Chat {
        let mut child = Command::new(env!("CARGO_BIN_EXE_conversation"))
            .env_clear()
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Chat { child, stdin, stdout }
    }

    fn line(&mut self) -> String {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        line
    }

    /// Writes `text` as one line and reads back the echoed prompt and the
    /// answer — while the input is still open, so the answer cannot have
    /// waited for the end of it.
    fn say(&mut self, text: &str) -> (String, String) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{text}").unwrap();
        stdin.flush().unwrap();
        (self.line(), self.line())
    }

    /// Closes the input; everything printed after, and the exit status.
    fn end(mut self) -> String {
        drop(self.stdin.take());
        let mut rest = String::new();
        self.stdout.read_to_string(&mut rest).unwrap();
        assert!(self.child.wait().unwrap().success(), "{rest}");
        rest
    }
}

#[test]
fn offline_each_line_is_answered_in_turn_and_eof_ends_the_chat() {
    let mut chat = Chat::start(&[]);
    assert!(chat.line().starts_with("model: an offline echo"));
    assert!(chat.line().contains("Ctrl-D ends the chat"));

    assert_eq!(chat.say("hello"), ("you> hello\n".into(), "golem> heard: hello\n".into()));
    // A blank line is not sent; the prompt comes again.
    let stdin = chat.stdin.as_mut().unwrap();
    writeln!(stdin).unwrap();
    assert_eq!(chat.line(), "you> \n");
    assert_eq!(chat.say("goodbye"), ("you> goodbye\n".into(), "golem> heard: goodbye\n".into()));

    assert_eq!(chat.end(), "you> \n4 messages in the conversation\n");
}

/// One streamed chat-completions answer (`connection: close` ends it).
fn sse_answer(pieces: &[&str]) -> String {
    let mut body = String::new();
    for piece in pieces {
        let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": null}]});
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    body.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n{body}")
}

/// Serves `answers` to as many requests, in order; hands back each
/// request's head and body.
fn stand_in(answers: Vec<String>) -> (String, JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || {
        let mut requests = Vec::new();
        for answer in answers {
            let (mut socket, _) = listener.accept().unwrap();
            let (head, body) = read_request(&mut socket);
            socket.write_all(answer.as_bytes()).unwrap();
            requests.push(format!("{head}{}", String::from_utf8_lossy(&body)));
        }
        requests
    });
    (url, server)
}

#[test]
fn with_openai_base_url_it_streams_from_that_endpoint_and_sends_the_history() {
    let answers = vec![sse_answer(&["Hi ", "Ada", "!"]), sse_answer(&["Your name ", "is Ada."])];
    let (url, server) = stand_in(answers);
    let mut chat = Chat::start(&[("OPENAI_BASE_URL", &url), ("OPENAI_MODEL", "tiny-chat")]);
    assert_eq!(chat.line(), format!("model: tiny-chat at {url}\n"));
    chat.line();

    assert_eq!(chat.say("I am Ada."), ("you> I am Ada.\n".into(), "golem> Hi Ada!\n".into()));
    assert_eq!(chat.say("Who am I?"), ("you> Who am I?\n".into(), "golem> Your name is Ada.\n".into()));
    assert_eq!(chat.end(), "you> \n4 messages in the conversation\n");

    let requests = server.join().unwrap();
    assert!(requests[0].starts_with("POST /v1/chat/completions HTTP/1.1"), "{}", requests[0]);
    assert!(requests[0].contains(r#""stream":true"#), "{}", requests[0]);
    // The second run sends the first exchange before the new line.
    let second = &requests[1];
    let order = ["I am Ada.", "Hi Ada!", "Who am I?"].map(|text| second.find(text));
    assert!(order.iter().all(Option::is_some) && order.is_sorted(), "{second}");
}
