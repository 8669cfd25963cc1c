//! The files a loaded skill lists (SPEC SKILL-05): relative, sorted, at
//! most [`MAX_LISTED`], SKILL.md at the top excluded; a symlink is listed
//! only when it resolves to a file inside the skill's directory, and
//! symlinked directories are never entered.

use std::fs;
use std::path::{Path, PathBuf};

/// The most files listed.
pub const MAX_LISTED: usize = 20;

/// How many directory entries one listing looks at, at most, so a huge
/// tree cannot stall a call.
const MAX_VISITED: usize = 10_000;

/// The listed files of the skill in `dir` and whether more exist.
pub(super) fn list(dir: &Path) -> (Vec<String>, bool) {
    let root = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut found = Vec::new();
    let mut visited = 0;
    let mut pending = vec![PathBuf::new()];
    while let Some(relative) = pending.pop() {
        let Ok(entries) = fs::read_dir(root.join(&relative)) else { continue };
        for entry in entries.filter_map(Result::ok) {
            visited += 1;
            if visited > MAX_VISITED {
                return finish(found, true);
            }
            let Ok(kind) = entry.file_type() else { continue };
            let rel = relative.join(entry.file_name());
            if kind.is_dir() {
                pending.push(rel);
            } else if kind.is_file() || (kind.is_symlink() && resolves_inside(&root, &entry.path())) {
                if rel == Path::new("SKILL.md") {
                    continue;
                }
                if let Some(text) = rel.to_str() {
                    found.push(text.replace(std::path::MAIN_SEPARATOR, "/"));
                }
            }
        }
    }
    finish(found, false)
}

fn finish(mut found: Vec<String>, cut_short: bool) -> (Vec<String>, bool) {
    found.sort();
    let more = cut_short || found.len() > MAX_LISTED;
    found.truncate(MAX_LISTED);
    (found, more)
}

/// True when the symlink at `path` leads to a regular file inside `root`.
fn resolves_inside(root: &Path, path: &Path) -> bool {
    fs::canonicalize(path).is_ok_and(|target| target.starts_with(root) && target.is_file())
}
