//! Issue 31: `golem_io` is the one crate a program names. The README, the
//! guides and the examples reach every type through `golem_io` (and
//! `golem_providers`), never through `golem_core::` paths, so what they
//! show is what a user with only `golem-io` in `[dependencies]` can write;
//! the guides' doctests and the examples' builds prove those paths resolve.

use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every file under `dir` (recursively) whose name ends with `extension`.
fn files(dir: &Path, extension: &str, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, extension, found);
        } else if path.extension().is_some_and(|e| e == extension) {
            found.push(path);
        }
    }
}

#[test]
fn guides_examples_and_the_readme_import_through_golem_io_only() {
    let root = repository();
    let mut checked = vec![root.join("README.md")];
    files(&root.join("docs"), "md", &mut checked);
    files(&root.join("examples"), "rs", &mut checked);
    assert!(checked.len() > 40, "the guides and examples were not found under {}", root.display());
    let mut offending = Vec::new();
    for path in &checked {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (n, line) in text.lines().enumerate() {
            if line.contains("golem_core::") {
                offending.push(format!(
                    "{}:{}: {}",
                    path.strip_prefix(&root).unwrap_or(path).display(),
                    n + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        offending.is_empty(),
        "name these through golem_io (re-export what is missing in golem-io/src/lib.rs):\n{}",
        offending.join("\n")
    );
}
