//! A tiny `CONNECT` proxy on 127.0.0.1 for proxy tests (std threads): it
//! records each tunnel request (target and `Proxy-Authorization`), answers
//! 200 — or 407 when it wants credentials it did not get — and pumps bytes
//! both ways. Also the child-process check that the proxy variables of the
//! environment are ignored. golem-io's tests include this file too.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// One `CONNECT` the proxy received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tunnel {
    /// The request target, `host:port`.
    pub target: String,
    /// The `Proxy-Authorization` value, if sent.
    pub authorization: Option<String>,
}

struct Shared {
    tunnels: Mutex<Vec<Tunnel>>,
    /// Connections that sent anything but `CONNECT`.
    refused: Mutex<Vec<String>>,
    required: Option<String>,
    stop: AtomicBool,
}

/// The running proxy; stops accepting when dropped.
pub struct ConnectProxy {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl ConnectProxy {
    /// A proxy that tunnels every `CONNECT`.
    pub fn start() -> ConnectProxy {
        ConnectProxy::launch(None)
    }

    /// A proxy that answers 407 unless `Proxy-Authorization` is `required`.
    pub fn requiring(required: &str) -> ConnectProxy {
        ConnectProxy::launch(Some(required.to_string()))
    }

    fn launch(required: Option<String>) -> ConnectProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Shared {
            tunnels: Mutex::new(Vec::new()),
            refused: Mutex::new(Vec::new()),
            required,
            stop: AtomicBool::new(false),
        });
        let accept_shared = Arc::clone(&shared);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if accept_shared.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let conn_shared = Arc::clone(&accept_shared);
                std::thread::spawn(move || serve(stream, &conn_shared));
            }
        });
        ConnectProxy { addr, shared }
    }

    /// `http://127.0.0.1:port`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The tunnels asked for so far.
    pub fn tunnels(&self) -> Vec<Tunnel> {
        self.shared.tunnels.lock().unwrap().clone()
    }

    /// The first lines of requests that were not `CONNECT`.
    pub fn refused(&self) -> Vec<String> {
        self.shared.refused.lock().unwrap().clone()
    }
}

impl Drop for ConnectProxy {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

fn serve(mut client: TcpStream, shared: &Shared) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match client.read(&mut byte) {
            Ok(1) if head.len() < 16 * 1024 => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let mut lines = head.split("\r\n");
    let first = lines.next().unwrap_or_default().to_string();
    let mut words = first.split(' ');
    let (method, target) = (words.next().unwrap_or_default(), words.next().unwrap_or_default().to_string());
    if method != "CONNECT" {
        shared.refused.lock().unwrap().push(first.clone());
        let _ = client.write_all(b"HTTP/1.1 405 Only CONNECT\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
        return;
    }
    let authorization = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("proxy-authorization"))
        .map(|(_, value)| value.trim().to_string());
    shared.tunnels.lock().unwrap().push(Tunnel { target: target.clone(), authorization: authorization.clone() });
    if shared.required.is_some() && shared.required != authorization {
        let _ = client.write_all(b"HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n");
        return;
    }
    let Ok(upstream) = TcpStream::connect(&target) else {
        let _ = client.write_all(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n");
        return;
    };
    if client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n").is_err() {
        return;
    }
    let (Ok(client_reader), Ok(upstream_writer)) = (client.try_clone(), upstream.try_clone()) else { return };
    let forward = std::thread::spawn(move || pump(client_reader, upstream_writer));
    pump(upstream, client);
    let _ = forward.join();
}

/// Copy `from` to `to` until `from` ends, then end `to`'s writing half.
fn pump(mut from: TcpStream, mut to: TcpStream) {
    let _ = std::io::copy(&mut from, &mut to);
    let _ = to.shutdown(Shutdown::Write);
    let _ = from.shutdown(Shutdown::Read);
}

/// The proxy variables ureq and curl read.
pub const PROXY_VARS: [&str; 6] = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"];

/// Run the test named `test` (its full path in the test binary) again in
/// a child process with `marker` and `set` in its environment and `remove`
/// taken out, and assert it passed. Tests that need environment variables
/// use this, since setting them in this process would reach every other
/// test running beside it.
pub fn run_in_child(test: &str, marker: &str, set: &[(&str, &str)], remove: &[&str]) {
    let mut child = Command::new(std::env::current_exe().unwrap());
    child.args(["--exact", test, "--test-threads=1"]).env(marker, "1");
    for (name, value) in set {
        child.env(name, value);
    }
    for name in remove {
        child.env_remove(name);
    }
    let output = child.output().unwrap();
    let log = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "child failed: {log}{}", String::from_utf8_lossy(&output.stderr));
    assert!(log.contains("1 passed"), "the child ran the check: {log}");
}

/// Run `test` in a child whose every proxy variable names a listener
/// here, and assert nothing connected to it.
pub fn assert_environment_proxies_unused(test: &str, marker: &str) {
    let trap = TcpListener::bind("127.0.0.1:0").unwrap();
    trap.set_nonblocking(true).unwrap();
    let trap_url = format!("http://{}", trap.local_addr().unwrap());
    let set: Vec<(&str, &str)> = PROXY_VARS.iter().map(|var| (*var, trap_url.as_str())).collect();
    run_in_child(test, marker, &set, &["NO_PROXY", "no_proxy"]);
    assert!(trap.accept().is_err(), "something dialled the proxy named by the environment");
}
