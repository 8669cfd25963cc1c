//! A real Restate server for the durable-run tests (SPEC DUR): the pinned
//! `@restatedev/restate-server` from npm (the binary ships inside the
//! package), installed once under the target directory behind a
//! cross-process lock, started on loopback ports with a temporary data
//! directory, stopped by PID.
//!
//! Without the server and without npm to install it, the tests print a
//! loud notice and pass — the README's test command needs only Rust and
//! Python — unless `GOLEM_REQUIRE_RESTATE=1` (CI) makes that a failure.
//! `GOLEM_RESTATE_SERVER` names a server binary to use instead.

mod install;
pub mod observed;
pub mod service;

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The server version the tests pin.
pub const RESTATE_VERSION: &str = "1.7.12";

/// The server binary, or `None` (after the skip notice) when the tests
/// should pass without it.
pub fn server_binary(test: &str) -> Option<PathBuf> {
    let required = std::env::var("GOLEM_REQUIRE_RESTATE").is_ok_and(|v| v == "1");
    match install::find_or_provision() {
        Ok(binary) => Some(binary),
        Err(why) if required => panic!("GOLEM_REQUIRE_RESTATE=1 but no Restate server: {why}"),
        Err(why) => {
            // Straight to the process's stderr: libtest captures `eprintln!`
            // of passing tests, and this notice must be seen.
            let _ = writeln!(
                std::io::stderr().lock(),
                "\n*** SKIPPED {test}: no Restate server ({why}).\n*** Install Node.js/npm (the tests install \
                 @restatedev/restate-server@{RESTATE_VERSION} under target/ once) or set GOLEM_RESTATE_SERVER; \
                 GOLEM_REQUIRE_RESTATE=1 makes this a failure.\n"
            );
            None
        }
    }
}

/// A free loopback port (bound, then released for the server to take).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// A running server; killed by PID when dropped.
pub struct Server {
    binary: PathBuf,
    data: PathBuf,
    pub ingress: u16,
    pub admin: u16,
    node: u16,
    /// Extra settings, as environment variables (a request-identity key).
    env: Vec<(String, String)>,
    child: Option<Child>,
}

impl Server {
    /// Start a server whose data lives in `data`.
    pub fn start(binary: &Path, data: &Path) -> Server {
        Server::start_with(binary, data, Vec::new())
    }

    /// Start a server with extra settings `env` (`RESTATE_…` variables).
    pub fn start_with(binary: &Path, data: &Path, env: Vec<(String, String)>) -> Server {
        let mut server = Server {
            binary: binary.to_path_buf(),
            data: data.to_path_buf(),
            ingress: free_port(),
            admin: free_port(),
            node: free_port(),
            env,
            child: None,
        };
        server.spawn();
        server
    }

    fn spawn(&mut self) {
        let log = std::fs::File::create(self.data.with_extension("log")).unwrap();
        let child = Command::new(&self.binary)
            .args(["--no-logo", "--listen-mode", "tcp", "--node-name", "golem-test", "--base-dir"])
            .arg(&self.data)
            .env("RESTATE_INGRESS__BIND_ADDRESS", format!("127.0.0.1:{}", self.ingress))
            .env("RESTATE_ADMIN__BIND_ADDRESS", format!("127.0.0.1:{}", self.admin))
            .env("RESTATE_BIND_ADDRESS", format!("127.0.0.1:{}", self.node))
            .env("RESTATE_ADVERTISED_ADDRESS", format!("http://127.0.0.1:{}", self.node))
            .env("RESTATE_LOG_FORMAT", "compact")
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.binary.display()));
        self.child = Some(child);
        self.wait_healthy();
    }

    fn wait_healthy(&self) {
        let started = Instant::now();
        let agent = ureq::Agent::config_builder().http_status_as_error(false).build().new_agent();
        while started.elapsed() < Duration::from_secs(60) {
            let admin = agent.get(&format!("http://127.0.0.1:{}/health", self.admin)).call();
            let ingress = agent.get(&format!("http://127.0.0.1:{}/restate/health", self.ingress)).call();
            if admin.is_ok_and(|r| r.status() == 200) && ingress.is_ok_and(|r| r.status() == 200) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("the Restate server did not become healthy; see {}", self.data.with_extension("log").display());
    }

    /// Kill the server (SIGKILL, no shutdown) and start it again on the
    /// same ports and data.
    pub fn crash_and_restart(&mut self) {
        self.kill();
        self.spawn();
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// The ingress URL.
    pub fn ingress_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.ingress)
    }

    /// Register (or re-register) the service deployment at `port` through
    /// the admin API.
    pub fn register(&self, port: u16) {
        self.try_register(port, Duration::from_secs(30)).unwrap_or_else(|e| panic!("registering the deployment: {e}"));
    }

    /// Register the service at `port`, trying for up to `patience`.
    pub fn try_register(&self, port: u16, patience: Duration) -> Result<(), golem_io::restate::IngressError> {
        let admin = format!("http://127.0.0.1:{}", self.admin);
        golem_io::restate::register_deployment(&admin, &format!("http://127.0.0.1:{port}"), patience)
    }
}

impl Server {
    /// Wait until some invocation's journal has an entry whose type
    /// contains `kind` (the admin API's SQL view `sys_journal`).
    pub fn wait_for_journal_entry(&self, kind: &str) {
        let agent = ureq::Agent::config_builder().http_status_as_error(false).build().new_agent();
        let url = format!("http://127.0.0.1:{}/query", self.admin);
        let query = r#"{"query": "SELECT entry_type FROM sys_journal"}"#;
        let started = Instant::now();
        let mut last = String::new();
        while started.elapsed() < Duration::from_secs(60) {
            let response = agent
                .post(&url)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .send(query.as_bytes());
            if let Ok(mut response) = response {
                last = response.body_mut().read_to_string().unwrap_or_default();
                if last.contains(kind) {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("no {kind} entry in any journal; sys_journal says: {last}");
    }
}

impl Server {
    /// How many journaled steps named `name` have their answer in some
    /// invocation's journal (a `Command: Run` whose `Notification: Run`
    /// completion is there too).
    pub fn completed_steps(&self, name: &str) -> usize {
        let agent = ureq::Agent::config_builder().http_status_as_error(false).build().new_agent();
        let url = format!("http://127.0.0.1:{}/query", self.admin);
        let query = r#"{"query": "SELECT id, entry_type, name, entry_lite_json FROM sys_journal"}"#;
        let Ok(mut response) = agent
            .post(&url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .send(query.as_bytes())
        else {
            return 0;
        };
        let text = response.body_mut().read_to_string().unwrap_or_default();
        let body: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let rows = body["rows"].as_array().cloned().unwrap_or_default();
        let lite = |row: &serde_json::Value| {
            serde_json::from_str::<serde_json::Value>(row["entry_lite_json"].as_str().unwrap_or("null"))
                .unwrap_or_default()
        };
        // (invocation, completion id) of each step so named, then of each answer.
        let named: Vec<(String, u64)> = rows
            .iter()
            .filter(|r| r["entry_type"] == "Command: Run" && r["name"] == name)
            .filter_map(|r| Some((r["id"].as_str()?.to_string(), lite(r)["Command"]["Run"]["completion_id"].as_u64()?)))
            .collect();
        let answered: Vec<(String, u64)> = rows
            .iter()
            .filter(|r| r["entry_type"] == "Notification: Run")
            .filter_map(|r| {
                Some((r["id"].as_str()?.to_string(), lite(r)["Notification"]["id"]["CompletionId"].as_u64()?))
            })
            .collect();
        named.iter().filter(|step| answered.contains(step)).count()
    }

    /// Wait until at least `n` steps named `name` have their answer journaled.
    pub fn wait_for_completed_steps(&self, name: &str, n: usize) {
        let started = Instant::now();
        while self.completed_steps(name) < n {
            assert!(started.elapsed() < Duration::from_secs(60), "fewer than {n} {name:?} steps were ever journaled");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}
