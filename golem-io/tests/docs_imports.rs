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

/// Issue 31: the book's front page lists every guide.
#[test]
fn the_front_page_lists_every_guide() {
    let root = repository();
    let front = std::fs::read_to_string(root.join("docs/README.md")).unwrap();
    let mut guides = Vec::new();
    files(&root.join("docs/guides"), "md", &mut guides);
    assert!(guides.len() > 20);
    let missing: Vec<String> = guides
        .iter()
        .map(|g| format!("(guides/{})", g.file_name().unwrap().to_string_lossy()))
        .filter(|link| !front.contains(link.as_str()))
        .collect();
    assert!(missing.is_empty(), "docs/README.md does not link {missing:?}");
    for family in ["OpenAI", "Azure OpenAI", "Anthropic", "Gemini", "Bedrock"] {
        assert!(front.contains(family), "the front page does not name {family}");
    }
}

/// The features a crate's manifest declares.
fn features_of(manifest: &str) -> Vec<String> {
    let text = std::fs::read_to_string(repository().join(manifest)).unwrap();
    let section = text.split("[features]").nth(1).unwrap_or_default();
    let section = section.split("\n[").next().unwrap_or_default();
    section.lines().filter_map(|l| l.split_once(" = ").map(|(name, _)| name.trim().to_string())).collect()
}

/// Issue 31: every feature the "Add golem to your project" page asks for
/// exists in the crate it names, so its blocks can be copied as they are.
#[test]
fn the_dependency_blocks_name_real_features() {
    let page = std::fs::read_to_string(repository().join("docs/guides/add-golem.md")).unwrap();
    let io = features_of("golem-io/Cargo.toml");
    let providers = features_of("golem-providers/Cargo.toml");
    let mut checked = 0;
    for line in page.lines().filter(|l| l.starts_with("golem-") && l.contains(" = ")) {
        let (krate, spec) = line.split_once(" = ").expect("a dependency line");
        let known = match krate {
            "golem-io" => &io,
            "golem-providers" => &providers,
            other => panic!("the page names a crate users do not add: {other}"),
        };
        if let Some(list) = spec.split("features = [").nth(1) {
            for feature in list.split(']').next().unwrap().split(',') {
                let feature = feature.trim().trim_matches('"');
                assert!(known.iter().any(|k| k == feature), "{krate} has no feature {feature:?}: {line}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "the page's feature lists were not found ({checked})");
}
