//! Shared by the MCP integration tests: the reference server (PyPI `mcp`,
//! pinned here and provisioned by `python`), the fake servers, and a
//! loopback HTTP fake.
#![allow(dead_code)] // each test file uses its own part

pub mod http_fake;
mod python;

pub use python::python;

use golem_io::mcp::{ClientOptions, HttpConfig, McpClient, StdioConfig};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The `mcp` version the tests pin (and install into their own venv).
pub const MCP_VERSION: &str = "2.3.0";

/// The reference server's tools, in listing order.
pub const TOOLS: [&str; 16] = [
    "echo",
    "add",
    "image",
    "fail",
    "slow",
    "shout",
    "die",
    "changed",
    "changed_here",
    "ping_back",
    "drop_stream",
    "ask",
    "count",
    "sample",
    "roots",
    "touch",
];

pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp")
}

pub fn server_script() -> String {
    fixtures().join("server.py").display().to_string()
}

pub fn fake_script() -> String {
    fixtures().join("fake.py").display().to_string()
}

/// Requests' timeout: generous, since the reference server is Python that
/// imports the MCP SDK at start, which a loaded machine (parallel tests,
/// CI neighbours) has been seen to take past 20 s over.
pub fn options() -> ClientOptions {
    ClientOptions::new().timeout(Duration::from_secs(60))
}

/// The reference server over stdio.
pub fn stdio_config(extra: &[&str]) -> StdioConfig {
    StdioConfig::new(python()).arg(server_script()).arg("stdio").args(extra)
}

pub fn stdio_client(extra: &[&str]) -> McpClient {
    McpClient::stdio(stdio_config(extra), options()).expect("connect over stdio")
}

/// The fake stdio server in `mode`.
pub fn fake_config(mode: &str) -> StdioConfig {
    StdioConfig::new(python()).arg(fake_script()).arg(mode)
}

/// A port nobody listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

/// The reference server over streamable HTTP, killed on drop.
pub struct HttpServer {
    child: Child,
    pub url: String,
}

impl HttpServer {
    pub fn start(extra: &[&str]) -> HttpServer {
        HttpServer::start_on(free_port(), extra)
    }

    /// On `port` (to start a server again where a killed one was).
    pub fn start_on(port: u16, extra: &[&str]) -> HttpServer {
        let child = Command::new(python())
            .arg(server_script())
            .arg("http")
            .arg(port.to_string())
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the HTTP reference server");
        let mut server = HttpServer { child, url: format!("http://127.0.0.1:{port}/mcp") };
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("the HTTP reference server exited early: {status}");
            }
            assert!(start.elapsed() < Duration::from_secs(30), "the HTTP reference server never listened");
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    pub fn client(&self) -> McpClient {
        McpClient::http(HttpConfig::new(&self.url), options()).expect("connect over HTTP")
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Wait up to `limit` for `check`.
pub fn eventually(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    check()
}

/// True while a process with this pid exists (and is not a zombie).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat.rsplit(')').next().unwrap_or_default().trim_start().starts_with('Z'),
        Err(_) => false,
    }
}
