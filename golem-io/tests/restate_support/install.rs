//! Finding the pinned server, or installing it from npm under the target
//! directory (`target/tmp/restate-server-<version>`) once. Installation
//! holds an exclusive file lock, so test processes that start together
//! install it once; an install cut short has no ready marker and is redone.

use super::RESTATE_VERSION;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The server binary, from `GOLEM_RESTATE_SERVER` or the install.
pub fn find_or_provision() -> Result<PathBuf, String> {
    static SERVER: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    SERVER
        .get_or_init(|| match std::env::var("GOLEM_RESTATE_SERVER") {
            Ok(path) if !path.is_empty() => {
                let path = PathBuf::from(path);
                if path.is_file() {
                    Ok(path)
                } else {
                    Err(format!("GOLEM_RESTATE_SERVER={} is no file", path.display()))
                }
            }
            _ => provision(Path::new(env!("CARGO_TARGET_TMPDIR"))),
        })
        .clone()
}

/// Install the pinned package under `root` unless it is there.
fn provision(root: &Path) -> Result<PathBuf, String> {
    let dir = root.join(format!("restate-server-{RESTATE_VERSION}"));
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => return Err(format!("no Restate server package for {other}")),
    };
    let binary =
        dir.join(format!("node_modules/@restatedev/restate-server-{}-{arch}/bin/restate-server", std::env::consts::OS));
    let ready = dir.join("golem-ready");
    if ready.is_file() && binary.is_file() {
        return Ok(binary);
    }
    fs::create_dir_all(root).map_err(|e| format!("cannot create {}: {e}", root.display()))?;
    let lock_path = root.join(format!("restate-server-{RESTATE_VERSION}.lock"));
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| format!("cannot open {}: {e}", lock_path.display()))?;
    lock_exclusive(&lock).map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    if ready.is_file() && binary.is_file() {
        return Ok(binary);
    }
    if dir.exists() {
        fs::remove_dir_all(&dir).map_err(|e| format!("cannot remove the half-made {}: {e}", dir.display()))?;
    }
    fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    eprintln!("Restate tests: installing @restatedev/restate-server@{RESTATE_VERSION} into {} (once)", dir.display());
    let package = format!("@restatedev/restate-server@{RESTATE_VERSION}");
    let installed = Command::new("npm")
        .args(["install", "--no-save", "--no-audit", "--no-fund", "--ignore-scripts", "--prefix"])
        .arg(&dir)
        .arg(&package)
        .output()
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => "npm is not installed".to_string(),
            _ => format!("cannot run npm: {e}"),
        })?;
    if !installed.status.success() {
        let stderr = String::from_utf8_lossy(&installed.stderr);
        return Err(format!("npm install {package} failed ({}): {}", installed.status, stderr.trim_end()));
    }
    if !binary.is_file() {
        return Err(format!("npm installed {package} but {} is missing", binary.display()));
    }
    fs::write(&ready, RESTATE_VERSION).map_err(|e| format!("cannot write {}: {e}", ready.display()))?;
    // Returning drops `lock`: closing the file releases the lock.
    Ok(binary)
}

fn lock_exclusive(file: &File) -> io::Result<()> {
    rustix::fs::flock(file, rustix::fs::FlockOperation::LockExclusive).map_err(io::Error::from)
}
