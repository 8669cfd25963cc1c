//! The service under test: this test binary again, started as a child
//! process that serves one module's agents (its `service_child` test), and
//! killed with SIGKILL by PID. What the child does is counted in files of a
//! folder it shares with the test, outside the process that does it.

use super::{free_port, server_binary, Server};
use golem_io::restate::DurableAgents;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Set in the service child: the port to serve on.
const SERVE_PORT: &str = "GOLEM_RESTATE_SERVE_PORT";
/// Set in the service child: the folder of counters and hold markers.
const COUNT_DIR: &str = "GOLEM_RESTATE_COUNT_DIR";
/// Set in the service child: a request-identity public key to require.
const IDENTITY_KEY: &str = "GOLEM_RESTATE_IDENTITY_KEY";

/// In a module's `service_child` test: serve `agents(dir)` when this
/// process is a service child, else return at once (the test passes).
pub fn serve_if_child(agents: impl FnOnce(&Path) -> DurableAgents) {
    let (Ok(port), Some(dir)) = (std::env::var(SERVE_PORT), child_dir()) else { return };
    let mut agents = agents(&dir);
    if let Ok(key) = std::env::var(IDENTITY_KEY) {
        agents = agents.identity_key(&key).unwrap();
    }
    let listener = std::net::TcpListener::bind(format!("127.0.0.1:{port}")).unwrap();
    agents.serve(listener).unwrap();
}

/// The count folder, when this process is a service child.
pub fn child_dir() -> Option<PathBuf> {
    std::env::var_os(COUNT_DIR).map(PathBuf::from)
}

/// The service child on `port`, counting into `dir`; killed by PID.
pub struct Service {
    pub port: u16,
    pub dir: PathBuf,
    /// The `service_child` test that serves (`module::service_child`).
    child_test: &'static str,
    identity_key: Option<String>,
    child: Child,
}

impl Service {
    pub fn start(child_test: &'static str, port: u16, dir: &Path, identity_key: Option<&str>) -> Service {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command
            .args(["--exact", child_test, "--nocapture", "--test-threads=1"])
            .env(SERVE_PORT, port.to_string())
            .env(COUNT_DIR, dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        if let Some(key) = identity_key {
            command.env(IDENTITY_KEY, key);
        }
        let child = command.spawn().unwrap();
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(started.elapsed() < Duration::from_secs(30), "the service did not start listening");
            std::thread::sleep(Duration::from_millis(20));
        }
        let identity_key = identity_key.map(str::to_string);
        Service { port, dir: dir.to_path_buf(), child_test, identity_key, child }
    }

    /// SIGKILL, then the same service again on the same port.
    pub fn crash_and_restart(&mut self) {
        self.kill();
        *self = Service::start(self.child_test, self.port, &self.dir, self.identity_key.as_deref());
    }

    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A server and a registered service child of `child_test`, or `None` when
/// the test is skipped.
pub fn setup(test: &str, child_test: &'static str) -> Option<(tempfile::TempDir, Server, Service)> {
    let binary = server_binary(test)?;
    let scratch = tempfile::tempdir().unwrap();
    let counts = scratch.path().join("counts");
    std::fs::create_dir(&counts).unwrap();
    let server = Server::start(&binary, &scratch.path().join("restate-data"));
    let service = Service::start(child_test, free_port(), &counts, None);
    server.register(service.port);
    Some((scratch, server, service))
}

/// Append one line to counter `name`.
pub fn count(dir: &Path, name: &str) {
    note(dir, name, "1");
}

/// Append `line` to the file `name` in `dir`, synced: the process may be
/// killed the next instant.
pub fn note(dir: &Path, name: &str, line: &str) {
    let mut file = OpenOptions::new().create(true).append(true).open(dir.join(name)).unwrap();
    file.write_all(format!("{line}\n").as_bytes()).unwrap();
    file.sync_all().unwrap();
}

/// How often `name` was counted.
pub fn counted(dir: &Path, name: &str) -> usize {
    std::fs::read_to_string(dir.join(name)).map(|s| s.lines().count()).unwrap_or(0)
}

/// With `hold-<what>` present, block the first time (marking `held-<what>`)
/// until the test kills this process.
pub fn hold(dir: &Path, what: &str) {
    let held = dir.join(format!("held-{what}"));
    if dir.join(format!("hold-{what}")).exists() && !held.exists() {
        std::fs::write(&held, b"").unwrap();
        loop {
            std::thread::sleep(Duration::from_secs(60));
        }
    }
}

/// Wait until `marker` exists in `dir`.
pub fn wait_for(dir: &Path, marker: &str) {
    let started = Instant::now();
    while !dir.join(marker).exists() {
        assert!(started.elapsed() < Duration::from_secs(60), "{marker} never appeared");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Milliseconds since 1970, for lines the child and the test compare.
pub fn wall_ms() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0)
}
