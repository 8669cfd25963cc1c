//! The Python that runs the MCP reference server: the test suite provisions
//! it itself, so `cargo test --workspace` needs nothing beyond Rust and
//! Python 3 on a fresh machine.
//!
//! `GOLEM_MCP_PYTHON`, when set, names an interpreter that already has the
//! pinned SDK. Otherwise the first test that needs one creates a virtualenv
//! under the target directory (`target/tmp/mcp-venv-<version>`) and installs
//! the pinned `mcp` into it; every later test, test thread and test process
//! reuses it. Creation holds an exclusive file lock, so test processes that
//! start together (two `cargo test`s, a runner with a process per test) make
//! it once: the others wait, then find it ready. A venv left half-made by an
//! interrupted run has no ready marker and is made again.

use super::MCP_VERSION;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The Python with the pinned MCP SDK. Panics — in every test that needs
/// it, with the same message — when there is none and none can be made:
/// CI relies on these tests, so a skip would hide a broken setup.
pub fn python() -> String {
    static PYTHON: OnceLock<Result<String, String>> = OnceLock::new();
    match PYTHON.get_or_init(find_or_provision) {
        Ok(python) => python.clone(),
        Err(why) => panic!("{why}"),
    }
}

fn find_or_provision() -> Result<String, String> {
    match std::env::var("GOLEM_MCP_PYTHON") {
        Ok(python) if !python.is_empty() => {
            check_sdk(Path::new(&python)).map_err(|why| format!("GOLEM_MCP_PYTHON={python}: {why}"))?;
            Ok(python)
        }
        _ => {
            let python = provision(Path::new(env!("CARGO_TARGET_TMPDIR")), "python3")?;
            Ok(python.display().to_string())
        }
    }
}

/// The venv's interpreter under `root`, made with `python3` (a program name
/// or path) when it is not there yet.
pub fn provision(root: &Path, python3: &str) -> Result<PathBuf, String> {
    let venv = root.join(format!("mcp-venv-{MCP_VERSION}"));
    let python = venv.join(if cfg!(windows) { "Scripts/python.exe" } else { "bin/python" });
    let ready = venv.join("golem-ready");
    if ready.is_file() {
        return Ok(python);
    }
    fs::create_dir_all(root).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
    let lock_path = root.join(format!("mcp-venv-{MCP_VERSION}.lock"));
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| format!("cannot open {}: {e}", lock_path.display()))?;
    lock_exclusive(&lock).map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    // Whoever held the lock before us may have made it meanwhile.
    if ready.is_file() {
        return Ok(python);
    }
    if venv.exists() {
        fs::remove_dir_all(&venv).map_err(|e| format!("cannot remove the half-made {}: {e}", venv.display()))?;
    }
    eprintln!("MCP tests: installing mcp=={MCP_VERSION} into {} (once)", venv.display());
    let created = Command::new(python3).arg("-m").arg("venv").arg(&venv).output().map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            format!(
                "the MCP tests need Python 3 and found no `{python3}` program on PATH: install Python 3 \
                 (3.10 or newer, with its venv module), or set GOLEM_MCP_PYTHON to an interpreter that \
                 has mcp=={MCP_VERSION}"
            )
        } else {
            format!("cannot run `{python3}`: {e}")
        }
    })?;
    succeeded(&format!("{python3} -m venv {}", venv.display()), &created)?;
    let pip = [
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-input",
        &format!("mcp=={MCP_VERSION}"),
    ];
    let installed =
        Command::new(&python).args(pip).output().map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    succeeded(&format!("pip install mcp=={MCP_VERSION} (network access to PyPI needed once)"), &installed)?;
    check_sdk(&python)?;
    fs::write(&ready, MCP_VERSION).map_err(|e| format!("cannot write {}: {e}", ready.display()))?;
    // Returning drops `lock`: closing the file releases the lock.
    Ok(python)
}

/// Ok when `python` imports `mcp` at the pinned version.
fn check_sdk(python: &Path) -> Result<(), String> {
    let probe = Command::new(python)
        .args(["-c", "import importlib.metadata as m, mcp; print(m.version('mcp'))"])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    succeeded(&format!("importing mcp with {}", python.display()), &probe)?;
    let version = String::from_utf8_lossy(&probe.stdout).trim().to_string();
    if version != MCP_VERSION {
        return Err(format!("{} has mcp {version}; the tests pin {MCP_VERSION}", python.display()));
    }
    Ok(())
}

fn succeeded(what: &str, output: &Output) -> Result<(), String> {
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    Err(format!("{what} failed ({}):\n{}", output.status, stderr.trim_end()))
}

#[cfg(unix)]
fn lock_exclusive(file: &File) -> io::Result<()> {
    rustix::fs::flock(file, rustix::fs::FlockOperation::LockExclusive).map_err(io::Error::from)
}

// rustix (and the MCP tests' other Unix-only helpers) are not there; one
// test process at a time is assumed.
#[cfg(not(unix))]
fn lock_exclusive(_: &File) -> io::Result<()> {
    Ok(())
}

#[test]
fn without_python3_the_error_names_the_missing_program() {
    let root = tempfile::tempdir().unwrap();
    let err = provision(root.path(), "golem-test-no-such-python3").unwrap_err();
    assert!(err.contains("found no `golem-test-no-such-python3` program on PATH"), "{err}");
    assert!(err.contains("GOLEM_MCP_PYTHON"), "{err}");
    // Nothing half-made is taken for ready next time.
    assert!(!root.path().join(format!("mcp-venv-{MCP_VERSION}/golem-ready")).exists());
}
