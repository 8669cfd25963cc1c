//! Shared by the `tools_*` tests: a scripted loopback HTTP server and a
//! one-call agent run on the scripted fake model, under either driver.
#![allow(dead_code)]

use golem_core::testing::ScriptedModel;
use golem_core::{Message, Role};
use golem_io::{Agent, Tool};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// What the server does with one request.
pub enum Reply {
    /// A complete response.
    Full { status: u16, headers: Vec<(&'static str, String)>, body: Vec<u8> },
    /// Read the request, say nothing for this long, then hang up.
    Stall(Duration),
    /// Send the head and the first body bytes, then stall.
    StallBody { declared: usize, first: Vec<u8>, stall: Duration },
}

impl Reply {
    pub fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
        Reply::Full { status: 200, headers: vec![("Content-Type", content_type.to_string())], body: body.into() }
    }

    pub fn status(status: u16) -> Reply {
        Reply::Full { status, headers: vec![("Content-Type", "text/plain".into())], body: b"nope".to_vec() }
    }

    pub fn redirect(status: u16, location: &str) -> Reply {
        Reply::Full { status, headers: vec![("Location", location.to_string())], body: Vec::new() }
    }

    pub fn untyped(body: impl Into<Vec<u8>>) -> Reply {
        Reply::Full { status: 200, headers: Vec::new(), body: body.into() }
    }
}

type Handler = dyn Fn(&str) -> Reply + Send + Sync;

/// A loopback HTTP/1.1 server answering each request from a handler of
/// its path. It stops when dropped.
pub struct Server {
    pub addr: SocketAddr,
    requests: Arc<Mutex<Vec<String>>>,
    connections: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl Server {
    pub fn start(handler: impl Fn(&str) -> Reply + Send + Sync + 'static) -> Server {
        Server::bind("127.0.0.1:0", handler)
    }

    pub fn bind(addr: &str, handler: impl Fn(&str) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind(addr).expect("bind a loopback port");
        listener.set_nonblocking(true).unwrap();
        let server = Server {
            addr: listener.local_addr().unwrap(),
            requests: Arc::default(),
            connections: Arc::default(),
            stop: Arc::default(),
        };
        let handler: Arc<Handler> = Arc::new(handler);
        let (requests, connections, stop) =
            (Arc::clone(&server.requests), Arc::clone(&server.connections), Arc::clone(&server.stop));
        thread::spawn(move || {
            while !stop.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        connections.fetch_add(1, Ordering::SeqCst);
                        let (handler, requests) = (Arc::clone(&handler), Arc::clone(&requests));
                        thread::spawn(move || serve(stream, &*handler, &requests));
                    }
                    Err(_) => thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        server
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// The request heads received so far.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }

    /// How many connections were accepted.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn serve(mut stream: TcpStream, handler: &Handler, requests: &Mutex<Vec<String>>) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    requests.lock().unwrap().push(head);
    match handler(&path) {
        Reply::Full { status, headers, body } => {
            let mut out = format!("HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n", body.len());
            for (name, value) in headers {
                out.push_str(&format!("{name}: {value}\r\n"));
            }
            out.push_str("\r\n");
            let _ = stream.write_all(out.as_bytes());
            let _ = stream.write_all(&body);
        }
        Reply::Stall(time) => thread::sleep(time),
        Reply::StallBody { declared, first, stall } => {
            let head = format!("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {declared}\r\n\r\n");
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&first);
            let _ = stream.flush();
            thread::sleep(stall);
        }
    }
}

/// The tool message a one-call run gives the model: the scripted model
/// calls `tool` with `args`, then answers.
pub fn through_agent(tool: Tool<()>, args: &str) -> Message {
    let (agent, model) = one_call_agent(tool, args);
    let result = agent.run((), "go").expect("the run completes");
    tool_message(&result.messages, &model)
}

/// [`through_agent`] on the async driver.
pub fn through_agent_async(tool: Tool<()>, args: &str) -> Message {
    let (agent, model) = one_call_agent(tool, args);
    let result = smol::block_on(agent.run_async((), "go")).expect("the run completes");
    tool_message(&result.messages, &model)
}

fn one_call_agent(tool: Tool<()>, args: &str) -> (Agent<()>, ScriptedModel) {
    let model = ScriptedModel::new().tool_call(tool.name().to_string(), args.to_string()).text("done");
    let agent = Agent::builder(model.clone()).tool(tool).build().expect("the agent builds");
    (agent, model)
}

fn tool_message(messages: &[Message], model: &ScriptedModel) -> Message {
    assert_eq!(model.request_count(), 2, "a tool turn, then the answer");
    messages.iter().find(|m| m.role == Role::Tool).cloned().expect("a tool result")
}
