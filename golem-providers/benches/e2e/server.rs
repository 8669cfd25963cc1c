//! The scripted OpenAI-compatible server: chat completions on 127.0.0.1,
//! a thread per keep-alive connection. Each answer depends only on the
//! request, so any number of runs can share it: a tool call (`lookup`)
//! while the conversation holds fewer tool results than the scenario's
//! turns, then a text answer. `"stream":true` gets the same answer as SSE.
//!
//! The server's own CPU time is counted (per thread, after every answer)
//! so the bench can subtract it from the process's.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub struct Server {
    pub url: String,
    cpu_ns: Arc<AtomicU64>,
    /// The server's own process, when it runs in one.
    child: Option<std::process::Child>,
}

impl Server {
    /// A server whose runs make `turns` tool calls before answering.
    pub fn start(turns: usize) -> Server {
        let listener = listener();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let cpu_ns = Arc::new(AtomicU64::new(0));
        let counted = Arc::clone(&cpu_ns);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let counted = Arc::clone(&counted);
                std::thread::spawn(move || serve(stream, turns, &counted));
            }
        });
        Server { url, cpu_ns, child: None }
    }

    /// The same server in a child process — this binary, started with
    /// `GOLEM_BENCH_SERVE=<turns>` — so its sockets count against its own
    /// open-file limit, not the clients'. Its CPU time is not this
    /// process's, so nothing is subtracted for it.
    pub fn start_process(turns: usize) -> Server {
        use std::process::{Command, Stdio};
        let exe = std::env::current_exe().expect("the bench's own path");
        let mut child = Command::new(exe)
            .env("GOLEM_BENCH_SERVE", turns.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start the server process");
        let mut url = String::new();
        BufReader::new(child.stdout.take().expect("its stdout")).read_line(&mut url).expect("its URL");
        Server { url: url.trim().to_string(), cpu_ns: Arc::new(AtomicU64::new(0)), child: Some(child) }
    }

    /// CPU time the server's threads have used so far.
    pub fn cpu_ns(&self) -> u64 {
        self.cpu_ns.load(Ordering::Relaxed)
    }
}

/// A listener on 127.0.0.1 with the longest accept queue the kernel
/// allows (`std` asks for 128): thousands of runs connect at once.
fn listener() -> TcpListener {
    use rustix::net::{AddressFamily, SocketType};
    let fd = rustix::net::socket(AddressFamily::INET, SocketType::STREAM, None).expect("a socket");
    rustix::net::sockopt::set_socket_reuseaddr(&fd, true).expect("SO_REUSEADDR");
    let loopback = std::net::SocketAddrV4::new(std::net::Ipv4Addr::LOCALHOST, 0);
    rustix::net::bind(&fd, &loopback).expect("bind 127.0.0.1");
    // The kernel caps the queue at `net.core.somaxconn`.
    rustix::net::listen(&fd, 65_535).expect("listen");
    TcpListener::from(fd)
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// In the child process: serve `turns`-turn runs, say where on stdout,
/// and stop when the parent goes (its end of stdin closes).
pub fn serve_for_parent(turns: usize) -> ! {
    let server = Server::start(turns);
    println!("{}", server.url);
    let _ = std::io::stdout().flush();
    let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
    std::process::exit(0)
}

/// `GOLEM_BENCH_CLOCK=proc`: CPU clocks read from `/proc` instead of
/// the vDSO, whose setup valgrind's tools cannot run (they crash in
/// rustix's auxv check), so `valgrind --tool=cachegrind` can run the bench.
pub fn proc_clock() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("GOLEM_BENCH_CLOCK").is_ok_and(|c| c == "proc"))
}

/// Nanoseconds on the CPU from `schedstat` files: the thread's own
/// (`/proc/thread-self`) or, for a `task` directory, its live threads'.
pub fn schedstat_ns(path: &str) -> u64 {
    let one = |file: &std::path::Path| -> u64 {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        text.split_whitespace().next().and_then(|n| n.parse().ok()).unwrap_or(0)
    };
    match std::fs::read_dir(path) {
        Ok(tasks) => tasks.flatten().map(|task| one(&task.path().join("schedstat"))).sum(),
        Err(_) => one(std::path::Path::new(path)),
    }
}

pub fn thread_cpu_ns() -> u64 {
    if proc_clock() {
        return schedstat_ns("/proc/thread-self/schedstat");
    }
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

fn serve(stream: TcpStream, turns: usize, cpu_ns: &AtomicU64) {
    let _ = stream.set_nodelay(true);
    // Both halves through shared references: a cloned socket would be a
    // second descriptor per connection, and 10,000 runs in flight already
    // hold half the open-file limit here.
    let mut writer = &stream;
    let mut reader = BufReader::new(&stream);
    let mut last = thread_cpu_ns();
    let mut body = Vec::new();
    let mut line = String::new();
    loop {
        let mut length = 0usize;
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
        }
        body.resize(length, 0);
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let reply = answer(&body, turns);
        if writer.write_all(&reply).is_err() {
            return;
        }
        let now = thread_cpu_ns();
        cpu_ns.fetch_add(now - last, Ordering::Relaxed);
        last = now;
    }
}

fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack.windows(needle.len()).filter(|w| *w == needle).count()
}

/// The whole HTTP response for a request body.
fn answer(body: &[u8], turns: usize) -> Vec<u8> {
    let (payload, content_type) = payload(body, turns);
    let mut out =
        format!("HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\r\n", payload.len())
            .into_bytes();
    out.extend_from_slice(payload.as_bytes());
    out
}

/// The response body for a request body, and its content type.
pub fn payload(body: &[u8], turns: usize) -> (String, &'static str) {
    let done = count(body, br#""role":"tool""#);
    let stream = count(body, br#""stream":true"#) > 0;
    let usage = r#"{"prompt_tokens":12,"completion_tokens":4,"total_tokens":16}"#;
    let (payload, content_type) = if stream {
        let first = if done < turns {
            format!(
                r#"{{"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{{"index":0,"delta":{{"role":"assistant","content":null,"tool_calls":[{{"index":0,"id":"call_{done}","type":"function","function":{{"name":"lookup","arguments":"{{\"n\":{done}}}"}}}}]}},"finish_reason":null}}]}}"#
            )
        } else {
            r#"{"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"all "},"finish_reason":null}]}"#.to_string()
        };
        let (second, finish) = if done < turns {
            (String::new(), "tool_calls")
        } else {
            (
                r#"data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"done"},"finish_reason":null}]}

"#
                .to_string(),
                "stop",
            )
        };
        let last = format!(
            r#"{{"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{{"index":0,"delta":{{}},"finish_reason":"{finish}"}}],"usage":{usage}}}"#
        );
        (format!("data: {first}\n\n{second}data: {last}\n\ndata: [DONE]\n\n"), "text/event-stream")
    } else {
        let message = if done < turns {
            format!(
                r#"{{"role":"assistant","content":null,"tool_calls":[{{"id":"call_{done}","type":"function","function":{{"name":"lookup","arguments":"{{\"n\":{done}}}"}}}}]}},"finish_reason":"tool_calls""#
            )
        } else {
            r#"{"role":"assistant","content":"all done"},"finish_reason":"stop""#.to_string()
        };
        (
            format!(
                r#"{{"id":"c","object":"chat.completion","created":0,"model":"m","choices":[{{"index":0,"message":{message}}}],"usage":{usage}}}"#
            ),
            "application/json",
        )
    };
    (payload, content_type)
}
